package fakeplane_test

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/fakeplane/fakeplane"
	"github.com/fakeplane/fakeplane/auth"
)

// oidcIssuer is an OpenID Connect provider for tests: an HTTPS server with
// the discovery document and the keys of one RSA key that signs tokens.
type oidcIssuer struct {
	srv *httptest.Server
	key *rsa.PrivateKey
}

func newOIDCIssuer(t *testing.T) *oidcIssuer {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	iss := &oidcIssuer{key: key}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{
			"issuer": iss.srv.URL, "jwks_uri": iss.srv.URL + "/keys",
			"id_token_signing_alg_values_supported": []string{"RS256"},
		})
	})
	mux.HandleFunc("/keys", func(w http.ResponseWriter, _ *http.Request) {
		b64 := base64.RawURLEncoding.EncodeToString
		_ = json.NewEncoder(w).Encode(map[string]any{"keys": []any{map[string]string{
			"kty": "RSA", "alg": "RS256", "use": "sig", "kid": "k1",
			"n": b64(key.N.Bytes()), "e": b64(big.NewInt(int64(key.E)).Bytes()),
		}}})
	})
	iss.srv = httptest.NewTLSServer(mux)
	t.Cleanup(iss.srv.Close)
	return iss
}

// caPEM is the issuer's serving certificate, as a certificateAuthority.
func (i *oidcIssuer) caPEM() string {
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: i.srv.Certificate().Raw}))
}

// token signs claims (RS256, kid k1), with iss, iat and an exp an hour on
// unless claims set them.
func (i *oidcIssuer) token(t *testing.T, claims map[string]any) string {
	t.Helper()
	all := map[string]any{"iss": i.srv.URL, "iat": time.Now().Unix(), "exp": time.Now().Add(time.Hour).Unix()}
	for k, v := range claims {
		all[k] = v
	}
	header, _ := json.Marshal(map[string]string{"alg": "RS256", "kid": "k1", "typ": "JWT"})
	payload, err := json.Marshal(all)
	if err != nil {
		t.Fatal(err)
	}
	signed := base64.RawURLEncoding.EncodeToString(header) + "." + base64.RawURLEncoding.EncodeToString(payload)
	sum := sha256.Sum256([]byte(signed))
	sig, err := rsa.SignPKCS1v15(rand.Reader, i.key, crypto.SHA256, sum[:])
	if err != nil {
		t.Fatal(err)
	}
	return signed + "." + base64.RawURLEncoding.EncodeToString(sig)
}

// writeAuthenticationConfig writes an AuthenticationConfiguration for a test.
func writeAuthenticationConfig(t *testing.T, yaml string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "authentication.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// indent indents every line of s by n spaces, for a block scalar.
func indent(s string, n int) string {
	pad := strings.Repeat(" ", n)
	return pad + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+pad)
}

// TestAuthenticationConfigJWTAuthenticators: an --authentication-config's
// JWT authenticator logs in the users of an OIDC issuer's tokens, as
// kube-apiserver's (upstream's OIDC authenticator): claim mappings with
// prefixes and CEL, claim and user validation rules, audiences and expiry;
// and its anonymous section limits anonymous requests to its paths.
func TestAuthenticationConfigJWTAuthenticators(t *testing.T) {
	t.Parallel()
	iss := newOIDCIssuer(t)
	path := writeAuthenticationConfig(t, fmt.Sprintf(`apiVersion: apiserver.config.k8s.io/v1
kind: AuthenticationConfiguration
jwt:
- issuer:
    url: %s
    audiences: [fakeplane-test]
    certificateAuthority: |
%s
  claimMappings:
    username: {claim: sub, prefix: "oidc:"}
    groups: {claim: groups, prefix: "oidc:"}
    uid: {expression: "'uid-' + claims.sub"}
    extra:
    - key: example.com/tenant
      valueExpression: claims.tenant
  claimValidationRules:
  - expression: claims.tenant != "blocked"
    message: the tenant is blocked
  userValidationRules:
  - expression: "!user.username.startsWith('oidc:system:')"
    message: no system users
anonymous:
  enabled: true
  conditions:
  - path: /livez
`, iss.srv.URL, indent(iss.caPEM(), 6)))
	cp := fakeplane.Start(t, fakeplane.WithAuthenticationConfigFile(path))
	ctx := ctxT(t)
	as := func(token string) kubernetes.Interface {
		cfg := cp.RESTConfig()
		cfg.CertData, cfg.KeyData, cfg.BearerToken = nil, nil, token
		return kubernetes.NewForConfigOrDie(cfg)
	}
	review := func(ctx context.Context, token string) (authenticationv1.UserInfo, error) {
		r, err := as(token).AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
		if err != nil {
			return authenticationv1.UserInfo{}, err
		}
		return r.Status.UserInfo, nil
	}
	alice := iss.token(t, map[string]any{"sub": "alice", "aud": "fakeplane-test", "groups": []string{"devs", "ops"}, "tenant": "blue"})
	// The authenticator fetches the issuer's keys in the background.
	var u authenticationv1.UserInfo
	eventuallyT(t, "alice logged in", func(ctx context.Context) (bool, error) {
		var err error
		u, err = review(ctx, alice)
		return err == nil, nil
	})
	if u.Username != "oidc:alice" || u.UID != "uid-alice" || !slices.Equal(u.Groups, []string{"oidc:devs", "oidc:ops", "system:authenticated"}) ||
		!slices.Equal(u.Extra["example.com/tenant"], authenticationv1.ExtraValue{"blue"}) {
		t.Errorf("alice is %+v", u)
	}

	refused := map[string]string{
		"another audience":        iss.token(t, map[string]any{"sub": "bob", "aud": "elsewhere", "tenant": "blue"}),
		"expired":                 iss.token(t, map[string]any{"sub": "bob", "aud": "fakeplane-test", "tenant": "blue", "exp": time.Now().Add(-time.Hour).Unix()}),
		"a claim validation rule": iss.token(t, map[string]any{"sub": "bob", "aud": "fakeplane-test", "tenant": "blocked"}),
		"a user validation rule":  iss.token(t, map[string]any{"sub": "system:bob", "aud": "fakeplane-test", "tenant": "blue"}),
		"another signature":       newOIDCIssuer(t).token(t, map[string]any{"iss": iss.srv.URL, "sub": "bob", "aud": "fakeplane-test", "tenant": "blue"}),
	}
	for name, token := range refused {
		if _, err := review(ctx, token); !apierrors.IsUnauthorized(err) {
			t.Errorf("a token refused by %s: want 401, got %v", name, err)
		}
	}

	// Anonymous only where the configuration says.
	anon := cp.RESTConfig()
	anon.CertData, anon.KeyData = nil, nil
	hc := kubernetes.NewForConfigOrDie(anon).Discovery().RESTClient()
	if _, err := hc.Get().AbsPath("/livez").DoRaw(ctx); err != nil {
		t.Errorf("anonymous /livez: %v", err)
	}
	if _, err := hc.Get().AbsPath("/api").DoRaw(ctx); !apierrors.IsUnauthorized(err) {
		t.Errorf("anonymous /api: want 401, got %v", err)
	}
}

// TestAuthenticationConfigErrorsAsKubeAPIServer: a configuration
// kube-apiserver refuses to start with is refused with its error.
func TestAuthenticationConfigErrorsAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, yaml string
		opts       []fakeplane.Option
		want       string
	}{
		{
			name: "an issuer that is not https",
			yaml: "apiVersion: apiserver.config.k8s.io/v1\nkind: AuthenticationConfiguration\njwt:\n- issuer: {url: 'http://example.com', audiences: [a]}\n  claimMappings: {username: {claim: sub, prefix: ''}}\n",
			want: `invalid authentication configuration: jwt[0].issuer.url: Invalid value: "http://example.com": URL scheme must be https`,
		},
		{
			name: "the service-account issuer",
			yaml: "apiVersion: apiserver.config.k8s.io/v1\nkind: AuthenticationConfiguration\njwt:\n- issuer: {url: 'https://kubernetes.default.svc.cluster.local', audiences: [a]}\n  claimMappings: {username: {claim: sub, prefix: ''}}\n",
			want: `invalid authentication configuration: jwt[0].issuer.url: Invalid value: "https://kubernetes.default.svc.cluster.local": URL must not overlap with disallowed issuers: [https://kubernetes.default.svc.cluster.local]`,
		},
		{
			name: "an unknown field",
			yaml: "apiVersion: apiserver.config.k8s.io/v1\nkind: AuthenticationConfiguration\nbogus: 1\n",
			want: `strict decoding error: unknown field "bogus"`,
		},
		{
			name: "anonymous twice",
			yaml: "apiVersion: apiserver.config.k8s.io/v1\nkind: AuthenticationConfiguration\nanonymous: {enabled: false}\n",
			opts: []fakeplane.Option{fakeplane.WithoutAnonymous()},
			want: `anonymous: Forbidden: --anonymous-auth flag cannot be set when anonymous field is configured in authentication configuration file`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeAuthenticationConfig(t, tt.yaml)
			if err := startError(t, append(tt.opts, fakeplane.WithAuthenticationConfigFile(path))...); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v\nwant an error containing %s", err, tt.want)
			}
		})
	}
}

// TestOIDCFlagsAuthenticateAsKubeAPIServer: kube-apiserver's --oidc-* flags
// (WithOIDC) make one JWT authenticator: the user name is the claim
// prefixed by the issuer URL and "#" by default (not for "email", nor with
// the prefix "-"), groups are prefixed, required claims are required.
func TestOIDCFlagsAuthenticateAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	iss := newOIDCIssuer(t)
	caFile := writeTestFile(t, "oidc-ca.pem", iss.caPEM())
	tests := []struct {
		name     string
		flags    auth.OIDCFlags
		claims   map[string]any
		wantUser string
		wantErr  bool
	}{
		{name: "the default prefix is the issuer's",
			flags:    auth.OIDCFlags{GroupsClaim: "groups", GroupsPrefix: "oidc:", RequiredClaims: map[string]string{"tenant": "blue"}},
			claims:   map[string]any{"sub": "alice", "tenant": "blue", "groups": []string{"devs"}},
			wantUser: iss.srv.URL + "#alice"},
		{name: "a required claim missing",
			flags:   auth.OIDCFlags{RequiredClaims: map[string]string{"tenant": "blue"}},
			claims:  map[string]any{"sub": "alice", "tenant": "red"},
			wantErr: true},
		{name: "no prefix for email",
			flags:    auth.OIDCFlags{UsernameClaim: "email"},
			claims:   map[string]any{"sub": "alice", "email": "alice@example.com", "email_verified": true},
			wantUser: "alice@example.com"},
		{name: "the prefix '-' is none",
			flags:    auth.OIDCFlags{UsernamePrefix: "-"},
			claims:   map[string]any{"sub": "alice"},
			wantUser: "alice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := tt.flags
			f.IssuerURL, f.ClientID, f.CAFile = iss.srv.URL, "fakeplane-test", caFile
			cp := fakeplane.Start(t, fakeplane.WithOIDC(f))
			claims := map[string]any{"aud": "fakeplane-test"}
			for k, v := range tt.claims {
				claims[k] = v
			}
			client := func(claims map[string]any) kubernetes.Interface {
				cfg := cp.RESTConfig()
				cfg.CertData, cfg.KeyData, cfg.BearerToken = nil, nil, iss.token(t, claims)
				return kubernetes.NewForConfigOrDie(cfg)
			}
			// The authenticator fetches the issuer's keys in the background:
			// a good token is refused until then.
			good := client(map[string]any{"aud": "fakeplane-test", "sub": "ready", "tenant": "blue", "email": "ready@example.com", "email_verified": true})
			eventuallyT(t, "the issuer's keys", func(ctx context.Context) (bool, error) {
				_, err := good.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
				return err == nil, nil
			})
			got, err := client(claims).AuthenticationV1().SelfSubjectReviews().Create(ctxT(t), &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
			if tt.wantErr {
				if !apierrors.IsUnauthorized(err) {
					t.Errorf("want 401, got %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Status.UserInfo.Username != tt.wantUser {
				t.Errorf("user %+v, want %s", got.Status.UserInfo, tt.wantUser)
			}
			if tt.flags.GroupsClaim != "" && !slices.Contains(got.Status.UserInfo.Groups, "oidc:devs") {
				t.Errorf("groups %v", got.Status.UserInfo.Groups)
			}
		})
	}
	t.Run("flags kube-apiserver refuses", func(t *testing.T) {
		for _, c := range []struct {
			opts []fakeplane.Option
			want string
		}{
			{[]fakeplane.Option{fakeplane.WithOIDC(auth.OIDCFlags{IssuerURL: iss.srv.URL})}, "oidc-issuer-url and oidc-client-id must be specified together when any oidc-* flags are set"},
			{[]fakeplane.Option{fakeplane.WithOIDC(auth.OIDCFlags{IssuerURL: iss.srv.URL, ClientID: "c"}),
				fakeplane.WithAuthenticationConfigFile(writeAuthenticationConfig(t, "apiVersion: apiserver.config.k8s.io/v1\nkind: AuthenticationConfiguration\n"))},
				"authentication-config file and oidc-* flags are mutually exclusive"},
		} {
			if err := startError(t, c.opts...); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want %s", err, c.want)
			}
		}
	})
}
