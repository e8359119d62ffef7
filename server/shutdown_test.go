package server

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/endpoints/filters"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
)

// TestShutdownRefusesRequestsAsKubeAPIServer follows a graceful stop
// through the shutdown filter, as upstream's WithRetryAfter and
// WithWaitGroup answer: with SendRetryAfter a request after
// StopAcceptingRequests is answered 429 (Retry-After: 5, Connection:
// close) while one in flight is answered and DrainRequests waits for it;
// without it, a request that comes while the server drains is answered 503
// with a JSON Status; the health and metrics endpoints are served
// throughout; /readyz's shutdown check fails from InitiateShutdown on.
func TestShutdownRefusesRequestsAsKubeAPIServer(t *testing.T) {
	for _, sendRetryAfter := range []bool{true, false} {
		name := map[bool]string{true: "send retry after", false: "without"}[sendRetryAfter]
		t.Run(name, func(t *testing.T) {
			s := &Server{cfg: Config{ShutdownSendRetryAfter: sendRetryAfter}}
			s.shutdown.idle = sync.NewCond(&s.shutdown.mu)
			release, entered := make(chan struct{}), make(chan struct{}, 1)
			inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/api/v1/namespaces/default/configmaps/slow" {
					entered <- struct{}{}
					<-release
				}
				io.WriteString(w, "served")
			})
			infos := &apirequest.RequestInfoFactory{APIPrefixes: sets.NewString("api", "apis"), GrouplessAPIPrefixes: sets.NewString("api")}
			h := filters.WithRequestInfo(s.withShutdown(inner), infos)
			get := func(path string) *httptest.ResponseRecorder {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
				return rec
			}

			slow := make(chan *httptest.ResponseRecorder)
			go func() { slow <- get("/api/v1/namespaces/default/configmaps/slow") }()
			<-entered
			if err := s.shutdownCheck(); err != nil {
				t.Fatalf("the shutdown check failed before InitiateShutdown: %v", err)
			}
			s.InitiateShutdown()
			if err := s.shutdownCheck(); err == nil || err.Error() != "process is shutting down" {
				t.Fatalf("the shutdown check after InitiateShutdown: %v, want process is shutting down", err)
			}
			if rec := get("/api/v1/pods"); rec.Code != http.StatusOK {
				t.Fatalf("a request during the delay: %d, want it served", rec.Code)
			}
			s.StopAcceptingRequests()
			drained := make(chan struct{})
			go func() {
				s.DrainRequests(0)
				close(drained)
			}()
			// Until DrainRequests waits, a request may still be served:
			// wait for it to.
			for deadline := time.Now().Add(10 * time.Second); ; {
				s.shutdown.mu.Lock()
				draining := s.shutdown.draining
				s.shutdown.mu.Unlock()
				if draining {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("DrainRequests did not start")
				}
				time.Sleep(time.Millisecond)
			}
			rec := get("/api/v1/pods")
			if sendRetryAfter {
				if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") != "5" || rec.Header().Get("Connection") != "close" ||
					rec.Body.String() != "The apiserver is shutting down, please try again later.\n" {
					t.Errorf("a new request: %d %v %q, want kube-apiserver's 429", rec.Code, rec.Header(), rec.Body)
				}
			} else {
				body := rec.Body.String()
				if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") != "1" || rec.Header().Get("Content-Type") != "application/json" ||
					!strings.Contains(body, `"kind":"Status"`) || !strings.Contains(body, `"message":"apiserver is shutting down"`) || !strings.Contains(body, `"reason":"ServiceUnavailable"`) {
					t.Errorf("a new request while draining: %d %v %q, want kube-apiserver's 503", rec.Code, rec.Header(), body)
				}
			}
			for _, path := range []string{"/readyz", "/livez", "/healthz", "/metrics"} {
				if rec := get(path); rec.Code != http.StatusOK {
					t.Errorf("GET %s while draining: %d, want it served", path, rec.Code)
				}
			}
			select {
			case <-drained:
				t.Fatal("DrainRequests returned with a request in flight")
			default:
			}
			close(release)
			if rec := <-slow; rec.Code != http.StatusOK || rec.Body.String() != "served" {
				t.Errorf("the request in flight: %d %q, want it answered", rec.Code, rec.Body)
			}
			<-drained
		})
	}
}
