package server

import "testing"

// TestEveryBuiltinTypeHasAMergeSchema checks that the field manager knows
// the list types and map keys of every built-in type it serves, rather than
// falling back to merging it as a schemaless object.
func TestEveryBuiltinTypeHasAMergeSchema(t *testing.T) {
	reg, err := newRegistry()
	if err != nil {
		t.Fatal(err)
	}
	tc := builtinTypeConverter().(mergeSchemaConverter).typed
	for _, r := range reg.all() {
		if r.typed == nil {
			continue
		}
		obj := r.newObject()
		obj.GetObjectKind().SetGroupVersionKind(r.gvk)
		if _, err := tc.ObjectToTyped(obj); err != nil {
			t.Errorf("%s: %v", r.gvk, err)
		}
	}
}
