package strategy

import "testing"

// TestConvertMetaFieldLabelAcceptsOnlyMetadata checks the default field
// label conversion: metadata.name and metadata.namespace, as they are.
func TestConvertMetaFieldLabelAcceptsOnlyMetadata(t *testing.T) {
	for _, tc := range []struct {
		label string
		ok    bool
	}{
		{"metadata.name", true},
		{"metadata.namespace", true},
		{"metadata.uid", false},
		{"spec.nodeName", false},
		{"", false},
	} {
		got, ok := ConvertMetaFieldLabel(tc.label)
		if ok != tc.ok || (ok && got != tc.label) || (!ok && got != "") {
			t.Errorf("ConvertMetaFieldLabel(%q) = %q, %v; want ok %v", tc.label, got, ok, tc.ok)
		}
	}
}
