package scheduler

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	configv1 "k8s.io/kube-scheduler/config/v1"
)

// kube-scheduler's NodeAffinity reasons.
const (
	errReasonNodeAffinity = "node(s) didn't match Pod's node affinity/selector"
	errReasonEnforced     = "node(s) didn't match scheduler-enforced node affinity"
	errReasonConflict     = "pod affinity terms conflict"
)

// preFilterNodesKey is where a PreFilter plugin leaves the only nodes
// worth filtering, as kube-scheduler's PreFilterResult.
const preFilterNodesKey = "preFilterNodeNames"

// preFilterNodes is a PreFilterResult: the node names, and the plugins
// that chose them.
type preFilterNodes struct {
	names   sets.Set[string]
	plugins sets.Set[string]
}

// PreFilter narrows the nodes to those the pod's required terms name by
// metadata.name (as a DaemonSet's pods do), when every term names some.
func (p *nodeAffinityPlugin) PreFilter(state *cycleState, pod *corev1.Pod) *status {
	a := pod.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return nil
	}
	terms := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	if len(terms) == 0 {
		return nil
	}
	var names sets.Set[string]
	for _, t := range terms {
		var termNames sets.Set[string]
		for _, r := range t.MatchFields {
			if r.Key == metav1.ObjectNameField && r.Operator == corev1.NodeSelectorOpIn {
				if termNames == nil {
					termNames = sets.New(r.Values...)
				} else {
					termNames = termNames.Intersection(sets.New(r.Values...))
				}
			}
		}
		if termNames == nil {
			return nil // a term for any node: all nodes are candidates
		}
		names = names.Union(termNames)
	}
	if len(names) == 0 {
		return newStatus(unresolvable, errReasonConflict)
	}
	narrowNodes(state, names, NodeAffinity)
	return nil
}

// narrowNodes records a PreFilter plugin's choice of nodes, intersected
// with earlier ones.
func narrowNodes(state *cycleState, names sets.Set[string], plugin string) {
	if cur, ok := state.data[preFilterNodesKey].(*preFilterNodes); ok {
		cur.names = cur.names.Intersection(names)
		cur.plugins.Insert(plugin)
		return
	}
	state.data[preFilterNodesKey] = &preFilterNodes{names: names, plugins: sets.New(plugin)}
}

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

// eventsToRegister implements queueingHinter: a node that comes or changes
// labels (kube-scheduler's NodeAffinity registration).
func (p *nodeAffinityPlugin) eventsToRegister() []eventHint {
	return []eventHint{{resource: resNode, actions: actAdd | actUpdateNodeLabel, hint: p.afterNodeChange}}
}

// afterNodeChange: a node that matches the profile's added affinity and
// the pod's node selector and required affinity, and is new or did not
// match them before.
func (p *nodeAffinityPlugin) afterNodeChange(pod *corev1.Pod, e clusterEvent) bool {
	old, cur := eventNodes(e)
	if cur == nil {
		return true
	}
	if p.added != nil && !p.added.Match(cur) {
		return false
	}
	required := nodeaffinity.GetRequiredNodeAffinity(pod)
	if ok, err := required.Match(cur); err != nil {
		return true
	} else if !ok {
		return false
	}
	if old == nil {
		return true
	}
	was, err := required.Match(old)
	return err != nil || !was
}
