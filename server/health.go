package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"strings"

	"k8s.io/apimachinery/pkg/version"
)

// VersionInfo is what /version reports.
type VersionInfo = version.Info

// DefaultVersion is the Kubernetes version fakeplane emulates.
func DefaultVersion() VersionInfo {
	return version.Info{
		Major: "1", Minor: "37",
		EmulationMajor: "1", EmulationMinor: "37",
		MinCompatibilityMajor: "1", MinCompatibilityMinor: "36",
		GitVersion: "v1.37.1", GitCommit: "fakeplane", GitTreeState: "clean",
		BuildDate: "2026-11-01T00:00:00Z", GoVersion: runtime.Version(), Compiler: runtime.Compiler,
		Platform: runtime.GOOS + "/" + runtime.GOARCH,
	}
}

func (s *Server) serveVersion(w http.ResponseWriter, r *http.Request) {
	v := s.cfg.Version
	if v.GitVersion == "" {
		v = DefaultVersion()
	}
	b, _ := json.MarshalIndent(v, "", "  ")
	writeBytes(w, r, http.StatusOK, mediaJSON, b)
}

// healthChecks are the checks each endpoint lists with ?verbose, in
// kube-apiserver's order.
var healthChecks = map[string][]string{
	"/healthz": {"ping", "log", "etcd", "poststarthook/start-apiserver-admission-initializer", "poststarthook/generic-apiserver-start-informers", "poststarthook/bootstrap-controller", "poststarthook/rbac/bootstrap-roles", "poststarthook/scheduling/bootstrap-system-priority-classes", "poststarthook/apiservice-registration-controller", "autoregister-completion"},
	"/livez":   {"ping", "log", "etcd", "poststarthook/start-apiserver-admission-initializer", "poststarthook/generic-apiserver-start-informers", "poststarthook/bootstrap-controller", "poststarthook/rbac/bootstrap-roles", "poststarthook/scheduling/bootstrap-system-priority-classes", "poststarthook/apiservice-registration-controller", "autoregister-completion"},
	"/readyz":  {"ping", "log", "etcd", "etcd-readiness", "informer-sync", "poststarthook/start-apiserver-admission-initializer", "poststarthook/generic-apiserver-start-informers", "poststarthook/bootstrap-controller", "poststarthook/rbac/bootstrap-roles", "poststarthook/scheduling/bootstrap-system-priority-classes", "poststarthook/apiservice-registration-controller", "autoregister-completion", "shutdown"},
}

// serveHealth answers /healthz, /livez and /readyz, their ?verbose form and
// their individual checks.
func (s *Server) serveHealth(w http.ResponseWriter, r *http.Request, path string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	for ep, checks := range healthChecks {
		if path == ep {
			if _, verbose := r.URL.Query()["verbose"]; verbose {
				var b strings.Builder
				for _, c := range checks {
					fmt.Fprintf(&b, "[+]%s ok\n", c)
				}
				fmt.Fprintf(&b, "%s check passed\n", strings.TrimPrefix(ep, "/"))
				w.WriteHeader(http.StatusOK)
				_, _ = w.Write([]byte(b.String()))
				return
			}
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write([]byte("ok"))
			return
		}
		if strings.HasPrefix(path, ep+"/") {
			name := strings.TrimPrefix(path, ep+"/")
			for _, c := range checks {
				if c == name {
					w.WriteHeader(http.StatusOK)
					_, _ = w.Write([]byte("ok"))
					return
				}
			}
		}
	}
	writeError(w, r, notFoundPath())
}
