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
	"slices"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/fakeplane/fakeplane"
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
	payload, err := base64.RawURLEncoding.DecodeString(strings.Split(tr.Status.Token, ".")[1])
	if err != nil {
		t.Fatal(err)
	}
	var claims struct {
		Iss      string   `json:"iss"`
		Aud      []string `json:"aud"`
		Exp, Iat int64
	}
	if err := json.Unmarshal(payload, &claims); err != nil {
		t.Fatal(err)
	}
	if claims.Iss != "https://issuer.example.com" || claims.Exp-claims.Iat != 7200 {
		t.Errorf("claims %s", payload)
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

func TestServiceAccountIssuerFlagsErrors(t *testing.T) {
	t.Parallel()
	cp, err := fakeplane.New(fakeplane.WithServiceAccountIssuers("https://a", "https://a"), fakeplane.WithServiceAccountMaxTokenExpiration(time.Minute))
	if err == nil {
		if err = cp.Start(ctxT(t)); err == nil {
			cp.Stop()
		}
	}
	want := `[service-account-issuer "https://a" is already specified, the service-account-max-token-expiration must be between 1 hour and 2^32 seconds]`
	if err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("got %v, want %s", err, want)
	}
}

// TestServiceAccountSigningAndVerificationKeyFiles: as kube-apiserver with
// --service-account-signing-key-file (an RSA key, kubeadm's sa.key) and
// --service-account-key-file: tokens are RS256 with the key's kid, the key
// set lists the verification keys as go-jose writes them, and a token an
// earlier key (one of the key files) signed still logs in.
func TestServiceAccountSigningAndVerificationKeyFiles(t *testing.T) {
	t.Parallel()
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	oldKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pubPEM := func(k crypto.PublicKey) string {
		der, err := x509.MarshalPKIXPublicKey(k)
		if err != nil {
			t.Fatal(err)
		}
		return string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
	}
	kid := func(k crypto.PublicKey) string {
		der, _ := x509.MarshalPKIXPublicKey(k)
		sum := sha256.Sum256(der)
		return base64.RawURLEncoding.EncodeToString(sum[:])
	}
	signing := writeTestFile(t, "sa.key", string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(rsaKey)})))
	keys := writeTestFile(t, "sa.pub", pubPEM(&rsaKey.PublicKey)+pubPEM(&oldKey.PublicKey))
	cp := fakeplane.Start(t, fakeplane.WithServiceAccountSigningKeyFile(signing), fakeplane.WithServiceAccountKeyFiles(keys))
	ctx := ctxT(t)
	admin := clientset(t, cp)
	waitForDefaultServiceAccount(t, cp, "default")
	tr, err := admin.CoreV1().ServiceAccounts("default").CreateToken(ctx, "default", &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(tr.Status.Token, ".")
	header, _ := base64.RawURLEncoding.DecodeString(parts[0])
	if want := `{"alg":"RS256","kid":"` + kid(&rsaKey.PublicKey) + `"}`; string(header) != want {
		t.Errorf("header %s, want %s", header, want)
	}
	sig, _ := base64.RawURLEncoding.DecodeString(parts[2])
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if err := rsa.VerifyPKCS1v15(&rsaKey.PublicKey, crypto.SHA256, digest[:], sig); err != nil {
		t.Errorf("the token does not verify with the RSA key: %v", err)
	}

	body, err := admin.Discovery().RESTClient().Get().AbsPath("/openid/v1/jwks").DoRaw(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b64 := base64.RawURLEncoding.EncodeToString
	want := `{"keys":[{"use":"sig","kty":"RSA","kid":"` + kid(&rsaKey.PublicKey) + `","alg":"RS256","n":"` + b64(rsaKey.N.Bytes()) + `","e":"AQAB"},` +
		`{"use":"sig","kty":"EC","kid":"` + kid(&oldKey.PublicKey) + `","crv":"P-256","alg":"ES256","x":"` + b64(oldKey.X.FillBytes(make([]byte, 32))) + `","y":"` + b64(oldKey.Y.FillBytes(make([]byte, 32))) + `"}]}`
	if string(body) != want {
		t.Errorf("key set\n got %s\nwant %s", body, want)
	}
	body, err = admin.Discovery().RESTClient().Get().AbsPath("/.well-known/openid-configuration").DoRaw(ctx)
	if err != nil || !strings.Contains(string(body), `"id_token_signing_alg_values_supported":["ES256","RS256"]`) {
		t.Errorf("discovery document %s (%v)", body, err)
	}

	// The same claims signed by the earlier key.
	oldHeader := b64([]byte(`{"alg":"ES256","kid":"` + kid(&oldKey.PublicKey) + `"}`))
	d := sha256.Sum256([]byte(oldHeader + "." + parts[1]))
	r, s, err := ecdsa.Sign(rand.Reader, oldKey, d[:])
	if err != nil {
		t.Fatal(err)
	}
	oldToken := oldHeader + "." + parts[1] + "." + b64(append(r.FillBytes(make([]byte, 32)), s.FillBytes(make([]byte, 32))...))
	review, err := admin.AuthenticationV1().TokenReviews().Create(ctx, &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: oldToken}}, metav1.CreateOptions{})
	if err != nil || !review.Status.Authenticated || review.Status.User.Username != "system:serviceaccount:default:default" {
		t.Errorf("a token of the earlier key: %v %+v", err, review.Status)
	}
}
