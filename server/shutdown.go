package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
)

// shutdownState follows a graceful stop as kube-apiserver's lifecycle
// signals do: shutdown initiated (/readyz's shutdown check fails), then
// no new requests accepted (with --shutdown-send-retry-after, new ones are
// answered 429), while the requests in flight drain.
type shutdownState struct {
	initiated    atomic.Bool
	notAccepting atomic.Bool

	mu sync.Mutex
	// idle is broadcast when either count drops.
	idle *sync.Cond
	// nonLongRunning and longRunning count the requests in flight
	// (upstream's NonLongRunningRequestWaitGroup and
	// WatchRequestWaitGroup).
	nonLongRunning, longRunning int
	// draining is set once DrainRequests waits: a non-long-running
	// request that comes later is refused (upstream's closed wait group).
	draining bool
}

// InitiateShutdown marks the server as shutting down: /readyz's shutdown
// check fails ("process is shutting down"), as kube-apiserver's does from
// SIGTERM on; requests are served as before.
func (s *Server) InitiateShutdown() { s.shutdown.initiated.Store(true) }

// StopAcceptingRequests ends what InitiateShutdown's delay left accepted:
// with Config.ShutdownSendRetryAfter, a new request other than the health
// and metrics endpoints' (and the server's own) is answered 429 with
// Retry-After: 5 and Connection: close, as kube-apiserver's once its
// --shutdown-delay-duration has elapsed.
func (s *Server) StopAcceptingRequests() { s.shutdown.notAccepting.Store(true) }

// DrainRequests (with Config.GracefulShutdown, which counts them) waits
// until the non-long-running requests in flight have been answered, then,
// for up to watchGrace, until the long-running ones (watches) have ended,
// as kube-apiserver drains before it stops its HTTP server. A non-long-running request that comes meanwhile is answered
// 503, as there.
func (s *Server) DrainRequests(watchGrace time.Duration) {
	st := &s.shutdown
	st.mu.Lock()
	st.draining = true
	for st.nonLongRunning > 0 {
		st.idle.Wait()
	}
	st.mu.Unlock()
	if watchGrace <= 0 {
		return
	}
	deadline := time.AfterFunc(watchGrace, func() {
		st.mu.Lock()
		st.idle.Broadcast()
		st.mu.Unlock()
	})
	defer deadline.Stop()
	end := time.Now().Add(watchGrace)
	st.mu.Lock()
	for st.longRunning > 0 && time.Now().Before(end) {
		st.idle.Wait()
	}
	st.mu.Unlock()
}

// writeShuttingDown answers a request that came once the server drains,
// as upstream's waitGroupWriteRetryAfterToResponse: 503, a JSON Status
// whatever the client accepts, Retry-After: 1.
func writeShuttingDown(w http.ResponseWriter) {
	st := apierrors.NewServiceUnavailable("apiserver is shutting down").Status()
	st.TypeMeta = metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}
	b, _ := json.Marshal(&st)
	w.Header().Add("Retry-After", "1")
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(int(st.Code))
	_, _ = w.Write(append(b, '\n'))
}

// shutdownCheck is /readyz's shutdown check.
func (s *Server) shutdownCheck() error {
	if s.shutdown.initiated.Load() {
		return fmt.Errorf("process is shutting down")
	}
	return nil
}

// pathsExemptFromRetryAfter are the path prefixes upstream's WithRetryAfter
// and WithWaitGroup let through while the server shuts down.
var pathsExemptFromRetryAfter = []string{"/readyz", "/livez", "/healthz", "/metrics"}

// exemptFromRetryAfter is upstream's isRequestExemptFromRetryAfter: the
// server's own loopback requests and the health and metrics endpoints.
func exemptFromRetryAfter(r *http.Request) bool {
	if strings.HasPrefix(r.UserAgent(), "kube-apiserver/") {
		return true
	}
	for _, p := range pathsExemptFromRetryAfter {
		if strings.HasPrefix(r.URL.Path, p) {
			return true
		}
	}
	return false
}

// withShutdown is kube-apiserver's WithWaitGroup and (with
// ShutdownSendRetryAfter) WithRetryAfter filters: it counts the requests
// in flight for DrainRequests, and answers those that come too late as
// they do.
func (s *Server) withShutdown(h http.Handler) http.Handler {
	st := &s.shutdown
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.cfg.ShutdownSendRetryAfter && st.notAccepting.Load() && !exemptFromRetryAfter(r) {
			// "Connection" is not HTTP/2's, but net/http takes close to
			// mean a GOAWAY once idle, as for HTTP/1.
			w.Header().Set("Connection", "close")
			w.Header().Set("Retry-After", "5")
			http.Error(w, "The apiserver is shutting down, please try again later.", http.StatusTooManyRequests)
			return
		}
		info, ok := apirequest.RequestInfoFrom(r.Context())
		long := ok && longRunning(r, info)
		st.mu.Lock()
		if st.draining && !long && !exemptFromRetryAfter(r) {
			st.mu.Unlock()
			writeShuttingDown(w)
			return
		}
		count := &st.nonLongRunning
		if long {
			count = &st.longRunning
		}
		*count++
		st.mu.Unlock()
		defer func() {
			st.mu.Lock()
			*count--
			st.idle.Broadcast()
			st.mu.Unlock()
		}()
		h.ServeHTTP(w, r)
	})
}
