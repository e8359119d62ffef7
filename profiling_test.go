package fakeplane_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/rest"

	"github.com/fakeplane/fakeplane"
)

// The debug endpoints answer as kube-apiserver v1.37.2's did with
// --profiling (the default), recorded on refplane with curl: Go's profiles
// under /debug/pprof/ (no cmdline), klog's verbosity at /debug/flags/v, a
// DELETE resetting the metrics; with --profiling=false none of it.
func TestProfilingEndpointsAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	type answer struct {
		code        int
		contentType string
		prefix      string // of the body
		location    string
	}
	const flagsIndex = "<html>\n<head>\n<title>/debug/flags/</title>\n</head>\n<body>\n/debug/flags/<br>\n<br>\nflags:<br>\n<table>\n<tr>v<br>\n</table>"
	notFound := answer{code: 404}
	for _, tc := range []struct {
		name string
		opts []fakeplane.Option
		want map[string]answer // "METHOD path[ body]"
	}{
		{name: "profiling", want: map[string]answer{
			"GET /debug/pprof":              {code: 302, location: "/debug/pprof/"},
			"GET /debug/pprof/":             {code: 200, contentType: "text/html; charset=utf-8", prefix: "<html>"},
			"GET /debug/pprof/heap?debug=1": {code: 200, contentType: "text/plain; charset=utf-8", prefix: "heap profile: "},
			"GET /debug/pprof/symbol":       {code: 200, contentType: "text/plain; charset=utf-8", prefix: "num_symbols: 1"},
			"GET /debug/pprof/cmdline":      {code: 404, contentType: "text/plain; charset=utf-8", prefix: "Unknown profile"},
			"GET /debug/flags":              {code: 200, contentType: "text/html; charset=utf-8", prefix: flagsIndex},
			"GET /debug/flags/x":            {code: 200, contentType: "text/html; charset=utf-8", prefix: flagsIndex},
			"GET /debug/flags/v":            {code: 406, contentType: "text/plain", prefix: "unsupported http method\n"},
			"PUT /debug/flags/v x":          {code: 400, contentType: "text/plain", prefix: "strconv.ParseUint: parsing \"x\": invalid syntax\n"},
			"PUT /debug/flags/v -1":         {code: 400, contentType: "text/plain", prefix: "strconv.ParseUint: parsing \"-1\": invalid syntax\n"},
			"PUT /debug/flags/v 0":          {code: 200, contentType: "text/plain", prefix: "successfully set klog.logging.verbosity to 0\n"},
			"DELETE /metrics":               {code: 200, prefix: "metrics reset\n"},
			"DELETE /metrics/slis":          {code: 200, prefix: "metrics reset\n"},
			"GET /debug/pprofx":             notFound,
		}},
		{name: "no profiling", opts: []fakeplane.Option{fakeplane.WithProfiling(false)}, want: map[string]answer{
			"GET /debug/pprof/":     notFound,
			"GET /debug/flags/":     notFound,
			"PUT /debug/flags/v 0":  notFound,
			"DELETE /metrics":       {code: 200, prefix: "# HELP "},
			"DELETE /metrics/slis":  {code: 200, prefix: "# HELP "},
			"GET /debug/pprof/heap": notFound,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cp := fakeplane.Start(t, tc.opts...)
			hc, err := rest.HTTPClientFor(cp.RESTConfig())
			if err != nil {
				t.Fatal(err)
			}
			hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
			for req, want := range tc.want {
				method, rest, _ := strings.Cut(req, " ")
				path, body, _ := strings.Cut(rest, " ")
				r, err := http.NewRequestWithContext(ctxT(t), method, cp.URL()+path, strings.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				resp, err := hc.Do(r)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != want.code || want.contentType != "" && resp.Header.Get("Content-Type") != want.contentType ||
					!strings.HasPrefix(string(b), want.prefix) || resp.Header.Get("Location") != want.location {
					t.Errorf("%s: %d %q %q %.80q, want %+v", req, resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Location"), b, want)
				}
			}
			anonymous, err := rest.HTTPClientFor(&rest.Config{Host: cp.URL(), TLSClientConfig: rest.TLSClientConfig{CAData: cp.RESTConfig().CAData}})
			if err != nil {
				t.Fatal(err)
			}
			resp, err := anonymous.Get(cp.URL() + "/debug/pprof/")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusForbidden {
				t.Errorf("anonymous: %d, want 403", resp.StatusCode)
			}
		})
	}
}

// TestDebugSocketServesProfiles serves the debug endpoints on a Unix
// socket (--debug-socket-path), without credentials and with profiling
// off on the HTTPS port, as kube-apiserver's socket (upstream's
// routes.DebugSocket): the pprof index, cmdline (which the HTTPS port does
// not register), the flags page; nothing else. Stop removes the socket.
func TestDebugSocketServesProfiles(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "debug.sock")
	if err := os.WriteFile(path, []byte("left over"), 0o600); err != nil {
		t.Fatal(err)
	}
	cp, err := fakeplane.New(fakeplane.WithDebugSocketPath(path), fakeplane.WithProfiling(false))
	if err != nil {
		t.Fatal(err)
	}
	if err := cp.Start(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cp.Stop() })
	tr := &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", path)
	}}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	for _, tc := range []struct {
		path string
		code int
		body string
	}{
		{"/debug/pprof/", http.StatusOK, "Types of profiles available"},
		{"/debug/pprof/cmdline", http.StatusOK, ""},
		{"/debug/flags/", http.StatusOK, "<title>/debug/flags/</title>"},
		{"/debug/flags/v", http.StatusNotAcceptable, "unsupported http method"},
		{"/api", http.StatusNotFound, "404 page not found"},
	} {
		resp, err := client.Get("http://debug" + tc.path)
		if err != nil {
			t.Fatalf("GET %s over the socket: %v", tc.path, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.code || !strings.Contains(string(body), tc.body) {
			t.Errorf("GET %s over the socket: %d %.80q, want %d with %q", tc.path, resp.StatusCode, body, tc.code, tc.body)
		}
	}
	if a := getRaw(t, cp, "/debug/pprof/", nil); a.code != http.StatusNotFound {
		t.Errorf("GET /debug/pprof/ over HTTPS with profiling off: %d, want 404", a.code)
	}
	tr.CloseIdleConnections()
	if err := cp.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the socket after Stop: %v, want it removed", err)
	}
}
