// Package pod holds the Pod strategy: kube-apiserver's pkg/registry/core/pod
// rules, with the pod spec and pod template validation and defaulting
// (upstream's pkg/apis/core/validation and pkg/apis/core/v1 defaults) that
// the strategies of the resources holding a pod template reuse.
package pod

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the Pod strategy. (The admission plugins are still the
// server's.)
var Strategy = podStrategy{strategy.Base{Namespaced: true, UnconditionalUpdate: true, Generation: true, ReturnDeleted: true, StatusWritesMetadata: true}}

type podStrategy struct{ strategy.Base }

// Validate is upstream's ValidatePodCreate less the metadata.
func (podStrategy) Validate(ctx context.Context, obj runtime.Object) field.ErrorList {
	return validatePod(ctx, obj.(*corev1.Pod))
}

// ValidateUpdate is upstream's ValidatePodUpdate less the metadata.
func (podStrategy) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	return validatePodUpdate(ctx, obj.(*corev1.Pod), old.(*corev1.Pod))
}

// ValidateStatusUpdate is upstream's ValidatePodStatusUpdate less the
// metadata.
func (podStrategy) ValidateStatusUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validatePodStatusUpdate(obj.(*corev1.Pod), old.(*corev1.Pod))
}

// Default is upstream's SetDefaults_Pod with those of the pod spec.
func (podStrategy) Default(obj runtime.Object) {
	defaultPod(obj.(*corev1.Pod))
}

// WarningsOnCreate is upstream's: a name that is not a DNS label, then the
// warnings of the spec and metadata (WarningsForPod). (Those of the
// deprecated AppArmor annotations come earlier, from PrepareForCreate.)
func (podStrategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	p := obj.(*corev1.Pod)
	return append(PodNameWarnings(p.Name), WarningsForPod(p, nil)...)
}

// WarningsOnUpdate returns none: upstream skips them on a pod's updates,
// frequent and seldom a person's.
func (podStrategy) WarningsOnUpdate(context.Context, runtime.Object, runtime.Object) []string {
	return nil
}

// WarningsOnStatusUpdate is upstream's pod status strategy's
// WarningsOnUpdate (see StatusWarnings).
func (podStrategy) WarningsOnStatusUpdate(_ context.Context, obj, _ runtime.Object) []string {
	return StatusWarnings(obj.(*corev1.Pod))
}

var _ strategy.StatusWarner = podStrategy{}
