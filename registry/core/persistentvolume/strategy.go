// Package persistentvolume holds the PersistentVolume strategy:
// kube-apiserver's pkg/registry/core/persistentvolume rules, and the
// validation of a volume's spec (validation.go).
package persistentvolume

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the PersistentVolume strategy.
var Strategy = volumeStrategy{strategy.Base{UnconditionalUpdate: true, ReturnDeleted: true, StatusWritesMetadata: true}}

type volumeStrategy struct{ strategy.Base }

// PrepareForCreate gives a new volume the Pending phase, since now, and no
// other status, as upstream's PrepareForCreate does.
func (volumeStrategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	now := metav1.Now()
	obj.(*corev1.PersistentVolume).Status = corev1.PersistentVolumeStatus{Phase: corev1.VolumePending, LastPhaseTransitionTime: &now}
}

// PrepareForStatusUpdate keeps the phase's transition time while the phase
// stays, and sets it to now when the phase changes and the write did not
// set a time of its own, as upstream's status strategy does.
func (volumeStrategy) PrepareForStatusUpdate(_ context.Context, obj, old runtime.Object) {
	n, o := obj.(*corev1.PersistentVolume), old.(*corev1.PersistentVolume)
	switch {
	case n.Status.Phase == o.Status.Phase && n.Status.LastPhaseTransitionTime == nil:
		n.Status.LastPhaseTransitionTime = o.Status.LastPhaseTransitionTime
	case n.Status.Phase != o.Status.Phase && (n.Status.LastPhaseTransitionTime == nil || n.Status.LastPhaseTransitionTime.Equal(o.Status.LastPhaseTransitionTime)):
		now := metav1.Now()
		n.Status.LastPhaseTransitionTime = &now
	}
}

// Validate checks the spec (upstream's ValidatePersistentVolume).
func (volumeStrategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validateVolume(obj.(*corev1.PersistentVolume))
}

// ValidateUpdate checks the new spec and what may not change.
func (volumeStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validateVolumeUpdate(obj.(*corev1.PersistentVolume), old.(*corev1.PersistentVolume))
}
