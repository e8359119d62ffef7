package server

import (
	"maps"
	"net/http"

	"k8s.io/apiserver/pkg/server/flagz"
)

// newFlagz is kube-apiserver's /flagz, upstream's handler
// (k8s.io/apiserver/pkg/server/flagz) as kube-apiserver installs it: as
// "apiserver", listing flags by name (the text page, or the Flagz object of
// config.k8s.io/v1alpha1 and v1beta1).
func newFlagz(flags map[string]string) http.Handler {
	m := pathHandlers{}
	flagz.Install(m, "apiserver", flagValues(flags))
	return m[flagz.DefaultFlagzPath]
}

// flagValues is a flagz.Reader of fixed values.
type flagValues map[string]string

// GetFlagz returns a copy of the values (empty, not nil, for none).
func (f flagValues) GetFlagz() map[string]string {
	out := make(map[string]string, len(f))
	maps.Copy(out, f)
	return out
}
