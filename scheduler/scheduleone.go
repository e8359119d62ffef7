package scheduler

import (
	"context"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
)

// Thresholds of kube-scheduler's numFeasibleNodesToFind.
const (
	minFeasibleNodesToFind           = 100
	minFeasibleNodesPercentageToFind = 5
	// noteLengthLimit is the longest note (message) of an Event.
	noteLengthLimit = 1024
)

// fitError is kube-scheduler's FitError: why no node fits.
type fitError struct {
	numAllNodes int
	// preFilterMsg is set when a PreFilter plugin rejected the pod.
	preFilterMsg string
	// statuses are the filter results of the nodes that failed.
	statuses map[string]*status
	// absent is the status of the nodes not in statuses (preemption's
	// "Preemption is not helpful for scheduling").
	absent        *status
	postFilterMsg string
	// narrowedBy are the PreFilter plugins that narrowed the nodes worth
	// filtering; kube-scheduler counts them among the rejectors.
	narrowedBy sets.Set[string]
}

// rejectors names the plugins that turned the pod down.
func (f *fitError) rejectors() sets.Set[string] {
	out := sets.New[string]()
	out.Insert(f.narrowedBy.UnsortedList()...)
	for _, st := range f.statuses {
		out.Insert(st.plugin)
	}
	if f.absent != nil && f.absent.plugin != "" && len(f.statuses) < f.numAllNodes {
		out.Insert(f.absent.plugin)
	}
	return out
}

// Error is kube-scheduler's message: "0/N nodes are available: " and the
// sorted counts of each reason, then PostFilter's (preemption's) message.
func (f *fitError) Error() string {
	msg := fmt.Sprintf("0/%v nodes are available:", f.numAllNodes)
	if f.preFilterMsg != "" {
		msg += fmt.Sprintf(" %v.", f.preFilterMsg)
	} else {
		counts := map[string]int{}
		for _, st := range f.statuses {
			for _, r := range st.reasons {
				counts[r]++
			}
		}
		if f.absent != nil && len(f.statuses) < f.numAllNodes {
			for _, r := range f.absent.reasons {
				counts[r] += f.numAllNodes - len(f.statuses)
			}
		}
		var parts []string
		for r, c := range counts {
			parts = append(parts, fmt.Sprintf("%v %v", c, r))
		}
		sort.Strings(parts)
		if len(parts) > 0 {
			msg += fmt.Sprintf(" %v.", strings.Join(parts, ", "))
		}
	}
	if f.postFilterMsg != "" {
		msg += " " + f.postFilterMsg
	}
	return msg
}

// scheduleOne runs one scheduling cycle for a popped pod and, when a node
// fits, binds it in the background.
func (s *Scheduler) scheduleOne(ctx context.Context, qp *queuedPod) {
	pod := qp.pod
	prof := s.profiles[pod.Spec.SchedulerName]
	// The informer's copy is the latest; the pod may have been bound or
	// deleted since it was queued.
	cur, err := s.podsList.Pods(pod.Namespace).Get(pod.Name)
	if err != nil || cur.UID != pod.UID || cur.Spec.NodeName != "" {
		s.queue.Done(qp, false, nil)
		return
	}
	pod = cur
	if prof == nil {
		s.queue.Done(qp, false, nil)
		return
	}
	if pod.DeletionTimestamp != nil {
		s.recorders[prof.name].Eventf(pod, nil, corev1.EventTypeWarning, "FailedScheduling", "Scheduling", "skip schedule deleting pod: %v/%v", pod.Namespace, pod.Name)
		s.queue.Done(qp, false, nil)
		return
	}
	nodes := s.cache.snapshot()
	if len(nodes) == 0 {
		s.fail(ctx, qp, prof, pod, corev1.PodReasonSchedulerError, errNoNodesAvailable.Error(), nil, nil)
		return
	}
	state := newCycleState(nodes)
	host, fe := s.schedulePod(prof, state, pod, nodes)
	if fe != nil {
		nominate := s.postFilter(ctx, prof, state, pod, nodes, fe)
		s.fail(ctx, qp, prof, pod, corev1.PodReasonUnschedulable, fe.Error(), nominate, fe.rejectors())
		return
	}
	if prof.dra != nil {
		if err := prof.dra.reserve(state, host); err != nil {
			s.fail(ctx, qp, prof, pod, corev1.PodReasonSchedulerError, fmt.Sprintf("running Reserve plugin %q: %v", DynamicResources, err), nil, nil)
			return
		}
	}
	// Assume the pod on the node, so that the next cycles account for it
	// while the binding is under way.
	assumed := pod.DeepCopy()
	assumed.Spec.NodeName = host
	s.cache.setPod(assumed)
	s.binding.Add(1)
	go func() {
		defer s.binding.Done()
		s.bind(ctx, qp, prof, state, pod, host)
	}()
}

// postFilter runs the PostFilter plugins for a pod no node fits, in
// kube-scheduler's default order (DynamicResources, then
// DefaultPreemption), and sets fe's PostFilter message to their reasons
// joined, as kube-scheduler's framework joins them. It returns the node
// preemption nominates (nil: leave the nomination alone; "": clear it).
func (s *Scheduler) postFilter(ctx context.Context, prof *profile, state *cycleState, pod *corev1.Pod, nodes []*nodeInfo, fe *fitError) *string {
	var nominate *string
	var reasons []string
	ended := false
	if prof.draPostFilter {
		var msg string
		msg, ended = prof.dra.postFilter(ctx, s.client, state, pod)
		if msg != "" {
			reasons = append(reasons, msg)
		}
	}
	if !ended && prof.preemption != nil {
		msg, node := s.preempt(ctx, prof, state, pod, nodes, fe)
		reasons = append(reasons, msg)
		nominate = node
	}
	fe.postFilterMsg = strings.Join(reasons, ", ")
	return nominate
}

// schedulePod finds the nodes that fit and picks the best scored one; it
// returns a fitError when none fits.
func (s *Scheduler) schedulePod(prof *profile, state *cycleState, pod *corev1.Pod, nodes []*nodeInfo) (string, *fitError) {
	fe := &fitError{numAllNodes: len(nodes), statuses: map[string]*status{}}
	for _, pl := range prof.preFilter {
		if st := pl.PreFilter(state, pod); !st.ok() {
			st.plugin = pl.Name()
			fe.preFilterMsg = st.message()
			for _, n := range nodes {
				fe.statuses[n.node.Name] = st
			}
			return "", fe
		}
	}
	// A PreFilter plugin may have narrowed the nodes worth filtering; the
	// others count as rejected by it.
	if pf, ok := state.data[preFilterNodesKey].(*preFilterNodes); ok {
		var kept []*nodeInfo
		for _, n := range nodes {
			if pf.names.Has(n.node.Name) {
				kept = append(kept, n)
			}
		}
		fe.absent = newStatus(unresolvable, fmt.Sprintf("node(s) didn't satisfy plugin(s) %v", sets.List(pf.plugins)))
		fe.absent.plugin = sets.List(pf.plugins)[0]
		fe.narrowedBy = pf.plugins
		nodes = kept
		if len(nodes) == 0 {
			return "", fe
		}
	}
	nominated := s.nominatedPods(pod)
	// A pod nominated by an earlier preemption tries its node first.
	if nn := pod.Status.NominatedNodeName; nn != "" {
		for _, n := range nodes {
			if n.node.Name == nn && s.filterWithNominated(prof, state, pod, n, nominated[nn]).ok() {
				return nn, nil
			}
		}
	}
	want := s.numFeasibleNodesToFind(prof, len(nodes))
	var feasible []*nodeInfo
	start := s.nextStartIndex
	checked := 0
	for i := 0; i < len(nodes) && len(feasible) < want; i++ {
		n := nodes[(start+i)%len(nodes)]
		checked++
		if st := s.filterWithNominated(prof, state, pod, n, nominated[n.node.Name]); !st.ok() {
			fe.statuses[n.node.Name] = st
			continue
		}
		feasible = append(feasible, n)
	}
	s.nextStartIndex = (start + checked) % len(nodes)
	if len(feasible) == 0 {
		return "", fe
	}
	if len(feasible) == 1 {
		return feasible[0].node.Name, nil
	}
	return feasible[s.selectHost(s.prioritize(prof, state, pod, feasible))].node.Name, nil
}

// runFilters runs the filter plugins in order and returns the first
// failure.
func (s *Scheduler) runFilters(prof *profile, state *cycleState, pod *corev1.Pod, n *nodeInfo) *status {
	for _, pl := range prof.filter {
		if st := pl.Filter(state, pod, n); !st.ok() {
			st.plugin = pl.Name()
			return st
		}
	}
	return nil
}

// filterWithNominated runs the filters as kube-scheduler's
// RunFilterPluginsWithNominatedPods: with the pods nominated to the node
// (of at least the pod's priority) counted as there, then, when there are
// some and the node passed, without them too.
func (s *Scheduler) filterWithNominated(prof *profile, state *cycleState, pod *corev1.Pod, n *nodeInfo, nominated []*corev1.Pod) *status {
	st := s.runFilters(prof, state, pod, withNominated(n, nominated))
	if !st.ok() || len(nominated) == 0 {
		return st
	}
	return s.runFilters(prof, state, pod, n)
}

// nominatedPods maps nodes to the pending pods nominated to them with at
// least pod's priority (they are counted as if there, as kube-scheduler
// does), leaving pod out.
func (s *Scheduler) nominatedPods(pod *corev1.Pod) map[string][]*corev1.Pod {
	prio := corev1helpers.PodPriority(pod)
	out := map[string][]*corev1.Pod{}
	s.queue.mu.Lock()
	defer s.queue.mu.Unlock()
	for _, qp := range s.queue.pods {
		p := qp.pod
		if nn := p.Status.NominatedNodeName; nn != "" && p.UID != pod.UID && corev1helpers.PodPriority(p) >= prio {
			out[nn] = append(out[nn], p)
		}
	}
	return out
}

// withNominated returns n with the nominated pods added (n itself when
// there are none).
func withNominated(n *nodeInfo, pods []*corev1.Pod) *nodeInfo {
	if len(pods) == 0 {
		return n
	}
	c := n.clone()
	for _, p := range pods {
		c.addPod(newPodInfo(p))
	}
	return c
}

// numFeasibleNodesToFind is how many feasible nodes are enough: all of
// them below 100 nodes, else percentageOfNodesToScore of them (adaptive
// when 0), at least 100.
func (s *Scheduler) numFeasibleNodesToFind(prof *profile, all int) int {
	if all < minFeasibleNodesToFind {
		return all
	}
	pct := int(*prof.percentageOfNodesToScore)
	if pct == 0 {
		pct = 50 - all/125
		if pct < minFeasibleNodesPercentageToFind {
			pct = minFeasibleNodesPercentageToFind
		}
	}
	n := all * pct / 100
	if n < minFeasibleNodesToFind {
		return minFeasibleNodesToFind
	}
	return n
}

// prioritize scores the feasible nodes: each score plugin's scores,
// normalized, times its weight, summed.
func (s *Scheduler) prioritize(prof *profile, state *cycleState, pod *corev1.Pod, feasible []*nodeInfo) []int64 {
	state.data[feasibleKey] = feasible
	for _, pl := range prof.preScore {
		pl.PreScore(state, pod, feasible)
	}
	total := make([]int64, len(feasible))
	scores := make([]int64, len(feasible))
	for _, pl := range prof.score {
		for i, n := range feasible {
			scores[i] = pl.Score(state, pod, n)
		}
		if nz, ok := pl.scorePlugin.(normalizePlugin); ok {
			nz.NormalizeScore(state, pod, scores)
		}
		for i := range scores {
			total[i] += scores[i] * pl.weight
		}
	}
	return total
}

// selectHost returns the index of the highest score, breaking ties at
// random (reservoir sampling, as kube-scheduler).
func (s *Scheduler) selectHost(scores []int64) int {
	best, ties := 0, 1
	for i := 1; i < len(scores); i++ {
		switch {
		case scores[i] > scores[best]:
			best, ties = i, 1
		case scores[i] == scores[best]:
			ties++
			if s.rnd.IntN(ties) == 0 {
				best = i
			}
		}
	}
	return best
}

// fail reports a failed attempt as kube-scheduler does: a FailedScheduling
// event, the PodScheduled condition False with reason and message, and
// nominatedNodeName when preemption chose a node; the pod is retried later.
func (s *Scheduler) fail(ctx context.Context, qp *queuedPod, prof *profile, pod *corev1.Pod, reason, msg string, nominate *string, rejectors sets.Set[string]) {
	s.queue.Done(qp, true, rejectors)
	note := msg
	if len(note) > noteLengthLimit {
		note = note[:noteLengthLimit-4] + " ..."
	}
	s.recorders[prof.name].Eventf(pod, nil, corev1.EventTypeWarning, "FailedScheduling", "Scheduling", "%s", note)
	// PodObservedGenerationTracking is GA since v1.35: the condition
	// records the generation it was computed for.
	cond := corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: reason, Message: msg, ObservedGeneration: pod.Generation}
	if err := s.patchStatus(ctx, pod, &cond, nominate); err != nil && ctx.Err() == nil {
		s.log.Warn("scheduler: update pod status", "pod", pod.Namespace+"/"+pod.Name, "err", err)
	}
}

// bind binds the pod through pods/binding and records Scheduled; a failed
// binding forgets the assumed pod and retries it.
func (s *Scheduler) bind(ctx context.Context, qp *queuedPod, prof *profile, state *cycleState, pod *corev1.Pod, host string) {
	if prof.dra != nil && prof.dra.hasClaims(state) && pod.Status.NominatedNodeName != host {
		// NominatedNodeNameForExpectation (beta, on in v1.37): a pod whose
		// PreBind has work to do (its claims to write) is nominated to its
		// node first, for the components that watch pending pods; the
		// binding clears it. A failure does not stop the binding.
		nominate := host
		if err := s.patchStatus(ctx, pod, nil, &nominate); err != nil && ctx.Err() == nil {
			s.log.Warn("scheduler: nominate pod in the binding cycle", "pod", pod.Namespace+"/"+pod.Name, "err", err)
		}
	}
	if prof.dra != nil {
		if err := prof.dra.preBind(ctx, s.client, state, pod, host); err != nil {
			s.cache.removePod(pod)
			prof.dra.unreserve(ctx, s.client, state, pod)
			if ctx.Err() != nil {
				s.queue.Done(qp, true, nil)
				return
			}
			s.fail(ctx, qp, prof, pod, corev1.PodReasonSchedulerError, fmt.Sprintf("running PreBind plugin %q: %v", DynamicResources, err), nil, nil)
			return
		}
	}
	b := &corev1.Binding{
		ObjectMeta: metav1.ObjectMeta{Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID},
		Target:     corev1.ObjectReference{Kind: "Node", Name: host},
	}
	err := s.client.CoreV1().Pods(pod.Namespace).Bind(ctx, b, metav1.CreateOptions{})
	if err != nil {
		s.cache.removePod(pod)
		if prof.dra != nil {
			prof.dra.unreserve(ctx, s.client, state, pod)
		}
		if ctx.Err() != nil {
			s.queue.Done(qp, true, nil)
			return
		}
		// As kube-scheduler, forgetting the assumed pod frees its node for
		// the others first.
		assumed := pod.DeepCopy()
		assumed.Spec.NodeName = host
		s.queue.Move(clusterEvent{resource: resAssignedPod, action: actDelete, oldObj: assumed})
		s.fail(ctx, qp, prof, pod, corev1.PodReasonSchedulerError, fmt.Sprintf("binding rejected: running Bind plugin %q: %v", DefaultBinder, err), nil, nil)
		return
	}
	s.queue.Done(qp, false, nil)
	s.recorders[prof.name].Eventf(pod, nil, corev1.EventTypeNormal, "Scheduled", "Binding", "Successfully assigned %v/%v to %v", pod.Namespace, pod.Name, host)
}
