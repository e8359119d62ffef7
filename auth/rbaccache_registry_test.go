package auth_test

import (
	"context"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"

	"github.com/fakeplane/fakeplane/auth"
	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
)

// TestRBACCacheFollowsTheRegistrysCommitsAndLoadsItsStore wires the cache
// as the control plane does, to the registry's commit hook, and checks that
// it sees every RBAC resource in the buckets the registry stores them in.
func TestRBACCacheFollowsTheRegistrysCommitsAndLoadsItsStore(t *testing.T) {
	st, err := store.Open(filepath.Join(t.TempDir(), "store.db"), store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	reg, err := registry.New(registry.Config{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	rc := auth.NewRBACCache()
	if err := rc.Load(st); err != nil {
		t.Fatal(err)
	}
	reg.SetHooks(registry.Hooks{CommitObserver: rc.Observe})
	api := reg.API()
	ctx := apirequest.WithUser(context.Background(), &user.DefaultInfo{Name: "admin", Groups: []string{user.SystemPrivilegedGroup}})
	rbac := func(res string) schema.GroupVersionResource {
		return schema.GroupVersionResource{Group: rbacv1.GroupName, Version: "v1", Resource: res}
	}
	ref := rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cr"}
	for _, c := range []struct {
		gvr schema.GroupVersionResource
		obj runtime.Object
	}{
		{schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns"}}},
		{rbac("clusterroles"), &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "cr"}}},
		{rbac("clusterrolebindings"), &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "crb"}, RoleRef: ref}},
		{rbac("roles"), &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "r"}}},
		{rbac("rolebindings"), &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "rb"}, RoleRef: ref}},
	} {
		if _, err := api.Create(ctx, c.gvr, c.obj); err != nil {
			t.Fatal(err)
		}
	}
	check := func(what string, rc *auth.RBACCache) {
		t.Helper()
		if crs := rc.ClusterRoles(); len(crs) != 1 || crs[0].Name != "cr" {
			t.Fatalf("%s: ClusterRoles = %v", what, crs)
		}
		if crbs := rc.ClusterRoleBindings(); len(crbs) != 1 || crbs[0].Name != "crb" {
			t.Fatalf("%s: ClusterRoleBindings = %v", what, crbs)
		}
		if r, ok := rc.Role("ns", "r"); !ok || r.ResourceVersion == "" {
			t.Fatalf("%s: Role(ns, r) = %v, %v", what, r, ok)
		}
		if rbs := rc.RoleBindings("ns"); len(rbs) != 1 || rbs[0].Name != "rb" {
			t.Fatalf("%s: RoleBindings(ns) = %v", what, rbs)
		}
	}
	check("after the commits", rc)
	loaded := auth.NewRBACCache()
	if err := loaded.Load(st); err != nil {
		t.Fatal(err)
	}
	check("loaded from the store", loaded)

	if _, err := api.Delete(ctx, rbac("rolebindings"), "ns", "rb", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if rbs := rc.RoleBindings("ns"); len(rbs) != 0 {
		t.Fatalf("RoleBindings(ns) after the deletion = %v", rbs)
	}
}
