package scheduler

import (
	"math"

	corev1 "k8s.io/api/core/v1"
	configv1 "k8s.io/kube-scheduler/config/v1"
)

// kube-scheduler's InterPodAffinity reasons.
const (
	errReasonExistingAntiAffinity = "node(s) didn't satisfy existing pods anti-affinity rules"
	errReasonAffinity             = "node(s) didn't match pod affinity rules"
	errReasonAntiAffinity         = "node(s) didn't match pod anti-affinity rules"
)

// interPodAffinity filters and scores nodes by the pod's affinity and
// anti-affinity to pods in topology domains, and by existing pods'
// anti-affinity (and, for scoring, affinity) to the pod (the
// InterPodAffinity plugin).
type interPodAffinity struct {
	hardPodAffinityWeight int64
	h                     *handle
}

func newInterPodAffinity(args *configv1.InterPodAffinityArgs, h *handle) *interPodAffinity {
	return &interPodAffinity{hardPodAffinityWeight: int64(*args.HardPodAffinityWeight), h: h}
}

func (*interPodAffinity) Name() string { return InterPodAffinity }

// affinityState is what PreFilter counts per topology domain.
type affinityState struct {
	terms podTerms
	// existingAnti counts existing pods whose required anti-affinity
	// selects the pod, per domain of the term's key.
	existingAnti map[topologyPair]int
	// affinity counts pods matching all the pod's required affinity terms;
	// anti counts pods matching each anti-affinity term.
	affinity, anti map[topologyPair]int
	// selfMatch: the pod matches all its own required affinity terms.
	selfMatch bool
}

const affinityStateKey = "PreFilter" + InterPodAffinity

// PreFilter counts, over all nodes, the domains holding pods the pod's
// terms select and pods whose anti-affinity selects it.
func (p *interPodAffinity) PreFilter(state *cycleState, pod *corev1.Pod) *status {
	st := &affinityState{terms: termsOf(pod), existingAnti: map[topologyPair]int{}, affinity: map[topologyPair]int{}, anti: map[topologyPair]int{}}
	nsl := p.h.namespaces
	for _, n := range state.nodes {
		for _, pi := range n.pods {
			other := pi.pod
			if hasAffinity(other) {
				for _, t := range termsOf(other).requiredAnti {
					if v, ok := n.node.Labels[t.topologyKey]; ok && t.matches(pod, nsl) {
						st.existingAnti[topologyPair{t.topologyKey, v}]++
					}
				}
			}
			if len(st.terms.requiredAffinity) > 0 && matchesAll(st.terms.requiredAffinity, other, p) {
				for _, t := range st.terms.requiredAffinity {
					if v, ok := n.node.Labels[t.topologyKey]; ok {
						st.affinity[topologyPair{t.topologyKey, v}]++
					}
				}
			}
			for _, t := range st.terms.requiredAnti {
				if v, ok := n.node.Labels[t.topologyKey]; ok && t.matches(other, nsl) {
					st.anti[topologyPair{t.topologyKey, v}]++
				}
			}
		}
	}
	st.selfMatch = matchesAll(st.terms.requiredAffinity, pod, p)
	state.data[affinityStateKey] = st
	return nil
}

func matchesAll(terms []*affinityTerm, pod *corev1.Pod, p *interPodAffinity) bool {
	for _, t := range terms {
		if !t.matches(pod, p.h.namespaces) {
			return false
		}
	}
	return len(terms) > 0
}

// Filter implements filterPlugin, in kube-scheduler's order: the pod's
// affinity, its anti-affinity, then existing pods' anti-affinity.
func (p *interPodAffinity) Filter(state *cycleState, pod *corev1.Pod, n *nodeInfo) *status {
	st, ok := state.data[affinityStateKey].(*affinityState)
	if !ok {
		return nil
	}
	labels := n.node.Labels
	if terms := st.terms.requiredAffinity; len(terms) > 0 {
		podsExist := true
		for _, t := range terms {
			v, ok := labels[t.topologyKey]
			if !ok {
				return newStatus(unresolvable, errReasonAffinity)
			}
			if st.affinity[topologyPair{t.topologyKey, v}] <= 0 {
				podsExist = false
			}
		}
		if !podsExist && !(len(st.affinity) == 0 && st.selfMatch) {
			return newStatus(unresolvable, errReasonAffinity)
		}
	}
	for _, t := range st.terms.requiredAnti {
		if v, ok := labels[t.topologyKey]; ok && st.anti[topologyPair{t.topologyKey, v}] > 0 {
			return newStatus(unschedulable, errReasonAntiAffinity)
		}
	}
	for tp, c := range st.existingAnti {
		if c > 0 && labels[tp.key] == tp.value {
			if _, has := labels[tp.key]; has {
				return newStatus(unschedulable, errReasonExistingAntiAffinity)
			}
		}
	}
	return nil
}

// affinityScoreKey is where PreScore keeps the score per domain.
const affinityScoreKey = "PreScore" + InterPodAffinity

// PreScore sums, per topology domain, the weights of the pod's preferred
// terms matching existing pods, and of existing pods' terms matching the
// pod (required affinity with hardPodAffinityWeight), anti-affinity
// subtracting.
func (p *interPodAffinity) PreScore(state *cycleState, pod *corev1.Pod, _ []*nodeInfo) {
	terms := termsOf(pod)
	scores := map[topologyPair]int64{}
	nsl := p.h.namespaces
	add := func(t *affinityTerm, n *nodeInfo, w int64) {
		if v, ok := n.node.Labels[t.topologyKey]; ok {
			scores[topologyPair{t.topologyKey, v}] += w
		}
	}
	for _, n := range state.nodes {
		for _, pi := range n.pods {
			other := pi.pod
			for _, t := range terms.preferredAffinity {
				if t.matches(other, nsl) {
					add(t, n, t.weight)
				}
			}
			for _, t := range terms.preferredAnti {
				if t.matches(other, nsl) {
					add(t, n, -t.weight)
				}
			}
			if !hasAffinity(other) {
				continue
			}
			ot := termsOf(other)
			if p.hardPodAffinityWeight > 0 {
				for _, t := range ot.requiredAffinity {
					if t.matches(pod, nsl) {
						add(t, n, p.hardPodAffinityWeight)
					}
				}
			}
			for _, t := range ot.preferredAffinity {
				if t.matches(pod, nsl) {
					add(t, n, t.weight)
				}
			}
			for _, t := range ot.preferredAnti {
				if t.matches(pod, nsl) {
					add(t, n, -t.weight)
				}
			}
		}
	}
	state.data[affinityScoreKey] = scores
}

// Score sums the node's domains' scores.
func (p *interPodAffinity) Score(state *cycleState, _ *corev1.Pod, n *nodeInfo) int64 {
	scores, _ := state.data[affinityScoreKey].(map[topologyPair]int64)
	var s int64
	for tp, v := range scores {
		if n.node.Labels[tp.key] == tp.value {
			if _, ok := n.node.Labels[tp.key]; ok {
				s += v
			}
		}
	}
	return s
}

// NormalizeScore scales scores linearly from the lowest (0) to the highest
// (100); all alike give 0.
func (p *interPodAffinity) NormalizeScore(state *cycleState, _ *corev1.Pod, scores []int64) {
	if m, _ := state.data[affinityScoreKey].(map[topologyPair]int64); len(m) == 0 {
		for i := range scores {
			scores[i] = 0
		}
		return
	}
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for _, s := range scores {
		lo, hi = min(lo, s), max(hi, s)
	}
	for i, s := range scores {
		f := 0.0
		if hi-lo > 0 {
			f = float64(maxNodeScore) * float64(s-lo) / float64(hi-lo)
		}
		scores[i] = int64(f)
	}
}

// eventsToRegister implements queueingHinter: an assigned pod that comes,
// goes or changes labels, the pod's own labels, and a node that comes or
// changes labels (kube-scheduler's InterPodAffinity registrations).
func (p *interPodAffinity) eventsToRegister() []eventHint {
	return []eventHint{
		{resource: resAssignedPod, actions: actAdd | actUpdatePodLabel | actDelete, hint: p.afterAssignedPodChange},
		// Another pod's anti-affinity may not select the new labels.
		{resource: resTargetPod, actions: actUpdatePodLabel},
		{resource: resNode, actions: actAdd | actUpdateNodeLabel, hint: p.afterNodeChange},
	}
}

// afterAssignedPodChange: a placed pod that starts matching all the pod's
// required affinity terms (added, or relabelled), that stops matching one
// of its anti-affinity terms, or that goes while matching one of them or
// while its own anti-affinity selects the pod.
func (p *interPodAffinity) afterAssignedPodChange(pod *corev1.Pod, e clusterEvent) bool {
	old, cur := eventPods(e)
	if (cur != nil && !placed(cur)) || (old != nil && !placed(old)) {
		return false
	}
	terms := termsOf(pod)
	switch {
	case old != nil && cur != nil:
		return (!allMatchByName(terms.requiredAffinity, old) && allMatchByName(terms.requiredAffinity, cur)) ||
			(anyMatchByName(terms.requiredAnti, old) && !anyMatchByName(terms.requiredAnti, cur))
	case cur != nil:
		return allMatchByName(terms.requiredAffinity, cur)
	case old != nil:
		return anyMatchByName(terms.requiredAnti, old) || anyMatchByName(termsOf(old).requiredAnti, pod)
	}
	return true
}

// afterNodeChange: for an affinity term, a new node with its topology key,
// or a node that gains the key or moves to another domain; for an
// anti-affinity term, any new node, or a node that loses the key or moves
// to another domain.
func (p *interPodAffinity) afterNodeChange(pod *corev1.Pod, e clusterEvent) bool {
	old, cur := eventNodes(e)
	if cur == nil {
		return true
	}
	terms := termsOf(pod)
	for _, t := range terms.requiredAffinity {
		v, has := cur.Labels[t.topologyKey]
		if old == nil {
			if has {
				return true
			}
			continue
		}
		ov, oldHas := old.Labels[t.topologyKey]
		if has && (!oldHas || ov != v) {
			return true
		}
	}
	for _, t := range terms.requiredAnti {
		if old == nil {
			return true
		}
		v, has := cur.Labels[t.topologyKey]
		ov, oldHas := old.Labels[t.topologyKey]
		if oldHas && (!has || ov != v) {
			return true
		}
	}
	return false
}
