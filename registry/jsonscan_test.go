package registry

import (
	"encoding/json"
	"testing"
)

func TestRawMetadataFindsTopLevelMetadata(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"first", `{"metadata":{"name":"a"},"data":{"x":"1"}}`, `{"name":"a"}`},
		{"after scalars", `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","labels":{"k":"v"}}}`, `{"name":"a","labels":{"k":"v"}}`},
		{"after nested values", `{"spec":{"metadata":{"name":"inner"},"list":[1,[2,{"a":"]"}]]},"metadata":{"name":"outer"}}`, `{"name":"outer"}`},
		{"escaped quotes and braces in strings", `{"a":"x\"}{\\","metadata":{"name":"q\"}"}}`, `{"name":"q\"}"}`},
		{"numbers, literals and spaces", `{ "n" : -1.5e3 , "t" : true , "z" : null , "metadata" : { } }`, `{ }`},
		{"missing", `{"kind":"X"}`, `{}`},
		{"empty object", `{}`, `{}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := RawMetadata([]byte(tc.in))
			if err != nil || string(got) != tc.want {
				t.Errorf("rawMetadata(%s) = %s, %v; want %s", tc.in, got, err, tc.want)
			}
		})
	}
	for _, bad := range []string{``, `[]`, `{"metadata":{"name":"a"`, `{"a":"unterminated`} {
		if got, err := RawMetadata([]byte(bad)); err == nil {
			t.Errorf("rawMetadata(%q) = %s, want an error", bad, got)
		}
	}
}

// TestSkipValueEndsScalarsAtTheClosingBracket checks that a number, true,
// false or null last in an object or array ends at its closing bracket.
func TestSkipValueEndsScalarsAtTheClosingBracket(t *testing.T) {
	for _, tc := range []struct {
		data  string
		start int
		want  int
	}{
		{`{"a":null}`, 5, 9},
		{`{"a":12}`, 5, 7},
		{`[true]`, 1, 5},
		{`{"a":false,"b":1}`, 5, 10},
		{`{"a":"x"}`, 5, 8},
		{`{"a":{"b":null}}`, 5, 15},
		{`{"a":[1,2]}`, 5, 10},
	} {
		if got := skipValue([]byte(tc.data), tc.start); got != tc.want {
			t.Errorf("skipValue(%s, %d) = %d, want %d", tc.data, tc.start, got, tc.want)
		}
	}
	var keys []string
	if err := scanMembers([]byte(`{"name":"a","generation":3}`), 0, func(k string, _, _, _ int) bool {
		keys = append(keys, k)
		return true
	}); err != nil || len(keys) != 2 {
		t.Errorf("scanMembers of an object ending with a number: %v %v", keys, err)
	}
}

// TestRawFieldsFindsEachTopLevelKey checks that RawFields returns each
// asked key's value as written, nil for a missing one, never a nested key
// of the same name, and an error for malformed objects.
func TestRawFieldsFindsEachTopLevelKey(t *testing.T) {
	in := `{"spec":{"name":"inner","rules":[1]},"name":"outer","rules":[{"verbs":["get"]}],"n":3}`
	got, err := RawFields([]byte(in), "rules", "name", "missing", "n")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`[{"verbs":["get"]}]`, `"outer"`, "", `3`}
	for i := range want {
		if string(got[i]) != want[i] || (want[i] == "") != (got[i] == nil) {
			t.Errorf("key %d: %q, want %q", i, got[i], want[i])
		}
	}
	for _, bad := range []string{`{"a":1,,"b":2}`, `{"a":1`, `{1:2}`, `{"a" 1}`} {
		if got, err := RawFields([]byte(bad), "b"); err == nil {
			t.Errorf("RawFields(%q) = %q, want an error", bad, got)
		}
	}
}

// TestDecodeWithoutManagedFieldsLeavesTheRest checks that managedFields is
// cut wherever it is in metadata, that what remains is valid JSON with
// every other member, and that objects without it decode as they are.
func TestDecodeWithoutManagedFieldsLeavesTheRest(t *testing.T) {
	mf := `"managedFields":[{"manager":"m","fieldsV1":{"f:spec":{}}}]`
	for _, tc := range []struct{ name, in, want string }{
		{"last", `{"metadata":{"name":"a",` + mf + `},"spec":{"x":1}}`, `{"metadata":{"name":"a"},"spec":{"x":1}}`},
		{"first", `{"metadata":{` + mf + `,"name":"a"},"spec":{"x":1}}`, `{"metadata":{"name":"a"},"spec":{"x":1}}`},
		{"middle", `{"metadata":{"name":"a", ` + mf + ` ,"uid":"u"}}`, `{"metadata":{"name":"a" ,"uid":"u"}}`},
		{"alone", `{"metadata":{` + mf + `}}`, `{"metadata":{}}`},
		{"none", `{"metadata":{"name":"a"}}`, `{"metadata":{"name":"a"}}`},
		{"nested only", `{"spec":{"metadata":{` + mf + `}}}`, `{"spec":{"metadata":{` + mf + `}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := cutManagedFields([]byte(tc.in))
			if err != nil || string(got) != tc.want {
				t.Errorf("cutManagedFields(%s) = %s, %v; want %s", tc.in, got, err, tc.want)
			}
			var v map[string]any
			if err := DecodeWithoutManagedFields([]byte(tc.in), &v); err != nil {
				t.Errorf("decode: %v", err)
			}
		})
	}
	var v map[string]any
	if err := DecodeWithoutManagedFields([]byte(`{"metadata":{"name":`), &v); err == nil {
		t.Error("malformed JSON decoded without an error")
	}
}

// TestClosingQuoteStepsThroughEscapes checks the end found for strings
// with escaped quotes and backslashes, and unterminated ones.
func TestClosingQuoteStepsThroughEscapes(t *testing.T) {
	for _, tc := range []struct {
		in   string // the content after the opening quote
		want int
	}{
		{`abc"x`, 3},
		{`"`, 0},
		{`a\"b"`, 4},
		{`a\\"b"`, 3},
		{`\\\"x"`, 5},
		{`\u0022"`, 6},
		{`abc`, -1},
		{`a\"`, -1},
		{`a\`, -1},
	} {
		if got := closingQuote([]byte(tc.in), 0); got != tc.want {
			t.Errorf("closingQuote(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

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
