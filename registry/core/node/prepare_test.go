package node

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func taintKeys(n *corev1.Node) []string {
	var keys []string
	for _, t := range n.Spec.Taints {
		keys = append(keys, t.Key+":"+string(t.Effect))
	}
	return keys
}

// The not-ready taint of a new node is TaintNodesByCondition's (an
// admission plugin); the strategy runs the lifecycle controller's pass.
func TestPrepareForCreateFollowsConditions(t *testing.T) {
	n := &corev1.Node{Status: corev1.NodeStatus{Phase: corev1.NodeRunning}}
	Strategy.PrepareForCreate(context.Background(), n)
	if got := taintKeys(n); len(got) != 0 {
		t.Errorf("taints %v, want none (the admission plugin adds the not-ready one)", got)
	}
	if n.Status.Phase != corev1.NodeRunning {
		t.Errorf("the status sent was not kept: %+v", n.Status)
	}
	// A ready node loses the taint at once; an unschedulable one gets its own.
	n = &corev1.Node{Spec: corev1.NodeSpec{Unschedulable: true, Taints: []corev1.Taint{{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule}}}, Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}
	Strategy.PrepareForCreate(context.Background(), n)
	if got := taintKeys(n); len(got) != 1 || got[0] != corev1.TaintNodeUnschedulable+":NoSchedule" {
		t.Errorf("ready unschedulable node: taints %v", got)
	}
}

func TestPrepareForUpdateFollowsConditions(t *testing.T) {
	old := &corev1.Node{}
	for name, prepare := range map[string]func(obj *corev1.Node){
		"main":   func(obj *corev1.Node) { Strategy.PrepareForUpdate(context.Background(), obj, old) },
		"status": func(obj *corev1.Node) { Strategy.PrepareForStatusUpdate(context.Background(), obj, old) },
	} {
		n := &corev1.Node{
			Spec:   corev1.NodeSpec{Taints: []corev1.Taint{{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule}, {Key: "mine", Effect: corev1.TaintEffectNoExecute}}},
			Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionUnknown}}},
		}
		prepare(n)
		got := taintKeys(n)
		if len(got) != 2 || got[0] != "mine:NoExecute" || got[1] != corev1.TaintNodeUnreachable+":NoSchedule" {
			t.Errorf("%s: taints %v, want mine and unreachable", name, got)
		}
		// Without a Ready condition the taints stay.
		n = &corev1.Node{Spec: corev1.NodeSpec{Taints: []corev1.Taint{{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule}}}}
		prepare(n)
		if got := taintKeys(n); len(got) != 1 {
			t.Errorf("%s: node without conditions: taints %v", name, got)
		}
	}
}
