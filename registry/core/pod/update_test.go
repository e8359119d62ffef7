package pod

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/fakeplane/fakeplane/internal/validate/validatetest"
)

// TestPodUpdateTolerationsGatesAndNodeSelection checks the parts of a pod
// update upstream names precisely (messages recorded from kube-apiserver
// v1.37) instead of the generic spec diff.
func TestPodUpdateTolerationsGatesAndNodeSelection(t *testing.T) {
	ctx := context.Background()
	secs := int64(300)
	notReady := corev1.Toleration{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &secs}
	term := func(keys ...string) corev1.NodeSelectorTerm {
		var t corev1.NodeSelectorTerm
		for _, k := range keys {
			t.MatchExpressions = append(t.MatchExpressions, corev1.NodeSelectorRequirement{Key: k, Operator: corev1.NodeSelectorOpExists})
		}
		return t
	}
	required := func(terms ...corev1.NodeSelectorTerm) *corev1.Affinity {
		return &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: terms}}}
	}
	for _, tc := range []struct {
		name     string
		old, new func(*corev1.Pod)
		want     []string
	}{
		{name: "added toleration", old: func(p *corev1.Pod) { p.Spec.Tolerations = []corev1.Toleration{notReady} },
			new: func(p *corev1.Pod) {
				p.Spec.Tolerations = []corev1.Toleration{{Key: "k", Operator: corev1.TolerationOpExists}, notReady}
			}},
		{name: "changed tolerationSeconds", old: func(p *corev1.Pod) { p.Spec.Tolerations = []corev1.Toleration{notReady} },
			new: func(p *corev1.Pod) {
				s := int64(10)
				t := notReady
				t.TolerationSeconds = &s
				p.Spec.Tolerations = []corev1.Toleration{t}
			}},
		{name: "modified toleration", old: func(p *corev1.Pod) {
			p.Spec.Tolerations = []corev1.Toleration{{Key: "k", Operator: corev1.TolerationOpExists}}
		}, new: func(p *corev1.Pod) {
			p.Spec.Tolerations = []corev1.Toleration{{Key: "k", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}
		}, want: []string{"spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds"}},
		{name: "new scheduling gates", new: func(p *corev1.Pod) {
			p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "g"}, {Name: "h"}}
		}, want: []string{"spec.schedulingGates[0].name: Forbidden: only deletion is allowed, but found new scheduling gate 'g'",
			"spec.schedulingGates[1].name: Forbidden: only deletion is allowed, but found new scheduling gate 'h'"}},
		{name: "removed scheduling gate", old: func(p *corev1.Pod) {
			p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "a"}, {Name: "b"}}
		}, new: func(p *corev1.Pod) { p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "b"}} }},
		{name: "gated pod adds a node selector entry", old: func(p *corev1.Pod) {
			p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "a"}}
			p.Spec.NodeSelector = map[string]string{"x": "y"}
		}, new: func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{"x": "y", "z": "w"} }},
		{name: "gated pod changes a node selector entry", old: func(p *corev1.Pod) {
			p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "a"}}
			p.Spec.NodeSelector = map[string]string{"x": "y"}
		}, new: func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{"x": "z"} },
			want: []string{`spec.nodeSelector: Invalid value: {"x":"z"}: only additions to spec.nodeSelector are allowed (no mutations or deletions)`}},
		{name: "gated pod sets a required node affinity", old: func(p *corev1.Pod) {
			p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "a"}}
		}, new: func(p *corev1.Pod) { p.Spec.Affinity = required(term("a")) }},
		{name: "gated pod replaces a node selector requirement", old: func(p *corev1.Pod) {
			p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "a"}}
			p.Spec.Affinity = required(term("a"))
		}, new: func(p *corev1.Pod) { p.Spec.Affinity = required(term("b")) },
			want: []string{`spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]: Invalid value: {"MatchExpressions":[{"Key":"b","Operator":"Exists","Values":null}],"MatchFields":null}: only additions are allowed (no mutations or deletions)`}},
		{name: "gated pod appends a node selector requirement", old: func(p *corev1.Pod) {
			p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "a"}}
			p.Spec.Affinity = required(term("a"))
		}, new: func(p *corev1.Pod) { p.Spec.Affinity = required(term("a", "b")) }},
		{name: "image with spaces", new: func(p *corev1.Pod) { p.Spec.Containers[0].Image = " i " },
			want: []string{`spec.containers[0].image: Invalid value: " i ": must not have leading or trailing whitespace`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old := validPod()
			if tc.old != nil {
				tc.old(old)
			}
			n := old.DeepCopy()
			tc.new(n)
			validatetest.ExpectErrors(t, Strategy.ValidateUpdate(ctx, n, old), tc.want)
		})
	}
}
