package server

import (
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestHealthEndpoints checks /healthz, /livez and /readyz against what
// kube-apiserver's healthz handlers answer.
func TestHealthEndpoints(t *testing.T) {
	verbose := func(ep string, checks []string) string {
		var b strings.Builder
		for _, c := range checks {
			b.WriteString("[+]" + c + " ok\n")
		}
		return b.String() + ep + " check passed\n"
	}
	excluded := func(ep string, checks []string, ex string, warn string) string {
		var b strings.Builder
		for _, c := range checks {
			if c == ex {
				b.WriteString("[+]" + c + " excluded: ok\n")
				continue
			}
			b.WriteString("[+]" + c + " ok\n")
		}
		return b.String() + warn + ep + " check passed\n"
	}
	const (
		text    = "text/plain; charset=utf-8"
		nosniff = "nosniff"
	)
	withoutProxyCert := func(checks []string) []string {
		var out []string
		for _, c := range checks {
			if c != "poststarthook/aggregator-reload-proxy-client-cert" {
				out = append(out, c)
			}
		}
		if len(out) != len(checks)-1 {
			t.Fatalf("the aggregator's proxy client certificate hook is not among %v", checks)
		}
		return out
	}
	for _, tc := range []struct {
		name, url   string
		noProxyCert bool // the server has no proxy client certificate
		code        int
		ctype, body string
		sniff       string // X-Content-Type-Options
	}{
		{"healthz answers ok", "/healthz", false, 200, text, "ok", nosniff},
		{"livez answers ok", "/livez", false, 200, text, "ok", nosniff},
		{"readyz answers ok", "/readyz", false, 200, text, "ok", nosniff},
		{"healthz lists the livez checks", "/healthz?verbose", false, 200, text, verbose("healthz", livezChecks), nosniff},
		{"livez lists its checks", "/livez?verbose", false, 200, text, verbose("livez", livezChecks), nosniff},
		{"readyz lists its checks", "/readyz?verbose=1", false, 200, text, verbose("readyz", readyzChecks), nosniff},
		{"exclude marks a check", "/readyz?verbose&exclude=etcd", false, 200, text, excluded("readyz", readyzChecks, "etcd", ""), nosniff},
		{"exclude of an unknown check warns", "/livez?verbose&exclude=nope", false, 200, text, excluded("livez", livezChecks, "", `warn: some health checks cannot be excluded: no matches for "nope"`+"\n"), nosniff},
		{"exclude without verbose", "/readyz?exclude=etcd", false, 200, text, "ok", nosniff},
		// A single check's handler sets no header: Go sniffs the type.
		{"a check has its own path", "/livez/ping", false, 200, text, "ok", ""},
		{"a readyz-only check", "/readyz/shutdown", false, 200, text, "ok", ""},
		{"a post-start hook", "/healthz/poststarthook/rbac/bootstrap-roles", false, 200, text, "ok", ""},
		{"a readyz check is not a livez check", "/livez/shutdown", false, 404, text, "404 page not found", nosniff},
		{"an unknown check is the mux's plain 404", "/healthz/nope", false, 404, text, "404 page not found", nosniff},
		// kube-aggregator adds the hook with a proxy client certificate
		// only (--proxy-client-cert-file).
		{"the proxy client certificate hook has its path", "/readyz/poststarthook/aggregator-reload-proxy-client-cert", false, 200, text, "ok", ""},
		{"without a proxy client certificate, no hook", "/readyz/poststarthook/aggregator-reload-proxy-client-cert", true, 404, text, "404 page not found", nosniff},
		{"without a proxy client certificate, healthz lists no hook", "/healthz?verbose", true, 200, text, verbose("healthz", withoutProxyCert(livezChecks)), nosniff},
		{"without a proxy client certificate, readyz lists no hook", "/readyz?verbose", true, 200, text, verbose("readyz", withoutProxyCert(readyzChecks)), nosniff},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, tc.url, nil)
			w := httptest.NewRecorder()
			s := &Server{cfg: Config{ProxyClientCertificate: &tls.Certificate{}}}
			if tc.noProxyCert {
				s = &Server{}
			}
			s.serveHealth(w, r, r.URL.Path)
			body := w.Body.String()
			if w.Code != tc.code || w.Header().Get("Content-Type") != tc.ctype || w.Header().Get("X-Content-Type-Options") != tc.sniff {
				t.Errorf("GET %s: %d %q %q, want %d %q %q", tc.url, w.Code, w.Header().Get("Content-Type"), w.Header().Get("X-Content-Type-Options"), tc.code, tc.ctype, tc.sniff)
			}
			if tc.code == 200 && body != tc.body || tc.code != 200 && !strings.Contains(body, tc.body) {
				t.Errorf("GET %s body:\n%s\nwant:\n%s", tc.url, body, tc.body)
			}
		})
	}
}
