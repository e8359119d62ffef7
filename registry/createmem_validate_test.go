package registry

import (
	"path/filepath"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/fakeplane/fakeplane/store"
)

// newTestStore is an empty store in a test's temporary directory, closed
// when the test ends.
func newTestStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(filepath.Join(t.TempDir(), "db"), store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// newBareRegistry is a registry over a fresh store, with nothing created.
func newBareRegistry(t *testing.T) *Registry {
	t.Helper()
	r, err := New(Config{Store: newTestStore(t)})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestCreateAllValidatesADocumentUntilItPasses checks the process's memo of
// the server's own creates: a document whose object failed validation
// fails again at the next CreateAll (a failure is not remembered as a
// pass), and one that passed is marked validated and created again by
// another registry.
func TestCreateAllValidatesADocumentUntilItPasses(t *testing.T) {
	invalid := []byte(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"Not_A_Label-createall-memo"}}`)
	for i := range 2 {
		err := newBareRegistry(t).CreateAll([][]byte{invalid}, nil)
		if !apierrors.IsInvalid(err) {
			t.Fatalf("CreateAll %d of an invalid namespace: %v, want Invalid", i, err)
		}
	}
	valid := []byte(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"valid-createall-memo"}}`)
	for i := range 2 {
		r := newBareRegistry(t)
		if err := r.CreateAll([][]byte{valid}, nil); err != nil {
			t.Fatalf("CreateAll %d: %v", i, err)
		}
		res, ok := r.served.Lookup("", "v1", "namespaces")
		if !ok {
			t.Fatal("no namespaces")
		}
		if _, err := r.store.Get(res.Bucket, "valid-createall-memo"); err != nil {
			t.Fatalf("CreateAll %d stored nothing: %v", i, err)
		}
	}
	decodedCreates.Lock()
	e := decodedCreates.m[string(valid)]
	bad := decodedCreates.m[string(invalid)]
	decodedCreates.Unlock()
	if e == nil || !e.validated.Load() {
		t.Error("the valid document is not marked validated")
	}
	if bad == nil || bad.validated.Load() {
		t.Error("the invalid document is marked validated")
	}
}
