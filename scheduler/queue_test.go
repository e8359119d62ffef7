package scheduler

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
)

// fakeClock is a clock tests move by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

// newTestQueue is the queue of a scheduler with the default profile (its
// PreEnqueue plugins and queueing hints), on clock.
func newTestQueue(t *testing.T, clock *fakeClock) *podQueue {
	t.Helper()
	s, err := New(nil, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.queue.now = clock.now
	return s.queue
}

// withAffinityTo gives a pod a required pod affinity to pods labelled
// app=value, per node.
func withAffinityTo(value string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": value}},
				TopologyKey:   corev1.LabelHostname,
			}},
		}}
	}
}

// added is the event of an assigned pod's addition.
func added(p *corev1.Pod) clusterEvent {
	return clusterEvent{resource: resAssignedPod, action: actAdd, newObj: p}
}

// deleted is the event of an assigned pod's deletion.
func deleted(p *corev1.Pod) clusterEvent {
	return clusterEvent{resource: resAssignedPod, action: actDelete, oldObj: p}
}

// nodeAdded is the event of a node's addition.
func nodeAdded(n *corev1.Node) clusterEvent {
	return clusterEvent{resource: resNode, action: actAdd, newObj: n}
}

func TestQueuePopsByPriorityThenAge(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1000, 0)}
	q := newTestQueue(t, clock)
	low, high, older := testPod("", priority(1)), testPod("", priority(10)), testPod("", priority(1))
	q.Add(older)
	clock.t = clock.t.Add(time.Second)
	q.Add(low)
	q.Add(high)
	for _, want := range []*corev1.Pod{high, older, low} {
		if got := q.Pop(); got.pod.UID != want.UID {
			t.Errorf("popped %s, want %s", got.pod.Name, want.Name)
		}
	}
}

func TestQueueRetriesWhenARejectorsHintSaysAnEventHelps(t *testing.T) {
	relabelled := testNode("n1", 4, 110, map[string]string{"disk": "ssd"})
	before := testNode("n1", 4, 110, nil)
	for _, tc := range []struct {
		name      string
		pod       *corev1.Pod
		rejectors sets.Set[string]
		event     clusterEvent
		requeued  bool
	}{
		{"a deleted bound pod frees resources", testPod("1"), sets.New(NodeResourcesFit), deleted(testPod("1", on("n1"))), true},
		{"a new bound pod frees none", testPod("1"), sets.New(NodeResourcesFit), added(testPod("1", on("n1"))), false},
		{"a new bound pod matching the affinity term helps", testPod("", withAffinityTo("db")), sets.New(InterPodAffinity), added(testPod("", on("n1"), labelled("app", "db"))), true},
		{"a new bound pod matching no affinity term does not", testPod("", withAffinityTo("db")), sets.New(InterPodAffinity), added(testPod("", on("n1"), labelled("app", "anchor"))), false},
		{"a new untainted node helps a pod rejected for taints", testPod(""), sets.New(TaintToleration), nodeAdded(testNode("n2", 4, 110, nil)), true},
		{"a node relabelled to match the selector helps node affinity", testPod("", func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{"disk": "ssd"} }),
			sets.New(NodeAffinity), clusterEvent{resource: resNode, action: actUpdateNodeLabel, oldObj: before, newObj: relabelled}, true},
		{"a node event no rejector registered does not help", testPod(""), sets.New(NodeAffinity),
			clusterEvent{resource: resNode, action: actUpdateNodeAnnotation, oldObj: before, newObj: before}, false},
		{"any event helps a pod rejected by no plugin", testPod(""), nil, added(testPod("", on("n1"))), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := &fakeClock{t: time.Unix(1000, 0)}
			q := newTestQueue(t, clock)
			q.Add(tc.pod)
			qp := q.Pop()
			// Rejected by a plugin, so that it waits; then the case's
			// rejectors stand in (Done backs a pod rejected by none off
			// at once, so such a pod rarely waits).
			q.Done(qp, true, sets.New(NodePorts))
			qp.rejectors = tc.rejectors
			q.Move(tc.event)
			clock.t = clock.t.Add(2 * time.Second) // past the first backoff
			q.Flush()
			if got := len(q.active) == 1; got != tc.requeued {
				t.Errorf("requeued %v, want %v", got, tc.requeued)
			}
		})
	}
}

func TestQueueChecksEventsDuringAnAttemptWithTheRejectorsHints(t *testing.T) {
	for _, tc := range []struct {
		name      string
		rejectors sets.Set[string]
		during    []clusterEvent
		backsOff  bool
	}{
		{"an unrelated bound pod leaves the pod waiting", sets.New(InterPodAffinity), []clusterEvent{added(testPod("", on("n1"), labelled("app", "anchor")))}, false},
		{"a matching bound pod backs it off", sets.New(InterPodAffinity), []clusterEvent{added(testPod("", on("n1"), labelled("app", "anchor"))), added(testPod("", on("n1"), labelled("app", "db")))}, true},
		{"an error backs it off without any event", nil, nil, true},
		{"a rejection without events leaves it waiting", sets.New(InterPodAffinity), nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := newTestQueue(t, &fakeClock{t: time.Unix(1000, 0)})
			q.Add(testPod("", withAffinityTo("db")))
			qp := q.Pop()
			for _, e := range tc.during {
				q.Move(e)
			}
			q.Done(qp, true, tc.rejectors)
			if got := q.backoff[qp.pod.UID] != nil; got != tc.backsOff {
				t.Errorf("backing off %v, want %v (waiting %v)", got, tc.backsOff, q.unsched[qp.pod.UID] != nil)
			}
			if len(q.events) != 0 {
				t.Errorf("%d events kept with no pod in flight", len(q.events))
			}
		})
	}
}

func TestQueueAsksTheRejectorsHintsWhenAWaitingPodIsUpdated(t *testing.T) {
	for _, tc := range []struct {
		name      string
		pod       *corev1.Pod
		rejectors sets.Set[string]
		update    func(*corev1.Pod)
		requeued  bool
	}{
		{"new labels may escape other pods' anti-affinity", testPod(""), sets.New(InterPodAffinity), labelled("tier", "web"), true},
		{"new labels do not free resources", testPod("1"), sets.New(NodeResourcesFit), labelled("tier", "web"), false},
		{"a toleration may tolerate a taint", testPod(""), sets.New(TaintToleration),
			func(p *corev1.Pod) {
				p.Spec.Tolerations = []corev1.Toleration{{Key: "k", Operator: corev1.TolerationOpExists}}
			}, true},
		{"a status change is no scheduling change", testPod(""), sets.New(InterPodAffinity),
			func(p *corev1.Pod) { p.Status.Message = "changed" }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := &fakeClock{t: time.Unix(1000, 0)}
			q := newTestQueue(t, clock)
			q.Add(tc.pod)
			q.Done(q.Pop(), true, tc.rejectors)
			clock.t = clock.t.Add(2 * time.Second)
			cur := tc.pod.DeepCopy()
			tc.update(cur)
			q.Update(tc.pod, cur)
			if got := len(q.active) == 1; got != tc.requeued {
				t.Errorf("requeued %v, want %v", got, tc.requeued)
			}
		})
	}
}

func TestQueueMovesOnlyThePodsAnEventIsLimitedTo(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1000, 0)}
	q := newTestQueue(t, clock)
	low, high := testPod("1", priority(1)), testPod("1", priority(100))
	for _, p := range []*corev1.Pod{low, high} {
		q.Add(p)
		q.Done(q.Pop(), true, sets.New(NodeResourcesFit))
	}
	clock.t = clock.t.Add(2 * time.Second)
	nominated := testPod("1", priority(10), func(p *corev1.Pod) { p.Status.NominatedNodeName = "n1" })
	q.Move(clusterEvent{resource: resAssignedPod, action: actDelete, oldObj: nominated, only: upToPriority(nominated)})
	if len(q.active) != 1 || q.active[0].pod.UID != low.UID {
		t.Errorf("active %d pods, want only the lower-priority one", len(q.active))
	}
}

func TestQueueBackoffDoublesUpToTheMaximum(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1000, 0)}
	q := newTestQueue(t, clock)
	qp := &queuedPod{}
	for attempts, want := range map[int]time.Duration{1: time.Second, 2: 2 * time.Second, 3: 4 * time.Second, 4: 8 * time.Second, 5: 10 * time.Second, 9: 10 * time.Second} {
		qp.attempts = attempts
		if got := q.backoffFor(qp); got != want {
			t.Errorf("attempt %d: backoff %v, want %v", attempts, got, want)
		}
	}
}

func TestQueueHoldsGatedPodsUntilTheirGatesGo(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1000, 0)}
	q := newTestQueue(t, clock)
	p := testPod("", func(p *corev1.Pod) {
		p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "g1"}, {Name: "g2"}}
	})
	q.Add(p)
	if len(q.active) != 0 || len(q.gated) != 1 {
		t.Fatalf("active %d gated %d, want the pod gated", len(q.active), len(q.gated))
	}
	q.Move(nodeAdded(testNode("n2", 4, 110, nil)))
	if len(q.active) != 0 {
		t.Fatal("a cluster change released a gated pod")
	}
	oneLeft := p.DeepCopy()
	oneLeft.Spec.SchedulingGates = oneLeft.Spec.SchedulingGates[1:]
	q.Update(p, oneLeft)
	if len(q.active) != 0 {
		t.Fatal("removing one of two gates queued the pod")
	}
	ungated := oneLeft.DeepCopy()
	ungated.Spec.SchedulingGates = nil
	q.Update(oneLeft, ungated)
	if len(q.active) != 1 {
		t.Error("removing the gates did not queue the pod")
	}
}
