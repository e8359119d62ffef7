package fakeplane_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
)

// TestCreateMetadataAsKubeAPIServer: what a create keeps of the metadata a
// client sends, as kube-apiserver v1.37 (recorded from refplane). A POST
// wipes uid, creationTimestamp, deletionTimestamp and its grace period
// before the field manager sees them; a create by PUT or apply wipes them
// after it, so the writer owns the grace period it sent. A resource without
// generations keeps the generation sent (a negative one is invalid), and
// an update keeps the stored one; one with generations starts at 1.
func TestCreateMetadataAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	past := metav1.NewTime(metav1.Now().Add(-3600e9).Truncate(1e9))
	sent := metav1.ObjectMeta{Name: "cm", UID: "given", CreationTimestamp: past, DeletionTimestamp: &past, DeletionGracePeriodSeconds: ptr.To[int64](30), Generation: 7}

	cms := cs.CoreV1().ConfigMaps("default")
	cm, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: sent, Data: map[string]string{"a": "b"}}, metav1.CreateOptions{FieldManager: "writer"})
	if err != nil {
		t.Fatal(err)
	}
	if cm.UID == "given" || cm.CreationTimestamp.Equal(&past) || cm.DeletionTimestamp != nil || cm.DeletionGracePeriodSeconds != nil || cm.Generation != 7 {
		t.Errorf("created: %+v", cm.ObjectMeta)
	}
	if mf := cm.ManagedFields; len(mf) != 1 || string(mf[0].FieldsV1.Raw) != `{"f:data":{".":{},"f:a":{}}}` {
		t.Errorf("managedFields of a POST: %+v", mf)
	}
	cm.Generation = 9
	if cm, err = cms.Update(ctx, cm, metav1.UpdateOptions{}); err != nil || cm.Generation != 7 {
		t.Errorf("update with generation 9: %v, generation %d", err, cm.Generation)
	}
	bad := sent
	bad.Name, bad.Generation = "cm-negative", -5
	if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: bad}, metav1.CreateOptions{}); !apierrors.IsInvalid(err) ||
		err.Error() != `ConfigMap "cm-negative" is invalid: metadata.generation: Invalid value: -5: must be greater than or equal to 0` {
		t.Errorf("negative generation: %v", err)
	}

	lease, err := cs.CoordinationV1().Leases("default").Update(ctx, &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "by-put", DeletionGracePeriodSeconds: ptr.To[int64](30), Generation: 7}}, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if lease.DeletionGracePeriodSeconds != nil || lease.Generation != 7 || len(lease.ManagedFields) != 1 ||
		string(lease.ManagedFields[0].FieldsV1.Raw) != `{"f:metadata":{"f:deletionGracePeriodSeconds":{}}}` {
		t.Errorf("created by PUT: %+v", lease.ObjectMeta)
	}
	applied, err := cms.Patch(ctx, "by-apply", types.ApplyPatchType, []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"by-apply","deletionGracePeriodSeconds":30,"generation":7}}`),
		metav1.PatchOptions{FieldManager: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if applied.DeletionGracePeriodSeconds != nil || applied.Generation != 7 || len(applied.ManagedFields) != 1 ||
		!strings.Contains(string(applied.ManagedFields[0].FieldsV1.Raw), `"f:deletionGracePeriodSeconds":{}`) {
		t.Errorf("created by apply: %+v", applied.ObjectMeta)
	}

	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "d", Generation: 7}, Spec: appsv1.DeploymentSpec{
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"a": "b"}}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i"}}}},
	}}
	if d, err = cs.AppsV1().Deployments("default").Create(ctx, d, metav1.CreateOptions{}); err != nil || d.Generation != 1 {
		t.Errorf("deployment created with generation 7: %v, generation %d", err, d.Generation)
	}
}

// TestUpdateDeletionMetadataAsKubeAPIServer: an update can neither remove
// nor change an object's deletion timestamp or grace period: one left out
// is kept, one set on an object not being deleted, or a grace period
// changed, is "field is immutable" (recorded from refplane).
func TestUpdateDeletionMetadataAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cms := clientset(t, cp).CoreV1().ConfigMaps("default")
	ctx := ctxT(t)
	ts := metav1.NewTime(time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC))
	live, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "live"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		set  func(*corev1.ConfigMap)
		want string
	}{
		{"deletion timestamp", func(cm *corev1.ConfigMap) { cm.DeletionTimestamp = &ts },
			`ConfigMap "live" is invalid: metadata.deletionTimestamp: Invalid value: "2020-01-01T00:00:00Z": field is immutable`},
		{"grace period", func(cm *corev1.ConfigMap) { cm.DeletionGracePeriodSeconds = ptr.To[int64](5) },
			`ConfigMap "live" is invalid: metadata.deletionGracePeriodSeconds: Invalid value: 5: field is immutable`},
	} {
		cm := live.DeepCopy()
		tc.set(cm)
		if _, err := cms.Update(ctx, cm, metav1.UpdateOptions{}); !apierrors.IsInvalid(err) || err.Error() != tc.want {
			t.Errorf("live object's %s set: %v\nwant %s", tc.name, err, tc.want)
		}
	}

	deleting, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "deleting", Finalizers: []string{"example.com/x"}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := cms.Delete(ctx, "deleting", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if deleting, err = cms.Get(ctx, "deleting", metav1.GetOptions{}); err != nil || deleting.DeletionTimestamp == nil {
		t.Fatalf("%v %+v", err, deleting)
	}
	cm := deleting.DeepCopy()
	cm.DeletionTimestamp, cm.DeletionGracePeriodSeconds, cm.Data = &ts, nil, map[string]string{"a": "b"}
	got, err := cms.Update(ctx, cm, metav1.UpdateOptions{})
	if err != nil || !got.DeletionTimestamp.Equal(deleting.DeletionTimestamp) || got.DeletionGracePeriodSeconds == nil || *got.DeletionGracePeriodSeconds != 0 {
		t.Errorf("deleting object updated with another timestamp and no grace period: %v %+v", err, got)
	}
	cm = got.DeepCopy()
	cm.DeletionGracePeriodSeconds = ptr.To[int64](5)
	if _, err := cms.Update(ctx, cm, metav1.UpdateOptions{}); !apierrors.IsInvalid(err) ||
		err.Error() != `ConfigMap "deleting" is invalid: metadata.deletionGracePeriodSeconds: Invalid value: 5: field is immutable` {
		t.Errorf("deleting object's grace period changed: %v", err)
	}
}

// TestDuplicateOwnerReferencesAsKubeAPIServer: owner references repeated
// entirely are dropped, with upstream's warning naming their UIDs: before
// the field manager for a create's or a PUT's body, after mutating
// admission for a patch (recorded from refplane). One sharing a UID with
// another but differing is kept.
func TestDuplicateOwnerReferencesAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithControllers("-garbage-collector-controller"))
	cs, warnings := clientWithWarnings(t, cp)
	cms := cs.CoreV1().ConfigMaps("default")
	ctx := ctxT(t)
	a := metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "x", UID: "u1"}
	b := metav1.OwnerReference{APIVersion: "v1", Kind: "Secret", Name: "y", UID: "u1"}
	refs := []metav1.OwnerReference{a, a, b}
	const before = ".metadata.ownerReferences contains duplicate entries; API server dedups owner references in 1.20+, and may reject such requests as early as 1.24; please fix your requests; duplicate UID(s) observed: u1"
	const after = ".metadata.ownerReferences contains duplicate entries after mutating admission happens; API server dedups owner references in 1.20+, and may reject such requests as early as 1.24; please fix your requests; duplicate UID(s) observed: u1"
	check := func(what string, cm *corev1.ConfigMap, err error, warning string) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if !equality.Semantic.DeepEqual(cm.OwnerReferences, []metav1.OwnerReference{a, b}) {
			t.Errorf("%s: owner references %+v", what, cm.OwnerReferences)
		}
		if got := warnings.Messages(); len(got) == 0 || got[len(got)-1] != warning {
			t.Errorf("%s: warnings %q, want %q last", what, got, warning)
		}
	}
	cm, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "created", OwnerReferences: refs}}, metav1.CreateOptions{})
	check("create", cm, err, before)
	if mf := cm.ManagedFields; len(mf) != 1 || string(mf[0].FieldsV1.Raw) != `{"f:metadata":{"f:ownerReferences":{".":{},"k:{\"uid\":\"u1\"}":{}}}}` {
		t.Errorf("create: managedFields %+v", mf)
	}
	cm.OwnerReferences = refs
	cm, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
	check("update", cm, err, before)
	if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "patched"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"ownerReferences": refs}})
	cm, err = cms.Patch(ctx, "patched", types.MergePatchType, patch, metav1.PatchOptions{})
	check("merge patch", cm, err, after)
}
