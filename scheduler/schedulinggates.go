package scheduler

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
)

// schedulingGates keeps a pod with scheduling gates out of the active queue
// until the gates are removed (the SchedulingGates plugin).
type schedulingGates struct{}

func (schedulingGates) Name() string { return SchedulingGates }

// PreEnqueue holds pods with gates back, with kube-scheduler's message.
func (schedulingGates) PreEnqueue(pod *corev1.Pod) *status {
	if len(pod.Spec.SchedulingGates) == 0 {
		return nil
	}
	gates := make([]string, 0, len(pod.Spec.SchedulingGates))
	for _, g := range pod.Spec.SchedulingGates {
		gates = append(gates, g.Name)
	}
	return newStatus(unresolvable, fmt.Sprintf("waiting for scheduling gates: %v", gates))
}

// eventsToRegister implements queueingHinter: the removal of the pod's
// last scheduling gate (kube-scheduler's SchedulingGates registration).
func (schedulingGates) eventsToRegister() []eventHint {
	return []eventHint{{resource: resTargetPod, actions: actUpdatePodSchedulingGatesEliminated}}
}
