package registry

import "testing"

// TestTerminatingReadsDeletionTimestampAsEncodingJSONDoes checks the quick
// refusal of terminating against what decoding the namespace finds.
func TestTerminatingReadsDeletionTimestampAsEncodingJSONDoes(t *testing.T) {
	for _, tc := range []struct {
		data string
		want bool
	}{
		{`{"metadata":{"name":"ns","uid":"u"},"spec":{"finalizers":["kubernetes"]}}`, false},
		{`{"metadata":{"name":"ns","deletionTimestamp":"2026-01-01T00:00:00Z"}}`, true},
		{`{"metadata":{"name":"ns","deletionTimestamp":null}}`, false},
		{`{"metadata":{"name":"ns","DeletionTimestamp":"x"}}`, true},
		{`{"METADATA":{"DELETIONTIMESTAMP":"x"}}`, true},
		{`{"metadata":{"name":"ns","deletion\u0054imestamp":"x"}}`, true},
		{"{\"metadata\":{\"name\":\"ns\",\"deletionTime\u017ftamp\":\"x\"}}", true},
		{`{"metadata":{"name":"ns","annotations":{"a":"deletionTimestamp"}}}`, false},
		{`{"metadata":{"name":"deletionTimestamp"}}`, false},
	} {
		if got := terminating([]byte(tc.data)); got != tc.want {
			t.Errorf("terminating(%s) = %v, want %v", tc.data, got, tc.want)
		}
	}
	for _, data := range []string{`{"metadata":{"name":"ns"}}`, `{"metadata":{}}`, `{}`} {
		if mayNameField([]byte(data), "deletiontimestamp") {
			t.Errorf("%s: not refused at once", data)
		}
	}
}
