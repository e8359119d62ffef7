package server

import (
	"net/http"
	"strings"

	"k8s.io/apiserver/pkg/server/statusz"
	"k8s.io/component-base/compatibility"
)

// newStatusz is kube-apiserver's /statusz, upstream's handler
// (k8s.io/apiserver/pkg/server/statusz) as kube-apiserver installs it: as
// "apiserver", with v's binary version and paths' top-level folders. Its
// start time is the process's, as upstream's (one control plane per process
// for the command; in a test process, the process's start).
func newStatusz(v VersionInfo, paths []string) http.Handler {
	m := pathHandlers{}
	ev := compatibility.NewEffectiveVersionFromString(strings.TrimPrefix(v.GitVersion, "v"), "", "")
	statusz.Install(m, "apiserver", statusz.NewRegistry(ev, statusz.WithListedPaths(paths)))
	return m[statusz.DefaultStatuszPath]
}
