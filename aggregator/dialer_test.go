package aggregator

import (
	"context"
	"encoding/pem"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"

	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
)

func TestProxyDialsExtensionServersWithItsDialer(t *testing.T) {
	backend := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "ok")
	}))
	defer backend.Close()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: backend.Certificate().Raw})
	backendURL, _ := url.Parse(backend.URL)
	var mu sync.Mutex
	var dialed []string
	p := NewProxy(resolverFunc(func(string, string, int32) (*url.URL, error) { return backendURL, nil }), ProxyClientCert{}, slog.New(slog.DiscardHandler))
	defer p.Close()
	p.SetDialer(func(ctx context.Context, network, addr string) (net.Conn, error) {
		mu.Lock()
		dialed = append(dialed, addr)
		mu.Unlock()
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	})
	as := apiService(true, true, ca)
	p.Observe(apiServiceBucket, as.Name, as, nil, false)
	p.backends[gvOf(as)].transport.TLSClientConfig.ServerName = "example.com"
	req := httptest.NewRequest("GET", "/apis/wardle.example.com/v1alpha1", nil)
	req = req.WithContext(apirequest.WithUser(req.Context(), &user.DefaultInfo{Name: "alice"}))
	rec := httptest.NewRecorder()
	p.Handler("wardle.example.com", "v1alpha1").ServeHTTP(rec, req)
	if rec.Code != http.StatusOK || rec.Body.String() != "ok" {
		t.Fatalf("got %d %q", rec.Code, rec.Body.String())
	}
	mu.Lock()
	defer mu.Unlock()
	if len(dialed) != 1 || dialed[0] != backendURL.Host {
		t.Errorf("dialed %v, want [%s]", dialed, backendURL.Host)
	}
}
