package fakeplane_test

import (
	"net/http"
	"testing"

	"k8s.io/client-go/rest"

	"github.com/fakeplane/fakeplane"
)

// TestCORSAndHSTSHeadersAsKubeAPIServer: with kube-apiserver's
// --cors-allowed-origins and --strict-transport-security-directives, the
// answers carry the headers kube-apiserver v1.37.2 gave (recorded with
// curl): a preflight from an allowed origin is answered 204 without
// credentials, another origin gets no CORS header, every answer HSTS.
func TestCORSAndHSTSHeadersAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithCORSAllowedOrigins(`//example\.com(:|$)`, `^https://ui\.local$`),
		fakeplane.WithStrictTransportSecurityDirectives("max-age=31536000", "includeSubDomains"))
	// A client without credentials, trusting the server.
	anonymous, err := rest.HTTPClientFor(&rest.Config{Host: cp.URL(), TLSClientConfig: rest.TLSClientConfig{CAData: cp.RESTConfig().CAData}})
	if err != nil {
		t.Fatal(err)
	}
	do := func(method, path, origin string) *http.Response {
		t.Helper()
		req, err := http.NewRequestWithContext(ctxT(t), method, cp.URL()+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Origin", origin)
		resp, err := anonymous.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	cors := map[string]string{
		"Access-Control-Allow-Credentials": "true",
		"Access-Control-Allow-Headers":     "Content-Type, Content-Length, Accept-Encoding, X-CSRF-Token, Authorization, X-Requested-With, If-Modified-Since",
		"Access-Control-Allow-Methods":     "POST, GET, OPTIONS, PUT, DELETE, PATCH",
		"Access-Control-Expose-Headers":    "Date",
	}
	const hsts = "max-age=31536000; includeSubDomains"

	resp := do("OPTIONS", "/api/v1/namespaces", "https://example.com")
	if resp.StatusCode != http.StatusNoContent || resp.Header.Get("Access-Control-Allow-Origin") != "https://example.com" || resp.Header.Get("Strict-Transport-Security") != hsts {
		t.Errorf("preflight: %d %v", resp.StatusCode, resp.Header)
	}
	for k, v := range cors {
		if got := resp.Header.Get(k); got != v {
			t.Errorf("preflight: %s %q, want %q", k, got, v)
		}
	}
	resp = do("GET", "/api/v1/namespaces", "https://ui.local")
	if resp.StatusCode != http.StatusForbidden || resp.Header.Get("Access-Control-Allow-Origin") != "https://ui.local" {
		t.Errorf("anonymous GET from an allowed origin: %d %v, want 403 with CORS headers", resp.StatusCode, resp.Header)
	}
	resp = do("GET", "/version", "https://evil.com")
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Access-Control-Allow-Origin") != "" || resp.Header.Get("Strict-Transport-Security") != hsts {
		t.Errorf("another origin: %d %v, want 200 with HSTS and no CORS header", resp.StatusCode, resp.Header)
	}
}
