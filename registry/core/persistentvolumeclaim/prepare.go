package persistentvolumeclaim

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// PrepareForCreate gives a new claim the Pending phase and no other status,
// as upstream's PrepareForCreate does, and clears the spec's fields of
// default-off gates (dropDisabledSpecFields).
func (claimStrategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	obj.(*corev1.PersistentVolumeClaim).Status = corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending}
	dropDisabledSpecFields(&obj.(*corev1.PersistentVolumeClaim).Spec, nil)
}
