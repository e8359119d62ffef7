package fakeplane_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
)

// TestPodGCCollectsThePodsOfADeletedNode checks the pod garbage collector
// against what refplane's kube-controller-manager did: a pod bound to a
// node that was deleted is set Failed with the DisruptionTarget condition,
// as kube-controller-manager's status update, then deleted with no grace
// period, once 40 s have passed since a pass (every 20 s) found its node
// missing. A pod of a node that exists stays.
func TestPodGCCollectsThePodsOfADeletedNode(t *testing.T) {
	t.Parallel()
	clock := &stepClock{now: time.Now()}
	cp := fakeplane.Start(t, fakeplane.WithClock(clock.Now))
	cs := clientset(t, cp)
	ctx := ctxT(t)
	for _, name := range []string{"gone", "here"} {
		if _, err := cs.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	pod := func(name, node string) *corev1.Pod {
		t.Helper()
		p, err := cs.CoreV1().Pods("default").Create(ctx, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: corev1.PodSpec{NodeName: node, TerminationGracePeriodSeconds: ptr.To[int64](600),
				Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	orphan := pod("orphan", "gone")
	pod("stays", "here")
	w, err := cs.CoreV1().Pods("default").Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=orphan", ResourceVersion: orphan.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if err := cs.CoreV1().Nodes().Delete(ctx, "gone", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	exists := func(name string) bool { return podExists(t, cs, name) }
	// A pass finds the node missing; nothing goes within the quarantine.
	clock.Advance(20 * time.Second)
	time.Sleep(300 * time.Millisecond)
	if !exists("orphan") {
		t.Fatal("the pod went within 40 s of its node's deletion")
	}
	var gone bool
	for range 4 {
		clock.Advance(20 * time.Second)
		if err := pollUntil(ctx, time.Second, func() bool { return !exists("orphan") }); err == nil {
			gone = true
			break
		}
	}
	if !gone {
		t.Fatal("the pod of the deleted node was not collected in 100 s")
	}
	if !exists("stays") {
		t.Error("the pod of the node that exists was collected")
	}
	var failed, deleting *corev1.Pod
	for ev := range w.ResultChan() {
		p, ok := ev.Object.(*corev1.Pod)
		if !ok {
			t.Fatalf("watch: %v", ev.Object)
		}
		switch {
		case ev.Type == watch.Modified && p.DeletionTimestamp == nil && failed == nil:
			failed = p
		case ev.Type == watch.Modified && p.DeletionTimestamp != nil:
			deleting = p
		}
		if ev.Type == watch.Deleted {
			break
		}
	}
	if failed == nil || deleting == nil {
		t.Fatalf("watch: status update %v, delete %v; want both before the pod went", failed != nil, deleting != nil)
	}
	if failed.Status.Phase != corev1.PodFailed || failed.Status.ObservedGeneration != 1 {
		t.Errorf("status: phase %s, observedGeneration %d; want Failed, 1", failed.Status.Phase, failed.Status.ObservedGeneration)
	}
	var cond *corev1.PodCondition
	for i := range failed.Status.Conditions {
		if failed.Status.Conditions[i].Type == corev1.DisruptionTarget {
			cond = &failed.Status.Conditions[i]
		}
	}
	if cond == nil || cond.Status != corev1.ConditionTrue || cond.Reason != "DeletionByPodGC" || cond.Message != "PodGC: node no longer exists" || cond.ObservedGeneration != 1 {
		t.Errorf("DisruptionTarget condition %+v", cond)
	}
	// refplane's, but for the conditions list itself ("."), which this
	// pod, with no kubelet to give it conditions, did not have before.
	const wantFields = `{"f:status":{"f:conditions":{".":{},"k:{\"type\":\"DisruptionTarget\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:message":{},"f:observedGeneration":{},"f:reason":{},"f:status":{},"f:type":{}}},"f:observedGeneration":{},"f:phase":{}}}`
	if got := fieldsByManager(failed.ManagedFields)["kube-controller-manager status"]; got != wantFields {
		t.Errorf("kube-controller-manager's status fields\n%s\nwant\n%s", got, wantFields)
	}
	if ptr.Deref(deleting.DeletionGracePeriodSeconds, -1) != 0 {
		t.Errorf("deleted with grace period %v, want 0", deleting.DeletionGracePeriodSeconds)
	}
}

// podExists reports whether the pod default/name exists.
func podExists(t *testing.T, cs kubernetes.Interface, name string) bool {
	t.Helper()
	_, err := cs.CoreV1().Pods("default").Get(ctxT(t), name, metav1.GetOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	return err == nil
}

// pollUntil polls cond every 10 ms until it holds or d has passed.
func pollUntil(ctx context.Context, d time.Duration, cond func() bool) error {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	for !cond() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
	return nil
}
