package fakeplane_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	"github.com/fakeplane/fakeplane"
)

// TestPreemptionSparesPodsADisruptionBudgetProtects reproduces what a real
// kube-scheduler v1.37.2 with kube-controller-manager did on refplane
// (kwok node, 2026-11-28): three low-priority pods a, b and c (priorities
// -80, -90, -100, each started once the one before ran; the same victims
// with equal priorities and a the oldest) fill the node, a budget's status
// is reported by the disruption controller, then a pod of priority -50
// needs the room of one of them. The budget decides which one is
// preempted: without it c; with minAvailable 1 on c, b; with minAvailable
// 2 over all three (one disruption allowed, spent on the most important
// pod), a; with maxUnavailable 0 over all three (no disruption allowed,
// every choice violates it), still c.
func TestPreemptionSparesPodsADisruptionBudgetProtects(t *testing.T) {
	all := map[string]string{"app": "pdbp"}
	for _, tc := range []struct {
		name string
		// spec is the budget (nil: none); its status must reach
		// expectedPods and disruptionsAllowed before the preemptor comes.
		spec                  *policyv1.PodDisruptionBudgetSpec
		expectedPods, allowed int32
		wantVictim            string
	}{
		{name: "without a budget the least important pod goes", wantVictim: "c"},
		{
			name:         "a budget allowing no disruption spares the pod that would go",
			spec:         &policyv1.PodDisruptionBudgetSpec{MinAvailable: ptrIntStr(intstr.FromInt32(1)), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"name": "c"}}},
			expectedPods: 1, allowed: 0, wantVictim: "b",
		},
		{
			name:         "a budget allowing one disruption spends it on the most important pod",
			spec:         &policyv1.PodDisruptionBudgetSpec{MinAvailable: ptrIntStr(intstr.FromInt32(2)), Selector: &metav1.LabelSelector{MatchLabels: all}},
			expectedPods: 3, allowed: 1, wantVictim: "a",
		},
		{
			name: "when every choice violates a budget the least important pod still goes",
			// Bare pods under maxUnavailable: the disruption controller
			// finds no controller, expects none and allows nothing.
			spec:         &policyv1.PodDisruptionBudgetSpec{MaxUnavailable: ptrIntStr(intstr.FromInt32(0)), Selector: &metav1.LabelSelector{MatchLabels: all}},
			expectedPods: 0, allowed: 0, wantVictim: "c",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cp := fakeplane.Start(t, fakeplane.WithNodes(1))
			client := kubernetes.NewForConfigOrDie(cp.RESTConfig())
			ctx := context.Background()
			for name, value := range map[string]int32{"pdbp-a": -80, "pdbp-b": -90, "pdbp-c": -100, "pdbp-high": -50} {
				pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: value}
				if _, err := client.SchedulingV1().PriorityClasses().Create(ctx, pc, metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			for _, name := range []string{"a", "b", "c"} {
				p := pausePod(name, "", "10")
				p.Labels = map[string]string{"app": "pdbp", "name": name}
				p.Spec.PriorityClassName = "pdbp-" + name
				if _, err := client.CoreV1().Pods("default").Create(ctx, p, metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
				waitPod(t, client, name, func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
			}
			if tc.spec != nil {
				waitDisruptionBudget(t, cp, client, *tc.spec, tc.expectedPods, tc.allowed)
			}

			// Watch the pods from here on: the victim is marked, then gone.
			list, err := client.CoreV1().Pods("default").List(ctx, metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			w, err := client.CoreV1().Pods("default").Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()

			high := pausePod("high", "", "10")
			high.Spec.PriorityClassName = "pdbp-high"
			created, err := client.CoreV1().Pods("default").Create(ctx, high, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if p := waitPod(t, client, "high", func(p *corev1.Pod) bool { return p.Spec.NodeName != "" }); p.Spec.NodeName != "node-0" {
				t.Errorf("high bound to %q, want node-0", p.Spec.NodeName)
			}

			marked := disruptionTargetsSeen(t, w, tc.wantVictim)
			if want := []string{tc.wantVictim}; !slices.Equal(marked, want) {
				t.Errorf("pods marked DisruptionTarget by the scheduler: %v, want %v", marked, want)
			}
			for _, name := range []string{"a", "b", "c"} {
				_, err := client.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{})
				switch {
				case name == tc.wantVictim && !apierrors.IsNotFound(err):
					t.Errorf("victim %s: %v, want it deleted", name, err)
				case name != tc.wantVictim && err != nil:
					t.Errorf("pod %s was not to be preempted: %v", name, err)
				}
			}
			pre := waitEvent(t, client, tc.wantVictim, "Preempted")
			if want := fmt.Sprintf("Preempted by pod %s on node node-0", created.UID); pre.Note != want {
				t.Errorf("Preempted event note %q, want %q", pre.Note, want)
			}
			ev := waitEvent(t, client, "high", "FailedScheduling")
			if want := "0/1 nodes are available: 1 Insufficient cpu. preemption: found a potential placement for pod on node node-0, preempting 1 victims"; ev.Note != want {
				t.Errorf("preemptor's FailedScheduling note %q, want %q", ev.Note, want)
			}
		})
	}
}

// waitDisruptionBudget creates the budget "pdb" with spec in "default" and
// polls until the disruption controller reported its status and the
// scheduler's informer has it: the scheduler weighs the budget as its
// cache has it, which on a loaded machine can lag the API (a new budget
// allows no disruption until its status comes).
func waitDisruptionBudget(t *testing.T, cp *fakeplane.ControlPlane, client kubernetes.Interface, spec policyv1.PodDisruptionBudgetSpec, expectedPods, allowed int32) {
	t.Helper()
	ctx := context.Background()
	pdb := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "pdb"}, Spec: spec}
	if _, err := client.PolicyV1().PodDisruptionBudgets("default").Create(ctx, pdb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var last policyv1.PodDisruptionBudgetStatus
	err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		got, err := client.PolicyV1().PodDisruptionBudgets("default").Get(ctx, "pdb", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		last = got.Status
		return last.ObservedGeneration == got.Generation && last.ExpectedPods == expectedPods && last.DisruptionsAllowed == allowed, nil
	})
	if err != nil {
		t.Fatalf("budget status: %v; last seen %+v, want expectedPods %d disruptionsAllowed %d", err, last, expectedPods, allowed)
	}
	err = wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		for _, pdb := range fakeplane.SchedulerDisruptionBudgets(cp) {
			if pdb.Namespace == "default" && pdb.Name == "pdb" && apiequality.Semantic.DeepEqual(pdb.Status, last) {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("the scheduler's budgets: %v; want the status %+v", err, last)
	}
}

// disruptionTargetsSeen reads the watch until victim is deleted and returns
// the pods it saw marked DisruptionTarget by preemption, each once, with
// the condition's message checked.
func disruptionTargetsSeen(t *testing.T, w watch.Interface, victim string) []string {
	t.Helper()
	var marked []string
	timeout := time.After(30 * time.Second)
	for {
		select {
		case <-timeout:
			t.Fatalf("victim %s was not deleted (marked so far: %v)", victim, marked)
		case e, ok := <-w.ResultChan():
			if !ok {
				t.Fatalf("the watch ended before victim %s was deleted (marked so far: %v)", victim, marked)
			}
			p, isPod := e.Object.(*corev1.Pod)
			if !isPod {
				continue
			}
			for _, c := range p.Status.Conditions {
				if c.Type != corev1.DisruptionTarget || slices.Contains(marked, p.Name) {
					continue
				}
				if c.Status != corev1.ConditionTrue || c.Reason != corev1.PodReasonPreemptionByScheduler ||
					c.Message != "default-scheduler: preempting to accommodate a higher priority pod" {
					t.Errorf("pod %s's DisruptionTarget condition %+v", p.Name, c)
				}
				marked = append(marked, p.Name)
			}
			if e.Type == watch.Deleted && p.Name == victim {
				return marked
			}
		}
	}
}
