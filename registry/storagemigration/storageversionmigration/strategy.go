// Package storageversionmigration holds the StorageVersionMigration strategy: kube-apiserver's
// pkg/registry/storagemigration/storagemigration strategy and its validation (the resource to
// migrate, an immutable spec, and the status's rules).
package storageversionmigration

import (
	"context"
	"strings"

	storagemigrationv1 "k8s.io/api/storagemigration/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the StorageVersionMigration strategy.
var Strategy = storageVersionMigrationStrategy{strategy.Base{ResetStatusOnCreate: true}}

type storageVersionMigrationStrategy struct{ strategy.Base }

// Validate checks the resource a new StorageVersionMigration names.
func (storageVersionMigrationStrategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validateSpec(obj.(*storagemigrationv1.StorageVersionMigration))
}

// ValidateUpdate checks the spec as on create, and that it did not change.
func (storageVersionMigrationStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	svm, oldSVM := obj.(*storagemigrationv1.StorageVersionMigration), old.(*storagemigrationv1.StorageVersionMigration)
	errs := validateSpec(svm)
	// Upstream compares (and reports) its internal spec, whose field has
	// no JSON name.
	type internalSpec struct{ Resource metav1.GroupResource }
	return append(errs, apimachineryvalidation.ValidateImmutableField(internalSpec(svm.Spec), internalSpec(oldSVM.Spec), field.NewPath("spec"))...)
}

// ValidateStatusUpdate checks a write to /status: a well-formed resource
// version that, once set, stays; valid conditions; Succeeded and Failed
// not both true, and neither reverted once true.
func (storageVersionMigrationStrategy) ValidateStatusUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	svm, oldSVM := obj.(*storagemigrationv1.StorageVersionMigration), old.(*storagemigrationv1.StorageVersionMigration)
	status := field.NewPath("status")
	var errs field.ErrorList
	if rv := svm.Status.ResourceVersion; rv != "" {
		if _, err := resourceversion.CompareResourceVersion(rv, rv); err != nil {
			errs = append(errs, field.Invalid(status.Child("resourceVersion"), rv, err.Error()))
		}
	}
	errs = append(errs, metav1validation.ValidateConditions(svm.Status.Conditions, status.Child("conditions"))...)
	if oldRV := oldSVM.Status.ResourceVersion; oldRV != "" && oldRV != svm.Status.ResourceVersion {
		errs = append(errs, field.Invalid(status.Child("resourceVersion"), svm.Status.ResourceVersion, apimachineryvalidation.FieldImmutableErrorMsg))
	}
	conditions := status.Child("conditions")
	succeeded, failed := isTrue(svm, storagemigrationv1.MigrationSucceeded), isTrue(svm, storagemigrationv1.MigrationFailed)
	if succeeded && failed {
		errs = append(errs, field.Invalid(conditions, svm.Status.Conditions, "Both success and failed conditions cannot be true at the same time"))
	}
	if isTrue(oldSVM, storagemigrationv1.MigrationSucceeded) && !succeeded {
		errs = append(errs, field.Invalid(conditions, svm.Status.Conditions, "Success condition cannot be set to false once it is true"))
	}
	if isTrue(oldSVM, storagemigrationv1.MigrationFailed) && !failed {
		errs = append(errs, field.Invalid(conditions, svm.Status.Conditions, "Failed condition cannot be set to false once it is true"))
	}
	return errs
}

// validateSpec checks spec.resource: a resource (a DNS-1035 label) and,
// when given, a group (a DNS-1123 subdomain).
func validateSpec(svm *storagemigrationv1.StorageVersionMigration) field.ErrorList {
	var errs field.ErrorList
	resource := field.NewPath("spec", "resource")
	if r := svm.Spec.Resource.Resource; r == "" {
		errs = append(errs, field.Required(resource.Child("resource"), "resource is required to be set"))
	} else if msgs := validation.IsDNS1035Label(r); len(msgs) > 0 {
		errs = append(errs, field.Invalid(resource.Child("resource"), r, strings.Join(msgs, ",")))
	}
	if g := svm.Spec.Resource.Group; g != "" {
		if msgs := validation.IsDNS1123Subdomain(g); len(msgs) > 0 {
			errs = append(errs, field.Invalid(resource.Child("group"), g, strings.Join(msgs, ",")))
		}
	}
	return errs
}

// isTrue reports whether svm's condition of type t is True.
func isTrue(svm *storagemigrationv1.StorageVersionMigration, t storagemigrationv1.MigrationConditionType) bool {
	return meta.IsStatusConditionTrue(svm.Status.Conditions, string(t))
}
