package kubelet

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// This file is the kubelet API of the simulated nodes: one HTTPS server,
// as kwok runs one, answering for every managed node's pods (found by
// namespace and name) on the kubelet's paths: /healthz, /pods,
// /containerLogs, /exec, /attach and /portForward.

// Defaults of APIConfig.
const (
	// DefaultAPIAddress is where the kubelet API listens by default.
	DefaultAPIAddress = "127.0.0.1:0"
	// DefaultStreamIdleTimeout is the kubelet's default
	// streamingConnectionIdleTimeout.
	DefaultStreamIdleTimeout = 4 * time.Hour
	// DefaultStreamCreationTimeout is how long the streaming server waits
	// for a client's streams, the CRI streaming server's default.
	DefaultStreamCreationTimeout = 30 * time.Second
)

// APIConfig turns on the kubelet API of the simulated nodes (see
// Config.API).
type APIConfig struct {
	// Address is the listen address (default DefaultAPIAddress). Its IP is
	// each managed node's InternalIP, its port the nodes' kubelet port.
	Address string
	// Certificate is the serving certificate; it must be valid for the
	// listen IP.
	Certificate tls.Certificate
	// ClientCAs verify the clients' certificates: a request without a
	// certificate they verify is answered 401 Unauthorized.
	ClientCAs *x509.CertPool
	// Debug says where logs come from, and what exec, attach and
	// port-forward reach.
	Debug DebugConfig
	// StreamIdleTimeout closes streams idle that long (default
	// DefaultStreamIdleTimeout).
	StreamIdleTimeout time.Duration
	// StreamCreationTimeout bounds the wait for a client's streams
	// (default DefaultStreamCreationTimeout).
	StreamCreationTimeout time.Duration

	// Now and Log are the simulator's.
	Now func() time.Time
	Log *slog.Logger
}

// podSource finds the pods of the managed nodes.
type podSource interface {
	// pod returns the pod of a managed node by namespace and name.
	pod(namespace, name string) (*corev1.Pod, bool)
	// list returns the pods of the managed nodes.
	list() []*corev1.Pod
}

// APIServer is the kubelet API of the simulated nodes. The Simulator
// starts it when Config.API is set; Simulator.API returns it.
type APIServer struct {
	cfg      APIConfig
	pods     podSource
	logs     *logStore
	listener net.Listener
	srv      *http.Server
	stream   *streamServer
	ctx      context.Context // cancelled at Stop: ends follows and streams
	cancel   context.CancelFunc
	handlers sync.WaitGroup

	mu       sync.Mutex
	hijacked map[net.Conn]bool // upgraded connections, closed at Stop
	stopped  bool
}

// newAPIServer listens on cfg.Address and serves until stop.
func newAPIServer(cfg APIConfig, pods podSource) (*APIServer, error) {
	if cfg.Address == "" {
		cfg.Address = DefaultAPIAddress
	}
	if cfg.StreamIdleTimeout <= 0 {
		cfg.StreamIdleTimeout = DefaultStreamIdleTimeout
	}
	if cfg.StreamCreationTimeout <= 0 {
		cfg.StreamCreationTimeout = DefaultStreamCreationTimeout
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if len(cfg.Certificate.Certificate) == 0 || cfg.ClientCAs == nil {
		return nil, errorf("kubelet api: a serving certificate and client CAs are required")
	}
	logs, err := newLogStore(cfg.Now)
	if err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", cfg.Address)
	if err != nil {
		_ = logs.close()
		return nil, errorf("kubelet api: listen: %w", err)
	}
	a := &APIServer{cfg: cfg, pods: pods, logs: logs, hijacked: map[net.Conn]bool{}}
	a.ctx, a.cancel = context.WithCancel(context.Background())
	a.stream = newStreamServer(a)
	a.srv = &http.Server{
		Handler:           a.track(a.authenticate(a.routes())),
		ReadHeaderTimeout: 30 * time.Second,
		ErrorLog:          slog.NewLogLogger(cfg.Log.Handler(), slog.LevelDebug),
		BaseContext:       func(net.Listener) context.Context { return a.ctx },
		ConnContext:       func(ctx context.Context, c net.Conn) context.Context { return context.WithValue(ctx, connKey{}, c) },
		ConnState:         a.connState,
		TLSConfig: &tls.Config{
			Certificates: []tls.Certificate{cfg.Certificate},
			ClientAuth:   tls.RequestClientCert,
			ClientCAs:    cfg.ClientCAs,
			MinVersion:   tls.VersionTLS12,
			NextProtos:   []string{"http/1.1"}, // upgrades (SPDY, WebSocket) need HTTP/1.1
		},
	}
	a.listener = tls.NewListener(l, a.srv.TLSConfig)
	a.handlers.Add(1)
	go func() {
		defer a.handlers.Done()
		if err := a.srv.Serve(a.listener); err != nil && !errors.Is(err, http.ErrServerClosed) {
			cfg.Log.Warn("kubelet api: serve", "err", err)
		}
	}()
	return a, nil
}

// Addr is the address the kubelet API listens on.
func (a *APIServer) Addr() *net.TCPAddr { return a.listener.Addr().(*net.TCPAddr) }

// URL is the kubelet API's base URL, https://ip:port.
func (a *APIServer) URL() string { return "https://" + a.Addr().String() }

// stop closes the listener and every connection, upgraded ones included,
// ends the requests in flight (follows, execs, attaches, forwards) and
// waits for them; the appended logs are removed.
func (a *APIServer) stop() {
	a.mu.Lock()
	a.stopped = true
	a.mu.Unlock()
	a.cancel()
	_ = a.srv.Close()
	a.stream.close()
	a.mu.Lock()
	for c := range a.hijacked {
		_ = c.Close()
	}
	a.mu.Unlock()
	a.handlers.Wait()
	a.stream.wait()
	if err := a.logs.close(); err != nil {
		a.cfg.Log.Warn("kubelet api: remove logs", "err", err)
	}
}

// connKey keys the request's connection in its context.
type connKey struct{}

// connState keeps the upgraded connections, which the http.Server no
// longer tracks, so that stop closes them.
func (a *APIServer) connState(c net.Conn, st http.ConnState) {
	if st != http.StateHijacked {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.stopped {
		_ = c.Close()
		return
	}
	a.hijacked[c] = true
}

// track counts the requests in flight, and forgets a request's upgraded
// connection once its handler is done with it.
func (a *APIServer) track(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.handlers.Add(1)
		defer a.handlers.Done()
		next.ServeHTTP(w, r)
		if c, ok := r.Context().Value(connKey{}).(net.Conn); ok {
			a.mu.Lock()
			if a.hijacked[c] {
				delete(a.hijacked, c)
				_ = c.Close()
			}
			a.mu.Unlock()
		}
	})
}

// authenticate answers 401 to a request without a client certificate the
// client CAs verify, as a kubelet with anonymous access off does (the
// handshake asks for a certificate and lets any through, as the kubelet's
// does; the x509 check is here).
func (a *APIServer) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.TLS == nil || len(r.TLS.PeerCertificates) == 0 {
			writeError(w, http.StatusUnauthorized, "Unauthorized")
			return
		}
		opts := x509.VerifyOptions{
			Roots:         a.cfg.ClientCAs,
			Intermediates: x509.NewCertPool(),
			KeyUsages:     []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
		}
		for _, c := range r.TLS.PeerCertificates[1:] {
			opts.Intermediates.AddCert(c)
		}
		if _, err := r.TLS.PeerCertificates[0].Verify(opts); err != nil {
			a.cfg.Log.Debug("kubelet api: client certificate", "err", err)
			writeError(w, http.StatusUnauthorized, "Unauthorized")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// routes are the kubelet's paths this server answers.
func (a *APIServer) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok"))
	})
	mux.HandleFunc("GET /pods", a.getPods)
	mux.HandleFunc("GET /containerLogs/{namespace}/{pod}/{container}", a.getContainerLogs)
	for _, m := range []string{http.MethodGet, http.MethodPost} {
		mux.HandleFunc(m+" /exec/{namespace}/{pod}/{container}", a.getExec)
		mux.HandleFunc(m+" /exec/{namespace}/{pod}/{uid}/{container}", a.getExec)
		mux.HandleFunc(m+" /attach/{namespace}/{pod}/{container}", a.getAttach)
		mux.HandleFunc(m+" /attach/{namespace}/{pod}/{uid}/{container}", a.getAttach)
		mux.HandleFunc(m+" /portForward/{namespace}/{pod}", a.getPortForward)
		mux.HandleFunc(m+" /portForward/{namespace}/{pod}/{uid}", a.getPortForward)
	}
	return mux
}

// getPods answers the PodList of the managed nodes' pods.
func (a *APIServer) getPods(w http.ResponseWriter, _ *http.Request) {
	list := &corev1.PodList{}
	list.APIVersion, list.Kind = "v1", "PodList"
	for _, p := range a.pods.list() {
		list.Items = append(list.Items, *p)
	}
	data, err := json.Marshal(list)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(data)
}

// containerRunning reports whether the pod reports the container running.
func (a *APIServer) containerRunning(namespace, pod, container string) bool {
	p, ok := a.pods.pod(namespace, pod)
	if !ok {
		return false
	}
	cs, ok := containerStatus(p, container)
	return ok && cs.State.Running != nil
}

// writeError answers an error as the kubelet's go-restful server does: the
// status and the message as plain text.
func writeError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(code)
	_, _ = w.Write([]byte(msg))
}
