package fakeplane_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/fakeplane/fakeplane"
)

// TestNamespaceFinalizersAndQuotaScopesAsKubeAPIServer: a new namespace
// keeps the finalizers it names (kubernetes follows them) and has their
// names checked; a ResourceQuota's scopes must fit the resources it limits
// and its scope selector's expressions are checked. The codes and messages
// are kube-apiserver v1.37's answers to the same requests (recorded from
// refplane).
func TestNamespaceFinalizersAndQuotaScopesAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	const rqs = "/api/v1/namespaces/default/resourcequotas"
	runWriteCases(t, cp, []writeCase{
		{"a finalizer that is not a qualified name", "POST", "/api/v1/namespaces", `{"metadata":{"name":"x"},"spec":{"finalizers":["bad/../x"]}}`, 422,
			`Namespace "x" is invalid: spec.finalizers: Invalid value: "bad/../x": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`},
		{"a finalizer without a domain that is not standard", "POST", "/api/v1/namespaces", `{"metadata":{"name":"w"},"spec":{"finalizers":["foo"]}}`, 422,
			`Namespace "w" is invalid: spec.finalizers: Invalid value: "foo": name is neither a standard finalizer name nor is it fully qualified`},
		{"scopes must fit the resources", "POST", rqs, `{"metadata":{"name":"q3"},"spec":{"hard":{"pods":"1","secrets":"2","requests.storage":"1Gi"},"scopes":["BestEffort","Foo"]}}`, 422,
			`ResourceQuota "q3" is invalid: [spec.scopes: Invalid value: ["BestEffort","Foo"]: unsupported scope applied to resource, spec.scopes: Invalid value: ["BestEffort","Foo"]: unsupported scope]`},
		{"the scope selector's expressions", "POST", rqs, `{"metadata":{"name":"q4"},"spec":{"hard":{"cpu":"1","configmaps":"2"},"scopeSelector":{"matchExpressions":[{"scopeName":"Terminating","operator":"In","values":["a"]},{"scopeName":"NotTerminating","operator":"Bogus"},{"scopeName":"PriorityClass","operator":"NotIn"}]}}}`, 422,
			`ResourceQuota "q4" is invalid: [spec.scopeSelector.matchExpressions: Invalid value: {"MatchExpressions":[{"ScopeName":"Terminating","Operator":"In","Values":["a"]},{"ScopeName":"NotTerminating","Operator":"Bogus","Values":null},{"ScopeName":"PriorityClass","Operator":"NotIn","Values":null}]}: unsupported scope applied to resource, spec.scopeSelector.matchExpressions.operator: Invalid value: "In": must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity, spec.scopeSelector.matchExpressions.operator: Invalid value: "Bogus": must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity, spec.scopeSelector.matchExpressions.operator: Invalid value: "Bogus": not a valid selector operator, spec.scopeSelector.matchExpressions.values: Required value: must be at least one value when ` + "`operator`" + ` is 'In' or 'NotIn' for scope selector, spec.scopeSelector.matchExpressions: Invalid value: null: conflicting scopes]`},
		{"values with Exists", "POST", rqs, `{"metadata":{"name":"q2"},"spec":{"hard":{"pods":"1"},"scopes":["Terminating","NotTerminating"],"scopeSelector":{"matchExpressions":[{"scopeName":"PriorityClass","operator":"Exists","values":["x"]}]}}}`, 422,
			`ResourceQuota "q2" is invalid: [spec.scopes: Invalid value: ["Terminating","NotTerminating"]: conflicting scopes, spec.scopeSelector.matchExpressions.values: Invalid value: ["x"]: must be no value when ` + "`operator`" + ` is 'Exist' or 'DoesNotExist' for scope selector]`},
		{"the VolumeAttributesClass scope fits claims only", "POST", rqs, `{"metadata":{"name":"q5"},"spec":{"hard":{"persistentvolumeclaims":"1","pods":"1"},"scopes":["VolumeAttributesClass"]}}`, 422,
			`ResourceQuota "q5" is invalid: spec.scopes: Invalid value: ["VolumeAttributesClass"]: unsupported scope applied to resource`},
		{"an unknown scope name", "POST", rqs, `{"metadata":{"name":"q6"},"spec":{"hard":{"requests.storage":"1"},"scopeSelector":{"matchExpressions":[{"scopeName":"VolumeAttributesClass","operator":"In","values":["gold"]},{"scopeName":"Bad","operator":"Exists"}]}}}`, 422,
			`ResourceQuota "q6" is invalid: spec.scopeSelector.matchExpressions.scopeName: Invalid value: "Bad": unsupported scope`},
		{"extended resources fit any scope", "POST", rqs, `{"metadata":{"name":"q7"},"spec":{"hard":{"pods":"1","example.com/foo":"1"},"scopes":["CrossNamespacePodAffinity","PriorityClass"]}}`, 201, ""},
	})
	code, _, out := rawRequest(t, cp, "POST", "/api/v1/namespaces", "application/json", []byte(`{"metadata":{"name":"z"},"spec":{"finalizers":["example.com/a","example.com/a"]}}`), nil)
	var ns struct {
		Spec struct {
			Finalizers []string `json:"finalizers"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(out, &ns); code != 201 || err != nil {
		t.Fatalf("create: %d %v %s", code, err, out)
	}
	if want := []string{"example.com/a", "example.com/a", "kubernetes"}; !reflect.DeepEqual(ns.Spec.Finalizers, want) {
		t.Errorf("finalizers %v, want %v", ns.Spec.Finalizers, want)
	}
}
