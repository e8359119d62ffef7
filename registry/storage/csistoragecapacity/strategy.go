// Package csistoragecapacity holds the CSIStorageCapacity strategy: the flags of kube-apiserver's
// pkg/registry/storage/csistoragecapacity strategy and storage, and its
// validation: a node topology selector, a class name and a capacity not
// negative, the first two unchanged by updates.
package csistoragecapacity

import (
	"context"

	storagev1 "k8s.io/api/storage/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the CSIStorageCapacity strategy.
var Strategy = csiStorageCapacityStrategy{strategy.Base{Namespaced: true}}

type csiStorageCapacityStrategy struct{ strategy.Base }

// Validate checks a new CSIStorageCapacity.
func (csiStorageCapacityStrategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validateCapacity(obj.(*storagev1.CSIStorageCapacity), metav1validation.LabelSelectorValidationOptions{})
}

// validateCapacity is upstream's ValidateCSIStorageCapacity: the node
// topology, the class name and a capacity not below zero.
func validateCapacity(c *storagev1.CSIStorageCapacity, opts metav1validation.LabelSelectorValidationOptions) field.ErrorList {
	errs := metav1validation.ValidateLabelSelector(c.NodeTopology, opts, field.NewPath("nodeTopology"))
	for _, msg := range apivalidation.NameIsDNSSubdomain(c.StorageClassName, false) {
		errs = append(errs, field.Invalid(field.NewPath("storageClassName"), c.StorageClassName, msg))
	}
	if c.Capacity != nil && c.Capacity.Sign() < 0 {
		errs = append(errs, field.Invalid(field.NewPath("capacity"), c.Capacity.String(), "must be greater than or equal to 0"))
	}
	return errs
}

// ValidateUpdate checks an update as a create (label values in the node
// topology the stored object already had invalid are let through), and
// that it keeps the node topology and the class name, the inputs of the
// capacity.
func (csiStorageCapacityStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	c, was := obj.(*storagev1.CSIStorageCapacity), old.(*storagev1.CSIStorageCapacity)
	opts := metav1validation.LabelSelectorValidationOptions{
		AllowInvalidLabelValueInSelector: len(metav1validation.ValidateLabelSelector(was.NodeTopology, metav1validation.LabelSelectorValidationOptions{}, nil)) > 0,
	}
	errs := validateCapacity(c, opts)
	if !apiequality.Semantic.DeepEqual(c.NodeTopology, was.NodeTopology) {
		errs = append(errs, field.Invalid(field.NewPath("nodeTopology"), c.NodeTopology, "field is immutable"))
	}
	if c.StorageClassName != was.StorageClassName {
		errs = append(errs, field.Invalid(field.NewPath("storageClassName"), c.StorageClassName, "field is immutable"))
	}
	return errs
}
