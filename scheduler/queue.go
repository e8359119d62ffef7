package scheduler

import (
	"container/heap"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
)

// queuedPod is a pending pod in the scheduling queue.
type queuedPod struct {
	pod *corev1.Pod
	// added is when the pod first entered the queue (PrioritySort's
	// tie-break).
	added time.Time
	// attempts counts scheduling attempts, for the backoff.
	attempts int
	// lastAttempt is when the last attempt ended.
	lastAttempt time.Time
	// gated: a PreEnqueue plugin holds the pod back.
	gated bool
	// rejectors are the plugins that rejected the pod in its last attempt
	// (or the PreEnqueue plugin that gates it); empty after an error.
	rejectors sets.Set[string]
	index     int
}

// maxEventLog bounds the events kept for pods in flight; past it, every
// failed pod backs off as if a change had helped.
const maxEventLog = 10000

// podQueue is kube-scheduler's scheduling queue, simplified: an active
// heap in PrioritySort order (higher priority, then earlier), pods backing
// off after a failed attempt, and unschedulable pods that wait for a
// cluster event that may help them (or five minutes at most, as
// kube-scheduler's). Which events may help a pod, its rejector plugins'
// queueing hints decide.
type podQueue struct {
	mu       sync.Mutex
	cond     *sync.Cond
	closed   bool
	active   activeHeap
	pods     map[types.UID]*queuedPod // every pod in the queue, any state
	backoff  map[types.UID]*queuedPod
	unsched  map[types.UID]*queuedPod
	gated    map[types.UID]*queuedPod
	inFlight map[types.UID]bool
	// events are the cluster events since the oldest pod in flight
	// popped; a pod that fails while an event that may help it happened
	// during its attempt backs off instead of waiting.
	events        []clusterEvent
	eventsDropped bool
	eventsAtPop   map[types.UID]int
	initial, maxB time.Duration
	// preEnqueue returns the PreEnqueue plugin that holds a pod back ("":
	// none does).
	preEnqueue func(*corev1.Pod) string
	// hints are, per profile (scheduler name), each plugin's registered
	// events and queueing hints.
	hints map[string]map[string][]eventHint
	now   func() time.Time
}

// maxUnschedulableWait is how long an unschedulable pod waits for a
// cluster change before it is tried again anyway (kube-scheduler's
// podMaxInUnschedulablePodsDuration).
const maxUnschedulableWait = 5 * time.Minute

func newPodQueue(initial, maxBackoff time.Duration, preEnqueue func(*corev1.Pod) string, hints map[string]map[string][]eventHint) *podQueue {
	q := &podQueue{
		pods: map[types.UID]*queuedPod{}, backoff: map[types.UID]*queuedPod{}, unsched: map[types.UID]*queuedPod{},
		gated: map[types.UID]*queuedPod{}, inFlight: map[types.UID]bool{}, eventsAtPop: map[types.UID]int{},
		initial: initial, maxB: maxBackoff, preEnqueue: preEnqueue, hints: hints, now: time.Now,
	}
	q.cond = sync.NewCond(&q.mu)
	return q
}

// worthRequeuing reports whether an event may make a pod schedulable, as
// kube-scheduler's isPodWorthRequeuing: a pod without rejector plugins
// (after an error) always; else when one of its rejectors registered the
// event and that registration's hint says Queue.
func (q *podQueue) worthRequeuing(qp *queuedPod, e clusterEvent) bool {
	if len(qp.rejectors) == 0 {
		return true
	}
	byPlugin, ok := q.hints[qp.pod.Spec.SchedulerName]
	if !ok {
		return true
	}
	for pl := range qp.rejectors {
		for _, h := range byPlugin[pl] {
			if h.matches(e) && (h.hint == nil || h.hint(qp.pod, e)) {
				return true
			}
		}
	}
	return false
}

// interesting reports whether a plugin of some profile registered the
// event (kube-scheduler's isEventOfInterest): no pod waits for the others,
// such as a bound pod's status updates, so they are not even kept for the
// pods in flight.
func (q *podQueue) interesting(e clusterEvent) bool {
	for _, byPlugin := range q.hints {
		for _, hs := range byPlugin {
			for _, h := range hs {
				if h.matches(e) {
					return true
				}
			}
		}
	}
	return false
}

// logEventLocked keeps an event for the pods in flight.
func (q *podQueue) logEventLocked(e clusterEvent) {
	if len(q.inFlight) == 0 {
		return
	}
	if len(q.events) < maxEventLog {
		q.events = append(q.events, e)
	} else {
		q.eventsDropped = true
	}
}

// activeHeap orders pods by priority, then by when they were added.
type activeHeap []*queuedPod

func (h activeHeap) Len() int { return len(h) }
func (h activeHeap) Less(i, j int) bool {
	pi, pj := corev1helpers.PodPriority(h[i].pod), corev1helpers.PodPriority(h[j].pod)
	if pi != pj {
		return pi > pj
	}
	return h[i].added.Before(h[j].added)
}
func (h activeHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i]; h[i].index = i; h[j].index = j }
func (h *activeHeap) Push(x any) {
	qp := x.(*queuedPod)
	qp.index = len(*h)
	*h = append(*h, qp)
}
func (h *activeHeap) Pop() any {
	old := *h
	qp := old[len(old)-1]
	*h = old[:len(old)-1]
	qp.index = -1
	return qp
}

// toActiveLocked puts a pod in the active heap, or among the gated ones
// when a PreEnqueue plugin holds it back.
func (q *podQueue) toActiveLocked(qp *queuedPod) {
	delete(q.backoff, qp.pod.UID)
	delete(q.unsched, qp.pod.UID)
	delete(q.gated, qp.pod.UID)
	if gate := q.preEnqueue(qp.pod); gate != "" {
		qp.gated = true
		// As kube-scheduler, the gating plugin counts among the pod's
		// rejectors: its hints decide when an update frees the pod.
		if qp.rejectors == nil {
			qp.rejectors = sets.New[string]()
		}
		qp.rejectors.Insert(gate)
		q.gated[qp.pod.UID] = qp
		return
	}
	qp.gated = false
	if qp.index < 0 {
		heap.Push(&q.active, qp)
	}
	q.cond.Signal()
}

// Add adds a new pending pod.
func (q *podQueue) Add(pod *corev1.Pod) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.addLocked(pod)
}

func (q *podQueue) addLocked(pod *corev1.Pod) {
	if qp, ok := q.pods[pod.UID]; ok {
		qp.pod = pod
		return
	}
	qp := &queuedPod{pod: pod, added: q.now(), index: -1}
	q.pods[pod.UID] = qp
	if q.inFlight[pod.UID] {
		return
	}
	q.toActiveLocked(qp)
}

// Update replaces a pending pod's object (old is the one before). A pod in
// flight keeps the update's events for when its attempt ends; a gated or
// unschedulable pod is tried again when its rejectors' hints say an event
// of the update (its labels, tolerations, requests or gates changed) may
// make it schedulable.
func (q *podQueue) Update(old, pod *corev1.Pod) {
	q.mu.Lock()
	defer q.mu.Unlock()
	qp, ok := q.pods[pod.UID]
	if !ok {
		q.addLocked(pod)
		return
	}
	events := podUpdateEvents(old, pod)
	if q.inFlight[pod.UID] {
		// Its attempt may have used the old pod: its events are checked
		// when the attempt ends.
		qp.pod = pod
		for _, e := range events {
			q.logEventLocked(e)
		}
		return
	}
	qp.pod = pod
	if qp.index >= 0 {
		heap.Fix(&q.active, qp.index)
		return
	}
	if q.gated[pod.UID] == nil && q.unsched[pod.UID] == nil {
		return // backing off: it is tried soon anyway
	}
	for _, e := range events {
		if !q.worthRequeuing(qp, e) {
			continue
		}
		if qp.gated {
			q.toActiveLocked(qp)
		} else {
			delete(q.unsched, pod.UID)
			q.backoff[pod.UID] = qp
			q.flushBackoffLocked()
		}
		return
	}
}

// Delete forgets a pod.
func (q *podQueue) Delete(uid types.UID) {
	q.mu.Lock()
	defer q.mu.Unlock()
	qp, ok := q.pods[uid]
	if !ok {
		return
	}
	delete(q.pods, uid)
	delete(q.backoff, uid)
	delete(q.unsched, uid)
	delete(q.gated, uid)
	if qp.index >= 0 {
		heap.Remove(&q.active, qp.index)
	}
}

// Pop waits for an active pod; it returns nil once the queue is closed.
func (q *podQueue) Pop() *queuedPod {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.active) == 0 && !q.closed {
		q.cond.Wait()
	}
	if q.closed {
		return nil
	}
	qp := heap.Pop(&q.active).(*queuedPod)
	q.inFlight[qp.pod.UID] = true
	q.eventsAtPop[qp.pod.UID] = len(q.events)
	return qp
}

// Done ends a pod's attempt: a bound (or gone) pod leaves the queue. One
// that failed (rejected by the plugins in rejectors, none after an error)
// backs off when it has no rejectors or when an event that happened during
// the attempt may help it (its rejectors' hints say so), or else waits for
// one.
func (q *podQueue) Done(qp *queuedPod, failed bool, rejectors sets.Set[string]) {
	q.mu.Lock()
	defer q.mu.Unlock()
	uid := qp.pod.UID
	delete(q.inFlight, uid)
	since := q.events[q.eventsAtPop[uid]:]
	delete(q.eventsAtPop, uid)
	defer func() {
		if len(q.inFlight) == 0 {
			q.events, q.eventsDropped = nil, false
		}
	}()
	cur, ok := q.pods[uid]
	if !ok {
		return
	}
	if !failed {
		delete(q.pods, uid)
		return
	}
	cur.attempts++
	cur.lastAttempt = q.now()
	cur.rejectors = rejectors
	helped := len(rejectors) == 0 || q.eventsDropped
	for _, e := range since {
		if helped {
			break
		}
		helped = q.worthRequeuing(cur, e)
	}
	if helped {
		q.backoff[uid] = cur
	} else {
		q.unsched[uid] = cur
	}
}

// backoffFor is the pod's backoff: initial doubled per attempt, capped.
func (q *podQueue) backoffFor(qp *queuedPod) time.Duration {
	d := q.initial
	for i := 1; i < qp.attempts && d < q.maxB; i++ {
		d *= 2
	}
	return min(d, q.maxB)
}

// Move moves the unschedulable pods an event may help (their rejectors'
// hints say so) to the active queue, or to backoff while their backoff
// lasts; pods in flight see the event when their attempt ends.
func (q *podQueue) Move(e clusterEvent) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.interesting(e) {
		return
	}
	q.logEventLocked(e)
	for uid, qp := range q.unsched {
		if (e.only == nil || e.only(qp.pod)) && q.worthRequeuing(qp, e) {
			delete(q.unsched, uid)
			q.backoff[uid] = qp
		}
	}
	// A pod a PreEnqueue plugin holds back is asked again when the
	// plugin's hints say the event may free it (a ResourceClaim created).
	var ungate []*queuedPod
	for _, qp := range q.gated {
		if (e.only == nil || e.only(qp.pod)) && q.worthRequeuing(qp, e) {
			ungate = append(ungate, qp)
		}
	}
	for _, qp := range ungate {
		q.toActiveLocked(qp)
	}
	q.flushBackoffLocked()
}

// Flush moves pods whose backoff is over to the active queue, and pods
// unschedulable for too long to backoff.
func (q *podQueue) Flush() {
	q.mu.Lock()
	defer q.mu.Unlock()
	now := q.now()
	for uid, qp := range q.unsched {
		if now.Sub(qp.lastAttempt) > maxUnschedulableWait {
			delete(q.unsched, uid)
			q.backoff[uid] = qp
		}
	}
	q.flushBackoffLocked()
}

func (q *podQueue) flushBackoffLocked() {
	now := q.now()
	for _, qp := range q.backoff {
		if now.Sub(qp.lastAttempt) >= q.backoffFor(qp) {
			q.toActiveLocked(qp)
		}
	}
}

// Close wakes Pop up for good.
func (q *podQueue) Close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.cond.Broadcast()
}

// nominatedTo lists the queued pods nominated to node (preemptors waiting
// for their victims to go).
func (q *podQueue) nominatedTo(node string) []*corev1.Pod {
	q.mu.Lock()
	defer q.mu.Unlock()
	var out []*corev1.Pod
	for _, qp := range q.pods {
		if qp.pod.Status.NominatedNodeName == node {
			out = append(out, qp.pod)
		}
	}
	return out
}
