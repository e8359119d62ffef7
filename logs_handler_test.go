package fakeplane_test

import (
	"net/http"
	"os"
	"strings"
	"testing"

	"k8s.io/client-go/rest"

	"github.com/fakeplane/fakeplane"
)

// TestLogsHandlerServesVarLog checks --enable-logs-handler against
// kube-apiserver's (recorded on refplane with the flag): /logs/ lists the
// host's /var/log, /logs redirects there, a file is served, a missing one
// is the file server's 404, other methods are the route's 405 Status, and
// "/" and /statusz list /logs; without the flag /logs/ is 404 and not
// listed.
func TestLogsHandlerServesVarLog(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithLogsHandler())
	code, hdr, body := rawExchange(t, cp, http.MethodGet, "/logs/", "", nil, nil)
	entries, err := os.ReadDir("/var/log")
	switch {
	case err != nil:
		// A host without /var/log: the file server's 404.
		if code != http.StatusNotFound {
			t.Errorf("GET /logs/ without /var/log (%v): %d, want 404", err, code)
		}
	case len(entries) > 0:
		if first := entries[0].Name(); code != http.StatusOK || hdr.Get("Content-Type") != "text/html; charset=utf-8" || !strings.Contains(string(body), `<a href="`+first) {
			t.Errorf("GET /logs/: %d %s %.200q, want the listing of /var/log with %s", code, hdr.Get("Content-Type"), body, first)
		}
	}
	for _, e := range entries {
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() {
			want, err := os.ReadFile("/var/log/" + e.Name())
			if err != nil {
				continue // not readable here: nothing to compare
			}
			code, _, body := rawExchange(t, cp, http.MethodGet, "/logs/"+e.Name(), "", nil, nil)
			if code != http.StatusOK || string(body) != string(want) {
				t.Errorf("GET /logs/%s: %d, %d bytes; want the file's %d", e.Name(), code, len(body), len(want))
			}
			break
		}
	}
	if code, _, body := rawExchange(t, cp, http.MethodGet, "/logs/no-such-file", "", nil, nil); code != http.StatusNotFound || string(body) != "404 page not found\n" {
		t.Errorf("GET /logs/no-such-file: %d %q", code, body)
	}
	if code, _, body := rawExchange(t, cp, http.MethodPost, "/logs/", "", nil, nil); code != http.StatusMethodNotAllowed || !strings.Contains(string(body), `"reason":"MethodNotAllowed"`) {
		t.Errorf("POST /logs/: %d %s", code, body)
	}
	hc, err := rest.HTTPClientFor(cp.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := hc.Get(cp.URL() + "/logs")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != "logs/" {
		t.Errorf("GET /logs: %d Location %q, want 301 logs/", resp.StatusCode, resp.Header.Get("Location"))
	}
	for _, path := range []string{"/", "/statusz"} {
		if _, _, body := rawExchange(t, cp, http.MethodGet, path, "", nil, nil); !strings.Contains(string(body), "/logs") {
			t.Errorf("GET %s does not list /logs", path)
		}
	}

	off := fakeplane.Start(t)
	if code, _, _ := rawExchange(t, off, http.MethodGet, "/logs/", "", nil, nil); code != http.StatusNotFound {
		t.Errorf("GET /logs/ without the handler: %d, want 404", code)
	}
	if _, _, body := rawExchange(t, off, http.MethodGet, "/", "", nil, nil); strings.Contains(string(body), "/logs") {
		t.Error("/ lists /logs without the handler")
	}
}
