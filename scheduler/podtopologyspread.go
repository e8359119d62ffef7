package scheduler

import (
	"math"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"
	configv1 "k8s.io/kube-scheduler/config/v1"
)

// kube-scheduler's PodTopologySpread reasons.
const (
	errReasonConstraintsNotMatch = "node(s) didn't match pod topology spread constraints"
	errReasonNodeLabelNotMatch   = errReasonConstraintsNotMatch + " (missing required label)"
)

// podTopologySpread keeps the pod's topology spread constraints: a
// DoNotSchedule constraint rejects nodes where placing the pod would make
// the skew exceed maxSkew; ScheduleAnyway constraints prefer nodes in
// less crowded domains (the PodTopologySpread plugin).
//
// A pod without constraints gets the profile's defaultConstraints (List
// defaulting) or kube-scheduler's system defaults (System defaulting),
// counting the pods its Services and controller select (defaultSelector).
type podTopologySpread struct {
	systemDefaulted bool
	defaults        []corev1.TopologySpreadConstraint
	h               *handle
}

// systemDefaultConstraints are kube-scheduler's: spread over hostnames
// (maxSkew 3) and zones (maxSkew 5), preferred only.
var systemDefaultConstraints = []corev1.TopologySpreadConstraint{
	{TopologyKey: corev1.LabelHostname, WhenUnsatisfiable: corev1.ScheduleAnyway, MaxSkew: 3},
	{TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.ScheduleAnyway, MaxSkew: 5},
}

func newPodTopologySpread(args *configv1.PodTopologySpreadArgs, h *handle) (*podTopologySpread, error) {
	p := &podTopologySpread{defaults: args.DefaultConstraints, h: h}
	if args.DefaultingType == configv1.SystemDefaulting {
		p.defaults, p.systemDefaulted = systemDefaultConstraints, true
	}
	return p, nil
}

// constraints returns the pod's constraints with the action, or the
// default ones when it has none; requireAll tells whether a node must have
// every constraint's key to count (not with system defaults).
func (p *podTopologySpread) constraints(pod *corev1.Pod, action corev1.UnsatisfiableConstraintAction) (cs []spreadConstraint, requireAll bool) {
	if len(pod.Spec.TopologySpreadConstraints) > 0 {
		return constraintsOf(pod, action), true
	}
	if len(p.defaults) == 0 || p.h == nil {
		return nil, true
	}
	sel := p.h.defaultSelector(pod)
	if sel.Empty() {
		return nil, true
	}
	for _, c := range p.defaults {
		if c.WhenUnsatisfiable == action {
			cs = append(cs, spreadConstraint{maxSkew: c.MaxSkew, minDomains: 1, topologyKey: c.TopologyKey, selector: sel, honorAffinity: true})
		}
	}
	return cs, !p.systemDefaulted
}

func (*podTopologySpread) Name() string { return PodTopologySpread }

// spreadConstraint is a pod's constraint made ready to count pods.
type spreadConstraint struct {
	maxSkew                    int32
	minDomains                 int32
	topologyKey                string
	selector                   labels.Selector
	honorAffinity, honorTaints bool
}

// constraintsOf prepares the pod's constraints with the given action.
func constraintsOf(pod *corev1.Pod, action corev1.UnsatisfiableConstraintAction) []spreadConstraint {
	var out []spreadConstraint
	for _, c := range pod.Spec.TopologySpreadConstraints {
		if c.WhenUnsatisfiable != action {
			continue
		}
		sel := labels.Nothing()
		if c.LabelSelector != nil {
			if s, err := metav1.LabelSelectorAsSelector(c.LabelSelector); err == nil {
				sel = s
			}
		}
		sc := spreadConstraint{maxSkew: c.MaxSkew, minDomains: 1, topologyKey: c.TopologyKey, selector: sel,
			honorAffinity: c.NodeAffinityPolicy == nil || *c.NodeAffinityPolicy == corev1.NodeInclusionPolicyHonor,
			honorTaints:   c.NodeTaintsPolicy != nil && *c.NodeTaintsPolicy == corev1.NodeInclusionPolicyHonor,
		}
		if c.MinDomains != nil {
			sc.minDomains = *c.MinDomains
		}
		out = append(out, sc)
	}
	return out
}

// counts a domain of a node when the node passes the constraint's
// inclusion policies.
func (c *spreadConstraint) includes(pod *corev1.Pod, n *nodeInfo) bool {
	if c.honorAffinity {
		if ok, _ := nodeaffinity.GetRequiredNodeAffinity(pod).Match(n.node); !ok {
			return false
		}
	}
	if c.honorTaints {
		_, untolerated := corev1helpers.FindMatchingUntoleratedTaint(klog.Background(), n.node.Spec.Taints, pod.Spec.Tolerations, func(t *corev1.Taint) bool {
			return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
		}, true)
		if untolerated {
			return false
		}
	}
	return true
}

// countMatching counts the node's pods in the pod's namespace that the
// selector matches, leaving out terminating ones.
func countMatching(n *nodeInfo, ns string, sel labels.Selector) int {
	count := 0
	for _, pi := range n.pods {
		if pi.pod.Namespace == ns && pi.pod.DeletionTimestamp == nil && sel.Matches(labels.Set(pi.pod.Labels)) {
			count++
		}
	}
	return count
}

// hasAllKeys reports whether the node has every constraint's key.
func hasAllKeys(n *nodeInfo, cs []spreadConstraint) bool {
	for _, c := range cs {
		if _, ok := n.node.Labels[c.topologyKey]; !ok {
			return false
		}
	}
	return true
}

// spreadState is PreFilter's count of matching pods per domain.
type spreadState struct {
	constraints []spreadConstraint
	counts      map[topologyPair]int
	// minCount is, per constraint, the lowest count over its domains (0
	// when there are fewer domains than minDomains).
	minCount []int
}

const spreadStateKey = "PreFilter" + PodTopologySpread

// PreFilter counts matching pods per domain of each DoNotSchedule
// constraint over the nodes that have all the constraints' keys.
func (p *podTopologySpread) PreFilter(state *cycleState, pod *corev1.Pod) *status {
	cs, _ := p.constraints(pod, corev1.DoNotSchedule)
	if len(cs) == 0 {
		return nil
	}
	st := &spreadState{constraints: cs, counts: map[topologyPair]int{}, minCount: make([]int, len(cs))}
	domains := make([]map[string]bool, len(cs))
	for i := range domains {
		domains[i] = map[string]bool{}
	}
	for _, n := range state.nodes {
		if !hasAllKeys(n, cs) {
			continue
		}
		for i := range cs {
			c := &cs[i]
			if !c.includes(pod, n) {
				continue
			}
			v := n.node.Labels[c.topologyKey]
			domains[i][v] = true
			st.counts[topologyPair{c.topologyKey, v}] += countMatching(n, pod.Namespace, c.selector)
		}
	}
	for i := range cs {
		lo := math.MaxInt
		for v := range domains[i] {
			lo = min(lo, st.counts[topologyPair{cs[i].topologyKey, v}])
		}
		if lo == math.MaxInt || int32(len(domains[i])) < cs[i].minDomains {
			lo = 0
		}
		st.minCount[i] = lo
	}
	state.data[spreadStateKey] = st
	return nil
}

// Filter implements filterPlugin.
func (p *podTopologySpread) Filter(state *cycleState, pod *corev1.Pod, n *nodeInfo) *status {
	st, ok := state.data[spreadStateKey].(*spreadState)
	if !ok {
		return nil
	}
	for i, c := range st.constraints {
		v, ok := n.node.Labels[c.topologyKey]
		if !ok {
			return newStatus(unresolvable, errReasonNodeLabelNotMatch)
		}
		self := 0
		if c.selector.Matches(labels.Set(pod.Labels)) {
			self = 1
		}
		skew := st.counts[topologyPair{c.topologyKey, v}] + self - st.minCount[i]
		if skew > int(c.maxSkew) {
			return newStatus(unschedulable, errReasonConstraintsNotMatch)
		}
	}
	return nil
}

// spreadScoreState is PreScore's count per domain for ScheduleAnyway
// constraints.
type spreadScoreState struct {
	constraints []spreadConstraint
	counts      map[topologyPair]int
	weights     []float64
	ignored     map[string]bool
}

const spreadScoreKey = "PreScore" + PodTopologySpread

// PreScore counts matching pods per domain of each ScheduleAnyway
// constraint, over all nodes with all keys, and weighs each constraint by
// the log of its number of domains among the feasible nodes.
func (p *podTopologySpread) PreScore(state *cycleState, pod *corev1.Pod, feasible []*nodeInfo) {
	cs, requireAll := p.constraints(pod, corev1.ScheduleAnyway)
	if len(cs) == 0 {
		return
	}
	st := &spreadScoreState{constraints: cs, counts: map[topologyPair]int{}, weights: make([]float64, len(cs)), ignored: map[string]bool{}}
	hasKeys := func(n *nodeInfo) bool { return !requireAll || hasAllKeys(n, cs) }
	domains := make([]map[string]bool, len(cs))
	for i := range domains {
		domains[i] = map[string]bool{}
	}
	for _, n := range feasible {
		if !hasKeys(n) {
			st.ignored[n.node.Name] = true
			continue
		}
		for i, c := range cs {
			if v, ok := n.node.Labels[c.topologyKey]; ok {
				domains[i][v] = true
			}
		}
	}
	for i, c := range cs {
		size := len(domains[i])
		if c.topologyKey == corev1.LabelHostname {
			size = len(feasible) - len(st.ignored)
		}
		st.weights[i] = math.Log(float64(size + 2))
	}
	for _, n := range state.nodes {
		if !hasKeys(n) {
			continue
		}
		for i, c := range cs {
			v, ok := n.node.Labels[c.topologyKey]
			if !ok || !c.includes(pod, n) {
				continue
			}
			if c.topologyKey != corev1.LabelHostname && !domains[i][v] {
				continue
			}
			st.counts[topologyPair{c.topologyKey, v}] += countMatching(n, pod.Namespace, c.selector)
		}
	}
	state.data[spreadScoreKey] = st
}

// Score implements scorePlugin: more matching pods in the node's domains
// score higher (NormalizeScore reverses it).
func (p *podTopologySpread) Score(state *cycleState, pod *corev1.Pod, n *nodeInfo) int64 {
	st, ok := state.data[spreadScoreKey].(*spreadScoreState)
	if !ok || st.ignored[n.node.Name] {
		return 0
	}
	var score float64
	for i, c := range st.constraints {
		v, ok := n.node.Labels[c.topologyKey]
		if !ok {
			continue
		}
		var cnt int
		if c.topologyKey == corev1.LabelHostname {
			cnt = countMatching(n, pod.Namespace, c.selector)
		} else {
			cnt = st.counts[topologyPair{c.topologyKey, v}]
		}
		score += float64(cnt)*st.weights[i] + float64(c.maxSkew-1)
	}
	return int64(math.Round(score))
}

// NormalizeScore maps the lowest count to 100, as kube-scheduler does;
// nodes missing a key get 0.
func (p *podTopologySpread) NormalizeScore(state *cycleState, _ *corev1.Pod, scores []int64) {
	st, ok := state.data[spreadScoreKey].(*spreadScoreState)
	if !ok {
		return
	}
	feasible, _ := state.data[feasibleKey].([]*nodeInfo)
	lo, hi := int64(math.MaxInt64), int64(0)
	for i, s := range scores {
		if i < len(feasible) && st.ignored[feasible[i].node.Name] {
			continue
		}
		lo, hi = min(lo, s), max(hi, s)
	}
	for i, s := range scores {
		switch {
		case i < len(feasible) && st.ignored[feasible[i].node.Name]:
			scores[i] = 0
		case hi == 0:
			scores[i] = maxNodeScore
		default:
			scores[i] = maxNodeScore * (hi + lo - s) / hi
		}
	}
}

// feasibleKey is where the cycle keeps the feasible nodes, in the order of
// the scores NormalizeScore gets.
const feasibleKey = "feasible"

// eventsToRegister implements queueingHinter: an assigned pod that comes,
// goes or changes labels, the pod's own labels and tolerations, and a node
// that comes, goes, or changes labels or taints (kube-scheduler's
// PodTopologySpread registrations).
func (p *podTopologySpread) eventsToRegister() []eventHint {
	return []eventHint{
		{resource: resAssignedPod, actions: actAdd | actUpdatePodLabel | actDelete, hint: p.afterAssignedPodChange},
		{resource: resTargetPod, actions: actUpdatePodToleration | actUpdatePodLabel, hint: p.afterTargetPodChange},
		{resource: resNode, actions: actAdd | actDelete | actUpdateNodeLabel | actUpdateNodeTaint, hint: p.afterNodeChange},
	}
}

// afterTargetPodChange: new tolerations when a constraint honors taints,
// or labels that change whether a constraint's selector matches the pod.
func (p *podTopologySpread) afterTargetPodChange(pod *corev1.Pod, e clusterEvent) bool {
	old, cur := eventPods(e)
	if old == nil || cur == nil {
		return true
	}
	cs, _ := p.constraints(pod, corev1.DoNotSchedule)
	if !equality.Semantic.DeepEqual(old.Spec.Tolerations, cur.Spec.Tolerations) {
		for _, c := range cs {
			if c.honorTaints {
				return true
			}
		}
	}
	return selectorMatchChanged(cs, old, cur)
}

// selectorMatchChanged reports whether a label change makes a constraint's
// selector match the pod where it did not, or the reverse.
func selectorMatchChanged(cs []spreadConstraint, old, cur *corev1.Pod) bool {
	if equality.Semantic.DeepEqual(old.Labels, cur.Labels) {
		return false
	}
	for _, c := range cs {
		if c.selector.Matches(labels.Set(old.Labels)) != c.selector.Matches(labels.Set(cur.Labels)) {
			return true
		}
	}
	return false
}

// afterAssignedPodChange: a placed pod of the pod's namespace that a
// constraint's selector matches comes or goes, or whose labels change
// whether it matches.
func (p *podTopologySpread) afterAssignedPodChange(pod *corev1.Pod, e clusterEvent) bool {
	old, cur := eventPods(e)
	involved := func(o *corev1.Pod) bool { return placed(o) && o.Namespace == pod.Namespace }
	if (cur != nil && !involved(cur)) || (old != nil && !involved(old)) {
		return false
	}
	cs, _ := p.constraints(pod, corev1.DoNotSchedule)
	switch {
	case old != nil && cur != nil:
		return selectorMatchChanged(cs, old, cur)
	case cur != nil:
		return anySelectorMatches(cs, cur)
	case old != nil:
		return anySelectorMatches(cs, old)
	}
	return true
}

// anySelectorMatches reports whether a constraint's selector matches pod.
func anySelectorMatches(cs []spreadConstraint, pod *corev1.Pod) bool {
	for _, c := range cs {
		if c.selector.Matches(labels.Set(pod.Labels)) {
			return true
		}
	}
	return false
}

// afterNodeChange: a node that comes or goes with every constraint's
// topology key; one that gains or loses one of the keys; or one that has
// them all and changes a key's value or its taints.
func (p *podTopologySpread) afterNodeChange(pod *corev1.Pod, e clusterEvent) bool {
	old, cur := eventNodes(e)
	cs, _ := p.constraints(pod, corev1.DoNotSchedule)
	hasKeys := func(n *corev1.Node) bool {
		for _, c := range cs {
			if _, ok := n.Labels[c.topologyKey]; !ok {
				return false
			}
		}
		return true
	}
	switch {
	case old != nil && cur != nil:
		if hasKeys(old) != hasKeys(cur) {
			return true
		}
		if !hasKeys(cur) {
			return false
		}
		for _, c := range cs {
			if old.Labels[c.topologyKey] != cur.Labels[c.topologyKey] {
				return true
			}
		}
		return !equality.Semantic.DeepEqual(old.Spec.Taints, cur.Spec.Taints)
	case cur != nil:
		return hasKeys(cur)
	case old != nil:
		return hasKeys(old)
	}
	return true
}
