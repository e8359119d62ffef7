package registry

import (
	"encoding/json"
	"testing"
)

// TestScanTypeHeadAgreesWithEncodingJSON checks that scanTypeHead answers
// only what encoding/json decodes, and leaves to it every document whose
// keys or values it would read otherwise (case, escapes, duplicates).
func TestScanTypeHeadAgreesWithEncodingJSON(t *testing.T) {
	tests := []struct {
		name   string
		doc    string
		wantOK bool
	}{
		{name: "plain", doc: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"kind":"x"}}`, wantOK: true},
		{name: "kind first, spaces", doc: ` { "kind" : "Role" , "metadata":{"kind":"no"}, "apiVersion" : "rbac.authorization.k8s.io/v1" } `, wantOK: true},
		{name: "nested kind only", doc: `{"apiVersion":"v1","metadata":{"kind":"x"}}`},
		{name: "duplicate kind", doc: `{"apiVersion":"v1","kind":"A","kind":"B"}`},
		{name: "kind in another case", doc: `{"apiVersion":"v1","Kind":"A"}`},
		{name: "both cases", doc: `{"apiVersion":"v1","kind":"A","KIND":"B"}`},
		{name: "Kelvin sign", doc: "{\"apiVersion\":\"v1\",\"kind\":\"A\",\"\u212aind\":\"B\"}"},
		{name: "escaped key", doc: `{"apiVersion":"v1","\u006bind":"A"}`},
		{name: "escaped value", doc: `{"apiVersion":"v1","kind":"Config\u004dap"}`},
		{name: "kind not a string", doc: `{"apiVersion":"v1","kind":3}`},
		{name: "kind null", doc: `{"apiVersion":"v1","kind":null}`},
		{name: "no apiVersion", doc: `{"kind":"A"}`},
		{name: "not an object", doc: `["apiVersion","v1"]`},
		{name: "truncated", doc: `{"apiVersion":"v1","kind":"A"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := scanTypeHead([]byte(tt.doc))
			if ok != tt.wantOK {
				t.Fatalf("ok = %v, want %v", ok, tt.wantOK)
			}
			if !ok {
				return
			}
			var want typeHead
			if err := json.Unmarshal([]byte(tt.doc), &want); err != nil {
				t.Fatalf("encoding/json: %v", err)
			}
			if got != want {
				t.Errorf("scanTypeHead = %+v, encoding/json = %+v", got, want)
			}
		})
	}
}
