package server

import (
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
	for _, tc := range []struct {
		name, url   string
		code        int
		ctype, body string
		sniff       string // X-Content-Type-Options
	}{
		{"healthz answers ok", "/healthz", 200, text, "ok", nosniff},
		{"livez answers ok", "/livez", 200, text, "ok", nosniff},
		{"readyz answers ok", "/readyz", 200, text, "ok", nosniff},
		{"healthz lists the livez checks", "/healthz?verbose", 200, text, verbose("healthz", livezChecks), nosniff},
		{"livez lists its checks", "/livez?verbose", 200, text, verbose("livez", livezChecks), nosniff},
		{"readyz lists its checks", "/readyz?verbose=1", 200, text, verbose("readyz", readyzChecks), nosniff},
		{"exclude marks a check", "/readyz?verbose&exclude=etcd", 200, text, excluded("readyz", readyzChecks, "etcd", ""), nosniff},
		{"exclude of an unknown check warns", "/livez?verbose&exclude=nope", 200, text, excluded("livez", livezChecks, "", `warn: some health checks cannot be excluded: no matches for "nope"`+"\n"), nosniff},
		{"exclude without verbose", "/readyz?exclude=etcd", 200, text, "ok", nosniff},
		// A single check's handler sets no header: Go sniffs the type.
		{"a check has its own path", "/livez/ping", 200, text, "ok", ""},
		{"a readyz-only check", "/readyz/shutdown", 200, text, "ok", ""},
		{"a post-start hook", "/healthz/poststarthook/rbac/bootstrap-roles", 200, text, "ok", ""},
		{"a readyz check is not a livez check", "/livez/shutdown", 404, "application/json", `"reason":"NotFound"`, nosniff},
		{"an unknown check is not found", "/healthz/nope", 404, "application/json", `"reason":"NotFound"`, nosniff},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, tc.url, nil)
			w := httptest.NewRecorder()
			(&Server{}).serveHealth(w, r, r.URL.Path)
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
