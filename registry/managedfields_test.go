package registry

import "testing"

// TestEveryBuiltinTypeHasAMergeSchema checks that the field manager knows
// the list types and map keys of every built-in type it serves, rather than
// falling back to merging it as a schemaless object.
func TestEveryBuiltinTypeHasAMergeSchema(t *testing.T) {
	reg, err := newServedResources()
	if err != nil {
		t.Fatal(err)
	}
	tc := builtinTypeConverter().(mergeSchemaConverter).typed
	for _, r := range reg.All() {
		if r.Typed == nil {
			continue
		}
		obj := r.NewObject()
		obj.GetObjectKind().SetGroupVersionKind(r.GVK)
		if _, err := tc.ObjectToTyped(obj); err != nil {
			t.Errorf("%s: %v", r.GVK, err)
		}
	}
}
