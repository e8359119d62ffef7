package registry

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
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
	e := processCreates.lookup(valid)
	bad := processCreates.lookup(invalid)
	if e == nil || !e.validated.Load() {
		t.Error("the valid document is not marked validated")
	}
	if bad == nil || bad.validated.Load() {
		t.Error("the invalid document is marked validated")
	}
}

// TestCreateAllDecodesEachDocumentAfterTheOnesBefore checks that CreateAll,
// which decodes documents ahead of their creates, still creates each as if
// decoded just before: a custom resource after the CRD that serves its
// kind is created, defaulted by that CRD's schema, and an error stops the
// documents after it.
func TestCreateAllDecodesEachDocumentAfterTheOnesBefore(t *testing.T) {
	crd, err := json.Marshal(widgetCRD(apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
		"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"size": {Type: "integer", Default: &apiextensionsv1.JSON{Raw: []byte("3")}},
		}},
	}}))
	if err != nil {
		t.Fatal(err)
	}
	crd = []byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",` + string(crd[1:]))
	ns := []byte(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"decode-in-turn"}}`)
	widget := []byte(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"decode-in-turn"},"spec":{}}`)
	after := []byte(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"after-the-error"}}`)
	type stored struct{ group, resource, namespace, name, has string }
	tests := []struct {
		name    string
		docs    [][]byte
		wantErr bool
		want    []stored // objects stored, with a string each has
		absent  []stored
	}{
		{
			name: "a custom resource after its CRD",
			docs: [][]byte{crd, ns, widget},
			want: []stored{{"example.com", "widgets", "decode-in-turn", "w", `"size":3`}},
		},
		{
			name:    "an object of a kind nobody serves stops the ones after it",
			docs:    [][]byte{ns, []byte(`{"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"g"}}`), after},
			wantErr: true,
			want:    []stored{{"", "namespaces", "", "decode-in-turn", `"decode-in-turn"`}},
			absent:  []stored{{"", "namespaces", "", "after-the-error", ""}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newBareRegistry(t)
			err := r.CreateAll(tt.docs, nil)
			if (err != nil) != tt.wantErr {
				t.Fatalf("CreateAll: %v, want an error: %v", err, tt.wantErr)
			}
			get := func(o stored) (*store.Object, error) {
				res, ok := r.served.Lookup(o.group, "v1", o.resource)
				if !ok {
					t.Fatalf("%s/%s is not served", o.group, o.resource)
				}
				return r.store.Get(res.Bucket, ObjectKey(o.namespace, o.name))
			}
			for _, o := range tt.want {
				obj, err := get(o)
				if err != nil {
					t.Fatalf("get %s %s: %v", o.resource, o.name, err)
				}
				if !strings.Contains(string(obj.Value), o.has) {
					t.Errorf("%s %s is %s, want it to have %s", o.resource, o.name, obj.Value, o.has)
				}
			}
			for _, o := range tt.absent {
				if _, err := get(o); err == nil {
					t.Errorf("%s %s was created after the error", o.resource, o.name)
				}
			}
		})
	}
}
