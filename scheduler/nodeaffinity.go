package scheduler

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	configv1 "k8s.io/kube-scheduler/config/v1"
)

// kube-scheduler's NodeAffinity reasons.
const (
	errReasonNodeAffinity = "node(s) didn't match Pod's node affinity/selector"
	errReasonEnforced     = "node(s) didn't match scheduler-enforced node affinity"
)

// nodeAffinityPlugin rejects nodes that do not match the pod's nodeSelector
// and required node affinity (and the profile's addedAffinity), and prefers
// nodes matching its preferred terms (the NodeAffinity plugin).
type nodeAffinityPlugin struct {
	added     *nodeaffinity.NodeSelector
	addedPref *nodeaffinity.PreferredSchedulingTerms
}

func newNodeAffinity(args *configv1.NodeAffinityArgs) (*nodeAffinityPlugin, error) {
	p := &nodeAffinityPlugin{}
	if args == nil || args.AddedAffinity == nil {
		return p, nil
	}
	a := args.AddedAffinity
	var err error
	if a.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		if p.added, err = nodeaffinity.NewNodeSelector(a.RequiredDuringSchedulingIgnoredDuringExecution); err != nil {
			return nil, fmt.Errorf("addedAffinity: %w", err)
		}
	}
	if len(a.PreferredDuringSchedulingIgnoredDuringExecution) > 0 {
		if p.addedPref, err = nodeaffinity.NewPreferredSchedulingTerms(a.PreferredDuringSchedulingIgnoredDuringExecution); err != nil {
			return nil, fmt.Errorf("addedAffinity: %w", err)
		}
	}
	return p, nil
}

func (*nodeAffinityPlugin) Name() string { return NodeAffinity }

// Filter implements filterPlugin.
func (p *nodeAffinityPlugin) Filter(_ *cycleState, pod *corev1.Pod, n *nodeInfo) *status {
	if p.added != nil && !p.added.Match(n.node) {
		return newStatus(unresolvable, errReasonEnforced)
	}
	if ok, _ := nodeaffinity.GetRequiredNodeAffinity(pod).Match(n.node); !ok {
		return newStatus(unresolvable, errReasonNodeAffinity)
	}
	return nil
}

// Score sums the weights of the preferred terms the node matches.
func (p *nodeAffinityPlugin) Score(_ *cycleState, pod *corev1.Pod, n *nodeInfo) int64 {
	var score int64
	if p.addedPref != nil {
		score += p.addedPref.Score(n.node)
	}
	if a := pod.Spec.Affinity; a != nil && a.NodeAffinity != nil && len(a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0 {
		if terms, err := nodeaffinity.NewPreferredSchedulingTerms(a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution); err == nil {
			score += terms.Score(n.node)
		}
	}
	return score
}

// NormalizeScore scales to [0, 100].
func (p *nodeAffinityPlugin) NormalizeScore(_ *cycleState, _ *corev1.Pod, scores []int64) {
	defaultNormalizeScore(maxNodeScore, false, scores)
}
