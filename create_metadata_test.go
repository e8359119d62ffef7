package fakeplane_test

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
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
