// Package persistentvolumeclaim holds the PersistentVolumeClaim strategy:
// kube-apiserver's pkg/registry/core/persistentvolumeclaim rules, with the
// claim spec validation StatefulSets' claim templates reuse, and those of
// its status strategy (status.go).
package persistentvolumeclaim

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the PersistentVolumeClaim strategy.
var Strategy = claimStrategy{strategy.Base{Namespaced: true, UnconditionalUpdate: true, ReturnDeleted: true, StatusWritesMetadata: true}}

type claimStrategy struct{ strategy.Base }

// Validate checks a new claim's spec.
func (claimStrategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return ValidateSpec(&obj.(*corev1.PersistentVolumeClaim).Spec, field.NewPath("spec"))
}

// ValidateUpdate is upstream's ValidatePersistentVolumeClaimUpdate less the
// metadata.
func (claimStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validateUpdate(obj.(*corev1.PersistentVolumeClaim), old.(*corev1.PersistentVolumeClaim))
}

// Default is upstream's SetDefaults_PersistentVolumeClaim (a claim with no
// phase is Pending, which a write to /status without one also gets) and
// SetDefaults_PersistentVolumeClaimSpec.
func (claimStrategy) Default(obj runtime.Object) {
	c := obj.(*corev1.PersistentVolumeClaim)
	if c.Status.Phase == "" {
		c.Status.Phase = corev1.ClaimPending
	}
	DefaultSpec(&c.Spec)
}

// DefaultSpec is upstream's SetDefaults_PersistentVolumeClaimSpec: the
// volume mode defaults to Filesystem.
func DefaultSpec(s *corev1.PersistentVolumeClaimSpec) {
	if s.VolumeMode == nil {
		fs := corev1.PersistentVolumeFilesystem
		s.VolumeMode = &fs
	}
}
