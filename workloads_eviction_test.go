package fakeplane_test

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"

	"github.com/fakeplane/fakeplane"
)

// An eviction honours the PodDisruptionBudget that selects the pod, as
// kube-apiserver's does: 429 with the budget's reason while it allows no
// disruption, the pod deleted (and a disruption taken) once it does; a
// pod no budget covers, or a Pending one, is evicted at once.
func TestEvictionHonoursDisruptionBudgets(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	startTestKubelet(t, cp, nil)
	if _, err := cs.AppsV1().Deployments("default").Create(ctx, webDeployment("web", 2, "nginx"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitRolledOut(t, cs, "default", "web")
	pods := podsOf(t, cs, "default", map[string]string{"app": "web"})
	pdb := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: policyv1.PodDisruptionBudgetSpec{
		MinAvailable: ptrIntStr(intstr.FromInt32(2)), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}
	if _, err := cs.PolicyV1().PodDisruptionBudgets("default").Create(ctx, pdb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitBudget := func(what string, cond func(*policyv1.PodDisruptionBudget) bool) {
		t.Helper()
		waitBudgetStatus(t, cs, "web", what, cond)
	}
	waitBudget("2 healthy, none allowed", func(p *policyv1.PodDisruptionBudget) bool { return p.Status.CurrentHealthy == 2 })

	evict := func(name string) error {
		return cs.PolicyV1().Evictions("default").Evict(ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}})
	}
	err := evict(pods[0].Name)
	if !apierrors.IsTooManyRequests(err) || err.Error() != "Cannot evict pod as it would violate the pod's disruption budget." {
		t.Fatalf("evicting under a budget that allows nothing: %v, want 429", err)
	}
	var st apierrors.APIStatus
	if s, ok := err.(apierrors.APIStatus); ok {
		st = s
	}
	if causes := st.Status().Details.Causes; len(causes) != 1 || causes[0].Type != "DisruptionBudget" ||
		causes[0].Message != "The disruption budget web needs 2 healthy pods and has 2 currently" {
		t.Errorf("causes %+v", causes)
	}
	if _, err := cs.CoreV1().Pods("default").Get(ctx, pods[0].Name, metav1.GetOptions{}); err != nil {
		t.Errorf("the refused eviction removed the pod: %v", err)
	}

	cur, err := cs.PolicyV1().PodDisruptionBudgets("default").Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cur.Spec.MinAvailable = ptrIntStr(intstr.FromInt32(1))
	if _, err := cs.PolicyV1().PodDisruptionBudgets("default").Update(ctx, cur, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitBudget("one allowed", func(p *policyv1.PodDisruptionBudget) bool { return p.Status.DisruptionsAllowed == 1 })
	if err := evict(pods[0].Name); err != nil {
		t.Fatalf("evicting under a budget that allows one: %v", err)
	}
	if _, err := cs.CoreV1().Pods("default").Get(ctx, pods[0].Name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the evicted pod: %v, want it gone", err)
	}

	// A pod no budget selects goes at once.
	lone := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "lone"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
	if _, err := cs.CoreV1().Pods("default").Create(ctx, lone, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := evict("lone"); err != nil {
		t.Errorf("evicting a pod no budget covers: %v", err)
	}
	if err := evict("missing"); !apierrors.IsNotFound(err) {
		t.Errorf("evicting a missing pod: %v, want NotFound", err)
	}
}

// An eviction takes its disruption as kube-apiserver's own status update of
// the budget, and the disruption controller, which does not count the
// evicted pod healthy while it waits to go, changes none of it back: the
// budget's managedFields are refplane's for the same writes (two ready
// pods, minAvailable 1, one evicted).
func TestEvictionTakesTheDisruptionAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	startTestKubelet(t, cp, nil)
	for _, name := range []string{"e1", "e2"} {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": "e"}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
		if _, err := cs.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	pdb := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "e"}, Spec: policyv1.PodDisruptionBudgetSpec{
		MinAvailable: ptrIntStr(intstr.FromInt32(1)), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "e"}}}}
	if _, err := cs.PolicyV1().PodDisruptionBudgets("default").Create(ctx, pdb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	budget := func(what string, cond func(*policyv1.PodDisruptionBudget) bool) *policyv1.PodDisruptionBudget {
		t.Helper()
		return waitBudgetStatus(t, cs, "e", what, cond)
	}
	before := budget("one disruption allowed", func(p *policyv1.PodDisruptionBudget) bool { return p.Status.DisruptionsAllowed == 1 })
	if err := cs.PolicyV1().Evictions("default").Evict(ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: "e1", Namespace: "default"}}); err != nil {
		t.Fatal(err)
	}
	got := budget("one healthy, none allowed", func(p *policyv1.PodDisruptionBudget) bool {
		return p.Status.CurrentHealthy == 1 && p.Status.DisruptionsAllowed == 0 && len(p.Status.DisruptedPods) == 0
	})
	fields := fieldsByManager(got.ManagedFields)
	want := map[string]string{
		"kube-apiserver status": `{"f:status":{"f:conditions":{"k:{\"type\":\"DisruptionAllowed\"}":{"f:lastTransitionTime":{},"f:reason":{},"f:status":{}}},` +
			`"f:disruptionsAllowed":{}}}`,
		"kube-controller-manager status": `{"f:status":{"f:conditions":{".":{},"k:{\"type\":\"DisruptionAllowed\"}":{".":{},"f:message":{},"f:observedGeneration":{},"f:type":{}}},` +
			`"f:currentHealthy":{},"f:desiredHealthy":{},"f:expectedPods":{},"f:observedGeneration":{}}}`,
	}
	if cond := meta.FindStatusCondition(before.Status.Conditions, policyv1.DisruptionAllowedCondition); cond != nil &&
		cond.LastTransitionTime.Equal(&meta.FindStatusCondition(got.Status.Conditions, policyv1.DisruptionAllowedCondition).LastTransitionTime) {
		// The eviction came within the second of the condition's last
		// transition: its (second-precision) time did not change, and stays
		// the controller's.
		want = map[string]string{
			"kube-apiserver status": `{"f:status":{"f:conditions":{"k:{\"type\":\"DisruptionAllowed\"}":{"f:reason":{},"f:status":{}}},"f:disruptionsAllowed":{}}}`,
			"kube-controller-manager status": `{"f:status":{"f:conditions":{".":{},"k:{\"type\":\"DisruptionAllowed\"}":{".":{},"f:lastTransitionTime":{},"f:message":{},"f:observedGeneration":{},"f:type":{}}},` +
				`"f:currentHealthy":{},"f:desiredHealthy":{},"f:expectedPods":{},"f:observedGeneration":{}}}`,
		}
	}
	for k, v := range want {
		if fields[k] != v {
			t.Errorf("managedFields of %s:\n got %s\nwant %s", k, fields[k], v)
		}
	}
	if c := meta.FindStatusCondition(got.Status.Conditions, policyv1.DisruptionAllowedCondition); c == nil || c.Status != metav1.ConditionFalse || c.Reason != policyv1.InsufficientPodsReason {
		t.Errorf("condition %+v, want DisruptionAllowed False InsufficientPods", c)
	}
}

// waitBudgetStatus waits until the budget named name in default has
// observed its generation and cond holds of it, and returns it.
func waitBudgetStatus(t *testing.T, cs kubernetes.Interface, name, what string, cond func(*policyv1.PodDisruptionBudget) bool) *policyv1.PodDisruptionBudget {
	t.Helper()
	var got *policyv1.PodDisruptionBudget
	waitWorkload(t, what, func() (bool, string) {
		var err error
		if got, err = cs.PolicyV1().PodDisruptionBudgets("default").Get(context.Background(), name, metav1.GetOptions{}); err != nil {
			return false, err.Error()
		}
		return got.Status.ObservedGeneration == got.Generation && cond(got), fmt.Sprintf("%+v", got.Status)
	})
	return got
}
