package fakeplane_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fakeplane/fakeplane"
)

// TestMethodsWithoutARouteAsKubeAPIServer: the methods kube-apiserver has no
// route for are refused as it refuses them, recorded from refplane:
//   - /version, /api, /api/v1, a built-in group version's discovery and the
//     OpenID documents are go-restful routes serving GET alone: 405 to any
//     other method, HEAD and OPTIONS included;
//   - a built-in resource has no HEAD route, a collection no PUT or PATCH,
//     and the all-namespaces path of a namespaced resource GET alone: 405
//     (a DELETE there deleted every namespace's objects);
//   - a custom resource's all-namespaces path, past GET and HEAD, is
//     apiextensions' plain 404;
//   - the handlers that are not routes (/apis, a group, a custom group
//     version, health) answer any method.
//
// It also checks NamespaceLifecycle's refusal to delete default,
// kube-system and kube-public (fakeplane deleted them).
func TestMethodsWithoutARouteAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithObjects(subresourceWidgetCRD()))
	const notAllowed = `"reason":"MethodNotAllowed"`
	for _, tc := range []struct {
		method, path string
		code         int
		body         string
	}{
		{"POST", "/version", 405, notAllowed},
		{"HEAD", "/version", 405, ""},
		{"OPTIONS", "/api", 405, notAllowed},
		{"DELETE", "/api/v1", 405, notAllowed},
		{"POST", "/apis/apps/v1", 405, notAllowed},
		{"OPTIONS", "/.well-known/openid-configuration", 405, notAllowed},
		{"POST", "/openid/v1/jwks", 405, notAllowed},
		{"HEAD", "/api/v1/namespaces/default/configmaps", 405, ""},
		{"PUT", "/api/v1/namespaces", 405, notAllowed},
		{"PATCH", "/api/v1/namespaces/default/configmaps", 405, notAllowed},
		{"POST", "/api/v1/pods", 405, notAllowed},
		{"DELETE", "/api/v1/pods", 405, notAllowed},
		{"DELETE", "/apis/h4.example.com/v1/h4widgets", 404, "404 page not found"},
		{"PUT", "/apis/h4.example.com/v1/h4widgets", 404, "404 page not found"},
		{"OPTIONS", "/apis/h4.example.com/v1/h4widgets", 404, "404 page not found"},
		{"GET", "/apis/h4.example.com/v1/h4widgets", 200, `"kind":"H4WidgetList"`},
		{"OPTIONS", "/apis", 200, `"kind":"APIGroupList"`},
		{"POST", "/apis/apps", 200, `"kind":"APIGroup"`},
		{"OPTIONS", "/apis/h4.example.com/v1", 200, `"kind":"APIResourceList"`},
		{"POST", "/healthz", 200, "ok"},
		{"DELETE", "/api/v1/namespaces/default", 403, `namespaces \"default\" is forbidden: this namespace may not be deleted`},
		{"DELETE", "/api/v1/namespaces/kube-system?dryRun=All", 403, `namespaces \"kube-system\" is forbidden: this namespace may not be deleted`},
		{"DELETE", "/api/v1/namespaces/kube-public", 403, `namespaces \"kube-public\" is forbidden: this namespace may not be deleted`},
	} {
		code, _, body := rawRequest(t, cp, tc.method, tc.path, "", nil, http.Header{"Accept": {"application/json"}})
		if code != tc.code || !strings.Contains(string(body), tc.body) {
			t.Errorf("%s %s: %d %.200s, want %d with %s", tc.method, tc.path, code, body, tc.code, tc.body)
		}
	}
	if code, _, _ := rawRequest(t, cp, "GET", "/api/v1/namespaces/kube-system", "", nil, nil); code != 200 {
		t.Errorf("kube-system after the refused deletes: %d", code)
	}
}

// TestCustomResourceMethodsAsKubeAPIServer checks how apiextensions' handler
// answers the methods a custom resource's paths do not serve, unlike a
// built-in resource's go-restful routes: a 405 naming the verb it made of
// the method ("" for OPTIONS) and the resource, a PUT on the collection
// refused for want of a name before its body is read, and a POST on an
// object's path creating the object its body names, as on the collection.
// Each answer was recorded from a real v1.37 kube-apiserver (refplane).
func TestCustomResourceMethodsAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithObjects(subresourceWidgetCRD()))
	const widgets = "/apis/h4.example.com/v1/namespaces/default/h4widgets"
	if code, _, b := rawRequest(t, cp, "POST", widgets, "application/json", []byte(`{"apiVersion":"h4.example.com/v1","kind":"H4Widget","metadata":{"name":"w"}}`), nil); code != 201 {
		t.Fatalf("create w: %d %s", code, b)
	}
	widgetDetails := &metav1.StatusDetails{Group: "h4.example.com", Kind: "h4widgets"}
	notSupported := func(verb string) string {
		return verb + ` is not supported on resources of kind "h4widgets.h4.example.com"`
	}
	for _, tc := range []struct {
		method, path string
		code         int
		reason       metav1.StatusReason
		message      string
		details      *metav1.StatusDetails
	}{
		{"OPTIONS", widgets, 405, metav1.StatusReasonMethodNotAllowed, notSupported(""), widgetDetails},
		{"OPTIONS", widgets + "/w", 405, metav1.StatusReasonMethodNotAllowed, notSupported(""), widgetDetails},
		{"OPTIONS", widgets + "/w/status", 405, metav1.StatusReasonMethodNotAllowed, notSupported(""), widgetDetails},
		{"OPTIONS", widgets + "/w/scale", 405, metav1.StatusReasonMethodNotAllowed, notSupported(""), widgetDetails},
		{"POST", widgets + "/w/status", 405, metav1.StatusReasonMethodNotAllowed, notSupported("create"), widgetDetails},
		{"POST", widgets + "/w/scale", 405, metav1.StatusReasonMethodNotAllowed, notSupported("create"), widgetDetails},
		{"DELETE", widgets + "/w/status", 405, metav1.StatusReasonMethodNotAllowed, notSupported("delete"), widgetDetails},
		{"DELETE", widgets + "/w/scale", 405, metav1.StatusReasonMethodNotAllowed, notSupported("delete"), widgetDetails},
		{"PUT", widgets, 400, metav1.StatusReasonBadRequest, "name must be provided", nil},
	} {
		code, _, body := rawRequest(t, cp, tc.method, tc.path, "application/json", []byte(`{"apiVersion":"h4.example.com/v1","kind":"H4Widget","metadata":{"name":"w"}}`), http.Header{"Accept": {"application/json"}})
		var st metav1.Status
		if err := json.Unmarshal(body, &st); err != nil {
			t.Errorf("%s %s: %d, not a Status: %s", tc.method, tc.path, code, body)
			continue
		}
		if code != tc.code || st.Reason != tc.reason || st.Message != tc.message || !reflect.DeepEqual(st.Details, tc.details) {
			t.Errorf("%s %s: %d %s %q %+v\nwant %d %s %q %+v", tc.method, tc.path, code, st.Reason, st.Message, st.Details, tc.code, tc.reason, tc.message, tc.details)
		}
	}
	// A PATCH on the collection is refused for want of a name once the
	// handler knows the patch type: a type it does not take is a 415 first.
	for ct, want := range map[string]string{
		"application/merge-patch+json": "name must be provided",
		"application/json-patch+json":  "name must be provided",
		"application/apply-patch+yaml": "name must be provided",
		"text/plain":                   "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml",
	} {
		code, _, body := rawRequest(t, cp, "PATCH", widgets+"?fieldManager=m", ct, []byte(`{}`), http.Header{"Accept": {"application/json"}})
		var st metav1.Status
		if err := json.Unmarshal(body, &st); err != nil || st.Message != want || (code != 400 && code != 415) {
			t.Errorf("PATCH %s as %s: %d %s, want %q", widgets, ct, code, body, want)
		}
	}
	// A POST on an object's path creates the object its body names.
	code, _, body := rawRequest(t, cp, "POST", widgets+"/elsewhere", "application/json", []byte(`{"apiVersion":"h4.example.com/v1","kind":"H4Widget","metadata":{"name":"made"}}`), nil)
	if code != 201 || !strings.Contains(string(body), `"name":"made"`) {
		t.Fatalf("POST on another object's path: %d %s, want 201 creating made", code, body)
	}
	for name, want := range map[string]int{"made": 200, "elsewhere": 404} {
		if code, _, _ := rawRequest(t, cp, "GET", widgets+"/"+name, "", nil, nil); code != want {
			t.Errorf("GET %s: %d, want %d", name, code, want)
		}
	}
	// A path of the other scope is the handler's plain 404, but for a list
	// or a watch of a namespaced resource across namespaces.
	foos := foosCRD(t, `{type: object}`)
	foos.TypeMeta = metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"}
	scoped := fakeplane.Start(t, fakeplane.WithObjects(subresourceWidgetCRD(), foos))
	for _, tc := range []struct {
		method, path string
		code         int
	}{
		{"GET", "/apis/h4.example.com/v1/h4widgets/w", 404},
		{"DELETE", "/apis/h4.example.com/v1/h4widgets/w", 404},
		{"GET", "/apis/h4.example.com/v1/h4widgets/w/status", 404},
		{"POST", "/apis/h4.example.com/v1/h4widgets", 404},
		{"GET", "/apis/tests.example.com/v1beta1/namespaces/default/foos", 404},
		{"POST", "/apis/tests.example.com/v1beta1/namespaces/default/foos", 404},
		{"GET", "/apis/tests.example.com/v1beta1/namespaces/default/foos/kept/status", 404},
		{"GET", "/apis/h4.example.com/v1/h4widgets", 200},
		{"GET", "/apis/h4.example.com/v1/h4widgets?watch=1&timeoutSeconds=1", 200},
	} {
		code, _, body := rawRequest(t, scoped, tc.method, tc.path, "application/json", []byte(`{}`), nil)
		if code != tc.code || (code == 404 && string(body) != "404 page not found\n") {
			t.Errorf("%s %s: %d %.200q, want %d", tc.method, tc.path, code, body, tc.code)
		}
	}
}

// TestPathsWithoutARouteAsKubeAPIServer: paths a built-in resource has no
// go-restful route for are the generic 404 Status, as on kube-apiserver
// (recorded from refplane): a namespaced object named without its
// namespace, a cluster-scoped resource under a namespace (but a namespace
// itself, its status and finalize), parts after a subresource (but a
// proxy's), and the legacy /proxy/ paths. apiextensions' handler refuses
// a custom resource's /proxy/ path as a verb it does not serve.
func TestPathsWithoutARouteAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithObjects(subresourceWidgetCRD()))
	const notFound = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}` + "\n"
	for _, tc := range []struct {
		method, path string
		code         int
	}{
		{"GET", "/api/v1/pods/x", 404},
		{"PUT", "/api/v1/configmaps/x", 404},
		{"DELETE", "/api/v1/secrets/x", 404},
		{"GET", "/api/v1/namespaces/default/nodes", 404},
		{"GET", "/api/v1/namespaces/default/namespaces", 404},
		{"GET", "/api/v1/namespaces/default/namespaces/default", 404},
		{"GET", "/api/v1/namespaces/default/status/x", 404},
		{"GET", "/api/v1/namespaces/default/pods/x/status/extra", 404},
		{"GET", "/api/v1/proxy/nodes/n1", 404},
		{"GET", "/api/v1/namespaces/default", 200},
		{"GET", "/api/v1/namespaces/default/status", 200},
		{"GET", "/api/v1/pods", 200},
		{"GET", "/api/v1/pods?fieldSelector=metadata.name%3Dx", 200},
		{"GET", "/api/v1/pods?watch=1&timeoutSeconds=1&fieldSelector=metadata.name%3Dx", 200},
		{"DELETE", "/api/v1/namespaces/default/pods?fieldSelector=metadata.name%3Dx", 200},
	} {
		code, _, body := rawRequest(t, cp, tc.method, tc.path, "application/json", []byte(`{}`), http.Header{"Accept": {"application/json"}})
		if code != tc.code || code == 404 && string(body) != notFound {
			t.Errorf("%s %s: %d %.200s, want %d", tc.method, tc.path, code, body, tc.code)
		}
	}
	const crProxy = `"message":"proxy is not supported on resources of kind \"h4widgets.h4.example.com\"","reason":"MethodNotAllowed"`
	if code, _, body := rawRequest(t, cp, "GET", "/apis/h4.example.com/v1/proxy/namespaces/default/h4widgets/x", "", nil, nil); code != 405 || !strings.Contains(string(body), crProxy) {
		t.Errorf("a custom resource's proxy path: %d %s", code, body)
	}
}
