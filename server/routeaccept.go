package server

// kube-apiserver serves built-in resources, /api, /api/v1, the built-in
// group versions and /version through go-restful routes, which refuse an
// Accept header naming none of a route's media types before any handler
// negotiates: 406 with go-restful's own message and empty details.

import (
	"net/http"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"

	"github.com/fakeplane/fakeplane/registry"
)

// The media types kube-apiserver's routes produce: every route's, the
// watch streams a collection's GET adds, the text a pod's log adds first.
var (
	routeProduces     = []string{mediaJSON, mediaYAML, mediaProtobuf}
	listRouteProduces = append(append([]string(nil), routeProduces...), mediaJSON+";stream=watch", mediaProtobuf+";stream=watch")
	logRouteProduces  = append([]string{"text/plain"}, routeProduces...)
	versionProduces   = []string{mediaJSON}
)

// The media types kube-apiserver's discovery routes (/api, /api/v1, a
// built-in group version's and kube-aggregator's own group's documents)
// and /version consume: a GET naming another Content-Type is refused.
var (
	discoveryRouteConsumes = routeProduces
	versionConsumes        = []string{mediaJSON}
)

// routeConsumesContentType is go-restful's match of a GET's Content-Type
// (none: any) against a route's consumed media types: one of its
// comma-separated types, parameters cut off, is */* or one of them.
func routeConsumesContentType(contentType string, consumes []string) bool {
	if contentType == "" {
		return true
	}
	for _, mt := range strings.Split(contentType, ",") {
		mt, _, _ = strings.Cut(mt, ";")
		mt = strings.TrimSpace(mt)
		if mt == "*/*" || slices.Contains(consumes, mt) {
			return true
		}
	}
	return false
}

// routeMatches is go-restful's choice of a GET-only route, in its order:
// the method (405), the Content-Type (415, see routeConsumesContentType),
// then the Accept header (406, see routeAccepts). It writes the refusal
// and reports false.
func routeMatches(w http.ResponseWriter, r *http.Request, consumes, produces []string) bool {
	if !routeMethodAllowed(w, r) {
		return false
	}
	if !routeConsumesContentType(r.Header.Get("Content-Type"), consumes) {
		writeError(w, r, errRouteUnsupportedMediaType())
		return false
	}
	if !routeAccepts(r.Header.Get("Accept"), produces) {
		writeError(w, r, errRouteNotAcceptable(produces))
		return false
	}
	return true
}

// routeAccepts is go-restful's match of an Accept header (empty: */*)
// against a route's media types: a clause's type, its parameters cut off,
// is */* or one of them. Wildcards such as application/* match nothing.
func routeAccepts(accept string, produces []string) bool {
	if accept == "" {
		return true
	}
	for _, clause := range strings.Split(accept, ",") {
		mt, _, _ := strings.Cut(clause, ";")
		mt = strings.TrimSpace(mt)
		if mt == "*/*" {
			return true
		}
		for _, p := range produces {
			if p == mt {
				return true
			}
		}
	}
	return false
}

// errRouteNotAcceptable is go-restful's 406, as kube-apiserver sends it.
func errRouteNotAcceptable(produces []string) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusNotAcceptable, Reason: metav1.StatusReasonNotAcceptable,
		Message: "406: Not Acceptable\n\nAvailable representations: " + strings.Join(produces, ", "), Details: &metav1.StatusDetails{},
	}}
}

// resourceRouteProduces are the media types of the route that serves a
// request to a built-in resource.
func resourceRouteProduces(info *apirequest.RequestInfo, method string) []string {
	switch {
	case info.Subresource == "log":
		return logRouteProduces
	case info.Subresource == "" && method == http.MethodGet && (info.Verb == "list" || info.Verb == "watch"):
		return listRouteProduces
	}
	return routeProduces
}

// routeMethodAllowed is go-restful's match of a request's method against
// the routes of a path that serve GET alone (/version, /api, /api/v1, a
// built-in group version's discovery, the OpenID documents): any other
// method, HEAD and OPTIONS included, is refused with 405 before the Accept
// header is looked at. It writes the 405 and reports false.
func routeMethodAllowed(w http.ResponseWriter, r *http.Request) bool {
	if r.Method == http.MethodGet {
		return true
	}
	writeError(w, r, registry.ErrMethodNotAllowed())
	return false
}
