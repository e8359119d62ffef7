package controllers

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/fakeplane/fakeplane/store"
)

// TestDaemonSetKeepsEveryReadyWakeup: each pod of a set with
// minReadySeconds that turns ready wakes the set a second after its
// minReadySeconds, and a later wake-up is kept beside an earlier one that
// is still waiting (upstream's queue drops it, which stalled surging
// rollouts); a wake-up that has come is forgotten.
func TestDaemonSetKeepsEveryReadyWakeup(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	c := NewDaemonSet(nil, func() time.Time { return now }, nil)
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "default", UID: "ds-uid"},
		Spec: appsv1.DaemonSetSpec{MinReadySeconds: 2}}
	if err := c.observe(objectEvent(t, store.Added, daemonSetsBucket, ds)); err != nil {
		t.Fatal(err)
	}
	pod := func(name string, ready bool) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name),
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(ds, daemonSetKind)}}}
		if ready {
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
		}
		return p
	}
	turnReady := func(name string) {
		t.Helper()
		for _, ready := range []bool{false, true} {
			if err := c.observe(objectEvent(t, store.Modified, podsBucket, pod(name, ready))); err != nil {
				t.Fatal(err)
			}
		}
	}
	turnReady("old")
	now = now.Add(2 * time.Second)
	turnReady("new")
	for _, step := range []struct {
		advance time.Duration
		want    time.Duration
	}{
		{0, time.Second},               // the old pod's, 3 s after it turned ready
		{time.Second, 2 * time.Second}, // then the new pod's, not dropped
		{2 * time.Second, 0},           // none left
	} {
		now = now.Add(step.advance)
		if got := c.nextReadyWakeup("default/agent"); got != step.want {
			t.Fatalf("after %v more: next wake-up in %v, want %v", step.advance, got, step.want)
		}
	}
	if len(c.readyWakeups) != 0 {
		t.Errorf("wake-ups left: %v", c.readyWakeups)
	}
}
