package fakeplane_test

import (
	"encoding/json"

	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
)

// TestPVCDataSourcesAreMirrored: a claim's dataSource and dataSourceRef
// are kept in line as kube-apiserver keeps them. Either one fills in the
// other (dataSourceRef only when it is in the claim's namespace), and a
// dataSource naming neither a claim nor a VolumeSnapshot is dropped unless
// dataSourceRef is set too. The same on update from a client that leaves
// out the field the server filled in.
func TestPVCDataSourcesAreMirrored(t *testing.T) {
	t.Parallel()
	snapshots := ptr.To("snapshot.storage.k8s.io")
	cases := []struct {
		name          string
		ds            *corev1.TypedLocalObjectReference
		ref           *corev1.TypedObjectReference
		wantDS        *corev1.TypedLocalObjectReference
		wantRef       *corev1.TypedObjectReference
		updateWithout bool // update with dataSource alone: the stored ref stays
	}{
		{name: "ds-ref-only", ref: &corev1.TypedObjectReference{Kind: "PersistentVolumeClaim", Name: "src"},
			wantDS:  &corev1.TypedLocalObjectReference{Kind: "PersistentVolumeClaim", Name: "src"},
			wantRef: &corev1.TypedObjectReference{Kind: "PersistentVolumeClaim", Name: "src"}},
		{name: "ds-snapshot-only", ds: &corev1.TypedLocalObjectReference{APIGroup: snapshots, Kind: "VolumeSnapshot", Name: "snap"},
			wantDS:        &corev1.TypedLocalObjectReference{APIGroup: snapshots, Kind: "VolumeSnapshot", Name: "snap"},
			wantRef:       &corev1.TypedObjectReference{APIGroup: snapshots, Kind: "VolumeSnapshot", Name: "snap"},
			updateWithout: true},
		{name: "ds-other-kind", ds: &corev1.TypedLocalObjectReference{APIGroup: ptr.To("example.com"), Kind: "Foo", Name: "f"}},
		{name: "ds-populator-both", ds: &corev1.TypedLocalObjectReference{APIGroup: ptr.To("example.com"), Kind: "Foo", Name: "f"},
			ref:     &corev1.TypedObjectReference{APIGroup: ptr.To("example.com"), Kind: "Foo", Name: "f"},
			wantDS:  &corev1.TypedLocalObjectReference{APIGroup: ptr.To("example.com"), Kind: "Foo", Name: "f"},
			wantRef: &corev1.TypedObjectReference{APIGroup: ptr.To("example.com"), Kind: "Foo", Name: "f"}},
	}
	run := func(t *testing.T, cs kubernetes.Interface, ns string) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				ctx := ctxT(t)
				claims := cs.CoreV1().PersistentVolumeClaims(ns)
				pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: tc.name}, Spec: corev1.PersistentVolumeClaimSpec{
					AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: mustQuantity(t, "1Gi")}},
					DataSource:  tc.ds, DataSourceRef: tc.ref,
				}}
				got, err := claims.Create(ctx, pvc, metav1.CreateOptions{})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { cleanupFinalized(opsOf(claims), tc.name) })
				check := func(what string, got *corev1.PersistentVolumeClaim) {
					t.Helper()
					if !equalJSON(got.Spec.DataSource, tc.wantDS) || !equalJSON(got.Spec.DataSourceRef, tc.wantRef) {
						t.Errorf("%s: dataSource %s, dataSourceRef %s; want %s and %s", what,
							toJSON(got.Spec.DataSource), toJSON(got.Spec.DataSourceRef), toJSON(tc.wantDS), toJSON(tc.wantRef))
					}
				}
				check("create", got)
				if tc.updateWithout {
					got.Spec.DataSourceRef = nil
					got.Labels = map[string]string{"updated": "yes"}
					if got, err = claims.Update(ctx, got, metav1.UpdateOptions{}); err != nil {
						t.Fatal(err)
					}
					check("update without dataSourceRef", got)
				}
			})
		}
	}
	cp := fakeplane.Start(t)
	run(t, clientset(t, cp), "default")
	if ref, ns := refCluster(t); ref != nil {
		t.Run("reference", func(t *testing.T) { run(t, ref, ns) })
	}
}

// mustQuantity parses a resource quantity.
func mustQuantity(t *testing.T, s string) resource.Quantity {
	t.Helper()
	q, err := resource.ParseQuantity(s)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// toJSON is v in JSON ("null" for nil), for messages and comparisons.
func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// equalJSON reports whether a and b encode to the same JSON.
func equalJSON(a, b any) bool { return toJSON(a) == toJSON(b) }
