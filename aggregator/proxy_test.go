package aggregator

import (
	"bufio"
	"encoding/pem"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

// resolverFunc is a function as a ServiceResolver.
type resolverFunc func(ns, name string, port int32) (*url.URL, error)

func (f resolverFunc) ResolveEndpoint(ns, name string, port int32) (*url.URL, error) {
	return f(ns, name, port)
}

// apiService returns a remote (with a service) or local APIService for
// wardle.example.com/v1alpha1.
func apiService(remote, available bool, caBundle []byte) *apiregistrationv1.APIService {
	as := &apiregistrationv1.APIService{}
	as.Name = "v1alpha1.wardle.example.com"
	as.Spec = apiregistrationv1.APIServiceSpec{Group: "wardle.example.com", Version: "v1alpha1", GroupPriorityMinimum: 1000, VersionPriority: 15}
	if remote {
		port := int32(443)
		as.Spec.Service = &apiregistrationv1.ServiceReference{Namespace: "wardle", Name: "api", Port: &port}
		as.Spec.CABundle = caBundle
	}
	if available {
		as.Status.Conditions = []apiregistrationv1.APIServiceCondition{{Type: apiregistrationv1.Available, Status: apiregistrationv1.ConditionTrue}}
	}
	return as
}

func TestProxyRoutesRemoteAPIServicesAsUpstream(t *testing.T) {
	backend := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, r.URL.Path+"?"+r.URL.RawQuery+" user="+r.Header.Get("X-Remote-User")+
			" groups="+strings.Join(r.Header.Values("X-Remote-Group"), ",")+
			" extra="+r.Header.Get("X-Remote-Extra-Scopes")+" uid="+r.Header.Get("X-Remote-Uid"))
	}))
	defer backend.Close()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: backend.Certificate().Raw})
	backendURL, _ := url.Parse(backend.URL)
	resolveErr := errors.New("no endpoints available for service \"api\"")

	for _, tc := range []struct {
		name     string
		as       *apiregistrationv1.APIService
		resolve  error
		wantNil  bool
		wantCode int
		wantBody string
	}{
		{name: "a local APIService is served locally", as: apiService(false, true, nil), wantNil: true},
		{name: "an unavailable APIService answers 503", as: apiService(true, false, ca), wantCode: 503, wantBody: "service unavailable\n"},
		{name: "a service without an address answers 503", as: apiService(true, true, ca), resolve: resolveErr, wantCode: 503, wantBody: "service unavailable\n"},
		{name: "a bad caBundle answers 500", as: apiService(true, true, []byte("not PEM")), wantCode: 500},
		{name: "an available APIService is proxied with the caller's identity", as: apiService(true, true, ca), wantCode: 200,
			wantBody: "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders?watch=true user=alice groups=dev,system:authenticated extra=read uid=u-1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := NewProxy(resolverFunc(func(ns, name string, port int32) (*url.URL, error) {
				if ns != "wardle" || name != "api" || port != 443 {
					t.Errorf("resolved %s/%s:%d", ns, name, port)
				}
				return backendURL, tc.resolve
			}), ProxyClientCert{}, slog.New(slog.DiscardHandler))
			defer p.Close()
			// The backend's certificate is for example.com and 127.0.0.1,
			// not wardle's DNS name: verify it for what it is.
			p.Observe(apiServiceBucket, tc.as.Name, tc.as, nil, false)
			if b, ok := p.backends[gvOf(tc.as)]; ok && b.transport != nil {
				b.transport.TLSClientConfig.ServerName = "example.com"
			}
			h := p.Handler("wardle.example.com", "v1alpha1")
			if tc.wantNil {
				if h != nil {
					t.Fatal("a handler for a local APIService")
				}
				return
			}
			if h == nil {
				t.Fatal("no handler for a remote APIService")
			}
			req := httptest.NewRequest("GET", "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders?watch=true", nil)
			req.Header.Set("X-Remote-User", "forged")
			req.Header.Set("X-Remote-Group", "system:masters")
			req = req.WithContext(apirequest.WithUser(req.Context(), &user.DefaultInfo{Name: "alice", UID: "u-1", Groups: []string{"dev", "system:authenticated"}, Extra: map[string][]string{"scopes": {"read"}}}))
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tc.wantCode || (tc.wantBody != "" && rec.Body.String() != tc.wantBody) {
				t.Errorf("got %d %q, want %d %q", rec.Code, rec.Body.String(), tc.wantCode, tc.wantBody)
			}
			p.Observe(apiServiceBucket, tc.as.Name, nil, nil, true)
			if p.Handler("wardle.example.com", "v1alpha1") != nil {
				t.Error("a deleted APIService is still routed")
			}
		})
	}
}

func TestProxyDiscoveryIsStaleUntilFetched(t *testing.T) {
	p := NewProxy(nil, ProxyClientCert{}, slog.New(slog.DiscardHandler))
	as := apiService(true, false, nil)
	p.Observe(apiServiceBucket, as.Name, as, nil, false)
	if v := p.Discovery("wardle.example.com", "v1alpha1"); v.Freshness != "Stale" || v.Version != "v1alpha1" || len(v.Resources) != 0 {
		t.Errorf("discovery before any fetch: %+v", v)
	}
	if got := p.APIServices(); len(got) != 1 || got[0].Name != as.Name {
		t.Errorf("APIServices: %v", got)
	}
}

func TestProxyPassesUpgradedConnections(t *testing.T) {
	backend := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Upgrade") != "test-proto" {
			http.Error(w, "want an upgrade", http.StatusBadRequest)
			return
		}
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		_, _ = io.WriteString(conn, "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: test-proto\r\n\r\n")
		line, _ := buf.ReadString('\n')
		_, _ = io.WriteString(conn, r.Header.Get("X-Remote-User")+" got "+line)
	}))
	defer backend.Close()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: backend.Certificate().Raw})
	backendURL, _ := url.Parse(backend.URL)
	p := NewProxy(resolverFunc(func(string, string, int32) (*url.URL, error) { return backendURL, nil }), ProxyClientCert{}, slog.New(slog.DiscardHandler))
	defer p.Close()
	as := apiService(true, true, ca)
	p.Observe(apiServiceBucket, as.Name, as, nil, false)
	p.backends[gvOf(as)].transport.TLSClientConfig.ServerName = "example.com"
	h := p.Handler("wardle.example.com", "v1alpha1")
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(apirequest.WithUser(r.Context(), &user.DefaultInfo{Name: "alice"})))
	}))
	defer front.Close()

	conn, err := net.Dial("tcp", front.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_, _ = io.WriteString(conn, "GET /apis/wardle.example.com/v1alpha1/namespaces/default/flunders/one/attach HTTP/1.1\r\nHost: x\r\n"+
		"Connection: Upgrade\r\nUpgrade: test-proto\r\nX-Remote-User: forged\r\n\r\n")
	r := bufio.NewReader(conn)
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("upgrade answered %s", resp.Status)
	}
	_, _ = io.WriteString(conn, "ping\n")
	got, _ := r.ReadString('\n')
	if got != "alice got ping\n" {
		t.Errorf("through the upgraded connection: %q, want %q", got, "alice got ping\n")
	}
}

// TestProxyRejectsForwardingRedirects checks kube-aggregator's
// --aggregator-reject-forwarding-redirect: by default an extension
// server's redirect is answered 502 with upstream's message; turned off,
// the client gets the redirect.
func TestProxyRejectsForwardingRedirects(t *testing.T) {
	backend := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://elsewhere.example.com/", http.StatusFound)
	}))
	defer backend.Close()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: backend.Certificate().Raw})
	backendURL, _ := url.Parse(backend.URL)
	for _, tc := range []struct {
		reject   bool
		wantCode int
		wantBody string
		wantLoc  string
	}{
		{true, http.StatusBadGateway, "the backend attempted to redirect this request, which is not permitted", ""},
		{false, http.StatusFound, "", "https://elsewhere.example.com/"},
	} {
		p := NewProxy(resolverFunc(func(string, string, int32) (*url.URL, error) { return backendURL, nil }), ProxyClientCert{}, slog.New(slog.DiscardHandler))
		if !tc.reject {
			p.SetRejectForwardingRedirects(false)
		}
		as := apiService(true, true, ca)
		p.Observe(apiServiceBucket, as.Name, as, nil, false)
		p.backends[gvOf(as)].transport.TLSClientConfig.ServerName = "example.com"
		req := httptest.NewRequest("GET", "/apis/wardle.example.com/v1alpha1/flunders", nil)
		req = req.WithContext(apirequest.WithUser(req.Context(), &user.DefaultInfo{Name: "alice"}))
		rec := httptest.NewRecorder()
		p.Handler("wardle.example.com", "v1alpha1").ServeHTTP(rec, req)
		if rec.Code != tc.wantCode || (tc.wantBody != "" && rec.Body.String() != tc.wantBody) || rec.Header().Get("Location") != tc.wantLoc {
			t.Errorf("reject %v: %d %q Location %q, want %d %q %q", tc.reject, rec.Code, rec.Body, rec.Header().Get("Location"), tc.wantCode, tc.wantBody, tc.wantLoc)
		}
		p.Close()
	}
}
