package fakeplane_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
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
