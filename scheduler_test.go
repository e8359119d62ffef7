package fakeplane_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/fakeplane/fakeplane"
)

// pausePod is a pod with one container asking for cpu (none when "").
func pausePod(name, schedulerName, cpu string) *corev1.Pod {
	c := corev1.Container{Name: "pause", Image: "registry.k8s.io/pause:3.10"}
	if cpu != "" {
		c.Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec:       corev1.PodSpec{SchedulerName: schedulerName, Containers: []corev1.Container{c}},
	}
}

// waitPod polls a pod until cond holds.
func waitPod(t *testing.T, client kubernetes.Interface, name string, cond func(*corev1.Pod) bool) *corev1.Pod {
	t.Helper()
	var last *corev1.Pod
	err := wait.PollUntilContextTimeout(context.Background(), 20*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		p, err := client.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		last = p
		return cond(p), nil
	})
	if err != nil {
		t.Fatalf("pod %s: %v; last seen: nodeName=%q conditions=%+v", name, err, last.Spec.NodeName, last.Status.Conditions)
	}
	return last
}

// waitEvent polls events.k8s.io/v1 for an event about a pod with reason.
func waitEvent(t *testing.T, client kubernetes.Interface, pod, reason string) eventsv1.Event {
	t.Helper()
	var found eventsv1.Event
	err := wait.PollUntilContextTimeout(context.Background(), 20*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		list, err := client.EventsV1().Events("default").List(ctx, metav1.ListOptions{
			FieldSelector: fields.Set{"regarding.name": pod, "reason": reason}.String(),
		})
		if err != nil {
			return false, err
		}
		if len(list.Items) > 0 {
			found = list.Items[0]
			return true, nil
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("no %s event for pod %s: %v", reason, pod, err)
	}
	return found
}

func scheduledCondition(p *corev1.Pod) *corev1.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == corev1.PodScheduled {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

func TestSchedulerBindsPodsToSimulatedNodes(t *testing.T) {
	cp := fakeplane.Start(t, fakeplane.WithNodes(3))
	client := kubernetes.NewForConfigOrDie(cp.RESTConfig())
	ctx := context.Background()

	nodes, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes.Items) != 3 {
		t.Fatalf("got %d nodes, want 3", len(nodes.Items))
	}
	for _, n := range nodes.Items {
		ready := false
		for _, c := range n.Status.Conditions {
			if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue && c.Reason == "KubeletReady" {
				ready = true
			}
		}
		if !ready {
			t.Errorf("node %s is not Ready: %+v", n.Name, n.Status.Conditions)
		}
		if _, err := client.CoordinationV1().Leases("kube-node-lease").Get(ctx, n.Name, metav1.GetOptions{}); err != nil {
			t.Errorf("lease of node %s: %v", n.Name, err)
		}
	}

	if _, err := client.CoreV1().Pods("default").Create(ctx, pausePod("web", "", "100m"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	p := waitPod(t, client, "web", func(p *corev1.Pod) bool { return p.Spec.NodeName != "" })
	if c := scheduledCondition(p); c == nil || c.Status != corev1.ConditionTrue {
		t.Errorf("PodScheduled = %+v, want True", c)
	}
	ev := waitEvent(t, client, "web", "Scheduled")
	if want := fmt.Sprintf("Successfully assigned default/web to %s", p.Spec.NodeName); ev.Note != want {
		t.Errorf("note = %q, want %q", ev.Note, want)
	}
	if ev.ReportingController != "default-scheduler" || ev.Type != corev1.EventTypeNormal || ev.Action != "Binding" {
		t.Errorf("event = controller %q type %q action %q", ev.ReportingController, ev.Type, ev.Action)
	}
	var lease *coordinationv1.Lease
	if lease, err = client.CoordinationV1().Leases("kube-system").Get(ctx, "kube-scheduler", metav1.GetOptions{}); err != nil {
		t.Fatalf("scheduler lease: %v", err)
	}
	if lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity == "" {
		t.Errorf("lease holder = %v", lease.Spec.HolderIdentity)
	}
	_ = apierrors.IsNotFound
}

func TestUnschedulablePodIsReportedAndRetriedWhenANodeIsAdded(t *testing.T) {
	cp := fakeplane.Start(t, fakeplane.WithNodes(2))
	client := kubernetes.NewForConfigOrDie(cp.RESTConfig())
	ctx := context.Background()

	if _, err := client.CoreV1().Pods("default").Create(ctx, pausePod("big", "", "64"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The message is kube-scheduler's FitError (text from upstream source,
	// v1.37.2): no simulated node has 64 cpu at all, so preemption cannot
	// help.
	const want = "0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."
	p := waitPod(t, client, "big", func(p *corev1.Pod) bool {
		c := scheduledCondition(p)
		return c != nil && c.Status == corev1.ConditionFalse
	})
	if c := scheduledCondition(p); c.Reason != corev1.PodReasonUnschedulable || c.Message != want || c.ObservedGeneration != p.Generation {
		t.Errorf("PodScheduled = %s %q (observed generation %d), want Unschedulable %q for generation %d", c.Reason, c.Message, c.ObservedGeneration, want, p.Generation)
	}
	ev := waitEvent(t, client, "big", "FailedScheduling")
	if ev.Type != corev1.EventTypeWarning || ev.Action != "Scheduling" || ev.Note != want || ev.ReportingController != "default-scheduler" {
		t.Errorf("FailedScheduling event: type %q action %q controller %q note %q", ev.Type, ev.Action, ev.ReportingController, ev.Note)
	}

	// A node a user adds with kwok's annotation is simulated: it becomes
	// Ready, gets a Lease, and the pending pod is retried onto it.
	big := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "big-node", Annotations: map[string]string{"kwok.x-k8s.io/node": "fake"}, Labels: map[string]string{corev1.LabelHostname: "big-node"}},
		Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("128"), corev1.ResourceMemory: resource.MustParse("512Gi"), corev1.ResourcePods: resource.MustParse("110")},
			Capacity: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("128"), corev1.ResourceMemory: resource.MustParse("512Gi"), corev1.ResourcePods: resource.MustParse("110")}},
	}
	if _, err := client.CoreV1().Nodes().Create(ctx, big, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	p = waitPod(t, client, "big", func(p *corev1.Pod) bool { return p.Spec.NodeName != "" })
	if p.Spec.NodeName != "big-node" {
		t.Errorf("bound to %q, want big-node", p.Spec.NodeName)
	}
	if c := scheduledCondition(p); c == nil || c.Status != corev1.ConditionTrue {
		t.Errorf("PodScheduled = %+v, want True", c)
	}
	n, err := client.CoreV1().Nodes().Get(ctx, "big-node", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ready := false
	for _, c := range n.Status.Conditions {
		ready = ready || c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue
	}
	if !ready || n.Status.NodeInfo.KubeletVersion == "" {
		t.Errorf("big-node status: conditions %+v nodeInfo %+v", n.Status.Conditions, n.Status.NodeInfo)
	}
	if _, err := client.CoordinationV1().Leases("kube-node-lease").Get(ctx, "big-node", metav1.GetOptions{}); err != nil {
		t.Errorf("big-node's lease: %v", err)
	}
}

func TestPodOfAnUnknownSchedulerIsLeftAlone(t *testing.T) {
	cp := fakeplane.Start(t, fakeplane.WithNodes(1))
	client := kubernetes.NewForConfigOrDie(cp.RESTConfig())
	ctx := context.Background()
	if _, err := client.CoreV1().Pods("default").Create(ctx, pausePod("orphan", "nobody", ""), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The scheduler sees pods in the order they were created: once the
	// second pod is bound, it has seen (and left) the first.
	if _, err := client.CoreV1().Pods("default").Create(ctx, pausePod("after", "", ""), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitPod(t, client, "after", func(p *corev1.Pod) bool { return p.Spec.NodeName != "" })
	waitEvent(t, client, "after", "Scheduled")
	p, err := client.CoreV1().Pods("default").Get(ctx, "orphan", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Spec.NodeName != "" || len(p.Status.Conditions) != 0 {
		t.Errorf("orphan: node %q conditions %+v, want neither", p.Spec.NodeName, p.Status.Conditions)
	}
	evs, err := client.EventsV1().Events("default").List(ctx, metav1.ListOptions{FieldSelector: "regarding.name=orphan"})
	if err != nil {
		t.Fatal(err)
	}
	if len(evs.Items) != 0 {
		t.Errorf("events about orphan: %+v", evs.Items)
	}
}

func TestSchedulingGatesHoldAPodUntilRemoved(t *testing.T) {
	cp := fakeplane.Start(t, fakeplane.WithNodes(1))
	client := kubernetes.NewForConfigOrDie(cp.RESTConfig())
	ctx := context.Background()
	gated := pausePod("gated", "", "")
	gated.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "example.com/quota"}}
	if _, err := client.CoreV1().Pods("default").Create(ctx, gated, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.CoreV1().Pods("default").Create(ctx, pausePod("ungated", "", ""), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitPod(t, client, "ungated", func(p *corev1.Pod) bool { return p.Spec.NodeName != "" })
	p, err := client.CoreV1().Pods("default").Get(ctx, "gated", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Spec.NodeName != "" {
		t.Fatalf("a gated pod was bound to %s", p.Spec.NodeName)
	}
	if c := scheduledCondition(p); c == nil || c.Status != corev1.ConditionFalse || c.Reason != corev1.PodReasonSchedulingGated {
		t.Errorf("gated pod's PodScheduled = %+v, want False SchedulingGated", c)
	}
	p.Spec.SchedulingGates = nil
	if _, err := client.CoreV1().Pods("default").Update(ctx, p, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitPod(t, client, "gated", func(p *corev1.Pod) bool { return p.Spec.NodeName != "" })
}

func TestPreemptionEvictsALowerPriorityPod(t *testing.T) {
	cp := fakeplane.Start(t, fakeplane.WithNodes(1))
	client := kubernetes.NewForConfigOrDie(cp.RESTConfig())
	ctx := context.Background()
	pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "high"}, Value: 1000}
	if _, err := client.SchedulingV1().PriorityClasses().Create(ctx, pc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.CoreV1().Pods("default").Create(ctx, pausePod("low", "", "30"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitPod(t, client, "low", func(p *corev1.Pod) bool { return p.Spec.NodeName != "" })
	high := pausePod("high", "", "30")
	high.Spec.PriorityClassName = "high"
	created, err := client.CoreV1().Pods("default").Create(ctx, high, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := waitPod(t, client, "high", func(p *corev1.Pod) bool { return p.Spec.NodeName != "" })
	if p.Spec.NodeName != "node-0" {
		t.Errorf("high bound to %q, want node-0", p.Spec.NodeName)
	}
	if _, err := client.CoreV1().Pods("default").Get(ctx, "low", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the victim is still there: %v", err)
	}
	ev := waitEvent(t, client, "high", "FailedScheduling")
	const want = "0/1 nodes are available: 1 Insufficient cpu. preemption: found a potential placement for pod on node node-0, preempting 1 victims"
	if ev.Note != want {
		t.Errorf("preemptor's FailedScheduling note %q, want %q", ev.Note, want)
	}
	pre := waitEvent(t, client, "low", "Preempted")
	// As kube-scheduler's, it names no related object (recorded from
	// refplane).
	if wantNote := fmt.Sprintf("Preempted by pod %s on node node-0", created.UID); pre.Note != wantNote || pre.Related != nil {
		t.Errorf("Preempted event: note %q related %+v, want %q without a related object", pre.Note, pre.Related, wantNote)
	}
}

// runtimeRaw wraps plugin args as a pluginConfig entry holds them.
func runtimeRaw(o runtime.Object) runtime.RawExtension { return runtime.RawExtension{Object: o} }

func TestNoNodesIsASchedulerError(t *testing.T) {
	cp := fakeplane.Start(t, fakeplane.WithScheduler(nil))
	client := kubernetes.NewForConfigOrDie(cp.RESTConfig())
	if _, err := client.CoreV1().Pods("default").Create(context.Background(), pausePod("lonely", "", ""), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// kube-scheduler's ErrNoNodesAvailable (upstream source, v1.37.2).
	p := waitPod(t, client, "lonely", func(p *corev1.Pod) bool { return scheduledCondition(p) != nil })
	if c := scheduledCondition(p); c.Status != corev1.ConditionFalse || c.Reason != corev1.PodReasonSchedulerError || c.Message != "no nodes available to schedule pods" {
		t.Errorf("PodScheduled = %+v", c)
	}
	if ev := waitEvent(t, client, "lonely", "FailedScheduling"); ev.Note != "no nodes available to schedule pods" {
		t.Errorf("FailedScheduling note %q", ev.Note)
	}
}

func TestSchedulerRecordsBecomingLeader(t *testing.T) {
	cp := fakeplane.Start(t, fakeplane.WithNodes(1))
	client := kubernetes.NewForConfigOrDie(cp.RESTConfig())
	// A core/v1 event, from kube-scheduler's legacy recorder.
	var found *corev1.Event
	err := wait.PollUntilContextTimeout(context.Background(), 20*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		list, err := client.CoreV1().Events("kube-system").List(ctx, metav1.ListOptions{FieldSelector: "reason=LeaderElection"})
		if err != nil || len(list.Items) == 0 {
			return false, err
		}
		found = &list.Items[0]
		return true, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	lease, err := client.CoordinationV1().Leases("kube-system").Get(context.Background(), "kube-scheduler", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := *lease.Spec.HolderIdentity + " became leader"; found.Message != want || found.InvolvedObject.Kind != "Lease" || found.InvolvedObject.Name != "kube-scheduler" || found.Source.Component != "default-scheduler" {
		t.Errorf("event: message %q about %+v from %q; want %q about the Lease from default-scheduler", found.Message, found.InvolvedObject, found.Source.Component, want)
	}
}
