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
	// rejectors are the plugins that rejected the pod in its last attempt;
	// nil after an error, when any cluster change may help.
	rejectors sets.Set[string]
	index     int
}

// clusterEvent is a change in the cluster and the plugins whose decision
// it may change (nil: all of them), kube-scheduler's cluster events and
// queueing hints in the small.
type clusterEvent struct {
	name    string
	plugins sets.Set[string]
}

// helps reports whether the event may make a pod its rejectors turned
// down schedulable.
func (e clusterEvent) helps(rejectors sets.Set[string]) bool {
	return e.plugins == nil || rejectors == nil || e.plugins.HasAny(rejectors.UnsortedList()...)
}

// The cluster events the scheduler reacts to.
var (
	eventNodeAdd           = clusterEvent{name: "NodeAdd"}
	eventAssignedPodAdd    = clusterEvent{name: "AssignedPodAdd", plugins: sets.New(InterPodAffinity, PodTopologySpread)}
	eventAssignedPodDelete = clusterEvent{name: "AssignedPodDelete", plugins: sets.New(NodeResourcesFit, NodePorts, InterPodAffinity, PodTopologySpread)}
	eventBindingFailed     = clusterEvent{name: "BindingFailed"}
	eventVolumeChange      = clusterEvent{name: "VolumeChange", plugins: sets.New(VolumeBinding)}
)

// maxEventLog bounds the events kept for pods in flight; past it, every
// failed pod backs off as if a change had helped.
const maxEventLog = 10000

// podQueue is kube-scheduler's scheduling queue, simplified: an active
// heap in PrioritySort order (higher priority, then earlier), pods backing
// off after a failed attempt, and unschedulable pods that wait for a
// cluster change that may help them (or five minutes at most, as
// kube-scheduler's).
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
	// events are the cluster changes since the oldest pod in flight
	// popped; a pod that fails while a change that may help it happened
	// during its attempt backs off instead of waiting.
	events        []clusterEvent
	eventsDropped bool
	eventsAtPop   map[types.UID]int
	initial, maxB time.Duration
	preEnqueue    func(*corev1.Pod) bool
	now           func() time.Time
}

// maxUnschedulableWait is how long an unschedulable pod waits for a
// cluster change before it is tried again anyway (kube-scheduler's
// podMaxInUnschedulablePodsDuration).
const maxUnschedulableWait = 5 * time.Minute

func newPodQueue(initial, maxBackoff time.Duration, preEnqueue func(*corev1.Pod) bool) *podQueue {
	q := &podQueue{
		pods: map[types.UID]*queuedPod{}, backoff: map[types.UID]*queuedPod{}, unsched: map[types.UID]*queuedPod{},
		gated: map[types.UID]*queuedPod{}, inFlight: map[types.UID]bool{}, eventsAtPop: map[types.UID]int{},
		initial: initial, maxB: maxBackoff, preEnqueue: preEnqueue, now: time.Now,
	}
	q.cond = sync.NewCond(&q.mu)
	return q
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
	if !q.preEnqueue(qp.pod) {
		qp.gated = true
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

// Update replaces a pending pod's object; a pod waiting (gated,
// unschedulable or backing off) whose spec changed is tried again.
func (q *podQueue) Update(pod *corev1.Pod, specChanged bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	qp, ok := q.pods[pod.UID]
	if !ok {
		q.mu.Unlock()
		q.Add(pod)
		q.mu.Lock()
		return
	}
	qp.pod = pod
	if qp.index >= 0 {
		heap.Fix(&q.active, qp.index)
		return
	}
	if !specChanged {
		return
	}
	if q.inFlight[pod.UID] {
		// Its attempt may have used the old spec: retry it soon.
		if len(q.events) < maxEventLog {
			q.events = append(q.events, clusterEvent{name: "UnscheduledPodUpdate"})
		}
		return
	}
	if q.gated[pod.UID] != nil || q.unsched[pod.UID] != nil {
		q.toActiveLocked(qp)
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

// Done ends a pod's attempt: a bound (or gone) pod leaves the queue; one
// that failed (rejected by the plugins in rejectors, nil for an error)
// backs off when a change that may help it happened during the attempt, or
// else waits for one.
func (q *podQueue) Done(qp *queuedPod, failed bool, rejectors sets.Set[string]) {
	q.mu.Lock()
	defer q.mu.Unlock()
	uid := qp.pod.UID
	delete(q.inFlight, uid)
	helped := q.eventsDropped
	for _, e := range q.events[q.eventsAtPop[uid]:] {
		helped = helped || e.helps(rejectors)
	}
	delete(q.eventsAtPop, uid)
	if len(q.inFlight) == 0 {
		q.events, q.eventsDropped = nil, false
	}
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

// Move moves the unschedulable pods a cluster change may help to the
// active queue (or to backoff while their backoff lasts).
func (q *podQueue) Move(e clusterEvent) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.inFlight) > 0 {
		if len(q.events) < maxEventLog {
			q.events = append(q.events, e)
		} else {
			q.eventsDropped = true
		}
	}
	for uid, qp := range q.unsched {
		if e.helps(qp.rejectors) {
			delete(q.unsched, uid)
			q.backoff[uid] = qp
		}
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
