package fakeplane_test

import (
	"encoding/json"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/fakeplane/fakeplane"
)

// TestCRDRatchetingAfterSchemaChange mirrors upstream's
// TestRatchetingFunctionality: after a CRD's schema tightens, an apply that
// leaves the now invalid values as they were is accepted (ratcheting), in
// maps under additionalProperties and in map-type lists reordered, and an
// apply that changes one of them is refused.
func TestCRDRatchetingAfterSchemaChange(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	dyn := dynamic.NewForConfigOrDie(cp.RESTConfig())
	foos := createCRD(t, ctx, dyn, foosCRD(t, `
type: object
properties:
  nums: {type: object, additionalProperties: {type: integer}}
  list:
    type: array
    x-kubernetes-list-type: map
    x-kubernetes-list-map-keys: [name]
    items: {type: object, required: [name], properties: {name: {type: string}, v: {type: string}}}
`))["v1beta1"]
	apply := func(y string) error {
		_, err := foos.Apply(ctx, "a", foo(t, "v1beta1", "a", y), metav1.ApplyOptions{FieldManager: "test"})
		return err
	}
	if err := apply(`{nums: {num1: 1, num2: 1000000}, list: [{name: a}, {name: b}, {name: c}]}`); err != nil {
		t.Fatal(err)
	}
	crds := dyn.Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})
	patch, _ := json.Marshal([]map[string]any{
		{"op": "add", "path": "/spec/versions/0/schema/openAPIV3Schema/properties/nums/additionalProperties/minimum", "value": 1000},
		{"op": "add", "path": "/spec/versions/0/schema/openAPIV3Schema/properties/list/maxItems", "value": 2},
	})
	if _, err := crds.Patch(ctx, "foos.tests.example.com", types.JSONPatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, obj string
		wantErr   bool
	}{
		{"unchanged invalid map value ratchets", `{nums: {num1: 1, num2: 2000}, list: [{name: a}, {name: b}, {name: c}]}`, false},
		{"reordered invalid list ratchets", `{nums: {num1: 1, num2: 2000}, list: [{name: c}, {name: b}, {name: a}]}`, false},
		{"changed invalid map value is refused", `{nums: {num1: 2, num2: 2000}, list: [{name: c}, {name: b}, {name: a}]}`, true},
	} {
		err := apply(tc.obj)
		if (err != nil) != tc.wantErr {
			t.Fatalf("%s: err = %v, want error %v", tc.name, err, tc.wantErr)
		}
	}
}
