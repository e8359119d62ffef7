package registry

import "testing"

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
