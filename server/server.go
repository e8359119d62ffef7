package server

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"go.opentelemetry.io/otel/trace"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/uuid"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/klog/v2"
	psconfig "k8s.io/pod-security-admission/admission/api"

	"github.com/fakeplane/fakeplane/admission"
	"github.com/fakeplane/fakeplane/auth"
	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
)

// MaxRequestBodyBytes is kube-apiserver's limit on a request body (3 MiB).
const MaxRequestBodyBytes = 3 * 1024 * 1024

// Config configures a Server.
type Config struct {
	// Store holds the objects. Required.
	Store store.Interface
	// Version is what /version reports.
	Version VersionInfo
	// Logger receives request errors and controller messages; nil means slog.Default().
	Logger *slog.Logger
	// Now returns the current time; nil means time.Now. Tests may fix it.
	Now func() time.Time
	// RootCAPEM is the cluster CA, put into service-account token Secrets
	// (controllers.RootCACertPublisher publishes it in every namespace).
	RootCAPEM []byte
	// ServerAddress is the host:port clients reach the server at, reported
	// in /api's serverAddressByClientCIDRs.
	ServerAddress string
	// Auth configures authentication and authorization.
	Auth AuthConfig
	// ServiceClusterIPRange is where ClusterIPs come from (kube-apiserver's
	// --service-cluster-ip-range); the zero value means
	// DefaultServiceClusterIPRange.
	ServiceClusterIPRange netip.Prefix
	// ServiceNodePortRange is registry.Config's.
	ServiceNodePortRange utilnet.PortRange
	// PodSecurity configures the PodSecurity admission plugin, as an
	// --admission-control-config-file does (nil: the default).
	PodSecurity *psconfig.PodSecurityConfiguration
	// AdmissionPlugins are the compiled-in admission plugins that run
	// (see registry.Config).
	AdmissionPlugins admission.Plugins
	// PodNodeSelector and PodTolerationRestriction configure those
	// admission plugins (see registry.Config).
	PodNodeSelector          *admission.PodNodeSelectorConfig
	PodTolerationRestriction *admission.PodTolerationRestrictionConfig
	// EventRateLimit and ImagePolicyWebhook are registry.Config's.
	EventRateLimit     *admission.EventRateLimit
	ImagePolicyWebhook *admission.ImagePolicyWebhook
	// TolerationSeconds is registry.Config's.
	TolerationSeconds *registry.TolerationSeconds
	// NoResourceQuotaController is registry.Config's.
	NoResourceQuotaController bool
	// DisallowPrivileged is registry.Config's.
	DisallowPrivileged bool
	// NoGarbageCollection is registry.Config's.
	NoGarbageCollection bool
	// EnableLogsHandler is kube-apiserver's --enable-logs-handler: /logs/
	// serves the host's /var/log.
	EnableLogsHandler bool
	// MaxConnectionBytesPerSec is kube-apiserver's
	// --max-connection-bytes-per-sec: the bytes a second each upgraded
	// connection of exec, attach, port-forward and the proxy
	// subresources carries each way (0: no limit).
	MaxConnectionBytesPerSec int64
	// PrivateCreateMemo is registry.Config's.
	PrivateCreateMemo bool
	// SharedStore says other processes write to Store too (see
	// registry.Config.SharedStore).
	SharedStore bool
	// DialCluster opens the connections the server makes toward the
	// cluster (the proxy subresources, the kubelet API): kube-apiserver's
	// "cluster" egress selection. nil means a plain net.Dialer.
	DialCluster func(ctx context.Context, network, address string) (net.Conn, error)
	// Kubelet configures the connections to nodes' kubelets (pods/log,
	// exec, attach, port-forward and nodes/proxy).
	Kubelet KubeletClientConfig
	// ProxyClientCertificate is presented to pods and services by their
	// proxy subresources (kube-apiserver's --proxy-client-cert-file).
	ProxyClientCertificate *tls.Certificate
	// Limits are kube-apiserver's request timeout and in-flight limits.
	Limits LimitsConfig
	// Flags are the command-line flags /flagz lists, by name (the
	// fakeplane command's); none when nil.
	Flags map[string]string
	// Audit configures auditing; the zero value audits nothing.
	Audit AuditConfig
	// Headers are the CORS and HSTS headers added to answers.
	Headers HeadersConfig
	// NoProfiling turns off the debug endpoints (/debug/pprof/,
	// /debug/flags/) and the reset of the metrics by DELETE, as
	// kube-apiserver's --profiling=false.
	NoProfiling bool
	// Metrics is what kube-apiserver's metrics flags change of /metrics.
	Metrics MetricsConfig
	// TracerProvider makes the requests' spans, as kube-apiserver's
	// tracing filter does; nil records nothing (a request's trace context
	// still reaches the webhooks it calls).
	TracerProvider trace.TracerProvider
	// NoPriorityAndFairness is kube-apiserver's
	// --enable-priority-and-fairness=false: answers carry no
	// X-Kubernetes-PF-* headers, and the health checks name the
	// max-in-flight filter instead of priority and fairness's hooks.
	NoPriorityAndFairness bool
	// EtcdHealth and EtcdReadiness are kube-apiserver's checks of etcd:
	// "etcd" in /livez, /readyz and /healthz, and "etcd-readiness" in
	// /readyz. nil passes (the embedded store).
	EtcdHealth, EtcdReadiness func() error
	// GracefulShutdown says the control plane drains the requests in
	// flight as it stops (DrainRequests): only then does each request go
	// through the filter that counts them.
	GracefulShutdown bool
	// ShutdownSendRetryAfter (with GracefulShutdown) is kube-apiserver's
	// --shutdown-send-retry-after: once StopAcceptingRequests is called,
	// new requests are answered 429 with Retry-After.
	ShutdownSendRetryAfter bool
}

// Server serves the Kubernetes API from a store.
type Server struct {
	// Registry is the read and write pipeline the server serves over HTTP.
	*registry.Registry

	cfg Config
	log *slog.Logger
	// logr is log as a logr.Logger, which each request's context carries:
	// the upstream filters and handlers that log through klog's contextual
	// logging (klog.FromContext) log to this control plane's logger, not to
	// klog's process-wide one.
	logr  logr.Logger
	now   func() time.Time
	infos *apirequest.RequestInfoFactory

	// stopping is closed by Close; long-running requests (watches) end on it.
	stopping  chan struct{}
	closeOnce sync.Once
	// life is the server's lifetime, which Close ends: the JWT
	// authenticators fetch their issuers' keys until then.
	life    context.Context
	endLife context.CancelFunc
	// requests counts the requests being served; Drain waits for them.
	// shutdown follows a graceful stop (InitiateShutdown, ...).
	shutdown shutdownState
	reqMu    sync.Mutex
	reqIdle  *sync.Cond
	requests int

	// rbacCache holds the RBAC objects for the authorizer.
	rbacCache *auth.RBACCache
	// nodeGraph relates objects to nodes for the Node authorizer; nil
	// without it.
	nodeGraph *auth.NodeGraph
	// flows classifies requests to FlowSchemas for the answers' headers.
	flows *flowClassifier
	// health holds the health endpoints' handlers, built on first use.
	healthOnce sync.Once
	health     pathHandlers
	// healthSLIs counts the checks the health endpoints ran, for
	// /metrics/slis, statusz answers /statusz and flagz /flagz; each is
	// built on first use.
	healthSLIsOnce sync.Once
	healthSLIs     *healthSLIs
	statuszOnce    sync.Once
	statusz        http.Handler
	flagzOnce      sync.Once
	flagz          http.Handler
	// commitObservers are told of every commit after the RBAC cache, in
	// the order AddCommitObserver added them.
	commitObservers []func(bucket, key string, obj runtime.Object, data []byte, deleted bool)
	// openAPICache holds the OpenAPI v3 documents of built-in group/versions.
	openAPIMu    sync.Mutex
	openAPICache map[schema.GroupVersion][]byte
	// openAPIDiscoveryCache holds the OpenAPI v3 documents of discovery
	// paths ("api", "apis", "apis/<group>"), which depend on the path alone.
	openAPIDiscoveryCache map[string][]byte
	// openAPIv2Cache is /openapi/v2 for the registry generation it was built for.
	openAPIv2Cache *openAPIv2Doc
	// openAPIv3ModTime is the Last-Modified of /openapi/v3, set for the
	// registry generation openAPIv3ModGen.
	openAPIv3ModTime time.Time
	openAPIv3ModGen  uint64
	// auth is the authentication and authorization machinery.
	auth authState
	// handler is the filter chain in front of serveAuthorized.
	handler http.Handler
	// metrics are what /metrics serves.
	metrics *apiMetrics
	// aggregator routes and describes the remote group/versions; nil
	// without an aggregation layer.
	aggregator Aggregator
	// kubelets are the transports to nodes' kubelets, built on first use.
	kubelets kubeletTransports
	// proxyRT is the proxy subresources' transport to pods and services.
	proxyOnce sync.Once
	proxyRT   http.RoundTripper
}

// New builds a Server. Call Run to start its controllers.
func New(cfg Config) (*Server, error) {
	if cfg.Store == nil {
		return nil, fmt.Errorf("server: Config.Store is required")
	}
	s := &Server{
		cfg:       cfg,
		log:       cfg.Logger,
		now:       cfg.Now,
		stopping:  make(chan struct{}),
		metrics:   newAPIMetrics(cfg.Metrics),
		rbacCache: auth.NewRBACCache(),
		flows:     newFlowClassifier(),
	}
	s.reqIdle = sync.NewCond(&s.reqMu)
	s.shutdown.idle = sync.NewCond(&s.shutdown.mu)
	s.life, s.endLife = context.WithCancel(context.Background())
	if s.log == nil {
		s.log = slog.Default()
	}
	s.logr = logr.FromSlogHandler(s.log.Handler())
	if s.now == nil {
		s.now = time.Now
	}
	reg, err := registry.New(registry.Config{Store: cfg.Store, Logger: s.log, Now: s.now, ServiceClusterIPRange: cfg.ServiceClusterIPRange, ServiceNodePortRange: cfg.ServiceNodePortRange,
		AdmissionPlugins: cfg.AdmissionPlugins,
		PodNodeSelector:  cfg.PodNodeSelector, PodTolerationRestriction: cfg.PodTolerationRestriction, TolerationSeconds: cfg.TolerationSeconds,
		EventRateLimit: cfg.EventRateLimit, ImagePolicyWebhook: cfg.ImagePolicyWebhook, NoResourceQuotaController: cfg.NoResourceQuotaController, DisallowPrivileged: cfg.DisallowPrivileged, NoGarbageCollection: cfg.NoGarbageCollection, SharedStore: cfg.SharedStore,
		PrivateCreateMemo: cfg.PrivateCreateMemo, PodSecurity: cfg.PodSecurity})
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	s.Registry = reg
	s.infos = &apirequest.RequestInfoFactory{
		APIPrefixes:          sets.NewString("api", "apis"),
		GrouplessAPIPrefixes: sets.NewString("api"),
	}
	if err := s.rbacCache.Load(cfg.Store); err != nil {
		return nil, fmt.Errorf("server: load RBAC objects: %w", err)
	}
	if err := s.flows.load(cfg.Store); err != nil {
		return nil, fmt.Errorf("server: load FlowSchemas: %w", err)
	}
	if s.handler, err = s.setupAuth(cfg.Auth); err != nil {
		s.endLife()
		return nil, fmt.Errorf("server: %w", err)
	}
	hooks := registry.Hooks{CommitObserver: s.observeCommitViews, Authorizer: s.auth.authz}
	if s.auth.rbac != nil {
		hooks.RBACWriteCheck = func(ctx context.Context, gr schema.GroupResource, w auth.RBACWrite) error {
			return s.auth.rbac.ForStorage(gr).CheckRBACWrite(ctx, s.auth.authz, w)
		}
	}
	s.SetHooks(hooks)
	return s, nil
}

// Close ends open watches. The server starts no goroutine of its own: the
// control plane's controllers run in package controllers.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.stopping)
		s.endLife()
	})
}

// Drain waits until no request is being served. Call it after the HTTP
// server in front has stopped accepting requests.
func (s *Server) Drain() {
	s.reqMu.Lock()
	defer s.reqMu.Unlock()
	for s.requests > 0 {
		s.reqIdle.Wait()
	}
}

// ServeHTTP answers one API request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer s.serving()()
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.log.Error("panic serving request", "method", r.Method, "path", r.URL.Path, "panic", v, "stack", string(debug.Stack()))
			// As upstream's WithPanicRecovery: what panicked stays in the log.
			http.Error(w, "This request caused apiserver to panic. Look in the logs for details.", http.StatusInternalServerError)
		}
	}()
	if !s.auditInit() {
		// As upstream's WithAuditInit, which the chain starts with when
		// requests are audited or traced: the client's Audit-ID, else a
		// new one.
		id := r.Header.Get("Audit-Id")
		if id == "" {
			id = string(uuid.NewUUID())
		}
		w.Header().Set("Audit-Id", id)
	}
	s.handler.ServeHTTP(w, r.WithContext(klog.NewContext(r.Context(), s.logr)))
}

// serving counts a request (or the part of one that runs apart: the
// request timeout filter serves in a goroutine of its own, which may go on
// after it answered) until the function it returns is called; Drain waits
// for the count to fall to zero.
func (s *Server) serving() (done func()) {
	s.reqMu.Lock()
	s.requests++
	s.reqMu.Unlock()
	return func() {
		s.reqMu.Lock()
		s.requests--
		if s.requests == 0 {
			s.reqIdle.Broadcast()
		}
		s.reqMu.Unlock()
	}
}

// counted is h counted by serving, for the handlers upstream's timeout
// filter runs in goroutines of their own.
func (s *Server) counted(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer s.serving()()
		h.ServeHTTP(w, r)
	})
}

// serveNonResource answers discovery, health, version and OpenAPI paths.
func (s *Server) serveNonResource(w http.ResponseWriter, r *http.Request, info *apirequest.RequestInfo) {
	path := strings.TrimSuffix(r.URL.Path, "/")
	switch {
	case path == "/version":
		s.serveVersion(w, r)
	case path == "/metrics" || path == "/metrics/slis" || path == "/statusz" || path == "/flagz" || path == "/healthz" || path == "/livez" || path == "/readyz" ||
		strings.HasPrefix(path, "/healthz/") || strings.HasPrefix(path, "/livez/") || strings.HasPrefix(path, "/readyz/"):
		switch {
		case path != r.URL.Path:
			// Exact paths in kube-apiserver's mux: /metrics/, /healthz/
			// and their like are its plain 404.
			http.NotFound(w, r)
		case path == "/metrics":
			s.serveMetrics(w, r)
		case path == "/metrics/slis":
			s.healthSLIsOnce.Do(s.buildHealthSLIs)
			s.healthSLIs.serve(w, r, !s.cfg.NoProfiling)
		case path == "/statusz":
			s.statuszOnce.Do(s.buildStatusz)
			s.statusz.ServeHTTP(w, r)
		case path == "/flagz":
			s.flagzOnce.Do(func() { s.flagz = newFlagz(s.cfg.Flags) })
			s.flagz.ServeHTTP(w, r)
		default:
			s.serveHealth(w, r, path)
		}
	case path == "/api" || path == "/apis" || strings.HasPrefix(path, "/api/") || strings.HasPrefix(path, "/apis/"):
		s.serveDiscovery(w, r, path)
	case path == "/openapi/v2" || path == "/openapi/v3" || strings.HasPrefix(path, "/openapi/v3/"):
		s.serveOpenAPI(w, r, path)
	case path == openIDConfigPath || path == openIDKeysPath:
		s.serveOpenID(w, r, path)
	case path == "":
		s.serveRootPaths(w, r)
	case isDebugPath(r.URL.Path):
		s.serveDebug(w, r)
	case s.cfg.EnableLogsHandler && isLogsPath(r.URL.Path):
		s.serveLogs(w, r)
	default:
		http.NotFound(w, r)
	}
}

// AddCommitObserver has f told of every commit, as the registry's
// Hooks.CommitObserver is: under the store's writer lock and in revision
// order, after the RBAC cache and the observers added before it. Views
// that must follow the store (the garbage collector's owner index,
// controllers.Owners) keep up through it. Call it before the first write.
func (s *Server) AddCommitObserver(f func(bucket, key string, obj runtime.Object, data []byte, deleted bool)) {
	s.commitObservers = append(s.commitObservers, f)
}

// observeCommitViews keeps the views that follow the store in revision order
// (the RBAC cache, the FlowSchemas', then those AddCommitObserver added) in step with a
// commit. The registry calls it as Hooks.CommitObserver, under the store's
// writer lock, once the write committed.
func (s *Server) observeCommitViews(bucket, key string, obj runtime.Object, data []byte, deleted bool) {
	s.rbacCache.Observe(bucket, key, obj, data, deleted)
	if s.nodeGraph != nil {
		s.nodeGraph.Observe(bucket, key, obj, data, deleted)
	}
	s.flows.observe(bucket, key, obj, data, deleted)
	for _, f := range s.commitObservers {
		f(bucket, key, obj, data, deleted)
	}
}
