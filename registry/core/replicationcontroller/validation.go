package replicationcontroller

import (
	"context"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane/internal/validate"
	"github.com/fakeplane/fakeplane/registry/core/pod"
)

// validateReplicationController is upstream's ValidateReplicationControllerSpec;
// its replicas and minReadySeconds rules are declarative upstream, whose
// errors come after the others.
func validateReplicationController(ctx context.Context, rc *corev1.ReplicationController) field.ErrorList {
	spec := field.NewPath("spec")
	s := &rc.Spec
	var errs field.ErrorList
	if labels.Set(s.Selector).AsSelector().Empty() {
		errs = append(errs, field.Required(spec.Child("selector"), ""))
	}
	tf := spec.Child("template")
	if s.Template == nil {
		errs = append(errs, field.Required(tf, ""))
	} else {
		if sel := labels.Set(s.Selector).AsSelector(); !sel.Empty() && !sel.Matches(labels.Set(s.Template.Labels)) {
			errs = append(errs, field.Invalid(tf.Child("metadata", "labels"), s.Template.Labels, "`selector` does not match template `labels`"))
		}
		errs = append(errs, pod.ValidatePodTemplateSpec(ctx, s.Template, tf)...)
		errs = append(errs, pod.ValidateRestartPolicyAlways(s.Template, tf, "ReplicationController")...)
	}
	if s.Replicas == nil {
		errs = append(errs, field.Required(spec.Child("replicas"), ""))
	} else {
		errs = append(errs, validate.Nonnegative(int64(*s.Replicas), spec.Child("replicas"))...)
	}
	return append(errs, validate.Nonnegative(int64(s.MinReadySeconds), spec.Child("minReadySeconds"))...)
}

func validateReplicationControllerStatus(n *corev1.ReplicationController) field.ErrorList {
	st := field.NewPath("status")
	s := &n.Status
	errs := validate.StatusCounts(st, validate.Count("replicas", int64(s.Replicas)), validate.Count("fullyLabeledReplicas", int64(s.FullyLabeledReplicas)),
		validate.Count("readyReplicas", int64(s.ReadyReplicas)), validate.Count("availableReplicas", int64(s.AvailableReplicas)),
		validate.Count("observedGeneration", s.ObservedGeneration))
	errs = append(errs, validate.NotAbove(st, s.Replicas, validate.AboveReplicas, validate.Count("fullyLabeledReplicas", int64(s.FullyLabeledReplicas)),
		validate.Count("readyReplicas", int64(s.ReadyReplicas)), validate.Count("availableReplicas", int64(s.AvailableReplicas)))...)
	return append(errs, validate.NotAbove(st, s.ReadyReplicas, "cannot be greater than readyReplicas", validate.Count("availableReplicas", int64(s.AvailableReplicas)))...)
}

// defaultReplicationController is upstream's SetDefaults_ReplicationController.
func defaultReplicationController(o *corev1.ReplicationController) {
	if t := o.Spec.Template; t != nil && t.Labels != nil {
		if len(o.Spec.Selector) == 0 {
			o.Spec.Selector = t.Labels
		}
		if len(o.Labels) == 0 {
			o.Labels = t.Labels
		}
	}
	if o.Spec.Replicas == nil {
		o.Spec.Replicas = ptr.To[int32](1)
	}
	if o.Spec.Template != nil {
		pod.DefaultPodSpec(&o.Spec.Template.Spec)
	}
}
