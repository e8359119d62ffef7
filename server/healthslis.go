package server

import (
	"net/http"
	"slices"
	"sync/atomic"

	k8smetrics "k8s.io/component-base/metrics"
)

// healthSLIs counts the checks the root health endpoints (/healthz, /livez,
// /readyz) ran, for /metrics/slis. kube-apiserver's healthz handlers record
// each check they run, less those named by ?exclude=, into the
// kubernetes_healthcheck gauge and the kubernetes_healthchecks_total
// counter (component-base's slis package); a check's own path records
// nothing. Upstream's are process-wide; these are the control plane's. Its
// checks always pass, so a count is of successes.
type healthSLIs struct {
	// checks are each endpoint's checks, by its type ("healthz", "livez",
	// "readyz"), and runs how many times each ran.
	checks map[string][]string
	runs   map[string][]atomic.Int64
}

// newHealthSLIs counts the runs of the checks healthChecks lists.
func newHealthSLIs(proxyClientCert, noAPF bool) *healthSLIs {
	h := &healthSLIs{checks: map[string][]string{}, runs: map[string][]atomic.Int64{}}
	for _, ep := range healthEndpoints {
		checks := healthChecks("/"+ep, proxyClientCert, noAPF)
		h.checks[ep] = checks
		h.runs[ep] = make([]atomic.Int64, len(checks))
	}
	return h
}

// healthEndpoints are the types of the root health endpoints.
var healthEndpoints = []string{"healthz", "livez", "readyz"}

// observe records the checks a request to the root endpoint of type ep
// runs: all but those its ?exclude= parameters name.
func (h *healthSLIs) observe(ep string, r *http.Request) {
	excluded := r.URL.Query()["exclude"]
	runs := h.runs[ep]
	for i, name := range h.checks[ep] {
		if !slices.Contains(excluded, name) {
			runs[i].Add(1)
		}
	}
}

// serve answers /metrics/slis as kube-apiserver does: both metrics for
// each check that ran, and the process's start time.
func (h *healthSLIs) serve(w http.ResponseWriter, r *http.Request, reset bool) {
	if reset && r.Method == http.MethodDelete {
		for _, runs := range h.runs {
			for i := range runs {
				runs[i].Store(0)
			}
		}
		writeMetricsReset(w)
		return
	}
	reg := k8smetrics.NewKubeRegistry()
	gauge := k8smetrics.NewGaugeVec(&k8smetrics.GaugeOpts{
		Namespace: "kubernetes", Name: "healthcheck", StabilityLevel: k8smetrics.STABLE,
		Help: "This metric records the result of a single healthcheck.",
	}, []string{"name", "type"})
	total := k8smetrics.NewCounterVec(&k8smetrics.CounterOpts{
		Namespace: "kubernetes", Name: "healthchecks_total", StabilityLevel: k8smetrics.STABLE,
		Help: "This metric records the results of all healthcheck.",
	}, []string{"name", "type", "status"})
	reg.MustRegister(gauge, total)
	_ = k8smetrics.RegisterProcessStartTime(reg.Register)
	for _, ep := range healthEndpoints {
		for i, name := range h.checks[ep] {
			if n := h.runs[ep][i].Load(); n > 0 {
				gauge.WithLabelValues(name, ep).Set(1)
				total.WithLabelValues(name, ep, "success").Add(float64(n))
			}
		}
	}
	k8smetrics.HandlerFor(reg, k8smetrics.HandlerOpts{}).ServeHTTP(w, r)
}
