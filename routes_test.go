package fakeplane_test

import (
	"net/http"
	"strings"
	"testing"

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
