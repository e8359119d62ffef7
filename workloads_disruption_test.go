package fakeplane_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/fakeplane/fakeplane"
)

// A PodDisruptionBudget's status counts its pods as the disruption
// controller does: an integer minAvailable expects the pods there are; a
// percentage or maxUnavailable expects the replicas of their Deployment.
func TestPodDisruptionBudgetStatus(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	startTestKubelet(t, cp, nil)
	if _, err := cs.AppsV1().Deployments("default").Create(ctx, webDeployment("web", 3, "nginx"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitRolledOut(t, cs, "default", "web")
	for _, tc := range []struct {
		name                               string
		spec                               policyv1.PodDisruptionBudgetSpec
		expected, desired, healthy, allows int32
		reason                             string
	}{
		{"minAvailable 2", policyv1.PodDisruptionBudgetSpec{MinAvailable: ptrIntStr(intstr.FromInt32(2))}, 3, 2, 3, 1, "SufficientPods"},
		{"minAvailable 3", policyv1.PodDisruptionBudgetSpec{MinAvailable: ptrIntStr(intstr.FromInt32(3))}, 3, 3, 3, 0, "InsufficientPods"},
		{"minAvailable 50%", policyv1.PodDisruptionBudgetSpec{MinAvailable: ptrIntStr(intstr.FromString("50%"))}, 3, 2, 3, 1, "SufficientPods"},
		{"maxUnavailable 50%", policyv1.PodDisruptionBudgetSpec{MaxUnavailable: ptrIntStr(intstr.FromString("50%"))}, 3, 1, 3, 2, "SufficientPods"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := tc.spec
			spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
			name := fmt.Sprintf("pdb-%d", len(tc.name)+int(tc.desired)*100+int(tc.allows)*1000)
			pdb := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: spec}
			if _, err := cs.PolicyV1().PodDisruptionBudgets("default").Create(ctx, pdb, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			var got *policyv1.PodDisruptionBudget
			waitWorkload(t, "status of "+name, func() (bool, string) {
				var err error
				got, err = cs.PolicyV1().PodDisruptionBudgets("default").Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					return false, err.Error()
				}
				return got.Status.ObservedGeneration == got.Generation && len(got.Status.Conditions) == 1, fmt.Sprintf("%+v", got.Status)
			})
			st := got.Status
			if st.ExpectedPods != tc.expected || st.DesiredHealthy != tc.desired || st.CurrentHealthy != tc.healthy || st.DisruptionsAllowed != tc.allows {
				t.Errorf("status expected %d desired %d healthy %d allowed %d, want %d %d %d %d",
					st.ExpectedPods, st.DesiredHealthy, st.CurrentHealthy, st.DisruptionsAllowed, tc.expected, tc.desired, tc.healthy, tc.allows)
			}
			if c := st.Conditions[0]; c.Type != "DisruptionAllowed" || c.Reason != tc.reason {
				t.Errorf("condition %+v, want DisruptionAllowed %s", c, tc.reason)
			}
		})
	}

	// A pod with no controller under maxUnavailable: none are expected, no
	// disruption is allowed, and an event says why.
	orphan := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "orphan", Labels: map[string]string{"app": "lone"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
	if _, err := cs.CoreV1().Pods("default").Create(ctx, orphan, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pdb := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "lone"}, Spec: policyv1.PodDisruptionBudgetSpec{
		MaxUnavailable: ptrIntStr(intstr.FromInt32(1)), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "lone"}}}}
	if _, err := cs.PolicyV1().PodDisruptionBudgets("default").Create(ctx, pdb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitWorkload(t, "the unmanaged pod's budget", func() (bool, string) {
		got, err := cs.PolicyV1().PodDisruptionBudgets("default").Get(ctx, "lone", metav1.GetOptions{})
		if err != nil || len(got.Status.Conditions) == 0 {
			return false, fmt.Sprint(err)
		}
		c := got.Status.Conditions[0]
		return c.Reason == "InsufficientPods" && got.Status.ExpectedPods == 0 && got.Status.DisruptionsAllowed == 0, fmt.Sprintf("%+v", got.Status)
	})
	waitWorkload(t, "the UnmanagedPods event", func() (bool, string) {
		evs := eventsFor(t, cs, "default", "PodDisruptionBudget", "lone")
		for _, e := range evs {
			if e.Reason == "UnmanagedPods" && e.Type == corev1.EventTypeWarning {
				return true, ""
			}
		}
		return false, fmt.Sprintf("%d events", len(evs))
	})
}

func ptrIntStr(v intstr.IntOrString) *intstr.IntOrString { return &v }

// TestAPodInTwoDisruptionBudgetsCountsForOne checks kube-controller-manager's
// disruption controller with a pod two budgets select (recorded from
// refplane): the pod counts for one of them alone (upstream picks one
// arbitrarily; fakeplane the first by name) and gets a
// MultiplePodDisruptionBudgets warning naming it; the other budget, synced
// before the pod came, is not synced again for it.
func TestAPodInTwoDisruptionBudgetsCountsForOne(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}}
	for _, pdb := range []*policyv1.PodDisruptionBudget{
		{ObjectMeta: metav1.ObjectMeta{Name: "pdb-a"}, Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: ptrIntStr(intstr.FromInt32(1)), Selector: sel}},
		{ObjectMeta: metav1.ObjectMeta{Name: "pdb-b"}, Spec: policyv1.PodDisruptionBudgetSpec{MaxUnavailable: ptrIntStr(intstr.FromInt32(1)), Selector: sel}},
	} {
		if _, err := cs.PolicyV1().PodDisruptionBudgets("default").Create(ctx, pdb, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		waitWorkload(t, "first status of "+pdb.Name, func() (bool, string) {
			got, err := cs.PolicyV1().PodDisruptionBudgets("default").Get(ctx, pdb.Name, metav1.GetOptions{})
			if err != nil {
				return false, err.Error()
			}
			return got.Status.ObservedGeneration == 1, fmt.Sprintf("%+v", got.Status)
		})
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "px", Labels: map[string]string{"app": "x"}}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}
	if _, err := cs.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitWorkload(t, "the warning on the pod", func() (bool, string) {
		l, err := cs.CoreV1().Events("default").List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=px,reason=MultiplePodDisruptionBudgets"})
		if err != nil {
			return false, err.Error()
		}
		for _, ev := range l.Items {
			want := `Pod "default"/"px" matches multiple PodDisruptionBudgets.  Chose "pdb-a" arbitrarily.`
			if ev.Message != want || ev.Type != corev1.EventTypeWarning || ev.Source.Component != "controllermanager" {
				t.Errorf("event %s %q from %s, want Warning %q from controllermanager", ev.Type, ev.Message, ev.Source.Component, want)
			}
		}
		return len(l.Items) == 1, fmt.Sprint(len(l.Items), " events")
	})
	waitWorkload(t, "pdb-a counting the pod", func() (bool, string) {
		got, err := cs.PolicyV1().PodDisruptionBudgets("default").Get(ctx, "pdb-a", metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return got.Status.ExpectedPods == 1, fmt.Sprintf("%+v", got.Status)
	})
	b, err := cs.PolicyV1().PodDisruptionBudgets("default").Get(ctx, "pdb-b", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if b.Status.ExpectedPods != 0 || b.Status.CurrentHealthy != 0 {
		t.Errorf("pdb-b's status %+v, want it as synced before the pod (expected 0, healthy 0)", b.Status)
	}
}

// TestStaleDisruptionTargetConditionsAreReset: a pod that keeps a True
// DisruptionTarget condition for 2 minutes without being deleted gets it
// set False by the disruption controller, as kube-controller-manager's
// (refplane reset one without a lastTransitionTime at once). The kubelet's
// own condition, and a pod being deleted, are left alone.
func TestStaleDisruptionTargetConditionsAreReset(t *testing.T) {
	t.Parallel()
	clock := &stepClock{now: time.Now()}
	cp := fakeplane.Start(t, fakeplane.WithClock(clock.Now))
	cs := clientset(t, cp)
	ctx := ctxT(t)
	mark := func(name, reason string, since time.Time, finalizers ...string) {
		t.Helper()
		p, err := cs.CoreV1().Pods("default").Create(ctx, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Finalizers: finalizers},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue,
			Reason: reason, Message: "marked by the test", LastTransitionTime: metav1.NewTime(since)})
		if _, err := cs.CoreV1().Pods("default").UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	condition := func(name string) corev1.PodCondition {
		t.Helper()
		p, err := cs.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.DisruptionTarget {
				return c
			}
		}
		t.Fatalf("pod %s has no DisruptionTarget condition", name)
		return corev1.PodCondition{}
	}
	mark("long-ago", "EvictionByEvictionAPI", time.Time{})
	eventuallyT(t, "a condition without a time reset at once", func(context.Context) (bool, error) {
		return condition("long-ago").Status == corev1.ConditionFalse, nil
	})
	if c := condition("long-ago"); c.Reason != "" || c.Message != "" || c.ObservedGeneration != 1 || !c.LastTransitionTime.Time.Equal(clock.Now().Truncate(time.Second)) {
		t.Errorf("reset condition %+v; want False without reason or message, observedGeneration 1, now", c)
	}

	mark("recent", "EvictionByEvictionAPI", clock.Now())
	mark("kubelet", corev1.PodReasonTerminationByKubelet, clock.Now())
	mark("deleting", "EvictionByEvictionAPI", clock.Now(), "example.com/hold")
	if err := cs.CoreV1().Pods("default").Delete(ctx, "deleting", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(staleAfter - time.Second)
	time.Sleep(300 * time.Millisecond)
	if c := condition("recent"); c.Status != corev1.ConditionTrue {
		t.Fatalf("reset before 2 minutes: %+v", c)
	}
	clock.Advance(2 * time.Second)
	eventuallyT(t, "the recent condition reset after 2 minutes", func(context.Context) (bool, error) {
		return condition("recent").Status == corev1.ConditionFalse, nil
	})
	for _, name := range []string{"kubelet", "deleting"} {
		if c := condition(name); c.Status != corev1.ConditionTrue {
			t.Errorf("pod %s: condition reset: %+v", name, c)
		}
	}
	p, err := cs.CoreV1().Pods("default").Get(ctx, "deleting", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p.Finalizers = nil
	if _, err := cs.CoreV1().Pods("default").Update(ctx, p, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// staleAfter is kube-controller-manager's stalePodDisruptionTimeout.
const staleAfter = 2 * time.Minute
