package scheduler

import (
	corev1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"
)

// errReasonUntoleratedTaint is kube-scheduler's TaintToleration reason.
const errReasonUntoleratedTaint = "node(s) had untolerated taint(s)"

// taintToleration rejects nodes with NoSchedule or NoExecute taints the pod
// does not tolerate, and prefers nodes with fewer untolerated
// PreferNoSchedule taints (the TaintToleration plugin).
type taintToleration struct{}

func (taintToleration) Name() string { return TaintToleration }

// Filter implements filterPlugin.
func (taintToleration) Filter(_ *cycleState, pod *corev1.Pod, n *nodeInfo) *status {
	_, untolerated := corev1helpers.FindMatchingUntoleratedTaint(klog.Background(), n.node.Spec.Taints, pod.Spec.Tolerations, func(t *corev1.Taint) bool {
		return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
	}, true)
	if untolerated {
		return newStatus(unresolvable, errReasonUntoleratedTaint)
	}
	return nil
}

// Score counts the PreferNoSchedule taints the pod does not tolerate (with
// the tolerations whose effect is empty or PreferNoSchedule).
func (taintToleration) Score(_ *cycleState, pod *corev1.Pod, n *nodeInfo) int64 {
	var tols []corev1.Toleration
	for _, t := range pod.Spec.Tolerations {
		if t.Effect == "" || t.Effect == corev1.TaintEffectPreferNoSchedule {
			tols = append(tols, t)
		}
	}
	var count int64
	for i := range n.node.Spec.Taints {
		t := &n.node.Spec.Taints[i]
		if t.Effect == corev1.TaintEffectPreferNoSchedule && !corev1helpers.TolerationsTolerateTaint(klog.Background(), tols, t, true) {
			count++
		}
	}
	return count
}

// NormalizeScore makes fewer taints better.
func (taintToleration) NormalizeScore(_ *cycleState, _ *corev1.Pod, scores []int64) {
	defaultNormalizeScore(maxNodeScore, true, scores)
}

// defaultNormalizeScore scales scores so the highest is maxScore (reversed
// when reverse), as kube-scheduler's helper does.
func defaultNormalizeScore(maxScore int64, reverse bool, scores []int64) {
	var highest int64
	for _, s := range scores {
		highest = max(highest, s)
	}
	if highest == 0 {
		if reverse {
			for i := range scores {
				scores[i] = maxScore
			}
		}
		return
	}
	for i, s := range scores {
		s = maxScore * s / highest
		if reverse {
			s = maxScore - s
		}
		scores[i] = s
	}
}

// eventsToRegister implements queueingHinter: a node that comes or changes
// taints, and new tolerations of the pod (kube-scheduler's TaintToleration
// registrations).
func (taintToleration) eventsToRegister() []eventHint {
	return []eventHint{
		{resource: resNode, actions: actAdd | actUpdateNodeTaint, hint: afterTaintChange},
		{resource: resTargetPod, actions: actUpdatePodToleration},
	}
}

// afterTaintChange: a node whose NoSchedule and NoExecute taints the pod
// all tolerates, new or where it did not before.
func afterTaintChange(pod *corev1.Pod, e clusterEvent) bool {
	old, cur := eventNodes(e)
	if cur == nil {
		return true
	}
	untolerated := func(n *corev1.Node) bool {
		_, u := corev1helpers.FindMatchingUntoleratedTaint(klog.Background(), n.Spec.Taints, pod.Spec.Tolerations, func(t *corev1.Taint) bool {
			return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
		}, true)
		return u
	}
	return (old == nil || untolerated(old)) && !untolerated(cur)
}
