package fakeplane_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	"github.com/fakeplane/fakeplane"
)

func agentDaemonSet() *appsv1.DaemonSet {
	labels := map[string]string{"app": "agent"}
	return &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "agent"},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "agent", Image: "agent:1"}}},
			},
		},
	}
}

// waitDaemonSet polls the set until cond holds.
func waitDaemonSet(t *testing.T, cs kubernetes.Interface, what string, cond func(*appsv1.DaemonSet) bool) *appsv1.DaemonSet {
	t.Helper()
	var last *appsv1.DaemonSet
	err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		ds, err := cs.AppsV1().DaemonSets("default").Get(ctx, "agent", metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		last = ds
		return cond(ds), nil
	})
	if err != nil {
		t.Fatalf("daemonset: %s: not reached; last status %+v", what, last.Status)
	}
	return last
}

// agentPods are the daemon set's pods by the node they are for.
func agentPods(t *testing.T, cs kubernetes.Interface) map[string]corev1.Pod {
	t.Helper()
	pods, err := cs.CoreV1().Pods("default").List(ctxT(t), metav1.ListOptions{LabelSelector: "app=agent"})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]corev1.Pod{}
	for _, p := range pods.Items {
		if p.DeletionTimestamp != nil {
			continue
		}
		terms := p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
		out[terms[0].MatchFields[0].Values[0]] = p
	}
	return out
}

// A DaemonSet runs one pod on each node that should run it, each pinned to
// its node by a required affinity to the node's name (bound by the
// scheduler, run by the simulated kubelets), and follows the nodes'
// labels, taints and arrivals; a template change rolls the pods.
func TestDaemonSetRunsOnePodPerEligibleNode(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithNodes(3))
	cs := clientset(t, cp)
	ctx := ctxT(t)
	if _, err := cs.AppsV1().DaemonSets("default").Create(ctx, agentDaemonSet(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ds := waitDaemonSet(t, cs, "3 ready", func(ds *appsv1.DaemonSet) bool {
		s := ds.Status
		return s.DesiredNumberScheduled == 3 && s.CurrentNumberScheduled == 3 && s.NumberReady == 3 && s.NumberAvailable == 3 &&
			s.UpdatedNumberScheduled == 3 && s.NumberUnavailable == 0 && s.ObservedGeneration == ds.Generation
	})
	pods := agentPods(t, cs)
	for _, node := range []string{"node-0", "node-1", "node-2"} {
		p, ok := pods[node]
		if !ok {
			t.Errorf("no pod for %s", node)
			continue
		}
		if p.Labels["pod-template-generation"] != "1" || p.Labels["controller-revision-hash"] == "" {
			t.Errorf("pod %s labels %v, want pod-template-generation 1 and a controller-revision-hash", p.Name, p.Labels)
		}
		tolerated := map[string]bool{}
		for _, tol := range p.Spec.Tolerations {
			tolerated[tol.Key+":"+string(tol.Effect)] = true
		}
		for _, want := range []string{"node.kubernetes.io/not-ready:NoExecute", "node.kubernetes.io/unreachable:NoExecute", "node.kubernetes.io/unschedulable:NoSchedule"} {
			if !tolerated[want] {
				t.Errorf("pod %s does not tolerate %s", p.Name, want)
			}
		}
		if err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			got, err := cs.CoreV1().Pods("default").Get(ctx, p.Name, metav1.GetOptions{})
			return err == nil && got.Spec.NodeName == node, nil
		}); err != nil {
			t.Errorf("pod %s is not bound to %s", p.Name, node)
		}
	}

	// A NoSchedule taint: no longer desired there, the pod stays
	// (misscheduled). A new node gets its own pod.
	node, err := cs.CoreV1().Nodes().Get(ctx, "node-2", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	node.Spec.Taints = append(node.Spec.Taints, corev1.Taint{Key: "dedicated", Value: "db", Effect: corev1.TaintEffectNoSchedule})
	if _, err := cs.CoreV1().Nodes().Update(ctx, node, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitDaemonSet(t, cs, "node-2 tainted", func(ds *appsv1.DaemonSet) bool {
		return ds.Status.DesiredNumberScheduled == 2 && ds.Status.NumberMisscheduled == 1
	})
	if _, ok := agentPods(t, cs)["node-2"]; !ok {
		t.Error("the pod on the NoSchedule-tainted node was deleted")
	}
	extra := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "extra", Annotations: map[string]string{"kwok.x-k8s.io/node": "fake"},
		Labels: map[string]string{"kubernetes.io/hostname": "extra"}}}
	if _, err := cs.CoreV1().Nodes().Create(ctx, extra, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitDaemonSet(t, cs, "the new node runs one", func(ds *appsv1.DaemonSet) bool {
		return ds.Status.DesiredNumberScheduled == 3 && ds.Status.CurrentNumberScheduled == 3 && ds.Status.NumberReady == 3
	})

	// A NoExecute taint the pod does not tolerate: its pod goes.
	node, err = cs.CoreV1().Nodes().Get(ctx, "node-2", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	node.Spec.Taints = append(node.Spec.Taints, corev1.Taint{Key: "evict", Effect: corev1.TaintEffectNoExecute})
	if _, err := cs.CoreV1().Nodes().Update(ctx, node, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitDaemonSet(t, cs, "node-2's pod deleted", func(ds *appsv1.DaemonSet) bool { return ds.Status.NumberMisscheduled == 0 })
	if _, ok := agentPods(t, cs)["node-2"]; ok {
		t.Error("the pod on the NoExecute-tainted node stayed")
	}

	// A new template rolls the three pods, one at a time.
	ds, err = cs.AppsV1().DaemonSets("default").Get(ctx, "agent", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	oldHash := pods["node-0"].Labels["controller-revision-hash"]
	ds.Spec.Template.Spec.Containers[0].Image = "agent:2"
	if _, err := cs.AppsV1().DaemonSets("default").Update(ctx, ds, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitDaemonSet(t, cs, "rolled", func(ds *appsv1.DaemonSet) bool {
		s := ds.Status
		return s.ObservedGeneration == ds.Generation && s.UpdatedNumberScheduled == 3 && s.NumberAvailable == 3 && s.DesiredNumberScheduled == 3
	})
	for node, p := range agentPods(t, cs) {
		if p.Spec.Containers[0].Image != "agent:2" || p.Labels["controller-revision-hash"] == oldHash || p.Labels["pod-template-generation"] != "2" {
			t.Errorf("after the update, the pod on %s runs %s with labels %v", node, p.Spec.Containers[0].Image, p.Labels)
		}
	}
	revs, err := cs.AppsV1().ControllerRevisions("default").List(ctx, metav1.ListOptions{LabelSelector: "app=agent"})
	if err != nil {
		t.Fatal(err)
	}
	if len(revs.Items) != 2 {
		t.Errorf("%d revisions, want 2", len(revs.Items))
	}
	// Upstream's snapshot gives a revision the DaemonSet's annotations (as
	// they were when it was taken) and the controller-revision-hash label.
	for _, r := range revs.Items {
		if r.Annotations["deprecated.daemonset.template.generation"] != strconv.FormatInt(r.Revision, 10) || r.Labels["controller-revision-hash"] == "" {
			t.Errorf("revision %s (%d): annotations %v, labels %v", r.Name, r.Revision, r.Annotations, r.Labels)
		}
	}
}

// A DaemonSet deletes a failed pod with upstream's FailedDaemonPod warning
// and replaces it once it is gone; a bound pod of a deleted node is left to
// the pod garbage collector, as refplane's daemonset controller leaves it.
func TestDaemonSetReplacesFailedPodsAndLeavesDeletedNodesPodsToThePodGC(t *testing.T) {
	t.Parallel()
	cs := startAgentDaemonSet(t, 2)
	ctx := ctxT(t)
	failed := agentPods(t, cs)["node-1"]
	failed.Status.Phase = corev1.PodFailed
	if _, err := cs.CoreV1().Pods("default").UpdateStatus(ctx, &failed, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	want := "Found failed daemon pod default/" + failed.Name + " on node node-1, will try to kill it"
	eventuallyT(t, "the FailedDaemonPod event", func(context.Context) (bool, error) {
		for _, e := range eventsFor(t, cs, "default", "DaemonSet", "agent") {
			if e.Type == corev1.EventTypeWarning && e.Reason == "FailedDaemonPod" && e.Message == want {
				return true, nil
			}
		}
		return false, nil
	})
	// Replaced by a pod bound to the node (the status alone may still
	// count the failed one).
	waitDaemonSet(t, cs, "the failed pod replaced", func(ds *appsv1.DaemonSet) bool {
		p, ok := agentPods(t, cs)["node-1"]
		return ok && p.Name != failed.Name && p.Spec.NodeName == "node-1" && podIsReady(&p) && ds.Status.NumberReady == 2
	})

	bound := agentPods(t, cs)["node-1"]
	if err := cs.CoreV1().Nodes().Delete(ctx, "node-1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// The sync that saw the node go wrote this status, after its deletes.
	waitDaemonSet(t, cs, "node-1 gone", func(ds *appsv1.DaemonSet) bool {
		return ds.Status.DesiredNumberScheduled == 1 && ds.Status.CurrentNumberScheduled == 1
	})
	got, err := cs.CoreV1().Pods("default").Get(ctx, bound.Name, metav1.GetOptions{})
	if err != nil || got.DeletionTimestamp != nil {
		t.Errorf("the bound pod of the deleted node: %v, deletionTimestamp %v; want it left to the pod garbage collector", err, got.GetDeletionTimestamp())
	}
}

// startAgentDaemonSet starts a control plane of nodes nodes with the agent
// DaemonSet, and waits until each node's pod is ready.
func startAgentDaemonSet(t *testing.T, nodes int) kubernetes.Interface {
	t.Helper()
	cs := clientset(t, fakeplane.Start(t, fakeplane.WithNodes(nodes)))
	if _, err := cs.AppsV1().DaemonSets("default").Create(ctxT(t), agentDaemonSet(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitDaemonSet(t, cs, "all ready", func(ds *appsv1.DaemonSet) bool { return ds.Status.NumberReady == int32(nodes) })
	return cs
}

// daemonPodNodeName is the node a daemon pod is for (its required affinity
// to a node's name).
func daemonPodNodeName(p *corev1.Pod) string {
	return p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchFields[0].Values[0]
}

// A DaemonSet with maxSurge and maxUnavailable 0 rolls as upstream's: a
// new pod starts beside a node's old one, on maxSurge nodes at a time, and
// the old one is deleted only once the new one is available, so no node
// goes without a ready pod. With minReadySeconds, the set is synced again
// when a new pod has been ready that long (upstream's wake-up a second
// after it), and the rollout goes on.
func TestDaemonSetSurgesNewPodsBesideOldOnes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		surge    intstr.IntOrString
		minReady int32
		most     int
	}{
		{name: "one node at a time", surge: intstr.FromInt32(1), most: 4},
		{name: "half the nodes, minReadySeconds 1", surge: intstr.FromString("50%"), minReady: 1, most: 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			testDaemonSetSurge(t, tc.surge, tc.minReady, tc.most)
		})
	}
}

// testDaemonSetSurge rolls a DaemonSet of 3 nodes with surge and minReady,
// and checks that no old pod goes before its node's new one is ready and
// that at most most pods run at once (and once, that many).
func testDaemonSetSurge(t *testing.T, surge intstr.IntOrString, minReady int32, most int) {
	cp := fakeplane.Start(t, fakeplane.WithNodes(3))
	cs := clientset(t, cp)
	ctx := ctxT(t)
	ds := agentDaemonSet()
	ds.Spec.MinReadySeconds = minReady
	unavailable := intstr.FromInt32(0)
	ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType,
		RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxSurge: &surge, MaxUnavailable: &unavailable}}
	if _, err := cs.AppsV1().DaemonSets("default").Create(ctx, ds, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitDaemonSet(t, cs, "3 available", func(ds *appsv1.DaemonSet) bool { return ds.Status.NumberAvailable == 3 })
	list, err := cs.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "app=agent"})
	if err != nil {
		t.Fatal(err)
	}
	w, err := cs.CoreV1().Pods("default").Watch(ctx, metav1.ListOptions{LabelSelector: "app=agent", ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	// The pods as the watch shows them, not being deleted, by name.
	live := map[string]*corev1.Pod{}
	for i := range list.Items {
		live[list.Items[i].Name] = &list.Items[i]
	}
	ds, err = cs.AppsV1().DaemonSets("default").Get(ctx, "agent", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ds.Spec.Template.Spec.Containers[0].Image = "agent:2"
	if _, err := cs.AppsV1().DaemonSets("default").Update(ctx, ds, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	seen := 0
	for newReady := 0; newReady < 3 || len(live) > 3; {
		var ev watch.Event
		var open bool
		select {
		case ev, open = <-w.ResultChan():
		case <-time.After(30 * time.Second):
		}
		if !open {
			var state []string
			for _, name := range slices.Sorted(maps.Keys(live)) {
				q := live[name]
				state = append(state, fmt.Sprintf("%s (%s, %s, ready %v)", name, daemonPodNodeName(q), q.Spec.Containers[0].Image, podIsReady(q)))
			}
			t.Fatalf("the rollout did not end; pods %v", state)
		}
		p, ok := ev.Object.(*corev1.Pod)
		if !ok {
			t.Fatalf("watch: %v", ev.Object)
		}
		prev, known := live[p.Name]
		if ev.Type == watch.Deleted || p.DeletionTimestamp != nil {
			if !known {
				continue
			}
			delete(live, p.Name)
			// An old pod goes only once a new one on its node is ready.
			if prev.Spec.Containers[0].Image == "agent:1" {
				replaced := false
				for _, q := range live {
					replaced = replaced || daemonPodNodeName(q) == daemonPodNodeName(p) && q.Spec.Containers[0].Image == "agent:2" && podIsReady(q)
				}
				if !replaced {
					t.Errorf("old pod %s of %s deleted before a new one there was ready", p.Name, daemonPodNodeName(p))
				}
			}
		} else {
			live[p.Name] = p
		}
		seen = max(seen, len(live))
		newReady = 0
		for _, q := range live {
			if q.Spec.Containers[0].Image == "agent:2" && podIsReady(q) {
				newReady++
			}
		}
	}
	if seen != most {
		t.Errorf("at most %d pods at once, want %d (3 and the surge)", seen, most)
	}
	waitDaemonSet(t, cs, "rolled", func(ds *appsv1.DaemonSet) bool {
		s := ds.Status
		return s.ObservedGeneration == ds.Generation && s.UpdatedNumberScheduled == 3 && s.NumberAvailable == 3 && s.NumberUnavailable == 0
	})
}

// A DaemonSet deletes a node's failed pods at most once per upstream's
// failed-pod backoff: the first at once, then after 1 s, then after 2 s.
func TestDaemonSetBacksOffDeletingFailedPods(t *testing.T) {
	t.Parallel()
	clock := &stepClock{now: time.Now()}
	cp := fakeplane.Start(t, fakeplane.WithNodes(1), fakeplane.WithClock(clock.Now))
	cs := clientset(t, cp)
	ctx := ctxT(t)
	if _, err := cs.AppsV1().DaemonSets("default").Create(ctx, agentDaemonSet(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	exists := func(name string) bool { return podExists(t, cs, name) }
	// fail waits for the node's running pod and fails it.
	fail := func() string {
		t.Helper()
		var pod corev1.Pod
		eventuallyT(t, "a running pod", func(context.Context) (bool, error) {
			p, ok := agentPods(t, cs)["node-0"]
			pod = p
			return ok && p.Status.Phase == corev1.PodRunning, nil
		})
		pod.Status.Phase = corev1.PodFailed
		if _, err := cs.CoreV1().Pods("default").UpdateStatus(ctx, &pod, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		return pod.Name
	}
	first := fail()
	eventuallyT(t, "the first failed pod deleted at once", func(context.Context) (bool, error) { return !exists(first), nil })
	for _, delay := range []time.Duration{time.Second, 2 * time.Second} {
		name := fail()
		time.Sleep(300 * time.Millisecond)
		clock.Advance(delay - time.Millisecond)
		time.Sleep(1200 * time.Millisecond) // past the controller's requeue
		if !exists(name) {
			t.Fatalf("failed pod %s deleted within %v of the last delete", name, delay)
		}
		clock.Advance(time.Millisecond)
		eventuallyT(t, "the failed pod deleted after "+delay.String(), func(context.Context) (bool, error) { return !exists(name), nil })
	}
}

// A DaemonSet deleted with the Orphan propagation policy and created again
// adopts the pods and revision it left (kubectl delete --cascade=orphan,
// to change an immutable field), as upstream's: no pod is replaced.
func TestDaemonSetAdoptsItsOrphans(t *testing.T) {
	t.Parallel()
	cs := startAgentDaemonSet(t, 2)
	ctx := ctxT(t)
	before := agentPods(t, cs)
	orphan := metav1.DeletePropagationOrphan
	if err := cs.AppsV1().DaemonSets("default").Delete(ctx, "agent", metav1.DeleteOptions{PropagationPolicy: &orphan}); err != nil {
		t.Fatal(err)
	}
	eventuallyT(t, "the pods orphaned and the set gone", func(ctx context.Context) (bool, error) {
		for _, p := range agentPods(t, cs) {
			if len(p.OwnerReferences) > 0 {
				return false, nil
			}
		}
		_, err := cs.AppsV1().DaemonSets("default").Get(ctx, "agent", metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	ds, err := cs.AppsV1().DaemonSets("default").Create(ctx, agentDaemonSet(), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	waitDaemonSet(t, cs, "2 ready again", func(ds *appsv1.DaemonSet) bool {
		return ds.Status.NumberReady == 2 && ds.Status.UpdatedNumberScheduled == 2 && ds.Status.ObservedGeneration == ds.Generation
	})
	after := agentPods(t, cs)
	for node, p := range before {
		q := after[node]
		if q.UID != p.UID || metav1.GetControllerOf(&q) == nil || metav1.GetControllerOf(&q).UID != ds.UID {
			t.Errorf("pod of %s: %s (owner %v), want %s adopted by the new set", node, q.Name, q.OwnerReferences, p.Name)
		}
	}
	revs, err := cs.AppsV1().ControllerRevisions("default").List(ctx, metav1.ListOptions{LabelSelector: "app=agent"})
	if err != nil {
		t.Fatal(err)
	}
	if len(revs.Items) != 1 || metav1.GetControllerOf(&revs.Items[0]) == nil || metav1.GetControllerOf(&revs.Items[0]).UID != ds.UID {
		t.Errorf("revisions %d, want the one left, adopted", len(revs.Items))
	}
}
