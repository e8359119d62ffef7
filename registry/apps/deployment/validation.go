package deployment

import (
	"context"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane/internal/validate"
	"github.com/fakeplane/fakeplane/registry/core/pod"
)

func validateDeployment(ctx context.Context, d *appsv1.Deployment) field.ErrorList {
	spec := field.NewPath("spec")
	s := &d.Spec
	errs := validate.Nonnegative(int64(ptr.Deref(s.Replicas, 0)), spec.Child("replicas"))
	errs = append(errs, validate.WorkloadSelector(s.Selector, spec.Child("selector"), "deployment")...)
	if sel, err := metav1.LabelSelectorAsSelector(s.Selector); err != nil {
		errs = append(errs, field.Invalid(spec.Child("selector"), s.Selector, "invalid label selector"))
	} else {
		errs = append(errs, pod.ValidatePodTemplateSpecForReplicaSet(ctx, &s.Template, sel, spec.Child("template"), "ReplicaSet")...)
	}
	errs = append(errs, validateDeploymentStrategy(&s.Strategy, spec.Child("strategy"))...)
	errs = append(errs, validate.Nonnegative(int64(s.MinReadySeconds), spec.Child("minReadySeconds"))...)
	if s.RevisionHistoryLimit != nil {
		errs = append(errs, validate.Nonnegative(int64(*s.RevisionHistoryLimit), spec.Child("revisionHistoryLimit"))...)
	}
	if s.ProgressDeadlineSeconds != nil {
		errs = append(errs, validate.Nonnegative(int64(*s.ProgressDeadlineSeconds), spec.Child("progressDeadlineSeconds"))...)
		if *s.ProgressDeadlineSeconds <= s.MinReadySeconds {
			errs = append(errs, field.Invalid(spec.Child("progressDeadlineSeconds"), s.ProgressDeadlineSeconds, "must be greater than minReadySeconds"))
		}
	}
	return errs
}

func validateDeploymentStrategy(st *appsv1.DeploymentStrategy, fld *field.Path) field.ErrorList {
	switch st.Type {
	case appsv1.RecreateDeploymentStrategyType:
		if st.RollingUpdate != nil {
			return field.ErrorList{field.Forbidden(fld.Child("rollingUpdate"), "may not be specified when strategy `type` is 'Recreate'")}
		}
	case appsv1.RollingUpdateDeploymentStrategyType:
		if st.RollingUpdate == nil {
			return field.ErrorList{field.Required(fld.Child("rollingUpdate"), "this should be defaulted and never be nil")}
		}
		ru := fld.Child("rollingUpdate")
		var errs field.ErrorList
		mu, ms := ptr.Deref(st.RollingUpdate.MaxUnavailable, intstr.IntOrString{}), ptr.Deref(st.RollingUpdate.MaxSurge, intstr.IntOrString{})
		errs = append(errs, validate.PositiveIntOrPercent(mu, ru.Child("maxUnavailable"))...)
		errs = append(errs, validate.PositiveIntOrPercent(ms, ru.Child("maxSurge"))...)
		if validate.IntOrPercentValue(mu) == 0 && validate.IntOrPercentValue(ms) == 0 {
			errs = append(errs, field.Invalid(ru.Child("maxUnavailable"), mu, "may not be 0 when `maxSurge` is 0"))
		}
		errs = append(errs, validate.NotMoreThan100Percent(mu, ru.Child("maxUnavailable"))...)
		return errs
	default:
		return field.ErrorList{field.NotSupported(fld, validate.InternalValue(st), []string{string(appsv1.RecreateDeploymentStrategyType), string(appsv1.RollingUpdateDeploymentStrategyType)})}
	}
	return nil
}

func validateDeploymentStatus(n, p *appsv1.Deployment) field.ErrorList {
	st := field.NewPath("status")
	s := &n.Status
	errs := validate.StatusCounts(st, validate.Count("observedGeneration", s.ObservedGeneration), validate.Count("replicas", int64(s.Replicas)),
		validate.Count("updatedReplicas", int64(s.UpdatedReplicas)), validate.Count("readyReplicas", int64(s.ReadyReplicas)),
		validate.Count("availableReplicas", int64(s.AvailableReplicas)), validate.Count("unavailableReplicas", int64(s.UnavailableReplicas)))
	if s.TerminatingReplicas != nil {
		errs = append(errs, validate.Nonnegative(int64(*s.TerminatingReplicas), st.Child("terminatingReplicas"))...)
	}
	if s.CollisionCount != nil {
		errs = append(errs, validate.Nonnegative(int64(*s.CollisionCount), st.Child("collisionCount"))...)
	}
	errs = append(errs, validate.NotAbove(st, s.Replicas, validate.AboveReplicas, validate.Count("updatedReplicas", int64(s.UpdatedReplicas)),
		validate.Count("readyReplicas", int64(s.ReadyReplicas)), validate.Count("availableReplicas", int64(s.AvailableReplicas)))...)
	errs = append(errs, validate.NotAbove(st, s.ReadyReplicas, "cannot be greater than readyReplicas", validate.Count("availableReplicas", int64(s.AvailableReplicas)))...)
	return append(errs, validate.CollisionDecremented(st, s.CollisionCount, p.Status.CollisionCount)...)
}

// defaultDeployment is upstream's SetDefaults_Deployment.
func defaultDeployment(o *appsv1.Deployment) {
	if o.Spec.Replicas == nil {
		o.Spec.Replicas = ptr.To[int32](1)
	}
	if o.Spec.Strategy.Type == "" {
		o.Spec.Strategy.Type = appsv1.RollingUpdateDeploymentStrategyType
	}
	if o.Spec.Strategy.Type == appsv1.RollingUpdateDeploymentStrategyType {
		if o.Spec.Strategy.RollingUpdate == nil {
			o.Spec.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{}
		}
		if o.Spec.Strategy.RollingUpdate.MaxUnavailable == nil {
			v := intstr.FromString("25%")
			o.Spec.Strategy.RollingUpdate.MaxUnavailable = &v
		}
		if o.Spec.Strategy.RollingUpdate.MaxSurge == nil {
			v := intstr.FromString("25%")
			o.Spec.Strategy.RollingUpdate.MaxSurge = &v
		}
	}
	if o.Spec.RevisionHistoryLimit == nil {
		o.Spec.RevisionHistoryLimit = ptr.To[int32](10)
	}
	if o.Spec.ProgressDeadlineSeconds == nil {
		o.Spec.ProgressDeadlineSeconds = ptr.To[int32](600)
	}
	pod.DefaultPodSpec(&o.Spec.Template.Spec)
}
