// Package limitrange holds the LimitRange strategy: kube-apiserver's
// pkg/registry/core/limitrange rules (its defaults; the spec's validation
// is not reimplemented).
package limitrange

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the LimitRange strategy.
var Strategy = limitRangeStrategy{strategy.Base{Namespaced: true, CreateOnUpdate: true, UnconditionalUpdate: true}}

type limitRangeStrategy struct{ strategy.Base }

// Default sets each container item's defaults.
func (limitRangeStrategy) Default(obj runtime.Object) {
	o := obj.(*corev1.LimitRange)
	for i := range o.Spec.Limits {
		defaultLimitRangeItem(&o.Spec.Limits[i])
	}
}

// Validate checks nothing beyond the metadata.
func (limitRangeStrategy) Validate(context.Context, runtime.Object) field.ErrorList { return nil }

// ValidateUpdate checks nothing beyond the metadata.
func (limitRangeStrategy) ValidateUpdate(context.Context, runtime.Object, runtime.Object) field.ErrorList {
	return nil
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
