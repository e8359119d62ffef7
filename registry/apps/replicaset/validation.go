package replicaset

import (
	"context"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane/internal/validate"
	"github.com/fakeplane/fakeplane/registry/core/pod"
)

func validateReplicaSet(ctx context.Context, rs *appsv1.ReplicaSet) field.ErrorList {
	spec := field.NewPath("spec")
	s := &rs.Spec
	errs := validate.Nonnegative(int64(ptr.Deref(s.Replicas, 0)), spec.Child("replicas"))
	errs = append(errs, validate.Nonnegative(int64(s.MinReadySeconds), spec.Child("minReadySeconds"))...)
	errs = append(errs, validate.WorkloadSelector(s.Selector, spec.Child("selector"), "deployment")...)
	if sel, err := metav1.LabelSelectorAsSelector(s.Selector); err != nil {
		errs = append(errs, field.Invalid(spec.Child("selector"), s.Selector, "invalid label selector"))
	} else {
		errs = append(errs, pod.ValidatePodTemplateSpecForReplicaSet(ctx, &s.Template, sel, spec.Child("template"), "ReplicaSet")...)
	}
	return errs
}

func validateReplicaSetStatus(n *appsv1.ReplicaSet) field.ErrorList {
	st := field.NewPath("status")
	s := &n.Status
	errs := validate.StatusCounts(st, validate.Count("replicas", int64(s.Replicas)), validate.Count("fullyLabeledReplicas", int64(s.FullyLabeledReplicas)),
		validate.Count("readyReplicas", int64(s.ReadyReplicas)), validate.Count("availableReplicas", int64(s.AvailableReplicas)),
		validate.Count("observedGeneration", s.ObservedGeneration))
	if s.TerminatingReplicas != nil {
		errs = append(errs, validate.Nonnegative(int64(*s.TerminatingReplicas), st.Child("terminatingReplicas"))...)
	}
	errs = append(errs, validate.NotAbove(st, s.Replicas, validate.AboveReplicas, validate.Count("fullyLabeledReplicas", int64(s.FullyLabeledReplicas)),
		validate.Count("readyReplicas", int64(s.ReadyReplicas)), validate.Count("availableReplicas", int64(s.AvailableReplicas)))...)
	return append(errs, validate.NotAbove(st, s.ReadyReplicas, "cannot be greater than readyReplicas", validate.Count("availableReplicas", int64(s.AvailableReplicas)))...)
}

// defaultReplicaSet is upstream's SetDefaults_ReplicaSet.
func defaultReplicaSet(o *appsv1.ReplicaSet) {
	if o.Spec.Replicas == nil {
		o.Spec.Replicas = ptr.To[int32](1)
	}
	pod.DefaultPodSpec(&o.Spec.Template.Spec)
}
