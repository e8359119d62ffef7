package server

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Workload status updates as upstream's status strategies validate them:
// counts are not negative, and no count of replicas exceeds status.replicas.

type statusCount struct {
	name string
	v    int64
}

// validateCounts checks that counts are not negative.
func validateCounts(st *field.Path, counts ...statusCount) field.ErrorList {
	var errs field.ErrorList
	for _, c := range counts {
		errs = append(errs, nonnegative(c.v, st.Child(c.name))...)
	}
	return errs
}

// notAbove reports counts above limit with msg.
func notAbove(st *field.Path, limit int32, msg string, counts ...statusCount) field.ErrorList {
	var errs field.ErrorList
	for _, c := range counts {
		if c.v > int64(limit) {
			errs = append(errs, field.Invalid(st.Child(c.name), int32(c.v), msg))
		}
	}
	return errs
}

const aboveReplicas = "cannot be greater than status.replicas"

func collisionDecremented(st *field.Path, n, p *int32) field.ErrorList {
	if p != nil && (n == nil || *n < *p) {
		return field.ErrorList{field.Invalid(st.Child("collisionCount"), deref32(n), "cannot be decremented")}
	}
	return nil
}

func validateDeploymentStatus(n, p *appsv1.Deployment) field.ErrorList {
	st := field.NewPath("status")
	s := &n.Status
	errs := validateCounts(st, statusCount{"observedGeneration", s.ObservedGeneration}, statusCount{"replicas", int64(s.Replicas)},
		statusCount{"updatedReplicas", int64(s.UpdatedReplicas)}, statusCount{"readyReplicas", int64(s.ReadyReplicas)},
		statusCount{"availableReplicas", int64(s.AvailableReplicas)}, statusCount{"unavailableReplicas", int64(s.UnavailableReplicas)})
	if s.TerminatingReplicas != nil {
		errs = append(errs, nonnegative(int64(*s.TerminatingReplicas), st.Child("terminatingReplicas"))...)
	}
	if s.CollisionCount != nil {
		errs = append(errs, nonnegative(int64(*s.CollisionCount), st.Child("collisionCount"))...)
	}
	errs = append(errs, notAbove(st, s.Replicas, aboveReplicas, statusCount{"updatedReplicas", int64(s.UpdatedReplicas)},
		statusCount{"readyReplicas", int64(s.ReadyReplicas)}, statusCount{"availableReplicas", int64(s.AvailableReplicas)})...)
	errs = append(errs, notAbove(st, s.ReadyReplicas, "cannot be greater than readyReplicas", statusCount{"availableReplicas", int64(s.AvailableReplicas)})...)
	return append(errs, collisionDecremented(st, s.CollisionCount, p.Status.CollisionCount)...)
}

func validateReplicaSetStatus(n *appsv1.ReplicaSet) field.ErrorList {
	st := field.NewPath("status")
	s := &n.Status
	errs := validateCounts(st, statusCount{"replicas", int64(s.Replicas)}, statusCount{"fullyLabeledReplicas", int64(s.FullyLabeledReplicas)},
		statusCount{"readyReplicas", int64(s.ReadyReplicas)}, statusCount{"availableReplicas", int64(s.AvailableReplicas)},
		statusCount{"observedGeneration", s.ObservedGeneration})
	if s.TerminatingReplicas != nil {
		errs = append(errs, nonnegative(int64(*s.TerminatingReplicas), st.Child("terminatingReplicas"))...)
	}
	errs = append(errs, notAbove(st, s.Replicas, aboveReplicas, statusCount{"fullyLabeledReplicas", int64(s.FullyLabeledReplicas)},
		statusCount{"readyReplicas", int64(s.ReadyReplicas)}, statusCount{"availableReplicas", int64(s.AvailableReplicas)})...)
	return append(errs, notAbove(st, s.ReadyReplicas, "cannot be greater than readyReplicas", statusCount{"availableReplicas", int64(s.AvailableReplicas)})...)
}

func validateReplicationControllerStatus(n *corev1.ReplicationController) field.ErrorList {
	st := field.NewPath("status")
	s := &n.Status
	errs := validateCounts(st, statusCount{"replicas", int64(s.Replicas)}, statusCount{"fullyLabeledReplicas", int64(s.FullyLabeledReplicas)},
		statusCount{"readyReplicas", int64(s.ReadyReplicas)}, statusCount{"availableReplicas", int64(s.AvailableReplicas)},
		statusCount{"observedGeneration", s.ObservedGeneration})
	errs = append(errs, notAbove(st, s.Replicas, aboveReplicas, statusCount{"fullyLabeledReplicas", int64(s.FullyLabeledReplicas)},
		statusCount{"readyReplicas", int64(s.ReadyReplicas)}, statusCount{"availableReplicas", int64(s.AvailableReplicas)})...)
	return append(errs, notAbove(st, s.ReadyReplicas, "cannot be greater than readyReplicas", statusCount{"availableReplicas", int64(s.AvailableReplicas)})...)
}

func validateStatefulSetStatus(n, p *appsv1.StatefulSet) field.ErrorList {
	st := field.NewPath("status")
	s := &n.Status
	errs := validateCounts(st, statusCount{"replicas", int64(s.Replicas)}, statusCount{"readyReplicas", int64(s.ReadyReplicas)},
		statusCount{"currentReplicas", int64(s.CurrentReplicas)}, statusCount{"updatedReplicas", int64(s.UpdatedReplicas)},
		statusCount{"availableReplicas", int64(s.AvailableReplicas)})
	if s.ObservedGeneration != 0 {
		errs = append(errs, nonnegative(s.ObservedGeneration, st.Child("observedGeneration"))...)
	}
	if s.CollisionCount != nil {
		errs = append(errs, nonnegative(int64(*s.CollisionCount), st.Child("collisionCount"))...)
	}
	errs = append(errs, notAbove(st, s.Replicas, aboveReplicas, statusCount{"readyReplicas", int64(s.ReadyReplicas)},
		statusCount{"currentReplicas", int64(s.CurrentReplicas)}, statusCount{"updatedReplicas", int64(s.UpdatedReplicas)},
		statusCount{"availableReplicas", int64(s.AvailableReplicas)})...)
	errs = append(errs, notAbove(st, s.ReadyReplicas, "cannot be greater than status.readyReplicas", statusCount{"availableReplicas", int64(s.AvailableReplicas)})...)
	return append(errs, collisionDecremented(st, s.CollisionCount, p.Status.CollisionCount)...)
}

func validateDaemonSetStatus(n, p *appsv1.DaemonSet) field.ErrorList {
	st := field.NewPath("status")
	s := &n.Status
	errs := validateCounts(st, statusCount{"currentNumberScheduled", int64(s.CurrentNumberScheduled)}, statusCount{"numberMisscheduled", int64(s.NumberMisscheduled)},
		statusCount{"desiredNumberScheduled", int64(s.DesiredNumberScheduled)}, statusCount{"numberReady", int64(s.NumberReady)},
		statusCount{"observedGeneration", s.ObservedGeneration}, statusCount{"updatedNumberScheduled", int64(s.UpdatedNumberScheduled)},
		statusCount{"numberAvailable", int64(s.NumberAvailable)}, statusCount{"numberUnavailable", int64(s.NumberUnavailable)})
	if s.CollisionCount != nil {
		errs = append(errs, nonnegative(int64(*s.CollisionCount), st.Child("collisionCount"))...)
	}
	return append(errs, collisionDecremented(st, s.CollisionCount, p.Status.CollisionCount)...)
}
