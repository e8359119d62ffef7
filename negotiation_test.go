package fakeplane_test

import (
	"net/http"
	"strings"
	"testing"

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
