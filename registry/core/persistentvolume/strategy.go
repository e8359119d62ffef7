// Package persistentvolume holds the PersistentVolume strategy:
// kube-apiserver's pkg/registry/core/persistentvolume rules, and the
// validation of a volume's spec (validation.go).
package persistentvolume

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the PersistentVolume strategy.
var Strategy = volumeStrategy{strategy.Base{UnconditionalUpdate: true, ReturnDeleted: true, StatusWritesMetadata: true}}

type volumeStrategy struct{ strategy.Base }

// PrepareForCreate gives a new volume the Pending phase and no other
// status, as upstream's PrepareForCreate does.
func (volumeStrategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	obj.(*corev1.PersistentVolume).Status = corev1.PersistentVolumeStatus{Phase: corev1.VolumePending}
}

// Validate checks the spec (upstream's ValidatePersistentVolume).
func (volumeStrategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validateVolume(obj.(*corev1.PersistentVolume))
}

// ValidateUpdate checks the new spec and what may not change.
func (volumeStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validateVolumeUpdate(obj.(*corev1.PersistentVolume), old.(*corev1.PersistentVolume))
}
