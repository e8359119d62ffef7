package fakeplane_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"

	"github.com/fakeplane/fakeplane"
)

// failedSchedulingCount counts a pod's FailedScheduling occurrences: the
// events about it, each with its series' count when it has one.
func failedSchedulingCount(ctx context.Context, client kubernetes.Interface, pod string) (int, error) {
	list, err := client.EventsV1().Events("default").List(ctx, metav1.ListOptions{
		FieldSelector: fields.Set{"regarding.name": pod, "reason": "FailedScheduling"}.String(),
	})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, ev := range list.Items {
		if ev.Series != nil && ev.Series.Count > 1 {
			n += int(ev.Series.Count)
		} else {
			n++
		}
	}
	return n, nil
}

// TestSchedulerQueueingHintsSkipUnrelatedPods follows a run recorded
// against kube-scheduler v1.37.2 (refplane, kwok node node-0): a pod with
// a required affinity to app=nothere and a pod spread over zones (a label
// the node lacks) each get one FailedScheduling; binding an unrelated pod
// (app=anchor) retries neither, since the InterPodAffinity and
// PodTopologySpread queueing hints find it matches neither the affinity
// term nor the spread selector; a pod matching the affinity term, once
// bound, gets the affinity pod scheduled.
func TestSchedulerQueueingHintsSkipUnrelatedPods(t *testing.T) {
	cp := fakeplane.Start(t, fakeplane.WithNodes(1))
	client := kubernetes.NewForConfigOrDie(cp.RESTConfig())
	ctx := context.Background()

	aff := pausePod("aff", "", "")
	aff.Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "nothere"}},
			TopologyKey:   corev1.LabelHostname,
		}},
	}}
	spread := pausePod("spread", "", "")
	spread.Labels = map[string]string{"app": "spread"}
	spread.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{
		MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.DoNotSchedule,
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "spread"}},
	}}
	for _, p := range []*corev1.Pod{aff, spread} {
		if _, err := client.CoreV1().Pods("default").Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// The messages are kube-scheduler's for one node (upstream source and
	// the recorded run, which had other, tainted nodes besides).
	wants := map[string]string{
		"aff":    "0/1 nodes are available: 1 node(s) didn't match pod affinity rules. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
		"spread": "0/1 nodes are available: 1 node(s) didn't match pod topology spread constraints (missing required label). preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
	}
	for name, want := range wants {
		if ev := waitEvent(t, client, name, "FailedScheduling"); ev.Note != want {
			t.Errorf("%s: FailedScheduling note %q, want %q", name, ev.Note, want)
		}
	}

	anchor := pausePod("anchor", "", "")
	anchor.Labels = map[string]string{"app": "anchor"}
	if _, err := client.CoreV1().Pods("default").Create(ctx, anchor, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitPod(t, client, "anchor", func(p *corev1.Pod) bool { return p.Spec.NodeName != "" })

	// Past the first backoff (1s) twice over, neither pod was retried: each
	// still has its one FailedScheduling.
	keepOneFailure(t, client, 3*time.Second, "aff", "spread")

	// A pod the affinity term selects: once it is bound, the hint queues
	// the waiting pod, which joins it on node-0.
	match := pausePod("match", "", "")
	match.Labels = map[string]string{"app": "nothere"}
	if _, err := client.CoreV1().Pods("default").Create(ctx, match, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	p := waitPod(t, client, "aff", func(p *corev1.Pod) bool { return p.Spec.NodeName != "" })
	if p.Spec.NodeName != "node-0" {
		t.Errorf("aff bound to %q, want node-0", p.Spec.NodeName)
	}
	if c := scheduledCondition(p); c == nil || c.Status != corev1.ConditionTrue {
		t.Errorf("aff's PodScheduled = %+v, want True", c)
	}
	// The spread pod's selector does not match the new pod either.
	keepOneFailure(t, client, 2*time.Second, "spread")
}

// keepOneFailure checks, for d, that each pod keeps exactly one
// FailedScheduling occurrence.
func keepOneFailure(t *testing.T, client kubernetes.Interface, d time.Duration, pods ...string) {
	t.Helper()
	ctx := context.Background()
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		for _, name := range pods {
			n, err := failedSchedulingCount(ctx, client, name)
			if err != nil {
				t.Fatal(err)
			}
			if n != 1 {
				t.Fatalf("%s has %d FailedScheduling events, want 1: kube-scheduler's queueing hints do not retry it", name, n)
			}
		}
	}
}
