package registry

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane/store"
)

// TestCreateAllStoresEachObjectsOwnJSON checks the memo of the server's own
// creates' JSON (encodeCreate): every registry that creates a document
// stores the JSON of its own object (its uid, its creationTimestamp, its
// managedFields time), whether that JSON was written over the first
// create's or encoded, and only documents whose objects differ in nothing
// else are memoized.
func TestCreateAllStoresEachObjectsOwnJSON(t *testing.T) {
	tests := []struct {
		name     string
		doc      string
		resource [3]string // group, version, resource
		key      string
		memoized bool
		newObj   func() runtime.Object
	}{{
		name:     "a ClusterRole with rules and an aggregation rule",
		doc:      `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"encode-memo-role","labels":{"a":"b"}},"rules":[{"apiGroups":[""],"resources":["pods","services"],"verbs":["get","list"]}],"aggregationRule":{"clusterRoleSelectors":[{"matchLabels":{"x":"y"}}]}}`,
		resource: [3]string{"rbac.authorization.k8s.io", "v1", "clusterroles"},
		key:      "encode-memo-role",
		memoized: true,
		newObj:   func() runtime.Object { return &rbacv1.ClusterRole{} },
	}, {
		name:     "a ClusterRole holding the placeholder time is encoded every time",
		doc:      `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"encode-memo-t","annotations":{"t":"1001-02-03T04:05:06Z"}}}`,
		resource: [3]string{"rbac.authorization.k8s.io", "v1", "clusterroles"},
		key:      "encode-memo-t",
		newObj:   func() runtime.Object { return &rbacv1.ClusterRole{} },
	}, {
		name:     "a ClusterRole holding the placeholder uid is encoded every time",
		doc:      `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"encode-memo-u","annotations":{"u":"fakeplane-memoized-uid-0000000000000"}}}`,
		resource: [3]string{"rbac.authorization.k8s.io", "v1", "clusterroles"},
		key:      "encode-memo-u",
		newObj:   func() runtime.Object { return &rbacv1.ClusterRole{} },
	}, {
		name:     "a local APIService, whose condition's time the create sets",
		doc:      `{"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService","metadata":{"name":"v1.encode-memo.example.com"},"spec":{"group":"encode-memo.example.com","version":"v1","groupPriorityMinimum":100,"versionPriority":10}}`,
		resource: [3]string{"apiregistration.k8s.io", "v1", "apiservices"},
		key:      "v1.encode-memo.example.com",
		memoized: true,
		newObj:   func() runtime.Object { return &apiregistrationv1.APIService{} },
	}, {
		name:     "a Namespace",
		doc:      `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"encode-memo-ns"}}`,
		resource: [3]string{"", "v1", "namespaces"},
		key:      "encode-memo-ns",
		memoized: true,
		newObj:   func() runtime.Object { return &corev1.Namespace{} },
	}}
	base := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var first []byte
			uids := map[string]bool{}
			for i := range 3 {
				now := base.Add(time.Duration(i) * 61 * time.Second)
				st, err := store.Open(filepath.Join(t.TempDir(), "db"), store.Options{NoSync: true})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = st.Close() })
				r, err := New(Config{Store: st, Now: func() time.Time { return now }})
				if err != nil {
					t.Fatal(err)
				}
				if err := r.CreateAll([][]byte{[]byte(tt.doc)}, nil); err != nil {
					t.Fatalf("CreateAll %d: %v", i, err)
				}
				res, ok := r.served.Lookup(tt.resource[0], tt.resource[1], tt.resource[2])
				if !ok {
					t.Fatalf("no %v", tt.resource)
				}
				got, err := st.Get(res.Bucket, tt.key)
				if err != nil {
					t.Fatalf("CreateAll %d stored nothing: %v", i, err)
				}
				// The stored JSON is the object's own: what encoding it
				// again gives.
				obj := tt.newObj()
				if err := json.Unmarshal(got.Value, obj); err != nil {
					t.Fatal(err)
				}
				if again, err := json.Marshal(obj); err != nil || !bytes.Equal(again, got.Value) {
					t.Fatalf("create %d stored\n%s\nwhich encodes again as\n%s (%v)", i, got.Value, again, err)
				}
				m, err := meta.Accessor(obj)
				if err != nil {
					t.Fatal(err)
				}
				if uids[string(m.GetUID())] || len(m.GetUID()) != 36 {
					t.Errorf("create %d stored uid %q (seen before: %v)", i, m.GetUID(), uids[string(m.GetUID())])
				}
				uids[string(m.GetUID())] = true
				if want := metav1.NewTime(now); !want.Equal(ptr.To(m.GetCreationTimestamp())) {
					t.Errorf("create %d stored creationTimestamp %v, want %v", i, m.GetCreationTimestamp(), now)
				}
				fields := m.GetManagedFields()
				if len(fields) != 1 || fields[0].Time == nil || !fields[0].Time.Time.Equal(now) || fields[0].Manager != serverManager {
					t.Errorf("create %d stored managedFields %+v, want one of %s at %v", i, fields, serverManager, now)
				}
				// Apart from the uid and times, every create stores the
				// same bytes.
				norm := bytes.ReplaceAll(got.Value, []byte(m.GetUID()), []byte("UID"))
				norm = bytes.ReplaceAll(norm, timeJSON(metav1.NewTime(now)), []byte(`"TIME"`))
				if first == nil {
					first = norm
				} else if !bytes.Equal(norm, first) {
					t.Errorf("create %d stored\n%s\nthe first\n%s", i, norm, first)
				}
			}
			e := processCreates.lookup([]byte(tt.doc))
			if e == nil {
				t.Fatal("the document has no memo")
			}
			if got := e.encoding.Load() != nil; got != tt.memoized {
				t.Errorf("document's JSON memoized: %v, want %v", got, tt.memoized)
			}
		})
	}
}
