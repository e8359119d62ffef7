package fakeplane_test

import (
	"context"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
)

// The answers below are refplane's (kube-apiserver v1.37.2) to the same
// requests.

// corruptCronTabs starts a control plane whose CronTabs a and b are stored
// at v1beta1, a version the CRD no longer has: they cannot be read. It
// returns the v1 CronTabs of namespace default.
func corruptCronTabs(t *testing.T, ctx context.Context, cp *fakeplane.ControlPlane) dynamic.ResourceInterface {
	t.Helper()
	dyn := dynamic.NewForConfigOrDie(cp.RESTConfig())
	crds := dyn.Resource(crdsGVR)
	created, err := createEstablishedCRD(ctx, crds, upgradeCRD(t, "v1beta1", false, "v1beta1", "v1"))
	if err != nil {
		t.Fatal(err)
	}
	v1 := dyn.Resource(schema.GroupVersionResource{Group: "stable.example.com", Version: "v1", Resource: "crontabs"}).Namespace("default")
	for _, name := range []string{"a", "b"} {
		if _, err := v1.Create(ctx, crontab("v1", name, map[string]any{"cronSpec": "* * * * */5"}), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	cur, err := crds.Update(ctx, setVersions(t, created, upgradeCRD(t, "v1", false, "v1beta1", "v1")), metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cur, err = crds.Patch(ctx, cur.GetName(), "application/merge-patch+json", []byte(`{"status":{"storedVersions":["v1"]}}`), metav1.PatchOptions{}, "status"); err != nil {
		t.Fatal(err)
	}
	if _, err := crds.Update(ctx, setVersions(t, cur, upgradeCRD(t, "v1", false, "v1")), metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := v1.Get(ctx, "a", metav1.GetOptions{}); !apierrors.IsInternalError(err) {
		t.Fatalf("get of an object stored in a dropped version: %v, want a corrupt object error", err)
	}
	return v1
}

// wantStatus fails unless err is an API error with code and message.
func wantStatus(t *testing.T, what string, err error, code int32, message string) {
	t.Helper()
	st, ok := err.(apierrors.APIStatus)
	if !ok {
		t.Errorf("%s: %v, want %d %q", what, err, code, message)
		return
	}
	if s := st.Status(); s.Code != code || s.Message != message {
		t.Errorf("%s: %d %q\nwant %d %q", what, s.Code, s.Message, code, message)
	}
}

// TestUnsafeDeleteRemovesCorruptObjects deletes objects that cannot be read
// with ignoreStoreReadErrorWithClusterBreakingPotential, as kube-apiserver
// v1.37 lets a user allowed the verb unsafe-delete-ignore-read-errors do:
// the corrupt object goes without admission or finalizers, a dry run
// leaves it, an object that can be read is refused, and so are
// DELETECOLLECTION, the resources whose storage has no corrupt object
// deleter and a user without the verb.
func TestUnsafeDeleteRemovesCorruptObjects(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	crontabs := corruptCronTabs(t, ctx, cp)
	unsafe := metav1.DeleteOptions{IgnoreStoreReadErrorWithClusterBreakingPotential: ptr.To(true)}
	dryUnsafe := metav1.DeleteOptions{IgnoreStoreReadErrorWithClusterBreakingPotential: ptr.To(true), DryRun: []string{metav1.DryRunAll}}

	if err := crontabs.Delete(ctx, "a", metav1.DeleteOptions{}); !apierrors.IsInternalError(err) {
		t.Errorf("a plain delete of a corrupt object: %v, want the corrupt object error", err)
	}
	if err := crontabs.Delete(ctx, "a", dryUnsafe); err != nil {
		t.Errorf("unsafe dry run: %v", err)
	}
	if _, err := crontabs.Get(ctx, "a", metav1.GetOptions{}); !apierrors.IsInternalError(err) {
		t.Errorf("after the dry run: %v, want the object still there and corrupt", err)
	}
	err := crontabs.DeleteCollection(ctx, unsafe, metav1.ListOptions{})
	wantStatus(t, "deletecollection", err, 422, `DeleteOptions.meta.k8s.io "" is invalid: ignoreStoreReadErrorWithClusterBreakingPotential: Invalid value: true: is not allowed with DELETECOLLECTION, try again after removing the option`)
	err = crontabs.Delete(ctx, "a", metav1.DeleteOptions{IgnoreStoreReadErrorWithClusterBreakingPotential: ptr.To(true), PropagationPolicy: ptr.To(metav1.DeletePropagationOrphan)})
	wantStatus(t, "with a propagation policy", err, 422, `DeleteOptions.meta.k8s.io "" is invalid: ignoreStoreReadErrorWithClusterBreakingPotential: Invalid value: true: cannot be set together with .propagationPolicy`)
	err = crontabs.Delete(ctx, "zz", unsafe)
	wantStatus(t, "a missing object", err, 404, `crontabs.stable.example.com "zz" not found`)

	// An object that can be read is refused, on a dry run too; so is
	// every object of a resource with no corrupt object deleter.
	if _, err := crontabs.Create(ctx, crontab("v1", "c", nil), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, opts := range []metav1.DeleteOptions{dryUnsafe, unsafe} {
		err = crontabs.Delete(ctx, "c", opts)
		wantStatus(t, "a readable object", err, 409, `Operation cannot be fulfilled on crontabs.stable.example.com "c": StorageError: invalid object, Code: 4, Key: /registry/stable.example.com/crontabs/default/c, ResourceVersion: 0, AdditionalErrorMsg: unsafe deletion is not allowed because the object is decodable from storage`)
	}
	cs := kubernetes.NewForConfigOrDie(cp.RESTConfig())
	err = cs.CoreV1().Services("default").Delete(ctx, "kubernetes", dryUnsafe)
	wantStatus(t, "a readable Service", err, 409, `Operation cannot be fulfilled on services "kubernetes": StorageError: invalid object, Code: 4, Key: /registry/services/specs/default/kubernetes, ResourceVersion: 0, AdditionalErrorMsg: unsafe deletion is not allowed because the object is decodable from storage`)
	err = cs.CoreV1().Namespaces().Delete(ctx, "default", dryUnsafe)
	wantStatus(t, "a namespace", err, 500, `Internal error occurred: no unsafe deleter provided, can not honor ignoreStoreReadErrorWithClusterBreakingPotential`)
	err = cs.RbacV1().ClusterRoles().Delete(ctx, "admin", dryUnsafe)
	wantStatus(t, "a ClusterRole", err, 500, `Internal error occurred: no unsafe deleter provided, can not honor ignoreStoreReadErrorWithClusterBreakingPotential`)

	// A user allowed to delete but not the unsafe verb is refused.
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "delete-crontabs"}, Rules: []rbacv1.PolicyRule{{APIGroups: []string{"stable.example.com"}, Resources: []string{"crontabs"}, Verbs: []string{"get", "delete"}}}}
	if _, err := cs.RbacV1().Roles("default").Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "delete-crontabs"}, RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "bob"}}}
	if _, err := cs.RbacV1().RoleBindings("default").Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	bobCfg := cp.RESTConfig()
	bobCfg.Impersonate.UserName = "bob"
	bob := dynamic.NewForConfigOrDie(bobCfg).Resource(schema.GroupVersionResource{Group: "stable.example.com", Version: "v1", Resource: "crontabs"}).Namespace("default")
	waitFor(t, func() bool {
		_, err := bob.Get(ctx, "c", metav1.GetOptions{})
		return err == nil
	})
	err = bob.Delete(ctx, "b", dryUnsafe)
	wantStatus(t, "bob", err, 403, `crontabs.stable.example.com "b" is forbidden: not permitted to do "unsafe-delete-ignore-read-errors", reason: `)

	// The corrupt objects go; the collection reads again.
	for _, name := range []string{"a", "b"} {
		if err := crontabs.Delete(ctx, name, unsafe); err != nil {
			t.Fatalf("unsafe delete of %s: %v", name, err)
		}
		if _, err := crontabs.Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("%s after the unsafe delete: %v, want NotFound", name, err)
		}
	}
	list, err := crontabs.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if names := unstructuredNames(list); len(names) != 1 || names[0] != "c" {
		t.Errorf("CronTabs left: %v, want [c]", names)
	}
}

// unstructuredNames are the names of a list's items, in order.
func unstructuredNames(l *unstructured.UnstructuredList) []string {
	var out []string
	for _, it := range l.Items {
		out = append(out, it.GetName())
	}
	return out
}

// TestUnsafeDeleteAnswersWithTheKind checks the body of a successful unsafe
// delete: a Status naming the object and its kind, with no group or UID
// (the object could not be read).
func TestUnsafeDeleteAnswersWithTheKind(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	corruptCronTabs(t, ctx, cp)
	code, _, body := rawRequest(t, cp, "DELETE", "/apis/stable.example.com/v1/namespaces/default/crontabs/a?ignoreStoreReadErrorWithClusterBreakingPotential=true&dryRun=All", "", nil, nil)
	want := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","details":{"name":"a","kind":"CronTab"},"code":200}`
	if code != 200 || string(body) != want+"\n" && string(body) != want {
		t.Errorf("unsafe dry run: %d %s\nwant 200 %s", code, body, want)
	}
}

// TestUIDPreconditionOfADryRun updates an object naming another UID, as a
// dry run: kube-apiserver's dry-run store names the key without etcd's
// /registry prefix, which the real update names.
func TestUIDPreconditionOfADryRun(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	mustStatus(t, cp, "POST", "/api/v1/namespaces/default/configmaps", `{"metadata":{"name":"jp"}}`, 201)
	for _, tc := range []struct{ path, key string }{
		{"/api/v1/namespaces/default/configmaps/jp?dryRun=All", "/configmaps/default/jp"},
		{"/api/v1/namespaces/default/configmaps/jp", "/registry/configmaps/default/jp"},
		{"/api/v1/namespaces/default/limitranges/nope?dryRun=All", "/limitranges/default/nope"},
	} {
		body := `{"metadata":{"name":"jp","uid":"6b1e7d0c-0000-0000-0000-000000000000"}}`
		if tc.key == "/limitranges/default/nope" {
			body = `{"metadata":{"name":"nope","uid":"6b1e7d0c-0000-0000-0000-000000000000"}}`
		}
		code, _, out := rawRequest(t, cp, "PUT", tc.path, "application/json", []byte(body), nil)
		if code != 409 || !strings.Contains(string(out), "Key: "+tc.key+", ResourceVersion: 0") {
			t.Errorf("PUT %s: %d %s, want 409 naming key %s", tc.path, code, out, tc.key)
		}
	}
}
