package scheduler

import (
	corev1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"
)

// errReasonUnschedulable is kube-scheduler's NodeUnschedulable reason.
const errReasonUnschedulable = "node(s) were unschedulable"

// unschedulableTaint is the taint a cordoned node carries; a pod
// tolerating it tolerates spec.unschedulable too.
var unschedulableTaint = corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}

// nodeUnschedulable rejects cordoned nodes (spec.unschedulable) unless the
// pod tolerates node.kubernetes.io/unschedulable:NoSchedule (the
// NodeUnschedulable plugin).
type nodeUnschedulable struct{}

func (nodeUnschedulable) Name() string { return NodeUnschedulable }

// Filter implements filterPlugin.
func (nodeUnschedulable) Filter(_ *cycleState, pod *corev1.Pod, n *nodeInfo) *status {
	if !n.node.Spec.Unschedulable {
		return nil
	}
	if corev1helpers.TolerationsTolerateTaint(klog.Background(), pod.Spec.Tolerations, &unschedulableTaint, true) {
		return nil
	}
	return newStatus(unresolvable, errReasonUnschedulable)
}

// eventsToRegister implements queueingHinter: a node that comes or changes
// taints (which includes being uncordoned), and new tolerations of the pod
// (kube-scheduler's NodeUnschedulable registrations).
func (nodeUnschedulable) eventsToRegister() []eventHint {
	return []eventHint{
		{resource: resNode, actions: actAdd | actUpdateNodeTaint, hint: afterUncordon},
		{resource: resTargetPod, actions: actUpdatePodToleration, hint: afterUnschedulableToleration},
	}
}

// afterUncordon: a new schedulable node, or a node that stops being
// unschedulable.
func afterUncordon(_ *corev1.Pod, e clusterEvent) bool {
	old, cur := eventNodes(e)
	if cur == nil {
		return true
	}
	return !cur.Spec.Unschedulable && (old == nil || old.Spec.Unschedulable)
}

// afterUnschedulableToleration: the pod now tolerates
// node.kubernetes.io/unschedulable:NoSchedule.
func afterUnschedulableToleration(_ *corev1.Pod, e clusterEvent) bool {
	_, cur := eventPods(e)
	if cur == nil {
		return true
	}
	return corev1helpers.TolerationsTolerateTaint(klog.Background(), cur.Spec.Tolerations, &unschedulableTaint, true)
}
