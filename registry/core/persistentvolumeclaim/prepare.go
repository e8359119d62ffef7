package persistentvolumeclaim

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// PrepareForCreate gives a new claim the Pending phase and no other status,
// as upstream's PrepareForCreate does, clears the spec's fields of
// default-off gates (dropDisabledSpecFields) and brings its data source
// fields in line (datasource.go).
func (claimStrategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	obj.(*corev1.PersistentVolumeClaim).Status = corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending}
	spec := &obj.(*corev1.PersistentVolumeClaim).Spec
	dropDisabledSpecFields(spec, nil)
	dropLegacyDataSource(spec, nil)
	mirrorDataSources(spec)
}
