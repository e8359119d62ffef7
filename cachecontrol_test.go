package fakeplane_test

import (
	"crypto/tls"
	"net/http"
	"testing"

	"k8s.io/client-go/rest"

	"github.com/fakeplane/fakeplane"
)

// TestEveryAnswerSaysNotToCache checks kube-apiserver's Cache-Control on
// answers of every kind (resources, errors, discovery, health, refusals
// of anonymous and unauthenticated requests): "no-cache, private".
func TestEveryAnswerSaysNotToCache(t *testing.T) {
	cp := fakeplane.Start(t)
	admin, err := rest.HTTPClientFor(cp.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	anonymous := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	for _, tc := range []struct {
		name   string
		client *http.Client
		path   string
		code   int
	}{
		{"list", admin, "/api/v1/namespaces/default/configmaps", 200},
		{"not found", admin, "/api/v1/namespaces/default/configmaps/missing", 404},
		{"discovery", admin, "/apis", 200},
		{"version", admin, "/version", 200},
		{"openapi", admin, "/openapi/v3", 200},
		{"health", anonymous, "/healthz", 200},
		{"readiness", anonymous, "/readyz", 200},
		{"liveness", anonymous, "/livez", 200},
		{"forbidden to anonymous", anonymous, "/api/v1/namespaces", 403},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := tc.client.Get(cp.RESTConfig().Host + tc.path)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.code {
				t.Fatalf("GET %s: %d, want %d", tc.path, resp.StatusCode, tc.code)
			}
			if got := resp.Header.Values("Cache-Control"); len(got) != 1 || got[0] != "no-cache, private" {
				t.Fatalf("GET %s: Cache-Control %q, want [no-cache, private]", tc.path, got)
			}
		})
	}
}
