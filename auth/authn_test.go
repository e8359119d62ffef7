package auth

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/fakeplane/fakeplane/auth/cafile"
	"github.com/fakeplane/fakeplane/internal/pki"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/user"
)

// chainFixture holds the CAs, certificates and tokens the authenticator
// chain tests use.
type chainFixture struct {
	clientCA, proxyCA             *pki.CA
	aliceCert, proxyCert, badCert *x509.Certificate
	strangerCert                  *x509.Certificate
	sa                            *ServiceAccountTokens
	saToken                       string
}

func newChainFixture(t *testing.T) *chainFixture {
	t.Helper()
	f := &chainFixture{}
	var err error
	if f.clientCA, err = pki.NewCA("kubernetes"); err != nil {
		t.Fatal(err)
	}
	if f.proxyCA, err = pki.NewCA("front-proxy-ca"); err != nil {
		t.Fatal(err)
	}
	other, err := pki.NewCA("other")
	if err != nil {
		t.Fatal(err)
	}
	f.aliceCert = leaf(t, f.clientCA, "alice", "dev", "ops")
	f.proxyCert = leaf(t, f.proxyCA, "front-proxy-client")
	f.badCert = leaf(t, f.proxyCA, "evil-proxy")
	f.strangerCert = leaf(t, other, "mallory", "system:masters")

	g := newFakeGetter()
	sa := g.addSA("ns1", "robot", "sa-uid-1")
	f.sa, err = NewServiceAccountTokens(nil, g)
	if err != nil {
		t.Fatal(err)
	}
	if f.saToken, _, err = f.sa.Issue(sa, nil, 3600, nil); err != nil {
		t.Fatal(err)
	}
	return f
}

func leaf(t *testing.T, ca *pki.CA, cn string, groups ...string) *x509.Certificate {
	t.Helper()
	kp, err := ca.NewClientCert(cn, groups...)
	if err != nil {
		t.Fatal(err)
	}
	c, err := kp.TLSCertificate()
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(c.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	return cert
}

// caSource is the bundle of ca alone.
func caSource(ca *pki.CA) cafile.Source {
	b, err := cafile.Parse("test", ca.CertPEM)
	if err != nil {
		panic(err) // a CA pki made
	}
	return cafile.Static(b)
}

func (f *chainFixture) config(anonymous bool) AuthenticatorConfig {
	return AuthenticatorConfig{
		ClientCA:                  caSource(f.clientCA),
		RequestHeaderCA:           caSource(f.proxyCA),
		RequestHeaderAllowedNames: []string{"front-proxy-client"},
		Tokens: []StaticToken{
			{Token: "static-secret", User: "kubernetes-admin", UID: "admin-uid", Groups: []string{"system:masters"}},
		},
		ServiceAccounts: f.sa,
		Anonymous:       anonymous,
		LoopbackToken:   "loopback-secret",
	}
}

type wantUser struct {
	name   string
	uid    string
	groups []string
	extra  map[string][]string
}

func TestAuthenticatorChain(t *testing.T) {
	f := newChainFixture(t)
	withCert := func(c *x509.Certificate) func(*http.Request) {
		return func(r *http.Request) { r.TLS = &tls.ConnectionState{PeerCertificates: []*x509.Certificate{c}} }
	}
	headers := func(kv ...string) func(*http.Request) {
		return func(r *http.Request) {
			for i := 0; i < len(kv); i += 2 {
				r.Header.Add(kv[i], kv[i+1])
			}
		}
	}
	bearer := func(tok string) func(*http.Request) { return headers("Authorization", "Bearer "+tok) }

	tests := []struct {
		name      string
		anonymous bool
		setup     []func(*http.Request)
		want      *wantUser // nil: not authenticated
		wantErr   string    // non-empty: an error containing this
	}{
		{
			name:  "client certificate: CN is the user, O the groups",
			setup: []func(*http.Request){withCert(f.aliceCert)},
			want:  &wantUser{name: "alice", groups: []string{"dev", "ops", "system:authenticated"}},
		},
		{
			name:  "forged X-Remote-User from a client without the front-proxy certificate is ignored",
			setup: []func(*http.Request){withCert(f.aliceCert), headers("X-Remote-User", "root", "X-Remote-Group", "system:masters")},
			want:  &wantUser{name: "alice", groups: []string{"dev", "ops", "system:authenticated"}},
		},
		{
			name:      "forged X-Remote-User without any certificate is ignored",
			anonymous: true,
			setup:     []func(*http.Request){headers("X-Remote-User", "root", "X-Remote-Group", "system:masters")},
			want:      &wantUser{name: "system:anonymous", groups: []string{"system:unauthenticated"}},
		},
		{
			name: "front-proxy certificate: X-Remote-User, X-Remote-Group and X-Remote-Extra- are honoured",
			setup: []func(*http.Request){withCert(f.proxyCert), headers(
				"X-Remote-User", "bob",
				"X-Remote-Group", "g1", "X-Remote-Group", "g2",
				"X-Remote-Extra-Foo%2fbar", "x", "X-Remote-Extra-Scopes", "a", "X-Remote-Extra-Scopes", "b",
				"X-Remote-Uid", "ignored-by-default",
			)},
			want: &wantUser{name: "bob", groups: []string{"g1", "g2", "system:authenticated"},
				extra: map[string][]string{"foo/bar": {"x"}, "scopes": {"a", "b"}}},
		},
		{
			name:      "front-proxy certificate with a CN not in the allowed names is rejected",
			anonymous: true,
			setup:     []func(*http.Request){withCert(f.badCert), headers("X-Remote-User", "bob")},
			wantErr:   "x509: subject with cn=evil-proxy is not in the allowed list",
		},
		{
			name:      "client certificate from an unknown CA is rejected, not anonymous",
			anonymous: true,
			setup:     []func(*http.Request){withCert(f.strangerCert)},
			wantErr:   "certificate signed by unknown authority",
		},
		{
			name:  "static token",
			setup: []func(*http.Request){bearer("static-secret")},
			want:  &wantUser{name: "kubernetes-admin", uid: "admin-uid", groups: []string{"system:masters", "system:authenticated"}},
		},
		{
			name:  "service-account token",
			setup: []func(*http.Request){bearer(f.saToken)},
			want: &wantUser{name: "system:serviceaccount:ns1:robot", uid: "sa-uid-1",
				groups: []string{"system:serviceaccounts", "system:serviceaccounts:ns1", "system:authenticated"}},
		},
		{
			name: "bearer token as a WebSocket subprotocol",
			setup: []func(*http.Request){headers("Connection", "Upgrade", "Upgrade", "websocket",
				"Sec-WebSocket-Protocol", "v5.channel.k8s.io, base64url.bearer.authorization.k8s.io."+base64.RawURLEncoding.EncodeToString([]byte("static-secret")))},
			want: &wantUser{name: "kubernetes-admin", uid: "admin-uid", groups: []string{"system:masters", "system:authenticated"}},
		},
		{
			name:  "loopback token",
			setup: []func(*http.Request){bearer("loopback-secret")},
			want:  &wantUser{name: "system:apiserver", groups: []string{"system:authenticated", "system:masters"}},
		},
		{
			name:      "anonymous enabled: no credentials is system:anonymous",
			anonymous: true,
			want:      &wantUser{name: "system:anonymous", groups: []string{"system:unauthenticated"}},
		},
		{
			name: "anonymous disabled: no credentials is not authenticated",
		},
		{
			name:      "invalid token is an error even with anonymous enabled",
			anonymous: true,
			setup:     []func(*http.Request){bearer("not-a-token")},
			wantErr:   "invalid bearer token",
		},
		{
			name:    "invalid token is an error with anonymous disabled",
			setup:   []func(*http.Request){bearer("not-a-token")},
			wantErr: "invalid bearer token",
		},
		{
			name:      "client certificate wins over a bad bearer token",
			anonymous: true,
			setup:     []func(*http.Request){withCert(f.aliceCert), bearer("not-a-token")},
			want:      &wantUser{name: "alice", groups: []string{"dev", "ops", "system:authenticated"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := NewAuthenticator(f.config(tt.anonymous))
			r := httptest.NewRequest("GET", "/api", nil)
			for _, s := range tt.setup {
				s(r)
			}
			resp, ok, err := a.AuthenticateRequest(r)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q (ok=%v)", err, tt.wantErr, ok)
				}
				if ok {
					t.Fatalf("authenticated as %v despite the error", resp.User)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if tt.want == nil {
				if ok {
					t.Fatalf("authenticated as %v, want not authenticated", resp.User)
				}
				return
			}
			if !ok {
				t.Fatal("not authenticated")
			}
			checkUser(t, resp.User, tt.want)
		})
	}
}

func checkUser(t *testing.T, u user.Info, want *wantUser) {
	t.Helper()
	if u.GetName() != want.name {
		t.Errorf("name = %q, want %q", u.GetName(), want.name)
	}
	if want.uid != "" && u.GetUID() != want.uid {
		t.Errorf("uid = %q, want %q", u.GetUID(), want.uid)
	}
	if !reflect.DeepEqual(u.GetGroups(), want.groups) {
		t.Errorf("groups = %q, want %q", u.GetGroups(), want.groups)
	}
	for k, v := range want.extra {
		if !reflect.DeepEqual(u.GetExtra()[k], v) {
			t.Errorf("extra[%q] = %q, want %q (all: %v)", k, u.GetExtra()[k], v, u.GetExtra())
		}
	}
}

func TestClientCertificateCredentialID(t *testing.T) {
	f := newChainFixture(t)
	r := httptest.NewRequest("GET", "/api", nil)
	r.TLS = &tls.ConnectionState{PeerCertificates: []*x509.Certificate{f.aliceCert}}
	resp, ok, err := NewAuthenticator(f.config(false)).AuthenticateRequest(r)
	if !ok || err != nil {
		t.Fatalf("ok=%v err=%v", ok, err)
	}
	id := resp.User.GetExtra()[user.CredentialIDKey]
	if len(id) != 1 || !strings.HasPrefix(id[0], "X509SHA256=") {
		t.Fatalf("credential id = %q", id)
	}
}

func TestRequestHeaderAnyCNWhenAllowedNamesEmpty(t *testing.T) {
	f := newChainFixture(t)
	cfg := f.config(false)
	cfg.RequestHeaderAllowedNames = nil
	r := httptest.NewRequest("GET", "/api", nil)
	r.TLS = &tls.ConnectionState{PeerCertificates: []*x509.Certificate{f.badCert}}
	r.Header.Set("X-Remote-User", "carol")
	resp, ok, err := NewAuthenticator(cfg).AuthenticateRequest(r)
	if !ok || err != nil {
		t.Fatalf("ok=%v err=%v", ok, err)
	}
	if resp.User.GetName() != "carol" {
		t.Fatalf("user = %q", resp.User.GetName())
	}
	if r.Header.Get("X-Remote-User") != "" {
		t.Error("X-Remote-User left on the request after it was consumed")
	}
}

func TestStaticTokenAudiences(t *testing.T) {
	f := newChainFixture(t)
	a := NewAuthenticator(f.config(false))
	r := httptest.NewRequest("GET", "/api", nil)
	r.Header.Set("Authorization", "Bearer static-secret")
	r = r.WithContext(authenticator.WithAudiences(r.Context(), authenticator.Audiences{"elsewhere"}))
	if _, ok, _ := a.AuthenticateRequest(r); ok {
		t.Fatal("static token authenticated for a foreign audience")
	}
}

func TestNoAuthenticatorsAnonymous(t *testing.T) {
	for _, anon := range []bool{true, false} {
		resp, ok, err := NewAuthenticator(AuthenticatorConfig{Anonymous: anon}).AuthenticateRequest(httptest.NewRequest("GET", "/", nil))
		if err != nil || ok != anon {
			t.Fatalf("anonymous=%v: ok=%v err=%v", anon, ok, err)
		}
		if anon {
			groups := append([]string(nil), resp.User.GetGroups()...)
			sort.Strings(groups)
			if resp.User.GetName() != user.Anonymous || !reflect.DeepEqual(groups, []string{user.AllUnauthenticated}) {
				t.Fatalf("user = %v", resp.User)
			}
		}
	}
}

// TestTokenReviewErrorText checks the error a TokenReview reports (the
// server authenticates a request carrying only the token, with the
// review's audiences in the context) reads as kube-apiserver's, loopback
// authenticator included.
func TestTokenReviewErrorText(t *testing.T) {
	f := newChainFixture(t)
	a := NewAuthenticator(f.config(true))
	g := f.sa.Getter.(*fakeGetter)
	sa, _ := g.ServiceAccount("ns1", "robot")
	foreign, _, err := f.sa.Issue(sa, []string{"a"}, 3600, nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, token string
		auds        authenticator.Audiences
		wantErr     string
	}{
		{name: "garbage", token: "garbage", wantErr: "invalid bearer token"},
		{name: "wrong audience", token: foreign,
			wantErr: `[invalid bearer token, token audiences ["a"] is invalid for the target audiences ["https://kubernetes.default.svc.cluster.local"]]`},
		{name: "static token for another audience", token: "static-secret", auds: authenticator.Audiences{"x"},
			wantErr: "invalid bearer token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &http.Request{Header: http.Header{}}
			r.Header.Add("Authorization", "Bearer "+tt.token)
			auds := tt.auds
			if auds == nil {
				auds = f.sa.Audiences()
			}
			r = r.WithContext(authenticator.WithAudiences(context.Background(), auds))
			_, ok, err := a.AuthenticateRequest(r)
			if ok || err == nil || err.Error() != tt.wantErr {
				t.Fatalf("ok=%v err=%v, want %q", ok, err, tt.wantErr)
			}
		})
	}
}
