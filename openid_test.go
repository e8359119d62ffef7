package fakeplane_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"slices"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fakeplane/fakeplane"
)

// TestServiceAccountIssuerDiscovery checks kube-apiserver's OpenID Connect
// discovery of the service-account issuer: a service account (and only an
// authenticated one, by the bootstrap RBAC policy) reads the configuration
// and the key set, with their content types and an hour's caching, and a
// token the API server issued verifies with the published key; the root
// paths list both documents.
func TestServiceAccountIssuerDiscovery(t *testing.T) {
	cp := fakeplane.Start(t)
	client := kubernetesClient(t, cp)
	ctx := context.Background()
	if _, err := client.CoreV1().ServiceAccounts("default").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "relying-party"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	tr, err := client.CoreV1().ServiceAccounts("default").CreateToken(ctx, "relying-party", &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	token := tr.Status.Token
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	get := func(path, bearer string) (*http.Response, []byte) {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, cp.URL()+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if bearer != "" {
			req.Header.Set("Authorization", "Bearer "+bearer)
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, body
	}
	for _, tc := range []struct{ path, contentType string }{
		{"/.well-known/openid-configuration", "application/json"},
		{"/openid/v1/jwks", "application/jwk-set+json"},
	} {
		if resp, _ := get(tc.path, ""); resp.StatusCode != http.StatusForbidden {
			t.Errorf("anonymous GET %s: %d, want 403", tc.path, resp.StatusCode)
		}
		resp, _ := get(tc.path, token)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != tc.contentType || resp.Header.Get("Cache-Control") != "public, max-age=3600" {
			t.Errorf("GET %s: %d, Content-Type %q, Cache-Control %q", tc.path, resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Cache-Control"))
		}
	}

	_, body := get("/.well-known/openid-configuration", token)
	var cfg struct {
		Issuer  string   `json:"issuer"`
		JWKSURI string   `json:"jwks_uri"`
		Algs    []string `json:"id_token_signing_alg_values_supported"`
	}
	if err := json.Unmarshal(body, &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Issuer != "https://kubernetes.default.svc.cluster.local" || cfg.JWKSURI != cp.URL()+"/openid/v1/jwks" || !slices.Equal(cfg.Algs, []string{"ES256"}) {
		t.Fatalf("configuration %s", body)
	}

	// The token's signature verifies with the published key of its kid.
	_, body = get("/openid/v1/jwks", token)
	var set struct {
		Keys []struct{ Kid, Kty, Crv, X, Y string }
	}
	if err := json.Unmarshal(body, &set); err != nil || len(set.Keys) != 1 {
		t.Fatalf("key set %s: %v", body, err)
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("token %q is no JWS", token)
	}
	header, _ := base64.RawURLEncoding.DecodeString(parts[0])
	var h struct{ Alg, Kid string }
	if err := json.Unmarshal(header, &h); err != nil {
		t.Fatal(err)
	}
	k := set.Keys[0]
	if h.Alg != "ES256" || h.Kid != k.Kid || k.Kty != "EC" || k.Crv != "P-256" {
		t.Fatalf("token header %s, key %+v", header, k)
	}
	coord := func(s string) *big.Int {
		b, err := base64.RawURLEncoding.DecodeString(s)
		if err != nil {
			t.Fatal(err)
		}
		return new(big.Int).SetBytes(b)
	}
	pub := &ecdsa.PublicKey{Curve: elliptic.P256(), X: coord(k.X), Y: coord(k.Y)}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil || len(sig) != 64 {
		t.Fatalf("signature: %v (%d bytes)", err, len(sig))
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if !ecdsa.Verify(pub, digest[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		t.Fatal("the token does not verify with the published key")
	}

	body, err = client.Discovery().RESTClient().Get().AbsPath("/").DoRaw(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var root struct{ Paths []string }
	if err := json.Unmarshal(body, &root); err != nil {
		t.Fatal(err)
	}
	if !slices.IsSorted(root.Paths) || !slices.Contains(root.Paths, "/.well-known/openid-configuration") || !slices.Contains(root.Paths, "/openid/v1/jwks") {
		t.Fatalf("root paths %v", root.Paths)
	}
}
