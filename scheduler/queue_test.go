package scheduler

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
)

// fakeClock is a clock tests move by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func newTestQueue(clock *fakeClock) *podQueue {
	q := newPodQueue(time.Second, 10*time.Second, func(p *corev1.Pod) bool { return len(p.Spec.SchedulingGates) == 0 })
	q.now = clock.now
	return q
}

func TestQueuePopsByPriorityThenAge(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1000, 0)}
	q := newTestQueue(clock)
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

func TestQueueRetriesWhenAHelpfulChangeHappens(t *testing.T) {
	for _, tc := range []struct {
		name      string
		rejectors sets.Set[string]
		event     clusterEvent
		requeued  bool
	}{
		{"a freed node helps insufficient resources", sets.New(NodeResourcesFit), eventAssignedPodDelete, true},
		{"a new pod elsewhere does not", sets.New(NodeResourcesFit), eventAssignedPodAdd, false},
		{"a new pod may satisfy affinity", sets.New(InterPodAffinity), eventAssignedPodAdd, true},
		{"a new node helps everything", sets.New(TaintToleration), eventNodeAdd, true},
		{"a relabelled node helps node affinity", sets.New(NodeAffinity), clusterEvent{name: "NodeUpdate", plugins: sets.New(NodeAffinity)}, true},
		{"an error retries on any change", nil, eventAssignedPodAdd, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := &fakeClock{t: time.Unix(1000, 0)}
			q := newTestQueue(clock)
			q.Add(testPod(""))
			qp := q.Pop()
			q.Done(qp, true, tc.rejectors)
			q.Move(tc.event)
			clock.t = clock.t.Add(2 * time.Second) // past the first backoff
			q.Flush()
			if got := len(q.active) == 1; got != tc.requeued {
				t.Errorf("requeued %v, want %v", got, tc.requeued)
			}
		})
	}
}

func TestQueueBackoffDoublesUpToTheMaximum(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1000, 0)}
	q := newTestQueue(clock)
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
	q := newTestQueue(clock)
	p := testPod("", func(p *corev1.Pod) { p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "g"}} })
	q.Add(p)
	if len(q.active) != 0 || len(q.gated) != 1 {
		t.Fatalf("active %d gated %d, want the pod gated", len(q.active), len(q.gated))
	}
	q.Move(eventNodeAdd)
	if len(q.active) != 0 {
		t.Fatal("a cluster change released a gated pod")
	}
	ungated := p.DeepCopy()
	ungated.Spec.SchedulingGates = nil
	q.Update(ungated, true)
	if len(q.active) != 1 {
		t.Error("removing the gates did not queue the pod")
	}
}
