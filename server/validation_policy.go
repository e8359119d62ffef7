package server

import (
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	policyv1 "k8s.io/api/policy/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// PodDisruptionBudgets (pkg/apis/policy/validation) and the scale target
// and replica bounds of HorizontalPodAutoscalers
// (pkg/apis/autoscaling/validation) as upstream validates them.

func validatePDB(p *policyv1.PodDisruptionBudget) field.ErrorList {
	spec := field.NewPath("spec")
	s := p.Spec
	var errs field.ErrorList
	if s.MinAvailable != nil && s.MaxUnavailable != nil {
		errs = append(errs, field.Invalid(spec, internalValue(s), "minAvailable and maxUnavailable cannot be both set"))
	}
	if s.MinAvailable != nil {
		errs = append(errs, positiveIntOrPercent(*s.MinAvailable, spec.Child("minAvailable"))...)
		errs = append(errs, notMoreThan100Percent(*s.MinAvailable, spec.Child("minAvailable"))...)
	}
	if s.MaxUnavailable != nil {
		errs = append(errs, positiveIntOrPercent(*s.MaxUnavailable, spec.Child("maxUnavailable"))...)
		errs = append(errs, notMoreThan100Percent(*s.MaxUnavailable, spec.Child("maxUnavailable"))...)
	}
	errs = append(errs, metav1validation.ValidateLabelSelector(s.Selector, metav1validation.LabelSelectorValidationOptions{}, spec.Child("selector"))...)
	if pol := s.UnhealthyPodEvictionPolicy; pol != nil && *pol != policyv1.IfHealthyBudget && *pol != policyv1.AlwaysAllow {
		errs = append(errs, field.NotSupported(spec.Child("unhealthyPodEvictionPolicy"), *pol, []string{"AlwaysAllow", "IfHealthyBudget"}))
	}
	return errs
}

// validateHPA checks an autoscaler's replica bounds, scale target and
// scale-to-zero metrics (not the metrics' and behavior's own rules);
// upstream checks the bounds declaratively, those errors come last.
func validateHPA(h, old *autoscalingv2.HorizontalPodAutoscaler) field.ErrorList {
	spec := field.NewPath("spec")
	s := &h.Spec
	var errs, declarative field.ErrorList
	// HPAScaleToZero is on in v1.37: minReplicas may be 0.
	if s.MinReplicas != nil && *s.MinReplicas < 0 {
		declarative = append(declarative, field.Invalid(spec.Child("minReplicas"), *s.MinReplicas, "must be greater than or equal to 0"))
	}
	if s.MaxReplicas == 0 {
		declarative = append(declarative, field.Required(spec.Child("maxReplicas"), ""))
	} else if s.MaxReplicas < 0 {
		declarative = append(declarative, field.Invalid(spec.Child("maxReplicas"), s.MaxReplicas, "must be greater than or equal to 1"))
	}
	if s.MinReplicas != nil && s.MaxReplicas < *s.MinReplicas {
		errs = append(errs, field.Invalid(spec.Child("maxReplicas"), s.MaxReplicas, "must be greater than or equal to `minReplicas`"))
	}
	ref := s.ScaleTargetRef
	rf := spec.Child("scaleTargetRef")
	errs = append(errs, requiredPathSegment(rf.Child("kind"), ref.Kind)...)
	errs = append(errs, requiredPathSegment(rf.Child("name"), ref.Name)...)
	unchanged := old != nil && old.Spec.ScaleTargetRef.APIVersion == ref.APIVersion && old.Spec.ScaleTargetRef.Kind == ref.Kind
	if !unchanged {
		if gv, err := schema.ParseGroupVersion(ref.APIVersion); err != nil {
			errs = append(errs, field.Invalid(rf.Child("apiVersion"), ref.APIVersion, err.Error()))
		} else if gv.Group == "" && ref.Kind != "ReplicationController" {
			errs = append(errs, field.Invalid(rf.Child("apiVersion"), ref.APIVersion, "apiVersion must specify API group"))
		}
	}
	if s.MinReplicas != nil && *s.MinReplicas == 0 {
		scalesToZero := false
		for _, m := range s.Metrics {
			scalesToZero = scalesToZero || m.Type == autoscalingv2.ObjectMetricSourceType || m.Type == autoscalingv2.ExternalMetricSourceType
		}
		if !scalesToZero {
			errs = append(errs, field.Forbidden(spec.Child("metrics"), "must specify at least one Object or External metric to support scaling to zero replicas"))
		}
	}
	return append(errs, declarative...)
}
