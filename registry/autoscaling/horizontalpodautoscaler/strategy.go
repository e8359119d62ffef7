// Package horizontalpodautoscaler holds the HorizontalPodAutoscaler
// strategy: kube-apiserver's pkg/registry/autoscaling/horizontalpodautoscaler
// rules. autoscaling/v1 and v2 are both served, so the strategy takes
// either Go type.
package horizontalpodautoscaler

import (
	"context"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane/internal/validate"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the HorizontalPodAutoscaler strategy.
var Strategy = hpaStrategy{strategy.Base{Namespaced: true, UnconditionalUpdate: true, Generation: true, ResetStatusOnCreate: true, StatusWritesMetadata: true, NameRuleOnCreateOnly: true}}

type hpaStrategy struct{ strategy.Base }

// Default sets upstream's defaults of either version.
func (hpaStrategy) Default(obj runtime.Object) {
	switch o := obj.(type) {
	case *autoscalingv2.HorizontalPodAutoscaler:
		defaultHPA(o)
	case *autoscalingv1.HorizontalPodAutoscaler:
		if o.Spec.MinReplicas == nil {
			o.Spec.MinReplicas = ptr.To[int32](1)
		}
		// The default CPU target of an autoscaler with no metric comes with
		// the conversion to autoscaling/v2 (ToV2), which knows the metrics
		// of the annotations too. Upstream decodes into its internal type,
		// so the object its field manager sees (and whose writer owns the
		// field) has it already.
		if o.Spec.TargetCPUUtilizationPercentage == nil {
			o.Spec.TargetCPUUtilizationPercentage = ToV1(ToV2(o)).Spec.TargetCPUUtilizationPercentage
		}
	}
}

// asV2 is an autoscaler of either version as autoscaling/v2, which upstream
// validates (its internal type) whatever version was written.
func asV2(obj runtime.Object) *autoscalingv2.HorizontalPodAutoscaler {
	switch o := obj.(type) {
	case *autoscalingv2.HorizontalPodAutoscaler:
		return o
	case *autoscalingv1.HorizontalPodAutoscaler:
		return ToV2(o)
	}
	return nil
}

// Validate checks a new autoscaler of either version.
func (hpaStrategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	if n := asV2(obj); n != nil {
		return validateHPA(n, nil)
	}
	return nil
}

// ValidateUpdate checks the autoscaler as on create, but an unchanged scale
// target's apiVersion.
func (s hpaStrategy) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	n := asV2(obj)
	if n == nil {
		return nil
	}
	return validateHPA(n, asV2(old))
}

// validateHPA checks an autoscaler's replica bounds, scale target,
// metrics and behavior (metrics.go); upstream checks the bounds
// declaratively, those errors come last.
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
	errs = append(errs, validate.RequiredPathSegment(rf.Child("kind"), ref.Kind)...)
	errs = append(errs, validate.RequiredPathSegment(rf.Child("name"), ref.Name)...)
	unchanged := old != nil && old.Spec.ScaleTargetRef.APIVersion == ref.APIVersion && old.Spec.ScaleTargetRef.Kind == ref.Kind
	if !unchanged {
		if gv, err := schema.ParseGroupVersion(ref.APIVersion); err != nil {
			errs = append(errs, field.Invalid(rf.Child("apiVersion"), ref.APIVersion, err.Error()))
		} else if gv.Group == "" && ref.Kind != "ReplicationController" {
			errs = append(errs, field.Invalid(rf.Child("apiVersion"), ref.APIVersion, "apiVersion must specify API group"))
		}
	}
	errs = append(errs, validateMetrics(s.Metrics, s.MinReplicas, old, spec.Child("metrics"))...)
	errs = append(errs, validateBehavior(s.Behavior, spec.Child("behavior"))...)
	return append(errs, declarative...)
}

// defaultHPA is upstream's autoscaling/v2 SetDefaults_HorizontalPodAutoscaler.
func defaultHPA(o *autoscalingv2.HorizontalPodAutoscaler) {
	if o.Spec.MinReplicas == nil {
		o.Spec.MinReplicas = ptr.To[int32](1)
	}
	if len(o.Spec.Metrics) == 0 {
		u := int32(80)
		o.Spec.Metrics = []autoscalingv2.MetricSpec{{
			Type: autoscalingv2.ResourceMetricSourceType,
			Resource: &autoscalingv2.ResourceMetricSource{
				Name:   corev1.ResourceCPU,
				Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: &u},
			},
		}}
	}
	b := o.Spec.Behavior
	if b == nil {
		return
	}
	maxPolicy := autoscalingv2.MaxChangePolicySelect
	zero := int32(0)
	up := &autoscalingv2.HPAScalingRules{
		StabilizationWindowSeconds: &zero,
		SelectPolicy:               &maxPolicy,
		Policies: []autoscalingv2.HPAScalingPolicy{
			{Type: autoscalingv2.PodsScalingPolicy, Value: 4, PeriodSeconds: 15},
			{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15},
		},
	}
	maxPolicy2 := autoscalingv2.MaxChangePolicySelect
	down := &autoscalingv2.HPAScalingRules{
		SelectPolicy: &maxPolicy2,
		Policies:     []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15}},
	}
	b.ScaleUp = mergeScalingRules(b.ScaleUp, up)
	b.ScaleDown = mergeScalingRules(b.ScaleDown, down)
}

// mergeScalingRules is upstream's copyHPAScalingRules: what from sets
// wins over the defaults in to.
func mergeScalingRules(from, to *autoscalingv2.HPAScalingRules) *autoscalingv2.HPAScalingRules {
	if from == nil {
		return to
	}
	if from.SelectPolicy != nil {
		to.SelectPolicy = from.SelectPolicy
	}
	if from.StabilizationWindowSeconds != nil {
		to.StabilizationWindowSeconds = from.StabilizationWindowSeconds
	}
	if from.Policies != nil {
		to.Policies = from.Policies
	}
	if from.Tolerance != nil {
		to.Tolerance = from.Tolerance
	}
	return to
}
