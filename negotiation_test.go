package fakeplane_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"

	"github.com/fakeplane/fakeplane"
)

// TestNegotiationHonoursQWeights checks that the Accept header's clauses
// are tried in the order of their q-weights, as kube-apiserver tries them,
// for objects, lists, Tables and errors.
func TestNegotiationHonoursQWeights(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	const list = "/api/v1/namespaces/default/configmaps"
	for _, tc := range []struct {
		name, path, accept string
		code               int
		ctype, body        string
	}{
		{"YAML outweighs JSON", list, "application/json;q=0.5, application/yaml", 200, "application/yaml", "kind: ConfigMapList"},
		{"protobuf outweighs YAML", list, "application/yaml;q=0.5, application/vnd.kubernetes.protobuf", 200, "application/vnd.kubernetes.protobuf", "k8s\x00"},
		{"JSON outweighs Table", list, "application/json;as=Table;v=v1;g=meta.k8s.io;q=0.5, application/json", 200, "application/json", `"kind":"ConfigMapList"`},
		{"Table outweighs JSON", list, "application/json;q=0.5, application/json;as=Table;v=v1;g=meta.k8s.io", 200, "application/json", `"kind":"Table"`},
		{"q=0 is still served", list, "application/yaml;q=0", 200, "application/yaml", "kind: ConfigMapList"},
		{"errors follow the weights", list + "/missing", "application/json;q=0.5, application/yaml", 404, "application/yaml", "reason: NotFound"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, ctype, out := rawRequest(t, cp, "GET", tc.path, "", nil, http.Header{"Accept": {tc.accept}})
			if code != tc.code || ctype != tc.ctype || !strings.Contains(string(out), tc.body) {
				t.Errorf("Accept %q: %d %s %q", tc.accept, code, ctype, out)
			}
		})
	}
}

// TestNotAcceptableAsKubeAPIServer: kube-apiserver serves built-in
// resources, /api, /api/v1, built-in group versions and /version through
// go-restful routes, which refuse an Accept header naming none of a
// route's media types (application/* included) with go-restful's message
// and empty details, after a method the route lacks (405) and before the
// deprecation warning. The handlers behind them refuse what their
// negotiation cannot serve, such as a Table of a review or of a pod's log.
// The codes, messages and warnings are kube-apiserver v1.37's answers to
// the same requests (recorded from refplane).
func TestNotAcceptableAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	const (
		table    = "application/json;as=Table;v=v1;g=meta.k8s.io"
		base     = "application/json, application/yaml, application/vnd.kubernetes.protobuf"
		restful  = "406: Not Acceptable\n\nAvailable representations: "
		handler  = "only the following media types are accepted: " + base
		csWarn   = `299 - "v1 ComponentStatus is deprecated in v1.19+"`
		ssar     = `{"spec":{"resourceAttributes":{"verb":"get","resource":"pods"}}}`
		evict    = `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"nope"}}`
		cms      = "/api/v1/namespaces/default/configmaps"
		withBody = "application/json"
	)
	for _, tc := range []struct {
		name, accept, method, path, body string
		code                             int
		message, warning                 string
		details                          bool
	}{
		{"a list route adds the watch streams", "text/html", "GET", cms, "", 406, restful + base + ", application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch", "", true},
		{"a watch too", "text/html", "GET", "/api/v1/watch/namespaces/default/configmaps", "", 406, restful + base + ", application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch", "", true},
		{"a get", "text/html", "GET", cms + "/x", "", 406, restful + base, "", true},
		{"a create", "text/html", "POST", cms, `{"metadata":{"name":"x"}}`, 406, restful + base, "", true},
		{"application/* matches no route", "application/*", "GET", cms + "/x", "", 406, restful + base, "", true},
		{"a pod's log offers text first", "text/html", "GET", "/api/v1/namespaces/default/pods/x/log", "", 406, restful + "text/plain, " + base, "", true},
		{"a review", "text/html", "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", ssar, 406, restful + base, "", true},
		{"no deprecation warning before the route", "text/html", "GET", "/api/v1/componentstatuses", "", 406, restful + base + ", application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch", "", true},
		{"405 before 406", "text/html", "GET", "/api/v1/namespaces/x/finalize", "", 405, "the server does not allow this method on the requested resource", "", true},
		{"/api", "text/html", "GET", "/api", "", 406, restful + base, "", true},
		{"/api/v1", "text/plain", "GET", "/api/v1", "", 406, restful + base, "", true},
		{"a built-in group version", "text/html", "GET", "/apis/apps/v1", "", 406, restful + base, "", true},
		{"a version that does not exist is a 404 first", "text/html", "GET", "/apis/apps/v9", "", 404, "the server could not find the requested resource", "", true},
		{"/apis negotiates in its handler", "text/html", "GET", "/apis", "", 406, handler, "", false},
		{"a group", "text/html", "GET", "/apis/apps", "", 406, handler, "", false},
		{"/version offers JSON alone", "application/yaml", "GET", "/version", "", 406, restful + "application/json", "", true},
		{"discovery has no Table", table, "GET", "/api/v1", "", 406, handler, "", false},
		{"a review has no Table", table, "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", ssar, 406, handler, "", false},
		{"a log has no Table", table, "GET", "/api/v1/namespaces/default/pods/x/log", "", 406, handler, "", false},
		{"an eviction has no Table", table, "POST", "/api/v1/namespaces/default/pods/nope/eviction", evict, 406, handler, "", false},
		{"a status has one", table, "GET", "/api/v1/namespaces/default/pods/nope/status", "", 404, `pods "nope" not found`, "", true},
		{"ComponentStatus has one, and warns", table, "GET", "/api/v1/componentstatuses/etcd-0", "", 200, "", csWarn, false},
		{"the warning comes before the handler's negotiation", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList", "GET", "/api/v1/componentstatuses", "", 406, handler, csWarn, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctype := ""
			if tc.body != "" {
				ctype = withBody
			}
			code, h, out := rawExchange(t, cp, tc.method, tc.path, ctype, []byte(tc.body), http.Header{"Accept": {tc.accept}})
			if code != tc.code {
				t.Fatalf("code %d, want %d: %s", code, tc.code, out)
			}
			if got := strings.Join(h.Values("Warning"), "\n"); got != tc.warning {
				t.Errorf("warnings %q, want %q", got, tc.warning)
			}
			if tc.message == "" {
				return
			}
			var st metav1.Status
			if err := json.Unmarshal(out, &st); err != nil {
				// An answer in YAML (the Accept header's) is checked by text.
				if !strings.Contains(string(out), "Available representations: application/json") {
					t.Fatalf("not a Status: %v: %s", err, out)
				}
				return
			}
			if st.Message != tc.message {
				t.Errorf("message\n got %q\nwant %q", st.Message, tc.message)
			}
			if (st.Details != nil) != tc.details {
				t.Errorf("details %+v, want present %v", st.Details, tc.details)
			}
		})
	}
}

// TestDiscoveryRoutesRefuseContentTypesAsKubeAPIServer: the go-restful
// routes of /api, /api/v1, a built-in group version, kube-aggregator's own
// group and /version consume only their media types (/version JSON alone),
// so a GET naming another Content-Type is go-restful's 415, after a method
// the route lacks (405) and before an Accept it cannot produce (406); /api
// chooses its route before it serves aggregated discovery. The documents
// kube-aggregator and apiextensions serve with handlers of their own (/apis,
// other groups, a custom resource's group version) take any. The codes are
// kube-apiserver v1.37's answers to the same requests (recorded from refplane).
func TestDiscoveryRoutesRefuseContentTypesAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	createCRD(t, context.Background(), dynamic.NewForConfigOrDie(cp.RESTConfig()), foosCRD(t, "type: object"))
	const aggregated = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
	for _, tc := range []struct {
		name, method, path, contentType, accept string
		code                                    int
	}{
		{"/api refuses text", "GET", "/api", "text/plain", "", 415},
		{"/api takes JSON", "GET", "/api", "application/json", "", 200},
		{"/api takes protobuf", "GET", "/api", "application/vnd.kubernetes.protobuf", "", 200},
		{"/api takes a list naming one it consumes", "GET", "/api", "text/plain, application/yaml", "", 200},
		{"/api ignores parameters", "GET", "/api", "text/plain;x=application/json", "", 415},
		{"/api refuses text for aggregated discovery", "GET", "/api", "text/plain", aggregated, 415},
		{"/api refuses a POST for aggregated discovery", "POST", "/api", "", aggregated, 405},
		{"the method comes first", "POST", "/api", "text/plain", "", 405},
		{"the Content-Type comes before the Accept", "GET", "/api", "text/plain", "text/html", 415},
		{"/api/v1", "GET", "/api/v1", "text/plain", "", 415},
		{"a built-in group version", "GET", "/apis/apps/v1", "text/plain", "", 415},
		{"apiextensions' group version", "GET", "/apis/apiextensions.k8s.io/v1", "text/plain", "", 415},
		{"kube-aggregator's own group", "GET", "/apis/apiregistration.k8s.io", "text/plain", "", 415},
		{"kube-aggregator's own group refuses a POST", "POST", "/apis/apiregistration.k8s.io", "", "", 405},
		{"another group takes any", "GET", "/apis/apps", "text/plain", "", 200},
		{"another group answers a POST", "POST", "/apis/apps", "", "", 200},
		{"/apis takes any", "GET", "/apis", "text/plain", aggregated, 200},
		{"a custom resource's group version takes any", "GET", "/apis/tests.example.com/v1beta1", "text/plain", "", 200},
		{"/version takes JSON", "GET", "/version", "application/json", "", 200},
		{"/version refuses YAML", "GET", "/version", "application/yaml", "", 415},
		{"a list takes any", "GET", "/api/v1/namespaces/default/configmaps", "text/plain", "", 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			if tc.accept != "" {
				h.Set("Accept", tc.accept)
			}
			code, _, out := rawExchange(t, cp, tc.method, tc.path, tc.contentType, nil, h)
			if code != tc.code {
				t.Fatalf("%s %s with Content-Type %q: %d, want %d: %s", tc.method, tc.path, tc.contentType, code, tc.code, out)
			}
			if code != 415 {
				return
			}
			var st metav1.Status
			if err := json.Unmarshal(out, &st); err != nil {
				t.Fatalf("not a Status: %v: %s", err, out)
			}
			if st.Reason != metav1.StatusReasonUnsupportedMediaType || st.Message != "415: Unsupported Media Type" || st.Details == nil {
				t.Errorf("got %+v, want go-restful's 415", st)
			}
		})
	}
}
