package server

import (
	"bufio"
	"context"
	"io"
	"mime"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	endpointsmetrics "k8s.io/apiserver/pkg/endpoints/metrics"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
	compbasemetrics "k8s.io/component-base/metrics"

	"github.com/fakeplane/fakeplane/internal/featuregates"
	"github.com/fakeplane/fakeplane/store"
)

// MetricsConfig is what kube-apiserver's metrics flags change, for one
// server (upstream's component-base applies them to its global registry).
// The zero value serves every metric with every label value.
type MetricsConfig struct {
	// Disabled names the metrics /metrics leaves out, as
	// --disabled-metrics.
	Disabled []string
	// LabelAllowLists maps "metric,label" to the values that label may
	// have, comma-separated, as --allow-metric-labels: a value not listed
	// is reported as "unexpected".
	LabelAllowLists map[string]string
	// NoObjectCounts leaves out the stored-object gauges
	// (apiserver_storage_objects, apiserver_resource_objects), as
	// --etcd-count-metric-poll-period=0.
	NoObjectCounts bool
}

// unexpectedLabelValue is what a label value outside its allow list is
// reported as, as component-base's ConstrainToAllowedList.
const unexpectedLabelValue = "unexpected"

// apiMetrics are the kube-apiserver metrics that test tooling reads, served
// at /metrics in Prometheus text format: request counts and latencies (as
// k8s.io/apiserver/pkg/endpoints/metrics names and labels them) and the
// number of stored objects per resource (as its storage metrics do). Each
// server has its own registry, so servers in one process count apart.
type apiMetrics struct {
	registry  compbasemetrics.KubeRegistry
	requests  *compbasemetrics.CounterVec
	latencies *compbasemetrics.HistogramVec
	// storageObjects and resourceObjects are set from the store when
	// /metrics is read.
	storageObjects  *compbasemetrics.GaugeVec
	resourceObjects *compbasemetrics.GaugeVec
	// featureEnabled is kube-apiserver's kubernetes_feature_enabled:
	// every gate's stage and whether it is on (v1.37's defaults), set
	// when /metrics is first read (featuresOnce).
	featureEnabled *compbasemetrics.GaugeVec
	featuresOnce   sync.Once
	// noObjectCounts is MetricsConfig's: countObjects does nothing.
	noObjectCounts bool
	// allowed maps a metric's name to its constrained labels' allowed
	// values (MetricsConfig.LabelAllowLists).
	allowed map[string]map[string]sets.Set[string]
}

// Label names of the metrics, in the order their values are given.
var (
	requestLabels        = []string{"verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component", "code"}
	latencyLabels        = requestLabels[:len(requestLabels)-1]
	storageObjectLabels  = []string{"resource"}
	resourceObjectLabels = []string{"group", "resource"}
	featureLabels        = []string{"name", "stage"}
)

// labelValues returns values with each one that metric's allow list for
// its label (names, in the same order) does not hold replaced by
// "unexpected". values is changed in place.
func (m *apiMetrics) labelValues(metric string, names []string, values ...string) []string {
	lists := m.allowed[metric]
	if lists == nil {
		return values
	}
	for i, name := range names {
		if allowed, ok := lists[name]; ok && !allowed.Has(values[i]) {
			values[i] = unexpectedLabelValue
		}
	}
	return values
}

// setFeatures sets kubernetes_feature_enabled, once.
func (m *apiMetrics) setFeatures() {
	m.featuresOnce.Do(func() {
		for _, g := range featuregates.All() {
			on := 0.0
			if g.Enabled {
				on = 1
			}
			m.featureEnabled.WithLabelValues(m.labelValues("kubernetes_feature_enabled", featureLabels, g.Name, g.MetricStage())...).Set(on)
		}
	})
}

// newAPIMetrics registers the metrics in a registry of their own, but
// those cfg disables. (A metric left unregistered ignores what is
// recorded in it.)
func newAPIMetrics(cfg MetricsConfig) *apiMetrics {
	m := &apiMetrics{
		noObjectCounts: cfg.NoObjectCounts,
		allowed:        map[string]map[string]sets.Set[string]{},
		registry:       compbasemetrics.NewKubeRegistry(),
		requests: compbasemetrics.NewCounterVec(&compbasemetrics.CounterOpts{
			Subsystem:      "apiserver",
			Name:           "request_total",
			Help:           "Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.",
			StabilityLevel: compbasemetrics.STABLE,
		}, requestLabels),
		latencies: compbasemetrics.NewHistogramVec(&compbasemetrics.HistogramOpts{
			Subsystem:      "apiserver",
			Name:           "request_duration_seconds",
			Help:           "Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.",
			Buckets:        []float64{0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60},
			StabilityLevel: compbasemetrics.STABLE,
		}, latencyLabels),
		storageObjects: compbasemetrics.NewGaugeVec(&compbasemetrics.GaugeOpts{
			Name:           "apiserver_storage_objects",
			Help:           "[DEPRECATED, consider using apiserver_resource_objects instead] Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.",
			StabilityLevel: compbasemetrics.STABLE,
		}, storageObjectLabels),
		resourceObjects: compbasemetrics.NewGaugeVec(&compbasemetrics.GaugeOpts{
			Name:           "apiserver_resource_objects",
			Help:           "Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.",
			StabilityLevel: compbasemetrics.ALPHA,
		}, resourceObjectLabels),
	}
	m.featureEnabled = compbasemetrics.NewGaugeVec(&compbasemetrics.GaugeOpts{
		Namespace:      "kubernetes",
		Name:           "feature_enabled",
		Help:           "This metric records the data about the stage and enablement of a k8s feature.",
		StabilityLevel: compbasemetrics.BETA,
	}, featureLabels)
	for key, values := range cfg.LabelAllowLists {
		metric, label, ok := strings.Cut(key, ",")
		if !ok {
			continue
		}
		if m.allowed[metric] == nil {
			m.allowed[metric] = map[string]sets.Set[string]{}
		}
		m.allowed[metric][label] = sets.New(strings.Split(values, ",")...)
	}
	disabled := sets.New(cfg.Disabled...)
	served := []compbasemetrics.Registerable{m.requests, m.latencies, m.featureEnabled}
	if !cfg.NoObjectCounts {
		served = append(served, m.storageObjects, m.resourceObjects)
	}
	for _, c := range served {
		if !disabled.Has(c.FQName()) {
			m.registry.MustRegister(c)
		}
	}
	return m
}

// metricsVerb is the verb kube-apiserver's metrics report for a request:
// the route's verb in capitals (POST for create, PUT for update, APPLY for a
// server-side apply patch, ...).
func metricsVerb(r *http.Request, info *apirequest.RequestInfo) string {
	switch info.Verb {
	case "create":
		return "POST"
	case "update":
		return "PUT"
	case "patch":
		if r.Header.Get("Content-Type") == "application/apply-patch+yaml" {
			return "APPLY"
		}
		return "PATCH"
	}
	return strings.ToUpper(info.Verb)
}

// dryRunLabel is the dry_run label, as upstream's: the request's dryRun
// values, sorted and joined, "invalid" for values the API refuses, or "".
func dryRunLabel(r *http.Request) string {
	vals := r.URL.Query()["dryRun"]
	if len(vals) == 0 {
		return ""
	}
	if errs := metav1validation.ValidateDryRun(nil, vals); len(errs) > 0 {
		return "invalid"
	}
	vals = sets.List(sets.New(vals...))
	return strings.Join(vals, ",")
}

// observe records one finished resource request.
func (m *apiMetrics) observe(r *http.Request, info *apirequest.RequestInfo, code int, elapsed time.Duration) {
	if code == 0 {
		code = http.StatusOK // what net/http answers for a handler that wrote nothing
	}
	verb, dry, scope := metricsVerb(r, info), dryRunLabel(r), endpointsmetrics.CleanScope(info)
	m.requests.WithLabelValues(m.labelValues("apiserver_request_total", requestLabels,
		verb, dry, info.APIGroup, info.APIVersion, info.Resource, info.Subresource, scope, "apiserver", strconv.Itoa(code))...).Inc()
	m.latencies.WithLabelValues(m.labelValues("apiserver_request_duration_seconds", latencyLabels,
		verb, dry, info.APIGroup, info.APIVersion, info.Resource, info.Subresource, scope, "apiserver")...).Observe(elapsed.Seconds())
}

// countObjects sets the object gauges from the store, one per stored
// resource (-1 where it cannot be read), unless they are not served.
func (s *Server) countObjects() {
	if s.metrics.noObjectCounts {
		return
	}
	buckets := map[schema.GroupResource]string{}
	for _, res := range s.Resources().All() {
		if !res.Virtual {
			buckets[res.GR] = res.Bucket
		}
	}
	for gr, bucket := range buckets {
		n := float64(-1)
		if l, err := s.Store().List(bucket, store.ListOptions{Limit: 1}); err == nil {
			n = float64(int64(len(l.Items)) + l.Remaining)
		}
		s.metrics.storageObjects.WithLabelValues(s.metrics.labelValues("apiserver_storage_objects", storageObjectLabels, gr.String())...).Set(n)
		s.metrics.resourceObjects.WithLabelValues(s.metrics.labelValues("apiserver_resource_objects", resourceObjectLabels, gr.Group, gr.Resource)...).Set(n)
	}
}

// withMetrics records the requests that h serves in the server's metrics,
// as kube-apiserver's instrumented handlers record them (its request
// metrics stand at the handlers, inside authentication): a resource
// request once it reaches the server's handler (markServed), and one
// refused before it only when it was answered 429 (kube-apiserver's
// RecordDroppedRequest: counted, no latency); a 401 or 403 of
// authentication or authorization is not counted. Of the other requests,
// those of the routes kube-apiserver instruments (see nonResourceRouteOf),
// once they reach the handler. The labels come from the RequestInfo that
// filters.WithRequestInfo put in the request's context.
func (s *Server) withMetrics(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info, ok := apirequest.RequestInfoFrom(r.Context())
		if !ok {
			h.ServeHTTP(w, r)
			return
		}
		mark := &servedMark{}
		if !info.IsResourceRequest {
			if mark.route = nonResourceRouteOf(r); mark.route == nil {
				h.ServeHTTP(w, r)
				return
			}
		}
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w}
		defer func() {
			switch {
			case mark.route != nil:
				if mark.served {
					s.metrics.observeNonResource(r, info, mark.route, rec, time.Since(start))
				}
			case mark.served:
				s.metrics.observe(r, info, rec.code, time.Since(start))
			case rec.code == http.StatusTooManyRequests:
				s.metrics.observeDropped(r, info)
			}
		}()
		h.ServeHTTP(rec, r.WithContext(context.WithValue(r.Context(), servedMarkKey{}, mark)))
	})
}

// servedMark says whether a request reached the server's handler, for
// withMetrics; route is the labels of a counted non-resource request.
type servedMark struct {
	served bool
	route  *nonResourceRoute
}

// servedMarkKey is the context key of a request's servedMark.
type servedMarkKey struct{}

// markServed records that a request reached the server's handler, where
// kube-apiserver's instrumented handlers stand.
func markServed(r *http.Request) {
	if m, ok := r.Context().Value(servedMarkKey{}).(*servedMark); ok {
		m.served = true
	}
}

// nonResourceRoute is a path kube-apiserver serves with a handler its
// request metrics count, and the labels they give it.
type nonResourceRoute struct {
	subresource, resource, component string
	// zpage: the group and version are the answer's (a structured
	// /flagz or /statusz), else empty.
	zpage bool
}

// nonResourceRouteOf returns the route of r if kube-apiserver v1.37
// counts its requests (recorded on a real server): /healthz, /livez and
// /readyz (not their checks' paths), the OpenAPI v3 index and documents,
// aggregated discovery at /api and /apis (not the legacy documents), and
// /flagz and /statusz.
func nonResourceRouteOf(r *http.Request) *nonResourceRoute {
	switch p := r.URL.Path; {
	case p == "/healthz" || p == "/livez" || p == "/readyz":
		return &nonResourceRoute{subresource: p}
	case p == "/openapi/v3":
		return &nonResourceRoute{subresource: "openapi/v3"}
	case strings.HasPrefix(p, "/openapi/v3/"):
		return &nonResourceRoute{subresource: "openapi/v3/"}
	case p == "/api" || p == "/apis":
		if _, agg := aggregatedMedia(r.Header.Get("Accept")); agg {
			return &nonResourceRoute{subresource: p[1:], component: "apiserver"}
		}
	case p == "/flagz" || p == "/statusz":
		return &nonResourceRoute{resource: p[1:], component: "apiserver", zpage: true}
	}
	return nil
}

// countedVerbs are the verbs kube-apiserver's request metrics report;
// another is reported as "other".
var countedVerbs = sets.New("APPLY", "CONNECT", "CREATE", "DELETE", "DELETECOLLECTION", "GET", "LIST", "PATCH", "POST", "PROXY", "PUT", "UPDATE", "WATCH", "WATCHLIST")

// observeDropped records a resource request refused 429 before it
// reached the handler, as upstream's RecordDroppedRequest: its count
// alone.
func (m *apiMetrics) observeDropped(r *http.Request, info *apirequest.RequestInfo) {
	m.requests.WithLabelValues(m.labelValues("apiserver_request_total", requestLabels,
		metricsVerb(r, info), dryRunLabel(r), info.APIGroup, info.APIVersion, info.Resource, info.Subresource, endpointsmetrics.CleanScope(info), "apiserver", strconv.Itoa(http.StatusTooManyRequests))...).Inc()
}

// observeNonResource records one finished request of a counted
// non-resource route, as upstream's MonitorRequest does for its handlers:
// the method as the verb (HEAD as GET, ?watch=true as WATCH), the route's
// labels, and for a structured /flagz or /statusz the group and version of
// its answer.
func (m *apiMetrics) observeNonResource(r *http.Request, info *apirequest.RequestInfo, route *nonResourceRoute, rec *statusRecorder, elapsed time.Duration) {
	code := rec.code
	if code == 0 {
		code = http.StatusOK
	}
	verb := endpointsmetrics.CleanVerb(endpointsmetrics.CanonicalVerb(strings.ToUpper(r.Method), ""), r, info)
	if !countedVerbs.Has(verb) {
		verb = "other"
	}
	var group, version string
	if route.zpage {
		if _, params, err := mime.ParseMediaType(rec.Header().Get("Content-Type")); err == nil {
			group, version = params["g"], params["v"]
		}
	}
	dry := dryRunLabel(r)
	m.requests.WithLabelValues(m.labelValues("apiserver_request_total", requestLabels,
		verb, dry, group, version, route.resource, route.subresource, "", route.component, strconv.Itoa(code))...).Inc()
	m.latencies.WithLabelValues(m.labelValues("apiserver_request_duration_seconds", latencyLabels,
		verb, dry, group, version, route.resource, route.subresource, "", route.component)...).Observe(elapsed.Seconds())
}

// serveMetrics answers /metrics.
func (s *Server) serveMetrics(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodDelete && !s.cfg.NoProfiling {
		// kube-apiserver's MetricsWithReset, served with --profiling.
		s.metrics.registry.Reset()
		writeMetricsReset(w)
		return
	}
	s.countObjects()
	s.metrics.setFeatures()
	compbasemetrics.HandlerFor(s.metrics.registry, compbasemetrics.HandlerOpts{}).ServeHTTP(w, r)
}

// statusRecorder remembers the status code a handler answered with. It
// passes Flush (watches) and Hijack (upgrades) through.
type statusRecorder struct {
	http.ResponseWriter
	code int
}

func (w *statusRecorder) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusRecorder) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Flush implements http.Flusher.
func (w *statusRecorder) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// CloseNotify implements http.CloseNotifier: upstream's filters inside
// (the audit filter's response writer) keep Flush only for a writer that
// has both, as net/http's have.
func (w *statusRecorder) CloseNotify() <-chan bool {
	if cn, ok := w.ResponseWriter.(http.CloseNotifier); ok { //nolint:staticcheck // upstream's filters require it
		return cn.CloseNotify()
	}
	return nil
}

// Hijack implements http.Hijacker.
func (w *statusRecorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return http.NewResponseController(w.ResponseWriter).Hijack()
}

// Unwrap gives http.ResponseController the writer underneath.
func (w *statusRecorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// writeMetricsReset answers a DELETE of /metrics or /metrics/slis, as
// component-base's HandlerWithReset.
func writeMetricsReset(w http.ResponseWriter) {
	_, _ = io.WriteString(w, "metrics reset\n")
}
