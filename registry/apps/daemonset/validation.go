package daemonset

import (
	"context"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane/internal/validate"
	"github.com/fakeplane/fakeplane/registry/core/pod"
)

func validateDaemonSet(ctx context.Context, ds *appsv1.DaemonSet) field.ErrorList {
	spec := field.NewPath("spec")
	s := &ds.Spec
	errs := metav1validation.ValidateLabelSelector(s.Selector, metav1validation.LabelSelectorValidationOptions{}, spec.Child("selector"))
	if sel, err := metav1.LabelSelectorAsSelector(s.Selector); err == nil && !sel.Matches(labels.Set(s.Template.Labels)) {
		errs = append(errs, field.Invalid(spec.Child("template", "metadata", "labels"), s.Template.Labels, "`selector` does not match template `labels`"))
	}
	if s.Selector != nil && len(s.Selector.MatchLabels)+len(s.Selector.MatchExpressions) == 0 {
		errs = append(errs, field.Invalid(spec.Child("selector"), s.Selector, "empty selector is invalid for daemonset"))
	}
	errs = append(errs, pod.ValidatePodTemplateSpec(ctx, &s.Template, spec.Child("template"))...)
	errs = append(errs, pod.ValidateRestartPolicyAlways(&s.Template, spec.Child("template"), "DaemonSet")...)
	errs = append(errs, validate.Nonnegative(int64(s.MinReadySeconds), spec.Child("minReadySeconds"))...)
	errs = append(errs, validate.Nonnegative(TemplateGeneration(ds), spec.Child("templateGeneration"))...)
	us := spec.Child("updateStrategy")
	switch s.UpdateStrategy.Type {
	case appsv1.OnDeleteDaemonSetStrategyType:
	case appsv1.RollingUpdateDaemonSetStrategyType:
		ru := s.UpdateStrategy.RollingUpdate
		if ru == nil {
			errs = append(errs, field.Required(us.Child("rollingUpdate"), ""))
			break
		}
		p := us.Child("rollingUpdate")
		mu, ms := ptr.Deref(ru.MaxUnavailable, intstr.IntOrString{}), ptr.Deref(ru.MaxSurge, intstr.IntOrString{})
		errs = append(errs, validate.PositiveIntOrPercent(mu, p.Child("maxUnavailable"))...)
		errs = append(errs, validate.PositiveIntOrPercent(ms, p.Child("maxSurge"))...)
		errs = append(errs, validate.NotMoreThan100Percent(mu, p.Child("maxUnavailable"))...)
		errs = append(errs, validate.NotMoreThan100Percent(ms, p.Child("maxSurge"))...)
		hasU, hasS := validate.IntOrPercentValue(mu) != 0, validate.IntOrPercentValue(ms) != 0
		switch {
		case hasU && hasS:
			errs = append(errs, field.Invalid(p.Child("maxSurge"), ms, "may not be set when maxUnavailable is non-zero"))
		case !hasU && !hasS:
			errs = append(errs, field.Required(p.Child("maxUnavailable"), "cannot be 0 when maxSurge is 0"))
		}
	default:
		errs = append(errs, field.NotSupported(us, validate.InternalValue(s.UpdateStrategy), []string{string(appsv1.RollingUpdateDaemonSetStrategyType), string(appsv1.OnDeleteDaemonSetStrategyType)}))
	}
	if s.RevisionHistoryLimit != nil {
		errs = append(errs, validate.Nonnegative(int64(*s.RevisionHistoryLimit), spec.Child("revisionHistoryLimit"))...)
	}
	return errs
}

func validateDaemonSetStatus(n, p *appsv1.DaemonSet) field.ErrorList {
	st := field.NewPath("status")
	s := &n.Status
	errs := validate.StatusCounts(st, validate.Count("currentNumberScheduled", int64(s.CurrentNumberScheduled)), validate.Count("numberMisscheduled", int64(s.NumberMisscheduled)),
		validate.Count("desiredNumberScheduled", int64(s.DesiredNumberScheduled)), validate.Count("numberReady", int64(s.NumberReady)),
		validate.Count("observedGeneration", s.ObservedGeneration), validate.Count("updatedNumberScheduled", int64(s.UpdatedNumberScheduled)),
		validate.Count("numberAvailable", int64(s.NumberAvailable)), validate.Count("numberUnavailable", int64(s.NumberUnavailable)))
	if s.CollisionCount != nil {
		errs = append(errs, validate.Nonnegative(int64(*s.CollisionCount), st.Child("collisionCount"))...)
	}
	return append(errs, validate.CollisionDecremented(st, s.CollisionCount, p.Status.CollisionCount)...)
}

// defaultDaemonSet is upstream's SetDefaults_DaemonSet.
func defaultDaemonSet(o *appsv1.DaemonSet) {
	us := &o.Spec.UpdateStrategy
	if us.Type == "" {
		us.Type = appsv1.RollingUpdateDaemonSetStrategyType
	}
	if us.Type == appsv1.RollingUpdateDaemonSetStrategyType {
		if us.RollingUpdate == nil {
			us.RollingUpdate = &appsv1.RollingUpdateDaemonSet{}
		}
		if us.RollingUpdate.MaxUnavailable == nil {
			v := intstr.FromInt32(1)
			us.RollingUpdate.MaxUnavailable = &v
		}
		if us.RollingUpdate.MaxSurge == nil {
			v := intstr.FromInt32(0)
			us.RollingUpdate.MaxSurge = &v
		}
	}
	if o.Spec.RevisionHistoryLimit == nil {
		o.Spec.RevisionHistoryLimit = ptr.To[int32](10)
	}
	pod.DefaultPodSpec(&o.Spec.Template.Spec)
}

// TemplateGenerationAnnotation is where apps/v1 keeps a DaemonSet's
// internal spec.templateGeneration.
const TemplateGenerationAnnotation = "deprecated.daemonset.template.generation"

// TemplateGeneration returns a DaemonSet's template generation.
func TemplateGeneration(ds *appsv1.DaemonSet) int64 {
	n, _ := strconv.ParseInt(ds.Annotations[TemplateGenerationAnnotation], 10, 64)
	return n
}

// SetTemplateGeneration records a DaemonSet's template generation, which
// upstream's strategy sets to 1 at create and increments with each change
// of the template.
func SetTemplateGeneration(ds *appsv1.DaemonSet, gen int64) {
	if ds.Annotations == nil {
		ds.Annotations = map[string]string{}
	}
	ds.Annotations[TemplateGenerationAnnotation] = strconv.FormatInt(gen, 10)
}
