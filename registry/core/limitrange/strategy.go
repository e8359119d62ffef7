// Package limitrange holds the LimitRange strategy: kube-apiserver's
// pkg/registry/core/limitrange rules, its defaults and the validation of
// its limits (validation.go).
package limitrange

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the LimitRange strategy.
var Strategy = limitRangeStrategy{strategy.Base{Namespaced: true, CreateOnUpdate: true, UnconditionalUpdate: true}}

type limitRangeStrategy struct{ strategy.Base }

// PrepareForCreate names a LimitRange created without a name (or
// generateName) with a random UUID, as upstream's strategy does.
func (s limitRangeStrategy) PrepareForCreate(ctx context.Context, obj runtime.Object) {
	s.Base.PrepareForCreate(ctx, obj)
	if o := obj.(*corev1.LimitRange); o.Name == "" {
		o.Name = string(uuid.NewUUID())
	}
}

// Default sets each container item's defaults.
func (limitRangeStrategy) Default(obj runtime.Object) {
	o := obj.(*corev1.LimitRange)
	for i := range o.Spec.Limits {
		defaultLimitRangeItem(&o.Spec.Limits[i])
	}
}

// Validate checks the limits (upstream's ValidateLimitRange).
func (limitRangeStrategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validateLimitRange(obj.(*corev1.LimitRange))
}

// ValidateUpdate checks the new limits as a create does.
func (limitRangeStrategy) ValidateUpdate(_ context.Context, obj, _ runtime.Object) field.ErrorList {
	return validateLimitRange(obj.(*corev1.LimitRange))
}

// defaultLimitRangeItem is upstream's SetDefaults_LimitRangeItem.
func defaultLimitRangeItem(it *corev1.LimitRangeItem) {
	if it.Type != corev1.LimitTypeContainer {
		return
	}
	if it.Default == nil {
		it.Default = corev1.ResourceList{}
	}
	if it.DefaultRequest == nil {
		it.DefaultRequest = corev1.ResourceList{}
	}
	for k, v := range it.Max {
		if _, ok := it.Default[k]; !ok {
			it.Default[k] = v.DeepCopy()
		}
	}
	for k, v := range it.Default {
		if _, ok := it.DefaultRequest[k]; !ok {
			it.DefaultRequest[k] = v.DeepCopy()
		}
	}
	for k, v := range it.Min {
		if _, ok := it.DefaultRequest[k]; !ok {
			it.DefaultRequest[k] = v.DeepCopy()
		}
	}
}
