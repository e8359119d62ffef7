// Package poddisruptionbudget holds the PodDisruptionBudget strategy:
// kube-apiserver's pkg/registry/policy/poddisruptionbudget rules.
package poddisruptionbudget

import (
	"context"

	policyv1 "k8s.io/api/policy/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the PodDisruptionBudget strategy.
var Strategy = pdbStrategy{strategy.Base{Namespaced: true, Generation: true, ResetStatusOnCreate: true, StatusWritesMetadata: true, NoMetadataRules: true}}

type pdbStrategy struct{ strategy.Base }

// Validate checks a new budget's spec.
func (pdbStrategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validatePDB(obj.(*policyv1.PodDisruptionBudget))
}

// ValidateUpdate checks the spec as on create.
func (s pdbStrategy) ValidateUpdate(ctx context.Context, obj, _ runtime.Object) field.ErrorList {
	return s.Validate(ctx, obj)
}

func validatePDB(p *policyv1.PodDisruptionBudget) field.ErrorList {
	spec := field.NewPath("spec")
	s := p.Spec
	var errs field.ErrorList
	if s.MinAvailable != nil && s.MaxUnavailable != nil {
		errs = append(errs, field.Invalid(spec, validate.InternalValue(s), "minAvailable and maxUnavailable cannot be both set"))
	}
	if s.MinAvailable != nil {
		errs = append(errs, validate.PositiveIntOrPercent(*s.MinAvailable, spec.Child("minAvailable"))...)
		errs = append(errs, validate.NotMoreThan100Percent(*s.MinAvailable, spec.Child("minAvailable"))...)
	}
	if s.MaxUnavailable != nil {
		errs = append(errs, validate.PositiveIntOrPercent(*s.MaxUnavailable, spec.Child("maxUnavailable"))...)
		errs = append(errs, validate.NotMoreThan100Percent(*s.MaxUnavailable, spec.Child("maxUnavailable"))...)
	}
	errs = append(errs, metav1validation.ValidateLabelSelector(s.Selector, metav1validation.LabelSelectorValidationOptions{}, spec.Child("selector"))...)
	if pol := s.UnhealthyPodEvictionPolicy; pol != nil && *pol != policyv1.IfHealthyBudget && *pol != policyv1.AlwaysAllow {
		errs = append(errs, field.NotSupported(spec.Child("unhealthyPodEvictionPolicy"), *pol, []string{"AlwaysAllow", "IfHealthyBudget"}))
	}
	return errs
}
