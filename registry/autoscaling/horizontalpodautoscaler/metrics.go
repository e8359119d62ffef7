package horizontalpodautoscaler

import (
	"fmt"
	"slices"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate"
)

// Upstream's bounds of a scaling rule's stabilization window and of a
// policy's period.
const (
	maxStabilizationWindowSeconds = 3600
	maxPeriodSeconds              = 1800
)

// The values upstream lists in its NotSupported messages, sorted as it
// sorts them.
var (
	metricSourceTypes = []string{"ContainerResource", "External", "Object", "Pods", "Resource"}
	selectPolicies    = []string{"Disabled", "Max", "Min"}
	policyTypes       = []string{"Percent", "Pods"}
)

// validateMetrics is upstream's validateMetrics: each metric, then the
// Object or External metric that scaling to zero needs.
func validateMetrics(metrics []autoscalingv2.MetricSpec, minReplicas *int32, old *autoscalingv2.HorizontalPodAutoscaler, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	// Described objects' apiVersions are not checked once the stored
	// autoscaler has an invalid one (upstream's validation options).
	skipAPIVersion := old != nil && slices.ContainsFunc(old.Spec.Metrics, func(m autoscalingv2.MetricSpec) bool {
		return m.Type == autoscalingv2.ObjectMetricSourceType && m.Object != nil && objectAPIVersionError(m.Object.DescribedObject.APIVersion) != nil
	})
	scalesToZero := false
	for i := range metrics {
		m := &metrics[i]
		errs = append(errs, validateMetric(m, skipAPIVersion, fld.Index(i))...)
		scalesToZero = scalesToZero || m.Type == autoscalingv2.ObjectMetricSourceType || m.Type == autoscalingv2.ExternalMetricSourceType
	}
	if minReplicas != nil && *minReplicas == 0 && !scalesToZero {
		errs = append(errs, field.Forbidden(fld, "must specify at least one Object or External metric to support scaling to zero replicas"))
	}
	return errs
}

// validateMetric is upstream's validateMetricSpec: a known type, the one
// source it names given (and validated), no other.
func validateMetric(m *autoscalingv2.MetricSpec, skipAPIVersion bool, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if m.Type == "" {
		errs = append(errs, field.Required(fld.Child("type"), "must specify a metric source type"))
	}
	if !slices.Contains(metricSourceTypes, string(m.Type)) {
		errs = append(errs, field.NotSupported(fld.Child("type"), m.Type, metricSourceTypes))
	}
	var present []string
	first := func(name string) bool { present = append(present, name); return len(present) == 1 }
	if m.Object != nil && first("object") {
		errs = append(errs, validateObjectSource(m.Object, skipAPIVersion, fld.Child("object"))...)
	}
	if m.External != nil && first("external") {
		errs = append(errs, validateExternalSource(m.External, fld.Child("external"))...)
	}
	if m.Pods != nil && first("pods") {
		errs = append(errs, validatePodsSource(m.Pods, fld.Child("pods"))...)
	}
	if m.Resource != nil && first("resource") {
		errs = append(errs, validateResourceTarget(string(m.Resource.Name), "", false, m.Resource.Target, fld.Child("resource"))...)
	}
	if m.ContainerResource != nil && first("containerResource") {
		cr := m.ContainerResource
		errs = append(errs, validateResourceTarget(string(cr.Name), cr.Container, true, cr.Target, fld.Child("containerResource"))...)
	}
	expected := map[autoscalingv2.MetricSourceType]struct {
		field string
		set   bool
	}{
		autoscalingv2.ObjectMetricSourceType:            {"object", m.Object != nil},
		autoscalingv2.PodsMetricSourceType:              {"pods", m.Pods != nil},
		autoscalingv2.ResourceMetricSourceType:          {"resource", m.Resource != nil},
		autoscalingv2.ExternalMetricSourceType:          {"external", m.External != nil},
		autoscalingv2.ContainerResourceMetricSourceType: {"containerResource", m.ContainerResource != nil},
	}
	want, known := expected[m.Type]
	switch {
	case !known:
		errs = append(errs, field.NotSupported(fld.Child("type"), m.Type, metricSourceTypes))
	case !want.set:
		errs = append(errs, field.Required(fld.Child(want.field), "must populate information for the given metric source"))
	}
	if len(present) != 1 {
		// Upstream walks a set here, in no fixed order; sorted here.
		slices.Sort(present)
		for _, p := range present {
			if p != want.field {
				errs = append(errs, field.Forbidden(fld.Child(p), "must populate the given metric source only"))
			}
		}
	}
	return errs
}

// validateObjectSource is upstream's validateObjectSource.
func validateObjectSource(src *autoscalingv2.ObjectMetricSource, skipAPIVersion bool, fld *field.Path) field.ErrorList {
	ref := src.DescribedObject
	rf := fld.Child("describedObject")
	var errs field.ErrorList
	errs = append(errs, pathSegment(rf.Child("kind"), ref.Kind)...)
	errs = append(errs, pathSegment(rf.Child("name"), ref.Name)...)
	if err := objectAPIVersionError(ref.APIVersion); err != nil && !skipAPIVersion {
		errs = append(errs, field.Invalid(rf.Child("apiVersion"), ref.APIVersion, err.Error()))
	}
	errs = append(errs, validateMetricName(src.Metric.Name, fld.Child("metric", "name"))...)
	errs = append(errs, validateTarget(src.Target, fld.Child("target"))...)
	if src.Target.Value == nil && src.Target.AverageValue == nil {
		errs = append(errs, field.Required(fld.Child("target", "averageValue"), "must set either a target value or averageValue"))
	}
	return errs
}

// objectAPIVersionError is upstream's ValidateAPIVersion for a described
// object, whose group may be empty.
func objectAPIVersionError(v string) error {
	_, err := schema.ParseGroupVersion(v)
	return err
}

// validateExternalSource is upstream's validateExternalSource.
func validateExternalSource(src *autoscalingv2.ExternalMetricSource, fld *field.Path) field.ErrorList {
	errs := validateMetricName(src.Metric.Name, fld.Child("metric", "name"))
	errs = append(errs, validateTarget(src.Target, fld.Child("target"))...)
	if src.Target.Value == nil && src.Target.AverageValue == nil {
		errs = append(errs, field.Required(fld.Child("target", "averageValue"), "must set either a target value for metric or a per-pod target"))
	}
	if src.Target.Value != nil && src.Target.AverageValue != nil {
		errs = append(errs, field.Forbidden(fld.Child("target", "value"), "may not set both a target value for metric and a per-pod target"))
	}
	return errs
}

// validatePodsSource is upstream's validatePodsSource.
func validatePodsSource(src *autoscalingv2.PodsMetricSource, fld *field.Path) field.ErrorList {
	errs := validateMetricName(src.Metric.Name, fld.Child("metric", "name"))
	errs = append(errs, validateTarget(src.Target, fld.Child("target"))...)
	if src.Target.AverageValue == nil {
		errs = append(errs, field.Required(fld.Child("target", "averageValue"), "must specify a positive target averageValue"))
	}
	return errs
}

// validateResourceTarget is upstream's validateResourceSource, and with
// container its validateContainerResourceSource.
func validateResourceTarget(name, container string, withContainer bool, t autoscalingv2.MetricTarget, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if name == "" {
		errs = append(errs, field.Required(fld.Child("name"), "must specify a resource name"))
	} else if withContainer {
		errs = append(errs, validate.ContainerResourceName(name, fld.Child("name"))...)
	}
	if withContainer {
		if container == "" {
			errs = append(errs, field.Required(fld.Child("container"), "must specify a container"))
		} else {
			errs = append(errs, validate.DNS1123Label(container, fld.Child("container"))...)
		}
	}
	errs = append(errs, validateTarget(t, fld.Child("target"))...)
	if t.AverageUtilization == nil && t.AverageValue == nil {
		errs = append(errs, field.Required(fld.Child("target", "averageUtilization"), "must set either a target raw value or a target utilization"))
	}
	if t.AverageUtilization != nil && t.AverageValue != nil {
		errs = append(errs, field.Forbidden(fld.Child("target", "averageValue"), "may not set both a target raw value and a target utilization"))
	}
	return errs
}

// validateTarget is upstream's validateMetricTarget.
func validateTarget(t autoscalingv2.MetricTarget, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if t.Type == "" {
		errs = append(errs, field.Required(fld.Child("type"), "must specify a metric target type"))
	}
	if t.Type != autoscalingv2.UtilizationMetricType && t.Type != autoscalingv2.ValueMetricType && t.Type != autoscalingv2.AverageValueMetricType {
		errs = append(errs, field.Invalid(fld.Child("type"), t.Type, "must be either Utilization, Value, or AverageValue"))
	}
	if t.Value != nil && t.Value.Sign() != 1 {
		errs = append(errs, field.Invalid(fld.Child("value"), t.Value, "must be positive"))
	}
	if t.AverageValue != nil && t.AverageValue.Sign() != 1 {
		errs = append(errs, field.Invalid(fld.Child("averageValue"), t.AverageValue, "must be positive"))
	}
	if t.AverageUtilization != nil && *t.AverageUtilization < 1 {
		errs = append(errs, field.Invalid(fld.Child("averageUtilization"), t.AverageUtilization, "must be greater than 0"))
	}
	return errs
}

// validateMetricName is upstream's validateMetricIdentifier.
func validateMetricName(name string, fld *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(fld, "must specify a metric name")}
	}
	var errs field.ErrorList
	for _, msg := range content.IsPathSegmentName(name) {
		errs = append(errs, field.Invalid(fld, name, msg))
	}
	return errs
}

// pathSegment requires a value usable as a path segment.
func pathSegment(fld *field.Path, v string) field.ErrorList {
	if v == "" {
		return field.ErrorList{field.Required(fld, "")}
	}
	var errs field.ErrorList
	for _, msg := range content.IsPathSegmentName(v) {
		errs = append(errs, field.Invalid(fld, v, msg))
	}
	return errs
}

// validateBehavior is upstream's validateBehavior: each direction's
// stabilization window, select policy, policies and tolerance.
func validateBehavior(b *autoscalingv2.HorizontalPodAutoscalerBehavior, fld *field.Path) field.ErrorList {
	if b == nil {
		return nil
	}
	errs := validateRules(b.ScaleUp, fld.Child("scaleUp"))
	return append(errs, validateRules(b.ScaleDown, fld.Child("scaleDown"))...)
}

// validateRules is upstream's validateScalingRules.
func validateRules(r *autoscalingv2.HPAScalingRules, fld *field.Path) field.ErrorList {
	if r == nil {
		return nil
	}
	var errs field.ErrorList
	if w := r.StabilizationWindowSeconds; w != nil && *w < 0 {
		errs = append(errs, field.Invalid(fld.Child("stabilizationWindowSeconds"), w, "must be greater than or equal to zero"))
	}
	if w := r.StabilizationWindowSeconds; w != nil && *w > maxStabilizationWindowSeconds {
		errs = append(errs, field.Invalid(fld.Child("stabilizationWindowSeconds"), w, fmt.Sprintf("must be less than or equal to %v", maxStabilizationWindowSeconds)))
	}
	if p := r.SelectPolicy; p != nil && !slices.Contains(selectPolicies, string(*p)) {
		errs = append(errs, field.NotSupported(fld.Child("selectPolicy"), p, selectPolicies))
	}
	pf := fld.Child("policies")
	if len(r.Policies) == 0 {
		errs = append(errs, field.Required(pf, "must specify at least one Policy"))
	}
	for i, p := range r.Policies {
		idx := pf.Index(i)
		if p.Type != autoscalingv2.PodsScalingPolicy && p.Type != autoscalingv2.PercentScalingPolicy {
			errs = append(errs, field.NotSupported(idx.Child("type"), p.Type, policyTypes))
		}
		if p.Value <= 0 {
			errs = append(errs, field.Invalid(idx.Child("value"), p.Value, "must be greater than zero"))
		}
		if p.PeriodSeconds <= 0 {
			errs = append(errs, field.Invalid(idx.Child("periodSeconds"), p.PeriodSeconds, "must be greater than zero"))
		}
		if p.PeriodSeconds > maxPeriodSeconds {
			errs = append(errs, field.Invalid(idx.Child("periodSeconds"), p.PeriodSeconds, fmt.Sprintf("must be less than or equal to %v", maxPeriodSeconds)))
		}
	}
	if t := r.Tolerance; t != nil && t.Cmp(resource.Quantity{}) < 0 {
		errs = append(errs, field.Invalid(fld.Child("tolerance"), t.String(), "must be greater than or equal to 0"))
	}
	return errs
}
