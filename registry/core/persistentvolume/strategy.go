// Package persistentvolume holds the PersistentVolume strategy:
// kube-apiserver's pkg/registry/core/persistentvolume rules, less the
// validation, which fakeplane does not do yet.
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

// Validate finds nothing: a volume's spec is not validated yet.
func (volumeStrategy) Validate(context.Context, runtime.Object) field.ErrorList { return nil }

// ValidateUpdate finds nothing: a volume's spec is not validated yet.
func (volumeStrategy) ValidateUpdate(context.Context, runtime.Object, runtime.Object) field.ErrorList {
	return nil
}
