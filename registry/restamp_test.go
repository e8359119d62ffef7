package registry

import "testing"

// TestRestampResourceVersion checks that the etcd store's StampOnRead
// replaces the resourceVersion a write's Stamp put in at revision 0 with
// the object's revision, in place, and leaves values without one alone.
func TestRestampResourceVersion(t *testing.T) {
	for _, c := range []struct {
		name, in, want string
	}{
		{"typed order", `{"kind":"ConfigMap","metadata":{"name":"a","namespace":"d","uid":"u","resourceVersion":"0","creationTimestamp":"x"},"data":{"resourceVersion":"0"}}`,
			`{"kind":"ConfigMap","metadata":{"name":"a","namespace":"d","uid":"u","resourceVersion":"42","creationTimestamp":"x"},"data":{"resourceVersion":"0"}}`},
		{"last member", `{"metadata":{"name":"a","resourceVersion":"0"}}`, `{"metadata":{"name":"a","resourceVersion":"42"}}`},
		{"spaces", `{ "metadata" : { "resourceVersion" : "7" } }`, `{ "metadata" : { "resourceVersion" : "42" } }`},
		{"no resourceVersion", `{"metadata":{"name":"a"}}`, `{"metadata":{"name":"a"}}`},
		{"no metadata", `{"kind":"X"}`, `{"kind":"X"}`},
		{"not JSON", `test!{"metadata":{"resourceVersion":"0"}}`, `test!{"metadata":{"resourceVersion":"0"}}`},
		{"empty", ``, ``},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := RestampResourceVersion([]byte(c.in), 42)
			if err != nil || string(got) != c.want {
				t.Fatalf("RestampResourceVersion(%s) = %s, %v; want %s", c.in, got, err, c.want)
			}
		})
	}
	// The stamp of a write at revision 0, restamped, is the stamp of the
	// write at its revision.
	stored, err := spliceResourceVersion([]byte(`{"metadata":{"name":"a","creationTimestamp":"2026-01-01T00:00:00Z"}}`), 0, structOrder)
	if err != nil {
		t.Fatal(err)
	}
	direct, _ := spliceResourceVersion([]byte(`{"metadata":{"name":"a","creationTimestamp":"2026-01-01T00:00:00Z"}}`), 1234, structOrder)
	if got, _ := RestampResourceVersion(stored, 1234); string(got) != string(direct) {
		t.Fatalf("restamped %s, stamped at the revision %s", got, direct)
	}
}
