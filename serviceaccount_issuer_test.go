package fakeplane_test

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/fakeplane/fakeplane"
	"github.com/fakeplane/fakeplane/internal/syncbuf"
)

// TestServiceAccountIssuerFlags: --service-account-issuer,
// --service-account-jwks-uri and --service-account-max-token-expiration
// (and --api-audiences' default) as kube-apiserver applies them: tokens
// are issued by the first issuer for the API audiences (every issuer),
// the discovery document names that issuer and the key set's URI, and a
// longer TokenRequest is shortened with upstream's warning.
func TestServiceAccountIssuerFlags(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t,
		fakeplane.WithServiceAccountIssuers("https://issuer.example.com", "https://old.example.com"),
		fakeplane.WithServiceAccountJWKSURI("https://issuer.example.com/keys"),
		fakeplane.WithServiceAccountMaxTokenExpiration(2*time.Hour))
	ctx := ctxT(t)
	admin, warnings := clientWithWarnings(t, cp)
	waitForDefaultServiceAccount(t, cp, "default")
	exp := int64(3 * 3600)
	tr, err := admin.CoreV1().ServiceAccounts("default").CreateToken(ctx, "default",
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &exp}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "requested expiration of 10800 seconds shortened to 7200 seconds"; !slices.Contains(warnings.Messages(), want) {
		t.Errorf("warnings %q, want %q", warnings.Messages(), want)
	}
	if got := *tr.Spec.ExpirationSeconds; got != 7200 {
		t.Errorf("expirationSeconds %d, want 7200", got)
	}
	if !slices.Equal(tr.Spec.Audiences, []string{"https://issuer.example.com", "https://old.example.com"}) {
		t.Errorf("audiences %v, want the issuers", tr.Spec.Audiences)
	}
	claims := tokenClaims(t, tr.Status.Token)
	if claims.Iss != "https://issuer.example.com" || claims.Exp-claims.Iat != 7200 {
		t.Errorf("claims %+v", claims)
	}
	// The token logs in.
	cfg := cp.RESTConfig()
	cfg.CertData, cfg.KeyData, cfg.BearerToken = nil, nil, tr.Status.Token
	ssr, err := kubernetes.NewForConfigOrDie(cfg).AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil || ssr.Status.UserInfo.Username != "system:serviceaccount:default:default" {
		t.Errorf("the token's user: %v %+v", err, ssr)
	}
	body, err := admin.Discovery().RESTClient().Get().AbsPath("/.well-known/openid-configuration").DoRaw(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Issuer  string `json:"issuer"`
		JWKSURI string `json:"jwks_uri"`
	}
	if err := json.Unmarshal(body, &doc); err != nil || doc.Issuer != "https://issuer.example.com" || doc.JWKSURI != "https://issuer.example.com/keys" {
		t.Errorf("discovery document %s (%v)", body, err)
	}
}

// TestServiceAccountFlagsRejectedAsKubeAPIServer: bad service-account
// flags stop the start with kube-apiserver's errors, in its order: the
// longest token and the signing key as it completes its options (each
// alone), then every error of the issuers and the key set's URI, then the
// verification key files as it applies them.
func TestServiceAccountFlagsRejectedAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p224, err := ecdsa.GenerateKey(elliptic.P224(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	p224DER, err := x509.MarshalECPrivateKey(p224)
	if err != nil {
		t.Fatal(err)
	}
	p224File := writeTestFile(t, "p224.key", string(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: p224DER})))
	notAKey := writeTestFile(t, "not-a-key.pem", "hello\n")
	missing := filepath.Join(dir, "missing.key")
	tests := []struct {
		name string
		opts []fakeplane.Option
		want string
	}{
		{name: "a longest token under an hour is told alone",
			opts: []fakeplane.Option{fakeplane.WithServiceAccountMaxTokenExpiration(time.Minute), fakeplane.WithServiceAccountIssuers("https://a", "https://a")},
			want: "the service-account-max-token-expiration must be between 1 hour and 2^32 seconds"},
		{name: "a signing key file that does not exist is told before the issuers",
			opts: []fakeplane.Option{fakeplane.WithServiceAccountSigningKeyFile(missing), fakeplane.WithServiceAccountIssuers("")},
			want: "failed to parse service-account-issuer-key-file: open " + missing + ": no such file or directory"},
		{name: "a signing key file without a private key",
			opts: []fakeplane.Option{fakeplane.WithServiceAccountSigningKeyFile(notAKey)},
			want: "failed to parse service-account-issuer-key-file: error reading private key file " + notAKey + ": data does not contain a valid RSA or ECDSA private key"},
		{name: "a signing key on a curve the token generator does not sign with",
			opts: []fakeplane.Option{fakeplane.WithServiceAccountSigningKeyFile(p224File)},
			want: "failed to build token generator: could not generate signer for ECDSA keypair: unknown private key curve, must be 256, 384, or 521"},
		{name: "every issuer and key set error together",
			opts: []fakeplane.Option{fakeplane.WithServiceAccountIssuers("https://a", "", "https://a", "http://[::1"), fakeplane.WithServiceAccountJWKSURI("http://a/keys")},
			want: `[service-account-issuer should not be an empty string, service-account-issuer "https://a" is already specified, service-account-issuer "http://[::1" contained a ':' but was not a valid URL: parse "http://[::1": missing ']' in host, service-account-jwks-uri requires https scheme, parsed as: http://a/keys]`},
		{name: "a verification key file without keys",
			opts: []fakeplane.Option{fakeplane.WithServiceAccountKeyFiles(notAKey)},
			want: "error reading public key file " + notAKey + ": data does not contain any valid RSA or ECDSA public keys"},
		{name: "a verification key file that does not exist",
			opts: []fakeplane.Option{fakeplane.WithServiceAccountKeyFiles(missing)},
			want: "open " + missing + ": no such file or directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cp, err := fakeplane.New(tt.opts...)
			if err == nil {
				if err = cp.Start(ctxT(t)); err == nil {
					cp.Stop()
				}
			}
			if want := "fakeplane: " + tt.want; err == nil || err.Error() != want {
				t.Errorf("got %v\nwant %s", err, want)
			}
		})
	}
}

// TestServiceAccountSigningAndVerificationKeyFiles: as kube-apiserver with
// --service-account-signing-key-file (an RSA key, kubeadm's sa.key) and
// --service-account-key-file: tokens are RS256 with the key's kid and
// verify with the RSA public key outside the control plane, and the key
// set lists the verification keys as go-jose writes them, in their order,
// a key given twice twice.
func TestServiceAccountSigningAndVerificationKeyFiles(t *testing.T) {
	t.Parallel()
	rsaKey, oldKey := newRSAKey(t), newECKey(t)
	signing := writeTestFile(t, "sa.key", rsaKeyPEM(rsaKey))
	keys := writeTestFile(t, "sa.pub", publicKeyPEM(t, &rsaKey.PublicKey)+publicKeyPEM(t, &oldKey.PublicKey))
	cp := fakeplane.Start(t, fakeplane.WithServiceAccountSigningKeyFile(signing), fakeplane.WithServiceAccountKeyFiles(keys, signing))
	ctx := ctxT(t)
	admin := clientset(t, cp)
	waitForDefaultServiceAccount(t, cp, "default")
	tr, err := admin.CoreV1().ServiceAccounts("default").CreateToken(ctx, "default", &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(tr.Status.Token, ".")
	header, _ := base64.RawURLEncoding.DecodeString(parts[0])
	if want := `{"alg":"RS256","kid":"` + keyID(t, &rsaKey.PublicKey) + `"}`; string(header) != want {
		t.Errorf("header %s, want %s", header, want)
	}
	sig, _ := base64.RawURLEncoding.DecodeString(parts[2])
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if err := rsa.VerifyPKCS1v15(&rsaKey.PublicKey, crypto.SHA256, digest[:], sig); err != nil {
		t.Errorf("the token does not verify with the RSA key: %v", err)
	}
	if claims := tokenClaims(t, tr.Status.Token); claims.Iss != "https://kubernetes.default.svc.cluster.local" {
		t.Errorf("issuer %q", claims.Iss)
	}

	body, err := admin.Discovery().RESTClient().Get().AbsPath("/openid/v1/jwks").DoRaw(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b64 := base64.RawURLEncoding.EncodeToString
	rsaJWK := `{"use":"sig","kty":"RSA","kid":"` + keyID(t, &rsaKey.PublicKey) + `","alg":"RS256","n":"` + b64(rsaKey.N.Bytes()) + `","e":"AQAB"}`
	ecJWK := `{"use":"sig","kty":"EC","kid":"` + keyID(t, &oldKey.PublicKey) + `","crv":"P-256","alg":"ES256","x":"` + b64(oldKey.X.FillBytes(make([]byte, 32))) + `","y":"` + b64(oldKey.Y.FillBytes(make([]byte, 32))) + `"}`
	if want := `{"keys":[` + rsaJWK + `,` + ecJWK + `,` + rsaJWK + `]}`; string(body) != want {
		t.Errorf("key set\n got %s\nwant %s", body, want)
	}
	body, err = admin.Discovery().RESTClient().Get().AbsPath("/.well-known/openid-configuration").DoRaw(ctx)
	if err != nil || !strings.Contains(string(body), `"id_token_signing_alg_values_supported":["ES256","RS256"]`) {
		t.Errorf("discovery document %s (%v)", body, err)
	}
}

// TestServiceAccountTokensOfEveryIssuerAndKeyAreAccepted: a TokenReview
// accepts tokens of any configured issuer signed by any verification key,
// for any of the API audiences (by default the issuers), as kube-apiserver
// does, and no other.
func TestServiceAccountTokensOfEveryIssuerAndKeyAreAccepted(t *testing.T) {
	t.Parallel()
	rsaKey, oldKey, strangerKey := newRSAKey(t), newECKey(t), newECKey(t)
	signing := writeTestFile(t, "sa.key", rsaKeyPEM(rsaKey))
	keys := writeTestFile(t, "sa.pub", publicKeyPEM(t, &rsaKey.PublicKey)+publicKeyPEM(t, &oldKey.PublicKey))
	cp := fakeplane.Start(t, fakeplane.WithServiceAccountSigningKeyFile(signing), fakeplane.WithServiceAccountKeyFiles(keys),
		fakeplane.WithServiceAccountIssuers("https://new.example", "https://old.example"))
	ctx := ctxT(t)
	admin := clientset(t, cp)
	waitForDefaultServiceAccount(t, cp, "default")
	tr, err := admin.CoreV1().ServiceAccounts("default").CreateToken(ctx, "default", &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(tr.Spec.Audiences, []string{"https://new.example", "https://old.example"}) {
		t.Errorf("audiences %v, want the issuers", tr.Spec.Audiences)
	}
	tests := []struct {
		name          string
		iss           string
		aud           []string
		key           crypto.Signer
		authenticated bool
	}{
		{name: "the first issuer's, signed by the signing key", iss: "https://new.example", key: rsaKey, authenticated: true},
		{name: "the second issuer's, signed by an earlier key", iss: "https://old.example", aud: []string{"https://old.example"}, key: oldKey, authenticated: true},
		{name: "the first issuer's, signed by an earlier key", iss: "https://new.example", key: oldKey, authenticated: true},
		{name: "an unknown issuer's", iss: "https://stranger.example", key: rsaKey},
		{name: "signed by a key no key file lists", iss: "https://new.example", key: strangerKey},
		{name: "for an audience the API server is not", iss: "https://new.example", aud: []string{"vault"}, key: rsaKey},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			token := resign(t, tr.Status.Token, tt.key, func(claims map[string]any) {
				claims["iss"] = tt.iss
				if tt.aud != nil {
					claims["aud"] = tt.aud
				}
			})
			review, err := admin.AuthenticationV1().TokenReviews().Create(ctx, &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: token}}, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if review.Status.Authenticated != tt.authenticated {
				t.Fatalf("authenticated %v, want %v (%+v)", review.Status.Authenticated, tt.authenticated, review.Status)
			}
			if tt.authenticated && review.Status.User.Username != "system:serviceaccount:default:default" {
				t.Errorf("user %+v", review.Status.User)
			}
		})
	}
}

// TestServiceAccountIssuerDiscoveryNeedsAnHTTPSIssuer: kube-apiserver
// accepts an issuer that is not a URL (or not https), issues tokens with
// it, but does not serve the discovery documents (404) nor list them at
// "/", and logs why; the ServiceAccountConfig helper still works.
func TestServiceAccountIssuerDiscoveryNeedsAnHTTPSIssuer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		issuer, wantLog string
	}{
		{"api", "issuer URL must use https scheme, got: api"},
		{"http://issuer.example", "issuer URL must use https scheme, got: http://issuer.example"},
		{"https://issuer.example?cluster=a", "issuer URL may not include a query, got: https://issuer.example?cluster=a"},
	}
	for _, tt := range tests {
		t.Run(tt.issuer, func(t *testing.T) {
			t.Parallel()
			var logs syncbuf.Buffer
			cp := fakeplane.Start(t, fakeplane.WithServiceAccountIssuers(tt.issuer), fakeplane.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
			want := "Could not construct pre-rendered responses for ServiceAccountIssuerDiscovery endpoints. Endpoints will not be enabled. Error: " + tt.wantLog
			if !strings.Contains(logs.String(), want) {
				t.Errorf("logs do not say %q:\n%s", want, logs.String())
			}
			waitForDefaultServiceAccount(t, cp, "default")
			saCfg, err := cp.ServiceAccountConfig("default", "default")
			if err != nil {
				t.Fatal(err)
			}
			if claims := tokenClaims(t, saCfg.BearerToken); claims.Iss != tt.issuer || !slices.Equal(claims.Aud, []string{tt.issuer}) {
				t.Errorf("claims %+v, want the issuer as iss and aud", claims)
			}
			ctx := ctxT(t)
			ssr, err := kubernetes.NewForConfigOrDie(saCfg).AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
			if err != nil || ssr.Status.UserInfo.Username != "system:serviceaccount:default:default" {
				t.Errorf("the token's user: %v %+v", err, ssr)
			}
			hc, err := rest.HTTPClientFor(cp.RESTConfig())
			if err != nil {
				t.Fatal(err)
			}
			for _, path := range []string{"/.well-known/openid-configuration", "/openid/v1/jwks"} {
				resp, err := hc.Get(cp.URL() + path)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusNotFound || string(body) != "404 page not found\n" {
					t.Errorf("GET %s: %d %q, want kube-apiserver's 404", path, resp.StatusCode, body)
				}
			}
			body, err := clientset(t, cp).Discovery().RESTClient().Get().AbsPath("/").DoRaw(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var root struct{ Paths []string }
			if err := json.Unmarshal(body, &root); err != nil {
				t.Fatal(err)
			}
			if slices.Contains(root.Paths, "/.well-known/openid-configuration") || slices.Contains(root.Paths, "/openid/v1/jwks") || !slices.Contains(root.Paths, "/api") {
				t.Errorf("root paths %v", root.Paths)
			}
		})
	}
}

// TestServiceAccountExtendTokenExpiration: as kube-apiserver's
// --service-account-extend-token-expiration (default true), a pod-bound
// token requested for 3607 seconds (what kubelets ask for) for the API
// audiences is valid for a year, with kubernetes.io.warnafter at the time
// asked, even past --service-account-max-token-expiration, unless the
// maximum shortens the request; the TokenRequest reports the time asked
// for. With false it is valid for the time asked.
func TestServiceAccountExtendTokenExpiration(t *testing.T) {
	t.Parallel()
	const year = 365 * 24 * 3600
	tests := []struct {
		name         string
		opts         []fakeplane.Option
		wantLifetime int64
		wantWarn     bool
		wantSeconds  int64
	}{
		{name: "extended by default", wantLifetime: year, wantWarn: true, wantSeconds: 3607},
		{name: "extended past the longest token", opts: []fakeplane.Option{fakeplane.WithServiceAccountMaxTokenExpiration(2 * time.Hour)}, wantLifetime: year, wantWarn: true, wantSeconds: 3607},
		{name: "not extended once the longest token shortens the request", opts: []fakeplane.Option{fakeplane.WithServiceAccountMaxTokenExpiration(time.Hour)}, wantLifetime: 3600, wantSeconds: 3600},
		{name: "not extended when turned off", opts: []fakeplane.Option{fakeplane.WithServiceAccountExtendTokenExpiration(false)}, wantLifetime: 3607, wantSeconds: 3607},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cp := fakeplane.Start(t, tt.opts...)
			ctx := ctxT(t)
			admin := clientset(t, cp)
			waitForDefaultServiceAccount(t, cp, "default")
			pod, err := admin.CoreV1().Pods("default").Create(ctx, &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: "kubelet-client"},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}},
			}, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			exp := int64(3607)
			tr, err := admin.CoreV1().ServiceAccounts("default").CreateToken(ctx, "default", &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{
				ExpirationSeconds: &exp,
				BoundObjectRef:    &authenticationv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: pod.Name, UID: pod.UID},
			}}, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			claims := tokenClaims(t, tr.Status.Token)
			if got := claims.Exp - claims.Iat; got != tt.wantLifetime {
				t.Errorf("lifetime %ds, want %ds", got, tt.wantLifetime)
			}
			if got := claims.Kubernetes.WarnAfter; (got != 0) != tt.wantWarn || (tt.wantWarn && got != claims.Iat+3607) {
				t.Errorf("warnafter %d (iat %d), want it set: %v", got, claims.Iat, tt.wantWarn)
			}
			if got := *tr.Spec.ExpirationSeconds; got != tt.wantSeconds {
				t.Errorf("expirationSeconds %d, want %d", got, tt.wantSeconds)
			}
			if got := tr.Status.ExpirationTimestamp.Unix() - claims.Iat; got < tt.wantSeconds-1 || got > tt.wantSeconds+1 {
				t.Errorf("expirationTimestamp %ds after iat, want %d", got, tt.wantSeconds)
			}
		})
	}
}

// TestServiceAccountExpirationWarningsAreLogged: kube-apiserver's start-up
// warnings about a longest token shorter than the extended tokens.
func TestServiceAccountExpirationWarningsAreLogged(t *testing.T) {
	t.Parallel()
	var logs syncbuf.Buffer
	cp, err := fakeplane.New(fakeplane.WithServiceAccountMaxTokenExpiration(time.Hour), fakeplane.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	if err != nil {
		t.Fatal(err)
	}
	if err := cp.Start(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	cp.Stop()
	for _, want := range []string{
		"service-account-extend-token-expiration is true, in order to correctly trigger safe transition logic, service-account-max-token-expiration must be set longer than 3607 seconds (currently 1h0m0s)",
		"service-account-extend-token-expiration is true, enabling tokens valid up to 31536000 seconds, which is longer than service-account-max-token-expiration set to 1h0m0s",
	} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("logs do not say %q", want)
		}
	}
}

// saTokenClaims are the claims of a bound service-account token the tests
// look at.
type saTokenClaims struct {
	Iss        string
	Aud        []string
	Exp, Iat   int64
	Kubernetes struct {
		WarnAfter int64 `json:"warnafter"`
	} `json:"kubernetes.io"`
}

// tokenClaims decodes a token's claims, without verifying it.
func tokenClaims(t *testing.T, token string) saTokenClaims {
	t.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("token %q is no JWS", token)
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var c saTokenClaims
	if err := json.Unmarshal(payload, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// resign returns token's claims, changed by edit, signed by key as
// kube-apiserver signs (RS256 or ES256, with the key's kid).
func resign(t *testing.T, token string, key crypto.Signer, edit func(map[string]any)) string {
	t.Helper()
	payload, err := base64.RawURLEncoding.DecodeString(strings.Split(token, ".")[1])
	if err != nil {
		t.Fatal(err)
	}
	var claims map[string]any
	if err := json.Unmarshal(payload, &claims); err != nil {
		t.Fatal(err)
	}
	edit(claims)
	if payload, err = json.Marshal(claims); err != nil {
		t.Fatal(err)
	}
	alg := "ES256"
	if _, ok := key.(*rsa.PrivateKey); ok {
		alg = "RS256"
	}
	b64 := base64.RawURLEncoding.EncodeToString
	input := b64([]byte(`{"alg":"`+alg+`","kid":"`+keyID(t, key.Public())+`"}`)) + "." + b64(payload)
	digest := sha256.Sum256([]byte(input))
	var sig []byte
	switch k := key.(type) {
	case *rsa.PrivateKey:
		if sig, err = rsa.SignPKCS1v15(rand.Reader, k, crypto.SHA256, digest[:]); err != nil {
			t.Fatal(err)
		}
	case *ecdsa.PrivateKey:
		r, s, err := ecdsa.Sign(rand.Reader, k, digest[:])
		if err != nil {
			t.Fatal(err)
		}
		sig = append(r.FillBytes(make([]byte, 32)), s.FillBytes(make([]byte, 32))...)
	}
	return input + "." + b64(sig)
}

func newRSAKey(t *testing.T) *rsa.PrivateKey {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func newECKey(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// rsaKeyPEM is key as kubeadm writes sa.key (PKCS #1).
func rsaKeyPEM(key *rsa.PrivateKey) string {
	return string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}))
}

// publicKeyPEM is key as kubeadm writes sa.pub (PKIX).
func publicKeyPEM(t *testing.T, key crypto.PublicKey) string {
	t.Helper()
	der, err := x509.MarshalPKIXPublicKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
}

// keyID is kube-apiserver's kid of key: the unpadded base64url SHA-256 of
// its PKIX DER form.
func keyID(t *testing.T, key crypto.PublicKey) string {
	t.Helper()
	der, err := x509.MarshalPKIXPublicKey(key)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(der)
	return base64.RawURLEncoding.EncodeToString(sum[:])
}
