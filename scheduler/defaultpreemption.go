package scheduler

import (
	"context"
	"fmt"
	"math"
	"sort"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
)

// kube-scheduler's DefaultPreemption messages.
const (
	msgNotHelpful         = "Preemption is not helpful for scheduling"
	msgNoVictims          = "No preemption victims found for incoming pod"
	msgPreemptNever       = "not eligible due to preemptionPolicy=Never."
	msgTerminatingNominee = "not eligible due to a terminating pod on the nominated node."
)

// defaultPreemption is the PostFilter plugin: when no node fits, it looks
// for a node where deleting lower-priority pods makes room, nominates the
// pod there and deletes those victims (the DefaultPreemption plugin).
// Victims whose eviction a PodDisruptionBudget does not allow are spared
// first, and nodes needing fewer such evictions are preferred.
type defaultPreemption struct{}

func (*defaultPreemption) Name() string { return DefaultPreemption }

// candidate is a node where preemption makes the pod fit.
type candidate struct {
	node string
	// victims are ordered most important first.
	victims []*corev1.Pod
	// pdbViolations counts the victims whose eviction a
	// PodDisruptionBudget does not allow.
	pdbViolations int
}

// preempt runs preemption for a pod no node fits; it returns PostFilter's
// message ("preemption: ...") and the node to nominate (nil: leave the
// nomination alone; "": clear it).
func (s *Scheduler) preempt(ctx context.Context, prof *profile, _ *cycleState, pod *corev1.Pod, nodes []*nodeInfo, fe *fitError) (string, *string) {
	best, msg, nominate := s.evaluatePreemption(prof, pod, nodes, fe)
	if best == nil {
		return msg, nominate
	}
	s.actuate(ctx, prof, pod, *best)
	node := best.node
	return fmt.Sprintf("preemption: found a potential placement for pod on node %v, preempting %d victims", best.node, len(best.victims)), &node
}

// preemptionCandidate is the node and victims preemption would choose,
// without acting on them.
func (s *Scheduler) preemptionCandidate(prof *profile, pod *corev1.Pod, nodes []*nodeInfo, fe *fitError) (candidate, bool) {
	best, _, _ := s.evaluatePreemption(prof, pod, nodes, fe)
	if best == nil {
		return candidate{}, false
	}
	return *best, true
}

// evaluatePreemption is kube-scheduler's preemption evaluation: whether
// the pod may preempt, the nodes where removing lower-priority pods makes
// it fit, and the best of them. Without a candidate it returns the message
// and nomination change to report.
func (s *Scheduler) evaluatePreemption(prof *profile, pod *corev1.Pod, nodes []*nodeInfo, fe *fitError) (*candidate, string, *string) {
	if pod.Spec.PreemptionPolicy != nil && *pod.Spec.PreemptionPolicy == corev1.PreemptNever {
		return nil, "preemption: " + msgPreemptNever, nil
	}
	prio := corev1helpers.PodPriority(pod)
	if nn := pod.Status.NominatedNodeName; nn != "" {
		if st := fe.statuses[nn]; st == nil || st.code != unresolvable {
			for _, n := range nodes {
				if n.node.Name != nn {
					continue
				}
				for _, pi := range n.pods {
					if pi.pod.DeletionTimestamp != nil && corev1helpers.PodPriority(pi.pod) < prio && isPreemptedByScheduler(pi.pod) {
						return nil, "preemption: " + msgTerminatingNominee, nil
					}
				}
			}
		}
	}
	statuses := map[string]*status{}
	var candidates []candidate
	if fe.preFilterMsg == "" {
		pdbs := s.disruptionBudgets()
		for _, n := range nodes {
			st := fe.statuses[n.node.Name]
			if st == nil || st.code != unschedulable {
				continue
			}
			victims, violations, vst := s.selectVictims(prof, pod, nodes, n, pdbs)
			if !vst.ok() {
				statuses[n.node.Name] = vst
				continue
			}
			candidates = append(candidates, candidate{node: n.node.Name, victims: victims, pdbViolations: violations})
		}
	}
	if len(candidates) == 0 {
		noFit := &fitError{numAllNodes: len(nodes), statuses: statuses, absent: newStatus(unresolvable, msgNotHelpful)}
		clear := ""
		return nil, "preemption: " + noFit.Error(), &clear
	}
	best := pickCandidate(candidates)
	return &best, "", nil
}

// isPreemptedByScheduler reports a pod being deleted by a preemption.
func isPreemptedByScheduler(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.DisruptionTarget {
			return c.Status == corev1.ConditionTrue && c.Reason == corev1.PodReasonPreemptionByScheduler
		}
	}
	return false
}

// DisruptionBudgets returns the PodDisruptionBudgets preemption weighs now,
// as the scheduler's informer cache has them (nil when no profile enables
// DefaultPreemption). The cache follows the API by a watch's delay, as a
// kube-scheduler's does; callers must not modify what it returns.
func (s *Scheduler) DisruptionBudgets() []*policyv1.PodDisruptionBudget {
	return s.disruptionBudgets()
}

// disruptionBudgets lists the PodDisruptionBudgets preemption weighs:
// none without the scheduler's informer (as in unit tests).
func (s *Scheduler) disruptionBudgets() []*policyv1.PodDisruptionBudget {
	if s.handle.pdbs == nil {
		return nil
	}
	pdbs, err := s.handle.pdbs.List(labels.Everything())
	if err != nil {
		s.log.Warn("scheduler: list PodDisruptionBudgets for preemption", "err", fmt.Errorf("listing from the informer cache: %w", err))
		return nil
	}
	return pdbs
}

// selectVictims removes every lower-priority pod from the node; if the
// pod then fits, it puts back as many as it can and returns the rest (most
// important first) with how many of them a PodDisruptionBudget protects.
// As kube-scheduler, the pods whose eviction would violate a budget are
// put back first, then the others, each group most important first.
// Filters run on a snapshot with the node changed, so that affinity and
// spread counts see the removal.
func (s *Scheduler) selectVictims(prof *profile, pod *corev1.Pod, nodes []*nodeInfo, target *nodeInfo, pdbs []*policyv1.PodDisruptionBudget) ([]*corev1.Pod, int, *status) {
	prio := corev1helpers.PodPriority(pod)
	n := target.clone()
	var potential []*corev1.Pod
	for _, pi := range target.pods {
		if corev1helpers.PodPriority(pi.pod) < prio {
			potential = append(potential, pi.pod)
			n.removePod(pi.pod)
		}
	}
	if len(potential) == 0 {
		return nil, 0, newStatus(unresolvable, msgNoVictims)
	}
	fits := func() *status {
		snap := make([]*nodeInfo, len(nodes))
		for i, o := range nodes {
			if o.node.Name == n.node.Name {
				snap[i] = n
			} else {
				snap[i] = o
			}
		}
		st := newCycleState(snap)
		for _, pl := range prof.preFilter {
			if r := pl.PreFilter(st, pod); !r.ok() {
				return r
			}
		}
		nominated := s.nominatedPods(pod)
		return s.filterWithNominated(prof, st, pod, n, nominated[n.node.Name])
	}
	if st := fits(); !st.ok() {
		return nil, 0, st
	}
	sort.SliceStable(potential, func(i, j int) bool { return moreImportant(potential[i], potential[j]) })
	protected, unprotected := splitByDisruptionBudgets(potential, pdbs)
	var victims []*corev1.Pod
	// reprieve puts p back on the node if the pod still fits, and
	// reports whether it did.
	reprieve := func(p *corev1.Pod) bool {
		n.addPod(newPodInfo(p))
		if fits().ok() {
			return true
		}
		n.removePod(p)
		victims = append(victims, p)
		return false
	}
	violations := 0
	for _, p := range protected {
		if !reprieve(p) {
			violations++
		}
	}
	for _, p := range unprotected {
		reprieve(p)
	}
	if len(protected) > 0 && len(unprotected) > 0 {
		sort.SliceStable(victims, func(i, j int) bool { return moreImportant(victims[i], victims[j]) })
	}
	return victims, violations, nil
}

// splitByDisruptionBudgets sorts pods (in order) into those whose eviction
// would violate a PodDisruptionBudget and the others, as kube-scheduler
// counts: each budget allows status.disruptionsAllowed evictions of the
// pods its selector matches in its namespace, used up by the pods in the
// order given; pods already in its status.disruptedPods use none; a pod
// violates once one of its budgets has none left (later budgets are then
// not charged). A budget with an empty or invalid selector matches no pod.
func splitByDisruptionBudgets(pods []*corev1.Pod, pdbs []*policyv1.PodDisruptionBudget) (violating, others []*corev1.Pod) {
	if len(pdbs) == 0 {
		return nil, pods
	}
	left := make([]int32, len(pdbs))
	selectors := make([]labels.Selector, len(pdbs))
	for i, b := range pdbs {
		left[i] = b.Status.DisruptionsAllowed
		if sel, err := metav1.LabelSelectorAsSelector(b.Spec.Selector); err == nil && !sel.Empty() {
			selectors[i] = sel
		}
	}
	violates := func(p *corev1.Pod) bool {
		if len(p.Labels) == 0 {
			return false
		}
		for i, b := range pdbs {
			if b.Namespace != p.Namespace || selectors[i] == nil || !selectors[i].Matches(labels.Set(p.Labels)) {
				continue
			}
			if _, disrupted := b.Status.DisruptedPods[p.Name]; disrupted {
				continue
			}
			left[i]--
			if left[i] < 0 {
				return true
			}
		}
		return false
	}
	for _, p := range pods {
		if violates(p) {
			violating = append(violating, p)
		} else {
			others = append(others, p)
		}
	}
	return violating, others
}

// moreImportant orders victims: higher priority, then longer running.
func moreImportant(a, b *corev1.Pod) bool {
	pa, pb := corev1helpers.PodPriority(a), corev1helpers.PodPriority(b)
	if pa != pb {
		return pa > pb
	}
	return startTime(a).Before(startTime(b))
}

func startTime(p *corev1.Pod) *metav1.Time {
	if p.Status.StartTime != nil {
		return p.Status.StartTime
	}
	return &p.CreationTimestamp
}

// pickCandidate chooses among candidates as kube-scheduler does: the
// fewest PodDisruptionBudget violations, then the lowest highest-victim
// priority, then the lowest sum of victim priorities, then the fewest
// victims, then the latest start of the highest-priority victims, then
// the first.
func pickCandidate(cs []candidate) candidate {
	best := 0
	for i := 1; i < len(cs); i++ {
		if betterCandidate(cs[i], cs[best]) {
			best = i
		}
	}
	return cs[best]
}

func betterCandidate(a, b candidate) bool {
	if a.pdbViolations != b.pdbViolations {
		return a.pdbViolations < b.pdbViolations
	}
	ha, hb := highestPriority(a.victims), highestPriority(b.victims)
	if ha != hb {
		return ha < hb
	}
	sa, sb := prioritySum(a.victims), prioritySum(b.victims)
	if sa != sb {
		return sa < sb
	}
	if len(a.victims) != len(b.victims) {
		return len(a.victims) < len(b.victims)
	}
	ta, tb := earliestStartOfHighest(a.victims), earliestStartOfHighest(b.victims)
	return ta.After(tb.Time)
}

func highestPriority(v []*corev1.Pod) int32 {
	h := int32(-1 << 31)
	for _, p := range v {
		h = max(h, corev1helpers.PodPriority(p))
	}
	return h
}

// prioritySum sums victims' priorities shifted by MaxInt32+1 to be
// non-negative, as kube-scheduler does (so that more victims of a negative
// priority never sum lower than fewer).
func prioritySum(v []*corev1.Pod) int64 {
	var sum int64
	for _, p := range v {
		sum += int64(corev1helpers.PodPriority(p)) + math.MaxInt32 + 1
	}
	return sum
}

func earliestStartOfHighest(v []*corev1.Pod) *metav1.Time {
	h := highestPriority(v)
	var earliest *metav1.Time
	for _, p := range v {
		if corev1helpers.PodPriority(p) != h {
			continue
		}
		if t := startTime(p); earliest == nil || t.Before(earliest) {
			earliest = t
		}
	}
	if earliest == nil {
		return &metav1.Time{}
	}
	return earliest
}

// actuate nominates the preemptor (by the caller), clears lower-priority
// nominations to the node, marks each victim DisruptionTarget, deletes it
// and records Preempted, as kube-scheduler's preemption executor does.
func (s *Scheduler) actuate(ctx context.Context, prof *profile, pod *corev1.Pod, c candidate) {
	rec := s.recorders[prof.name]
	for _, v := range c.victims {
		cond := corev1.PodCondition{
			Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue, Reason: corev1.PodReasonPreemptionByScheduler, ObservedGeneration: v.Generation,
			Message: fmt.Sprintf("%s: preempting to accommodate a higher priority pod", pod.Spec.SchedulerName),
		}
		if err := s.patchStatus(ctx, v, &cond, nil); err != nil {
			if !apierrors.IsNotFound(err) {
				s.log.Warn("scheduler: mark preemption victim", "pod", v.Namespace+"/"+v.Name, "err", err)
			}
			continue
		}
		if err := s.client.CoreV1().Pods(v.Namespace).Delete(ctx, v.Name, metav1.DeleteOptions{}); err != nil {
			if !apierrors.IsNotFound(err) {
				s.log.Warn("scheduler: delete preemption victim", "pod", v.Namespace+"/"+v.Name, "err", err)
			}
			continue
		}
		// Without a related object: kube-scheduler names the preemptor
		// with a type its scheme does not know, and its recorder drops it.
		rec.Eventf(v, nil, corev1.EventTypeNormal, "Preempted", "Preempting", "Preempted by pod %v on node %v", pod.UID, c.node)
	}
	prio := corev1helpers.PodPriority(pod)
	for _, p := range s.queue.nominatedTo(c.node) {
		if p.UID != pod.UID && corev1helpers.PodPriority(p) < prio {
			clear := ""
			if err := s.patchStatus(ctx, p, nil, &clear); err != nil && !apierrors.IsNotFound(err) {
				s.log.Warn("scheduler: clear nominatedNodeName", "pod", p.Namespace+"/"+p.Name, "err", err)
			}
		}
	}
}
