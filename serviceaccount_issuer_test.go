package fakeplane_test

import (
	"encoding/base64"
	"encoding/json"
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
