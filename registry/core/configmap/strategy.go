// Package configmap holds the ConfigMap strategy: kube-apiserver's
// pkg/registry/core/configmap rules.
package configmap

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the ConfigMap strategy.
var Strategy = configMapStrategy{strategy.Base{Namespaced: true, UnconditionalUpdate: true}}

type configMapStrategy struct{ strategy.Base }

// Validate checks a new ConfigMap's keys and size.
func (configMapStrategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validateConfigMap(obj.(*corev1.ConfigMap))
}

// ValidateUpdate also keeps an immutable ConfigMap's data.
func (configMapStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	n, p := obj.(*corev1.ConfigMap), old.(*corev1.ConfigMap)
	errs := validate.ImmutableData(n.Immutable, p.Immutable,
		validate.Kept{Path: field.NewPath("data"), New: n.Data, Old: p.Data},
		validate.Kept{Path: field.NewPath("binaryData"), New: n.BinaryData, Old: p.BinaryData})
	return append(errs, validateConfigMap(n)...)
}

func validateConfigMap(cm *corev1.ConfigMap) field.ErrorList {
	var errs field.ErrorList
	size := 0
	data, binary := field.NewPath("data"), field.NewPath("binaryData")
	for _, k := range validate.SortedKeys(cm.Data) {
		for _, msg := range validation.IsConfigMapKey(k) {
			errs = append(errs, field.Invalid(data.Key(k), k, msg))
		}
		if _, dup := cm.BinaryData[k]; dup {
			errs = append(errs, field.Invalid(data.Key(k), k, "duplicate of key present in binaryData"))
		}
		size += len(cm.Data[k])
	}
	for _, k := range validate.SortedKeys(cm.BinaryData) {
		for _, msg := range validation.IsConfigMapKey(k) {
			errs = append(errs, field.Invalid(binary.Key(k), k, msg))
		}
		size += len(cm.BinaryData[k])
	}
	if size > validate.MaxConfigSize {
		errs = append(errs, field.TooLong(field.NewPath(""), "", validate.MaxConfigSize))
	}
	return errs
}
