package persistentvolumeclaim

import (
	"context"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestPersistentVolumeClaimWarnings(t *testing.T) {
	storage := func(q string) corev1.ResourceList {
		return corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(q)}
	}
	for _, tc := range []struct {
		name        string
		annotations map[string]string
		resources   corev1.VolumeResourceRequirements
		want        []string
	}{
		{name: "whole bytes warn of nothing", resources: corev1.VolumeResourceRequirements{Requests: storage("1Gi"), Limits: storage("2Gi")}},
		{name: "no storage request", resources: corev1.VolumeResourceRequirements{}},
		{name: "deprecated storage class annotation", annotations: map[string]string{"volume.beta.kubernetes.io/storage-class": "fast"},
			resources: corev1.VolumeResourceRequirements{Requests: storage("1Gi")},
			want:      []string{`metadata.annotations[volume.beta.kubernetes.io/storage-class]: deprecated since v1.8; use "storageClassName" attribute instead`}},
		{name: "fractional request and limit after the annotation", annotations: map[string]string{"volume.beta.kubernetes.io/storage-class": "fast"},
			resources: corev1.VolumeResourceRequirements{Requests: storage("1500m"), Limits: storage("2.5")},
			want: []string{
				`metadata.annotations[volume.beta.kubernetes.io/storage-class]: deprecated since v1.8; use "storageClassName" attribute instead`,
				`spec.resources.requests[storage]: fractional byte value "1500m" is invalid, must be an integer`,
				`spec.resources.limits[storage]: fractional byte value "2500m" is invalid, must be an integer`,
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "c", Annotations: tc.annotations},
				Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}, Resources: tc.resources}}
			if got := Strategy.WarningsOnCreate(context.Background(), pvc); !slices.Equal(got, tc.want) {
				t.Errorf("create warnings:\n got %q\nwant %q", got, tc.want)
			}
			if got := Strategy.WarningsOnUpdate(context.Background(), pvc, pvc.DeepCopy()); !slices.Equal(got, tc.want) {
				t.Errorf("update warnings:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}
