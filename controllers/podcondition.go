package controllers

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// updatePodCondition is upstream's UpdatePodCondition: cond, stamped now,
// replaces the condition of its type in status (keeping that one's
// lastTransitionTime when the status is the same), or is added; it reports
// whether anything changed (observedGeneration is not compared, as
// upstream's does not).
func updatePodCondition(status *corev1.PodStatus, cond corev1.PodCondition, now metav1.Time) bool {
	cond.LastTransitionTime = now
	i := slices.IndexFunc(status.Conditions, func(c corev1.PodCondition) bool { return c.Type == cond.Type })
	if i < 0 {
		status.Conditions = append(status.Conditions, cond)
		return true
	}
	have := status.Conditions[i]
	if have.Status == cond.Status {
		cond.LastTransitionTime = have.LastTransitionTime
	}
	status.Conditions[i] = cond
	return have.Status != cond.Status || have.Reason != cond.Reason || have.Message != cond.Message ||
		!have.LastProbeTime.Equal(&cond.LastProbeTime) || !have.LastTransitionTime.Equal(&cond.LastTransitionTime)
}

// podCondition is the pod's condition of type t, nil when it has none.
func podCondition(p *corev1.Pod, t corev1.PodConditionType) *corev1.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == t {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}
