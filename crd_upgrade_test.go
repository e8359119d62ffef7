package fakeplane_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/fakeplane/fakeplane"
)

var crdsGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// upgradeCRD is a CronTab CRD whose versions are named by versions, the
// one named storage being the storage version; every version has the same
// schema, with a default for spec.replicas when replicasDefault is set.
func upgradeCRD(t *testing.T, storage string, replicasDefault bool, versions ...string) *unstructured.Unstructured {
	t.Helper()
	props := map[string]apiextensionsv1.JSONSchemaProps{"cronSpec": {Type: "string"}, "replicas": {Type: "integer"}}
	if replicasDefault {
		props["replicas"] = apiextensionsv1.JSONSchemaProps{Type: "integer", Default: &apiextensionsv1.JSON{Raw: []byte("1")}}
	}
	def := &apiextensionsv1.CustomResourceDefinition{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"},
		ObjectMeta: metav1.ObjectMeta{Name: "crontabs.stable.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "stable.example.com", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "crontabs", Singular: "crontab", Kind: "CronTab", ListKind: "CronTabList"},
		},
	}
	for _, v := range versions {
		def.Spec.Versions = append(def.Spec.Versions, apiextensionsv1.CustomResourceDefinitionVersion{
			Name: v, Served: true, Storage: v == storage,
			Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
				"spec": {Type: "object", Properties: props},
			}}},
		})
	}
	u, err := runtimeToUnstructured(def)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// setVersions replaces the versions of a CRD read from the server with
// those of want.
func setVersions(t *testing.T, cur, want *unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	out := cur.DeepCopy()
	vs, _, _ := unstructured.NestedSlice(want.Object, "spec", "versions")
	if err := unstructured.SetNestedSlice(out.Object, vs, "spec", "versions"); err != nil {
		t.Fatal(err)
	}
	return out
}

func storedVersions(u *unstructured.Unstructured) []string {
	vs, _, _ := unstructured.NestedStringSlice(u.Object, "status", "storedVersions")
	return vs
}

// TestCRDStorageVersionMigration follows the seed's procedure for moving a
// CRD to a new storage version: add v1 served beside v1beta1, make v1 the
// storage version (status.storedVersions becomes [v1beta1 v1]), rewrite
// every object unchanged so that it is stored at v1, remove v1beta1 from
// status.storedVersions through the status subresource, and drop v1beta1
// from spec.versions. The objects read back at v1 throughout.
func TestCRDStorageVersionMigration(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	dyn := dynamic.NewForConfigOrDie(cp.RESTConfig())
	crds := dyn.Resource(crdsGVR)
	v1beta1 := dyn.Resource(schema.GroupVersionResource{Group: "stable.example.com", Version: "v1beta1", Resource: "crontabs"}).Namespace("default")
	v1 := dyn.Resource(schema.GroupVersionResource{Group: "stable.example.com", Version: "v1", Resource: "crontabs"}).Namespace("default")

	created, err := createEstablishedCRD(ctx, crds, upgradeCRD(t, "v1beta1", false, "v1beta1"))
	if err != nil {
		t.Fatal(err)
	}
	if got := storedVersions(created); !slices.Equal(got, []string{"v1beta1"}) {
		t.Errorf("storedVersions after create: %v", got)
	}
	for _, name := range []string{"a", "b"} {
		if _, err := v1beta1.Create(ctx, crontab("v1beta1", name, map[string]any{"cronSpec": "* * * * */5"}), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	// 1. v1 is added, served, and becomes the storage version.
	cur, err := crds.Update(ctx, setVersions(t, created, upgradeCRD(t, "v1", false, "v1beta1", "v1")), metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("switching the storage version: %v", err)
	}
	if got := storedVersions(cur); !slices.Equal(got, []string{"v1beta1", "v1"}) {
		t.Errorf("storedVersions after the switch: %v", got)
	}
	// Objects stored at v1beta1 read back at v1.
	got, err := v1.Get(ctx, "a", metav1.GetOptions{})
	if err != nil || got.GetAPIVersion() != "stable.example.com/v1" {
		t.Fatalf("get at v1: %v %v", err, got)
	}

	// 2. Every object is written back unchanged: stored at v1 now, with a
	// new resourceVersion.
	lst, err := v1.List(ctx, metav1.ListOptions{})
	if err != nil || len(lst.Items) != 2 {
		t.Fatalf("list: %v", err)
	}
	for i := range lst.Items {
		it := &lst.Items[i]
		out, err := v1.Update(ctx, it, metav1.UpdateOptions{})
		if err != nil {
			t.Fatalf("rewriting %s: %v", it.GetName(), err)
		}
		if out.GetResourceVersion() == it.GetResourceVersion() {
			t.Errorf("rewriting %s kept resourceVersion %s: not written at the new storage version", it.GetName(), out.GetResourceVersion())
		}
		// Once stored at v1, an update that changes nothing writes nothing.
		again, err := v1.Update(ctx, out, metav1.UpdateOptions{})
		if err != nil || again.GetResourceVersion() != out.GetResourceVersion() {
			t.Errorf("no-op update of %s: %v, resourceVersion %s, want %s", it.GetName(), err, again.GetResourceVersion(), out.GetResourceVersion())
		}
	}

	// Nor does one through v1beta1, converted to v1 to compare.
	old, err := v1beta1.Get(ctx, "a", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if out, err := v1beta1.Update(ctx, old, metav1.UpdateOptions{}); err != nil || out.GetResourceVersion() != old.GetResourceVersion() {
		t.Errorf("no-op update through v1beta1: %v, resourceVersion %s, want %s", err, out.GetResourceVersion(), old.GetResourceVersion())
	}

	// 3. v1beta1 leaves status.storedVersions through the status subresource.
	cur, err = crds.Patch(ctx, cur.GetName(), types.MergePatchType, []byte(`{"status":{"storedVersions":["v1"]}}`), metav1.PatchOptions{}, "status")
	if err != nil {
		t.Fatal(err)
	}
	if got := storedVersions(cur); !slices.Equal(got, []string{"v1"}) {
		t.Errorf("storedVersions after the patch: %v", got)
	}

	// 4. v1beta1 is dropped; the objects read at v1.
	if _, err := crds.Update(ctx, setVersions(t, cur, upgradeCRD(t, "v1", false, "v1")), metav1.UpdateOptions{}); err != nil {
		t.Fatalf("dropping v1beta1: %v", err)
	}
	lst, err = v1.List(ctx, metav1.ListOptions{})
	if err != nil || len(lst.Items) != 2 {
		t.Fatalf("list after dropping v1beta1: %v", err)
	}
	for _, it := range lst.Items {
		if it.GetAPIVersion() != "stable.example.com/v1" {
			t.Errorf("%s: apiVersion %s", it.GetName(), it.GetAPIVersion())
		}
	}
	if _, err := v1.Get(ctx, "b", metav1.GetOptions{}); err != nil {
		t.Errorf("get after dropping v1beta1: %v", err)
	}
}

// TestCRDStoredVersionsOnlyGrowOnUpdate: a storage version that is given
// up stays in status.storedVersions, an update of the CRD adds the storage
// version back when a client removed it through /status, and a version
// still stored in may not leave spec.versions.
func TestCRDStoredVersionsOnlyGrowOnUpdate(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	crds := dynamic.NewForConfigOrDie(cp.RESTConfig()).Resource(crdsGVR)
	created, err := createEstablishedCRD(ctx, crds, upgradeCRD(t, "v1", false, "v1", "v2"))
	if err != nil {
		t.Fatal(err)
	}
	cur, err := crds.Update(ctx, setVersions(t, created, upgradeCRD(t, "v2", false, "v1", "v2")), metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Back to v1: nothing is added, nothing removed.
	cur, err = crds.Update(ctx, setVersions(t, cur, upgradeCRD(t, "v1", false, "v1", "v2")), metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := storedVersions(cur); !slices.Equal(got, []string{"v1", "v2"}) {
		t.Errorf("storedVersions: %v", got)
	}
	// A client may change the stored versions through /status, even to
	// leave the storage version out; the next update of the CRD adds it
	// back, as upstream's strategy does, and nothing else does.
	if _, err := crds.Patch(ctx, cur.GetName(), types.MergePatchType, []byte(`{"status":{"storedVersions":["v2"]}}`), metav1.PatchOptions{}, "status"); err != nil {
		t.Fatal(err)
	}
	got, err := crds.Get(ctx, cur.GetName(), metav1.GetOptions{})
	if err != nil || !slices.Equal(storedVersions(got), []string{"v2"}) {
		t.Fatalf("storedVersions after the status patch: %v %v", err, storedVersions(got))
	}
	got.SetLabels(map[string]string{"touched": "yes"})
	cur, err = crds.Update(ctx, got, metav1.UpdateOptions{})
	if err != nil || !slices.Equal(storedVersions(cur), []string{"v2", "v1"}) {
		t.Fatalf("storedVersions after an update: %v %v", err, storedVersions(cur))
	}
	_, err = crds.Update(ctx, setVersions(t, cur, upgradeCRD(t, "v1", false, "v1")), metav1.UpdateOptions{})
	want := `status.storedVersions[0]: Invalid value: "v2": missing from spec.versions; v2 was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in v2 and removes v2 from status.storedVersions`
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), want) {
		t.Errorf("dropping a stored version: %v", err)
	}
}

// TestCRDNoOpUpdateRewritesWhatReadingChanges: an update that changes
// nothing the client sees still writes an object whose stored form differs
// from what it encodes to now (defaults added since, an older storage
// version), as etcd3's GuaranteedUpdate compares the encoded bytes; the
// object then has a new resourceVersion, and the next such update writes
// nothing.
func TestCRDNoOpUpdateRewritesWhatReadingChanges(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	dyn := dynamic.NewForConfigOrDie(cp.RESTConfig())
	crds := dyn.Resource(crdsGVR)
	crontabs := dyn.Resource(schema.GroupVersionResource{Group: "stable.example.com", Version: "v1", Resource: "crontabs"}).Namespace("default")
	created, err := createEstablishedCRD(ctx, crds, upgradeCRD(t, "v1", false, "v1"))
	if err != nil {
		t.Fatal(err)
	}
	obj, err := crontabs.Create(ctx, crontab("v1", "a", map[string]any{"cronSpec": "* * * * */5"}), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Without a change of the CRD, a no-op update writes nothing.
	same, err := crontabs.Update(ctx, obj, metav1.UpdateOptions{})
	if err != nil || same.GetResourceVersion() != obj.GetResourceVersion() {
		t.Fatalf("no-op update: %v, resourceVersion %s, want %s", err, same.GetResourceVersion(), obj.GetResourceVersion())
	}
	// spec.replicas gets a default: objects read with it (those read
	// before too), and a no-op update stores it.
	if _, err := crontabs.Get(ctx, "a", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := crds.Update(ctx, setVersions(t, created, upgradeCRD(t, "v1", true, "v1")), metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	read, err := crontabs.Get(ctx, "a", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r, _, _ := unstructured.NestedInt64(read.Object, "spec", "replicas"); r != 1 {
		t.Fatalf("default not applied on read: %v", read.Object["spec"])
	}
	written, err := crontabs.Update(ctx, read, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if written.GetResourceVersion() == read.GetResourceVersion() {
		t.Errorf("the default applied on read was not stored: resourceVersion %s kept", read.GetResourceVersion())
	}
	again, err := crontabs.Update(ctx, written, metav1.UpdateOptions{})
	if err != nil || again.GetResourceVersion() != written.GetResourceVersion() {
		t.Errorf("second no-op update: %v, resourceVersion %s, want %s", err, again.GetResourceVersion(), written.GetResourceVersion())
	}
}

// TestCRDObjectsInADroppedVersionCannotBeRead: objects left stored at a
// version removed from status.storedVersions and spec.versions cannot be
// decoded any more, as on a cluster: a get answers 500 with a corrupt
// object StorageError, a list a StoreReadError naming every such object.
func TestCRDObjectsInADroppedVersionCannotBeRead(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	dyn := dynamic.NewForConfigOrDie(cp.RESTConfig())
	crds := dyn.Resource(crdsGVR)
	v1 := dyn.Resource(schema.GroupVersionResource{Group: "stable.example.com", Version: "v1", Resource: "crontabs"}).Namespace("default")
	created, err := createEstablishedCRD(ctx, crds, upgradeCRD(t, "v1beta1", false, "v1beta1", "v1"))
	if err != nil {
		t.Fatal(err)
	}
	var revs []string
	for _, name := range []string{"a", "b"} {
		out, err := v1.Create(ctx, crontab("v1", name, map[string]any{"cronSpec": "* * * * */5"}), metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		revs = append(revs, out.GetResourceVersion())
	}
	cur, err := crds.Update(ctx, setVersions(t, created, upgradeCRD(t, "v1", false, "v1beta1", "v1")), metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Read before, as after.
	if _, err := v1.List(ctx, metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := v1.Get(ctx, "a", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	// No migration: v1beta1 is removed all the same.
	if cur, err = crds.Patch(ctx, cur.GetName(), types.MergePatchType, []byte(`{"status":{"storedVersions":["v1"]}}`), metav1.PatchOptions{}, "status"); err != nil {
		t.Fatal(err)
	}
	if _, err := crds.Update(ctx, setVersions(t, cur, upgradeCRD(t, "v1", false, "v1")), metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	_, err = v1.Get(ctx, "a", metav1.GetOptions{})
	wantGet := "Internal error occurred: StorageError: corrupt object, Code: 7, Key: /stable.example.com/crontabs/default/a, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=" + revs[0] + ": request to convert CR from an invalid group/version: stable.example.com/v1beta1"
	if !apierrors.IsInternalError(err) || err.Error() != wantGet {
		t.Errorf("get:\n got %v\nwant %s", err, wantGet)
	}
	_, err = v1.List(ctx, metav1.ListOptions{})
	var st apierrors.APIStatus
	if !apierrors.IsStoreReadError(err) || !errors.As(err, &st) {
		t.Fatalf("list: %v", err)
	}
	status := st.Status()
	wantList := "failed to read one or more crontabs.stable.example.com from the storage: StorageError: corrupt object, Code: 7, Key: /registry/stable.example.com/crontabs/default/a, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=" + revs[0] + ": request to convert CR from an invalid group/version: stable.example.com/v1beta1 (and 1 more)"
	if status.Code != 500 || status.Message != wantList {
		t.Errorf("list status:\n got %d %s\nwant 500 %s", status.Code, status.Message, wantList)
	}
	if status.Details == nil || len(status.Details.Causes) != 2 || status.Details.Causes[1].Field != "/registry/stable.example.com/crontabs/default/b" {
		t.Errorf("list causes: %+v", status.Details)
	}
}

// TestCRDDeletionWaitsForCustomObjectFinalizers: a CRD being deleted stays
// until its objects are gone, those held by finalizers too; meanwhile its
// Terminating condition says the deletion is in progress, no object may be
// created, and the CRD goes once the last finalizer is removed.
func TestCRDDeletionWaitsForCustomObjectFinalizers(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	dyn := dynamic.NewForConfigOrDie(cp.RESTConfig())
	crds := dyn.Resource(crdsGVR)
	crontabs := dyn.Resource(schema.GroupVersionResource{Group: "stable.example.com", Version: "v1", Resource: "crontabs"}).Namespace("default")
	if _, err := crds.Create(ctx, upgradeCRD(t, "v1", false, "v1"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	held := crontab("v1", "held", map[string]any{"cronSpec": "* * * * */5"})
	held.SetFinalizers([]string{"example.com/hold"})
	if _, err := crontabs.Create(ctx, held, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := crontabs.Create(ctx, crontab("v1", "free", map[string]any{"cronSpec": "* * * * */5"}), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := crds.Delete(ctx, "crontabs.stable.example.com", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	terminating := func(u *unstructured.Unstructured) (status, reason, message string) {
		conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
		for _, c := range conds {
			m := c.(map[string]any)
			if m["type"] == "Terminating" {
				return m["status"].(string), m["reason"].(string), m["message"].(string)
			}
		}
		return "", "", ""
	}
	// The free object goes; the held one is marked and waited for.
	waitFor(t, func() bool {
		_, err := crontabs.Get(ctx, "free", metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
	waitFor(t, func() bool {
		cur, err := crds.Get(ctx, "crontabs.stable.example.com", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("the CRD went with an object left: %v", err)
		}
		s, r, m := terminating(cur)
		return s == "True" && r == "InstanceDeletionInProgress" && m == "CustomResource deletion is in progress"
	})
	// No object may be created meanwhile.
	_, err := crontabs.Create(ctx, crontab("v1", "new", map[string]any{"cronSpec": "* * * * */5"}), metav1.CreateOptions{})
	if want := `crontabs.stable.example.com "new" is forbidden: create not allowed while custom resource definition is terminating`; !apierrors.IsForbidden(err) || err.Error() != want {
		t.Errorf("create while terminating: %v, want %s", err, want)
	}
	// The cleanup deletes the objects one by one: the held one is marked
	// deleted, possibly after the condition was set.
	waitFor(t, func() bool {
		got, err := crontabs.Get(ctx, "held", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("held object: %v", err)
		}
		return got.GetDeletionTimestamp() != nil
	})
	cur, err := crds.Get(ctx, "crontabs.stable.example.com", metav1.GetOptions{})
	if err != nil || !slices.Contains(cur.GetFinalizers(), apiextensionsv1.CustomResourceCleanupFinalizer) {
		t.Fatalf("the CRD lost its finalizer with an object left: %v %v", err, cur.GetFinalizers())
	}
	// The finalizer goes, then the object and the CRD.
	if _, err := crontabs.Patch(ctx, "held", types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		_, err := crds.Get(ctx, "crontabs.stable.example.com", metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
}

// TestCRDDefaultsOnReadUseTheStoredVersionsSchema: an object read from
// storage gets the defaults of the version it is stored at, before it is
// converted to the version asked for, as the seed says ("when reading from
// etcd using the storage version defaults").
func TestCRDDefaultsOnReadUseTheStoredVersionsSchema(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	dyn := dynamic.NewForConfigOrDie(cp.RESTConfig())
	crds := dyn.Resource(crdsGVR)
	v2 := dyn.Resource(schema.GroupVersionResource{Group: "stable.example.com", Version: "v2", Resource: "crontabs"}).Namespace("default")
	created, err := createEstablishedCRD(ctx, crds, upgradeCRD(t, "v1", false, "v1", "v2"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v2.Create(ctx, crontab("v2", "a", map[string]any{"cronSpec": "* * * * */5"}), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// v1 defaults spec.replicas to 1, v2 to 2.
	want := upgradeCRD(t, "v1", true, "v1", "v2")
	vs, _, _ := unstructured.NestedSlice(want.Object, "spec", "versions")
	_ = unstructured.SetNestedField(vs[1].(map[string]any), int64(2), "schema", "openAPIV3Schema", "properties", "spec", "properties", "replicas", "default")
	_ = unstructured.SetNestedSlice(want.Object, vs, "spec", "versions")
	if _, err := crds.Update(ctx, setVersions(t, created, want), metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := v2.Get(ctx, "a", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r, _, _ := unstructured.NestedInt64(got.Object, "spec", "replicas"); r != 1 {
		t.Errorf("read at v2: spec %v, want replicas 1 (v1's default)", got.Object["spec"])
	}
	// A new object sent at v2 gets v2's default.
	out, err := v2.Create(ctx, crontab("v2", "b", map[string]any{"cronSpec": "* * * * */5"}), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r, _, _ := unstructured.NestedInt64(out.Object, "spec", "replicas"); r != 2 {
		t.Errorf("created at v2: spec %v, want replicas 2", out.Object["spec"])
	}
}
