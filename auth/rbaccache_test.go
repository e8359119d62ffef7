package auth

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/fakeplane/fakeplane/store"
)

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func names[T metav1.Object](objs []T) []string {
	out := make([]string, 0, len(objs))
	for _, o := range objs {
		out = append(out, o.GetName())
	}
	return out
}

func sameNames(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s = %v, want %v", what, got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s = %v, want %v", what, got, want)
		}
	}
}

func TestRBACCacheObserveFollowsCommitsAndListsSortedByName(t *testing.T) {
	rc := NewRBACCache()
	rc.Observe(bucketClusterRoles, "b", clusterRole("b", nil), nil, false)
	rc.Observe(bucketClusterRoles, "a", clusterRole("a", nil), nil, false)
	rc.Observe(bucketClusterRoleBindings, "crb", clusterRoleBinding("crb", "a"), nil, false)
	rc.Observe(bucketRoles, "ns1/r2", role("ns1", "r2"), nil, false)
	rc.Observe(bucketRoles, "ns1/r1", role("ns1", "r1"), nil, false)
	rc.Observe(bucketRoles, "ns2/r", role("ns2", "r"), nil, false)
	rc.Observe(bucketRoleBindings, "ns1/rb", roleBinding("ns1", "rb", "Role", "r1"), nil, false)

	sameNames(t, "ClusterRoles", names(rc.ClusterRoles()), []string{"a", "b"})
	sameNames(t, "ClusterRoleBindings", names(rc.ClusterRoleBindings()), []string{"crb"})
	sameNames(t, "Roles(ns1)", names(rc.Roles("ns1")), []string{"r1", "r2"})
	sameNames(t, "Roles(ns2)", names(rc.Roles("ns2")), []string{"r"})
	sameNames(t, "RoleBindings(ns1)", names(rc.RoleBindings("ns1")), []string{"rb"})
	sameNames(t, "RoleBindings(ns2)", names(rc.RoleBindings("ns2")), nil)
	if _, ok := rc.ClusterRole("a"); !ok {
		t.Fatal("ClusterRole(a) missing")
	}
	if _, ok := rc.Role("ns2", "r"); !ok {
		t.Fatal("Role(ns2, r) missing")
	}

	// An update replaces; a deletion (told with the stored bytes) removes.
	rc.Observe(bucketRoles, "ns1/r1", role("ns1", "r1", rule(l("get"), l(""), l("pods"))), nil, false)
	if r, _ := rc.Role("ns1", "r1"); len(r.Rules) != 1 {
		t.Fatalf("Role(ns1, r1) after an update: %+v", r)
	}
	if rs := rc.Roles("ns1"); len(rs) != 2 || len(rs[0].Rules) != 1 {
		t.Fatalf("Roles(ns1) after an update: %v", names(rs))
	}
	rc.Observe(bucketClusterRoles, "a", nil, mustJSON(t, clusterRole("a", nil)), true)
	rc.Observe(bucketRoles, "ns2/r", nil, mustJSON(t, role("ns2", "r")), true)
	sameNames(t, "ClusterRoles after a deletion", names(rc.ClusterRoles()), []string{"b"})
	sameNames(t, "Roles(ns2) after a deletion", names(rc.Roles("ns2")), nil)
	if _, ok := rc.ClusterRole("a"); ok {
		t.Fatal("ClusterRole(a) still there after its deletion")
	}
}

func TestRBACCacheKeepsItsOwnCopyOfACommittedObject(t *testing.T) {
	rc := NewRBACCache()
	r := role("ns", "r", rule(l("get"), l(""), l("pods")))
	rc.Observe(bucketRoles, "ns/r", r, nil, false)
	r.Rules[0].Verbs[0] = "delete"
	if got, _ := rc.Role("ns", "r"); got.Rules[0].Verbs[0] != "get" {
		t.Fatalf("the cache shares the caller's object: %v", got.Rules)
	}
}

func TestRBACCacheObserveDecodesTheStoredJSONWithoutAGoObject(t *testing.T) {
	rc := NewRBACCache()
	rc.Observe(bucketRoleBindings, "ns/rb", nil, mustJSON(t, roleBinding("ns", "rb", "Role", "r")), false)
	if rbs := rc.RoleBindings("ns"); len(rbs) != 1 || rbs[0].RoleRef.Name != "r" {
		t.Fatalf("RoleBindings(ns) = %+v", rbs)
	}
	// Bytes that do not decode change nothing.
	rc.Observe(bucketRoleBindings, "ns/rb", nil, []byte("{"), false)
	if rbs := rc.RoleBindings("ns"); len(rbs) != 1 || rbs[0].RoleRef.Name != "r" {
		t.Fatalf("RoleBindings(ns) after undecodable bytes = %+v", rbs)
	}
}

func TestRBACCacheIgnoresOtherBuckets(t *testing.T) {
	rc := NewRBACCache()
	rc.Observe("configmaps", "ns/r", role("ns", "r"), mustJSON(t, role("ns", "r")), false)
	rc.Observe("rbac.authorization.k8s.io/roles@v1beta1", "ns/r", role("ns", "r"), nil, false)
	if rs := rc.Roles("ns"); len(rs) != 0 {
		t.Fatalf("Roles(ns) = %v, want none", names(rs))
	}
}

func TestRBACCacheLoadReadsEveryRBACBucketOfTheStore(t *testing.T) {
	st, err := store.Open(filepath.Join(t.TempDir(), "store.db"), store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	put := func(bucket, key string, v any) {
		t.Helper()
		if _, _, err := st.Update(bucket, key, func(*store.Object) (store.Write, error) {
			return store.Write{Value: mustJSON(t, v)}, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	put(bucketClusterRoles, "cr", clusterRole("cr", nil))
	put(bucketClusterRoleBindings, "crb", clusterRoleBinding("crb", "cr"))
	put(bucketRoles, "ns/r", role("ns", "r"))
	put(bucketRoleBindings, "ns/rb", roleBinding("ns", "rb", "Role", "r"))
	put("configmaps", "ns/cm", map[string]any{"metadata": map[string]any{"name": "cm"}})

	rc := NewRBACCache()
	if err := rc.Load(st); err != nil {
		t.Fatal(err)
	}
	sameNames(t, "ClusterRoles", names(rc.ClusterRoles()), []string{"cr"})
	sameNames(t, "ClusterRoleBindings", names(rc.ClusterRoleBindings()), []string{"crb"})
	sameNames(t, "Roles(ns)", names(rc.Roles("ns")), []string{"r"})
	sameNames(t, "RoleBindings(ns)", names(rc.RoleBindings("ns")), []string{"rb"})

	// A closed store's error reaches the caller.
	_ = st.Close()
	if err := NewRBACCache().Load(st); err == nil {
		t.Fatal("Load from a closed store succeeded")
	}
}

func TestRBACAuthorizerOverTheCacheFollowsEachCommit(t *testing.T) {
	rc := NewRBACCache()
	authz := NewRBACAuthorizer(rc)
	bob := &user.DefaultInfo{Name: "bob", Groups: l(user.AllAuthenticated)}
	decide := func() authorizer.Decision {
		t.Helper()
		d, _, err := authz.Authorize(context.Background(), resourceAttrs(bob, "get", "", "pods", "", "ns", "p"))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	rc.Observe(bucketRoles, "ns/reader", role("ns", "reader", rule(l("get"), l(""), l("pods"))), nil, false)
	if d := decide(); d == authorizer.DecisionAllow {
		t.Fatal("allowed before any binding")
	}
	rc.Observe(bucketRoleBindings, "ns/bob", roleBinding("ns", "bob", "Role", "reader", userSubject("bob")), nil, false)
	if d := decide(); d != authorizer.DecisionAllow {
		t.Fatalf("decision after the binding committed = %v, want allow", d)
	}
	rc.Observe(bucketRoleBindings, "ns/bob", nil, nil, true)
	if d := decide(); d == authorizer.DecisionAllow {
		t.Fatal("allowed after the binding was deleted")
	}
}

// TestRBACCacheObserveCopiesWithoutManagedFields checks that an observed
// object is kept as a copy without managedFields, its rules intact, and
// that the writer's object keeps its managedFields.
func TestRBACCacheObserveCopiesWithoutManagedFields(t *testing.T) {
	rc := NewRBACCache()
	cr := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "r", ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "m"}}},
		Rules:      []rbacv1.PolicyRule{{Verbs: []string{"get"}, Resources: []string{"pods"}}},
	}
	rc.Observe(bucketClusterRoles, "r", cr, nil, false)
	got, ok := rc.ClusterRole("r")
	if !ok {
		t.Fatal("the observed role is not in the cache")
	}
	if got.ManagedFields != nil || len(got.Rules) != 1 || got.Rules[0].Verbs[0] != "get" {
		t.Errorf("cached role: %+v", got)
	}
	if len(cr.ManagedFields) != 1 {
		t.Errorf("the writer's role lost its managedFields: %+v", cr.ManagedFields)
	}
	got.Rules[0].Verbs[0] = "changed"
	if cr.Rules[0].Verbs[0] != "get" {
		t.Error("the cache shares the writer's rules")
	}
}
