package server

import (
	"encoding/json"
	"net/http"
	"runtime"
	"slices"
	"strings"

	utilversion "k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apimachinery/pkg/version"
	"k8s.io/apiserver/pkg/server/healthz"
	"k8s.io/component-base/compatibility"
)

// VersionInfo is what /version reports.
type VersionInfo = version.Info

// EmulatedGitVersion is the kube-apiserver release fakeplane emulates: the
// release of the k8s.io modules it is built on (go.mod's k8s.io/* v0.37.2).
const EmulatedGitVersion = "v1.37.2"

// DefaultVersion is the Kubernetes version fakeplane emulates, as
// kube-apiserver v1.37.2 reports it on /version. GitCommit is what a
// kube-apiserver built without git metadata reports (component-base's
// unsubstituted placeholder, as the reference server answers); BuildDate,
// GoVersion, Compiler and Platform describe this binary, as kube-apiserver's
// describe its own.
func DefaultVersion() VersionInfo {
	return version.Info{
		Major: "1", Minor: "37",
		EmulationMajor: "1", EmulationMinor: "37",
		MinCompatibilityMajor: "1", MinCompatibilityMinor: "36",
		GitVersion: EmulatedGitVersion, GitCommit: "$Format:%H$", GitTreeState: "clean",
		BuildDate: "2026-11-01T00:00:00Z", GoVersion: runtime.Version(), Compiler: runtime.Compiler,
		Platform: runtime.GOOS + "/" + runtime.GOARCH,
	}
}

// KubeEffectiveVersion is kube-apiserver v1.37.2's effective version, with
// its floors (three minor versions back for both the emulated and the
// minimum compatibility version, as kube-apiserver's): the checks of
// --emulated-version and --min-compatibility-version, and their errors,
// are component-base's on it.
func KubeEffectiveVersion() compatibility.MutableEffectiveVersion {
	binary := utilversion.MustParse(strings.TrimPrefix(EmulatedGitVersion, "v"))
	floor := utilversion.MajorMinor(binary.Major(), binary.Minor()-3)
	return compatibility.NewEffectiveVersion(binary, false, floor, floor)
}

func (s *Server) serveVersion(w http.ResponseWriter, r *http.Request) {
	if !routeMatches(w, r, versionConsumes, versionProduces) {
		return
	}
	// Always indented, without a trailing newline, as upstream writes it.
	b, _ := json.MarshalIndent(s.version(), "", "  ")
	writeRaw(w, nil, http.StatusOK, mediaJSON, b)
}

// startHooks are the post-start hooks (and autoregister-completion) that
// kube-apiserver v1.37 lists with ?verbose on /livez, /healthz and /readyz.
var startHooks = []string{
	"poststarthook/start-apiserver-admission-initializer",
	"poststarthook/generic-apiserver-start-informers",
	apfConsumerHook,
	apfFilterHook,
	"poststarthook/storage-object-count-tracker-hook",
	"poststarthook/start-apiextensions-informers",
	"poststarthook/start-apiextensions-controllers",
	"poststarthook/crd-informer-synced",
	"poststarthook/start-system-namespaces-controller",
	"poststarthook/peer-endpoint-reconciler-controller",
	"poststarthook/start-cluster-authentication-info-controller",
	"poststarthook/start-kube-apiserver-identity-lease-controller",
	"poststarthook/start-kube-apiserver-identity-lease-garbage-collector",
	"poststarthook/storage-readiness",
	"poststarthook/start-legacy-token-tracking-controller",
	"poststarthook/start-service-ip-repair-controllers",
	"poststarthook/rbac/bootstrap-roles",
	"poststarthook/scheduling/bootstrap-system-priority-classes",
	"poststarthook/priority-and-fairness-config-producer",
	"poststarthook/bootstrap-controller",
	"poststarthook/start-kubernetes-service-cidr-controller",
	aggregatorProxyCertHook,
	"poststarthook/start-kube-aggregator-informers",
	"poststarthook/apiservice-status-local-available-controller",
	"poststarthook/apiservice-status-remote-available-controller",
	"poststarthook/apiservice-registration-controller",
	"poststarthook/apiservice-discovery-controller",
	"poststarthook/kube-apiserver-autoregistration",
	"autoregister-completion",
	"poststarthook/apiservice-openapi-controller",
	"poststarthook/apiservice-openapiv3-controller",
}

// aggregatorProxyCertHook is the post-start hook kube-aggregator adds only
// when it has a proxy client certificate (--proxy-client-cert-file).
const aggregatorProxyCertHook = "poststarthook/aggregator-reload-proxy-client-cert"

// livezChecks and readyzChecks are the checks each endpoint lists, in order
// (/healthz lists the /livez ones), with a proxy client certificate.
var (
	livezChecks  = append([]string{"ping", "log", "loopback-serving-certificate", "etcd"}, startHooks...)
	readyzChecks = append(append([]string{"ping", "log", "etcd", "etcd-readiness", "informer-sync"}, startHooks...), "shutdown")
)

// healthChecks returns the checks an endpoint lists, with or without a
// proxy client certificate.
func healthChecks(ep string, proxyClientCert, noAPF bool) []string {
	checks := livezChecks
	if ep == "/readyz" {
		checks = readyzChecks
	}
	if !proxyClientCert {
		checks = slices.DeleteFunc(slices.Clone(checks), func(c string) bool { return c == aggregatorProxyCertHook })
	}
	if noAPF {
		// Without priority and fairness, kube-apiserver's max-in-flight
		// filter stands where its two hooks were.
		checks = slices.Clone(checks)
		i := slices.Index(checks, apfConsumerHook)
		checks = slices.DeleteFunc(checks, func(c string) bool { return c == apfConsumerHook || c == apfFilterHook })
		checks = slices.Insert(checks, i, "poststarthook/max-in-flight-filter")
	}
	return checks
}

// The post-start hooks of priority and fairness's filter.
const (
	apfConsumerHook = "poststarthook/priority-and-fairness-config-consumer"
	apfFilterHook   = "poststarthook/priority-and-fairness-filter"
)

// pathHandlers is a mux for upstream's installers (healthz.InstallPathHandler,
// statusz.Install): the handlers they install by exact path, as
// kube-apiserver's PathRecorderMux matches them.
type pathHandlers map[string]http.Handler

// Handle registers the handler of one path.
func (m pathHandlers) Handle(pattern string, h http.Handler) { m[pattern] = h }

// healthMux builds the /healthz, /livez and /readyz handlers with
// k8s.io/apiserver's healthz package, as kube-apiserver installs them: each
// endpoint answers "ok" (its checks with ?verbose, less those named by
// ?exclude=) and each check has its own path. The checks named in run
// run those functions (etcd's, shutdown's); the others pass.
func healthMux(proxyClientCert, noAPF bool, run map[string]func() error) pathHandlers {
	m := pathHandlers{}
	for _, ep := range []string{"/healthz", "/livez", "/readyz"} {
		names := healthChecks(ep, proxyClientCert, noAPF)
		checks := make([]healthz.HealthChecker, len(names))
		for i, name := range names {
			check := passingCheck
			if f := run[name]; f != nil {
				check = func(*http.Request) error { return f() }
			}
			checks[i] = healthz.NamedCheck(name, check)
		}
		healthz.InstallPathHandler(m, ep, checks...)
	}
	return m
}

// passingCheck is a health check that passes.
func passingCheck(*http.Request) error { return nil }

// serveHealth answers /healthz, /livez and /readyz, their ?verbose form and
// their individual checks; an unknown check is kube-apiserver's mux's 404
// (plain text).
func (s *Server) serveHealth(w http.ResponseWriter, r *http.Request, path string) {
	s.healthOnce.Do(func() {
		s.health = healthMux(s.cfg.ProxyClientCertificate != nil, s.cfg.NoPriorityAndFairness,
			map[string]func() error{"etcd": s.cfg.EtcdHealth, "etcd-readiness": s.cfg.EtcdReadiness, "shutdown": s.shutdownCheck})
	})
	h, ok := s.health[path]
	if !ok {
		http.NotFound(w, r) // kube-apiserver's mux: "404 page not found"
		return
	}
	if ep := path[1:]; slices.Contains(healthEndpoints, ep) {
		s.healthSLIsOnce.Do(s.buildHealthSLIs)
		s.healthSLIs.observe(ep, r)
	}
	h.ServeHTTP(w, r)
}

// buildHealthSLIs builds the counts /metrics/slis answers from.
func (s *Server) buildHealthSLIs() {
	s.healthSLIs = newHealthSLIs(s.cfg.ProxyClientCertificate != nil, s.cfg.NoPriorityAndFairness)
}

// buildStatusz builds /statusz's handler.
func (s *Server) buildStatusz() { s.statusz = newStatusz(s.version(), s.debugPaths()) }
