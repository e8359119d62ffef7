package aggregator

import (
	"context"
	"encoding/pem"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

func TestProxyFetchesDiscoveryAsUpstreamsDiscoveryManager(t *testing.T) {
	const (
		v2Body = `{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","items":[{"metadata":{"name":"wardle.example.com"},"versions":[` +
			`{"version":"v1alpha1","resources":[{"resource":"flunders","responseKind":{"group":"","version":"","kind":"Flunder"},"scope":"Namespaced","singularResource":"flunder","verbs":["get","list"]}]}]}]}`
		legacyBody = `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"wardle.example.com/v1alpha1","resources":[` +
			`{"name":"fischers","singularName":"fischer","namespaced":false,"kind":"Fischer","verbs":["get"]}]}`
	)
	for _, tc := range []struct {
		name string
		// serve answers /apis (Accept v2) and /apis/<group>/<version>.
		serve         http.HandlerFunc
		wantFreshness string
		wantResource  string
		wantErr       string
	}{
		{"aggregated discovery", func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/apis" || r.Header.Get("X-Remote-User") != "system:kube-aggregator" || r.Header.Get("X-Remote-Group") != "system:masters" {
				http.Error(w, "unexpected "+r.URL.Path, http.StatusBadRequest)
				return
			}
			w.Header().Set("Content-Type", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList")
			_, _ = io.WriteString(w, v2Body)
		}, "Current", "flunders", ""},
		{"legacy discovery when /apis is not aggregated", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			if r.URL.Path == "/apis" {
				_, _ = io.WriteString(w, `{"kind":"APIGroupList","groups":[]}`)
				return
			}
			if r.URL.Path != "/apis/wardle.example.com/v1alpha1" || len(r.Header.Values("X-Remote-Group")) != 0 {
				http.Error(w, "unexpected", http.StatusBadRequest)
				return
			}
			_, _ = io.WriteString(w, legacyBody)
		}, "Current", "fischers", ""},
		{"a failing server leaves it stale", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "boom", http.StatusInternalServerError)
		}, "Stale", "", "failed to download legacy discovery for /apis/wardle.example.com/v1alpha1: boom\n"},
		{"a 503 leaves it stale", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "service unavailable", http.StatusServiceUnavailable)
		}, "Stale", "", "service wardle/api returned non-success response code: 503"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			backend := httptest.NewTLSServer(tc.serve)
			defer backend.Close()
			u, _ := url.Parse(backend.URL)
			p := NewProxy(resolverFunc(func(string, string, int32) (*url.URL, error) { return u, nil }), ProxyClientCert{}, slog.New(slog.DiscardHandler))
			defer p.Close()
			as := apiService(true, true, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: backend.Certificate().Raw}))
			p.Observe(apiServiceBucket, as.Name, as, nil, false)
			p.backends[gvOf(as)].transport.TLSClientConfig.ServerName = "example.com"
			err := p.refreshDiscovery(context.Background(), as, u.Host)
			if (err == nil) != (tc.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("refresh: %v, want %q", err, tc.wantErr)
			}
			v := p.Discovery("wardle.example.com", "v1alpha1")
			if string(v.Freshness) != tc.wantFreshness || (tc.wantResource != "" && (len(v.Resources) != 1 || v.Resources[0].Resource != tc.wantResource)) {
				t.Errorf("discovery %+v, want %s %s", v, tc.wantFreshness, tc.wantResource)
			}
		})
	}
}
