package fakeplane_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/fakeplane/fakeplane"
)

// The answers below are refplane's (kube-apiserver v1.37.2) to the same
// requests.

// TestEmptyListsReadBackAsNull writes built-in objects with an empty list in
// a field without omitempty: kube-apiserver stores them in protobuf, which
// has no empty list, so the answer (of a dry run too), a get and a patch
// all say null.
func TestEmptyListsReadBackAsNull(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	for _, tc := range []struct {
		name, coll, body, field string
	}{
		{"RoleRules", "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles", `{"metadata":{"name":"e"},"rules":[]}`, "rules"},
		{"ClusterRoleRules", "/apis/rbac.authorization.k8s.io/v1/clusterroles", `{"metadata":{"name":"e"},"rules":[]}`, "rules"},
		{"EndpointSliceEndpoints", "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices", `{"metadata":{"name":"e"},"addressType":"IPv4","endpoints":[]}`, "endpoints"},
		{"CSINodeDrivers", "/apis/storage.k8s.io/v1/csinodes", `{"metadata":{"name":"e"},"spec":{"drivers":[]}}`, "spec.drivers"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			check := func(what string, body []byte) {
				t.Helper()
				var obj map[string]any
				if err := json.Unmarshal(body, &obj); err != nil {
					t.Fatalf("%s: %v: %s", what, err, body)
				}
				var v any = obj
				for _, k := range strings.Split(tc.field, ".") {
					m, ok := v.(map[string]any)
					if !ok {
						t.Fatalf("%s: no %s in %s", what, tc.field, body)
					}
					var present bool
					if v, present = m[k]; !present {
						t.Fatalf("%s: no %s in %s", what, tc.field, body)
					}
				}
				if v != nil {
					t.Errorf("%s: %s is %v, want null", what, tc.field, v)
				}
			}
			check("dry run", mustStatus(t, cp, "POST", tc.coll+"?dryRun=All", tc.body, 201))
			check("create", mustStatus(t, cp, "POST", tc.coll, tc.body, 201))
			check("get", mustStatus(t, cp, "GET", tc.coll+"/e", "", 200))
			check("merge patch", mustStatus(t, cp, "PATCH", tc.coll+"/e", tc.body, 200))
		})
	}
}

// TestAutoscalingV1WriterOwnsTheDefaultCPUTarget creates an autoscaling/v1
// HorizontalPodAutoscaler without a CPU target: upstream's decoding gives
// it the default of 80 before its field manager looks, so the writer owns
// spec.targetCPUUtilizationPercentage.
func TestAutoscalingV1WriterOwnsTheDefaultCPUTarget(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	body := mustStatus(t, cp, "POST", "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers",
		`{"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","metadata":{"name":"h"},"spec":{"maxReplicas":3,"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"d"}}}`, 201)
	var hpa struct {
		Spec struct {
			TargetCPUUtilizationPercentage *int32 `json:"targetCPUUtilizationPercentage"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(body, &hpa); err != nil {
		t.Fatal(err)
	}
	want := []string{`{"f:spec":{"f:maxReplicas":{},"f:minReplicas":{},"f:scaleTargetRef":{},"f:targetCPUUtilizationPercentage":{}}}`}
	if got := fieldsV1Of(t, body); !slices.Equal(got, want) {
		t.Errorf("managedFields' fieldsV1: %q, want %q", got, want)
	}
	if p := hpa.Spec.TargetCPUUtilizationPercentage; p == nil || *p != 80 {
		t.Errorf("spec.targetCPUUtilizationPercentage: %v, want 80", p)
	}
}

// TestEmptyListIsStillOwned creates two Roles alike but for rules, empty in
// one and absent in the other: kube-apiserver's field manager sees the
// object as sent, so the first's writer owns rules (f:rules) and the
// second's does not (it owns nothing, and has no entry), although both
// are stored without rules.
func TestEmptyListIsStillOwned(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	roles := "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles"
	for _, tc := range []struct {
		name, body string
		want       []string // the fieldsV1 of each managedFields entry
	}{
		{"empty", `{"metadata":{"name":"a"},"rules":[]}`, []string{`{"f:rules":{}}`}},
		{"absent", `{"metadata":{"name":"b"}}`, nil},
		{"empty-again", `{"metadata":{"name":"c"},"rules":[]}`, []string{`{"f:rules":{}}`}},
	} {
		if got := fieldsV1Of(t, mustStatus(t, cp, "POST", roles, tc.body, 201)); !slices.Equal(got, tc.want) {
			t.Errorf("%s: managedFields' fieldsV1 %q, want %q", tc.name, got, tc.want)
		}
	}
}

// fieldsV1Of is the fieldsV1 of each managedFields entry of an object's
// JSON, in order.
func fieldsV1Of(t *testing.T, body []byte) []string {
	t.Helper()
	var obj struct {
		Metadata struct {
			ManagedFields []struct {
				FieldsV1 json.RawMessage `json:"fieldsV1"`
			} `json:"managedFields"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(body, &obj); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range obj.Metadata.ManagedFields {
		out = append(out, string(e.FieldsV1))
	}
	return out
}
