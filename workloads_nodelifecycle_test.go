package fakeplane_test

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
)

// stepClock is a clock a test moves forward.
type stepClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *stepClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *stepClock) Advance(d time.Duration) { c.mu.Lock(); defer c.mu.Unlock(); c.now = c.now.Add(d) }

// waitNode polls a node until cond holds and returns it.
func waitNode(t *testing.T, cs kubernetes.Interface, name, what string, cond func(*corev1.Node) bool) *corev1.Node {
	t.Helper()
	var last *corev1.Node
	err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		n, err := cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		last = n
		return cond(n), nil
	})
	if err != nil {
		t.Fatalf("node %s: %s: not reached; taints %v conditions %+v", name, what, last.Spec.Taints, last.Status.Conditions)
	}
	return last
}

func nodeCondition(n *corev1.Node, typ corev1.NodeConditionType) corev1.NodeCondition {
	for _, c := range n.Status.Conditions {
		if c.Type == typ {
			return c
		}
	}
	return corev1.NodeCondition{}
}

func taintKeys(n *corev1.Node) []string {
	var out []string
	for _, t := range n.Spec.Taints {
		out = append(out, t.Key+":"+string(t.Effect))
	}
	slices.Sort(out)
	return out
}

// startHealthyNode creates a Ready node (registered with its status, as a
// kubelet registers) whose Lease is renewed a day ahead of clock, so that
// it stays Ready while the test moves the clock: with it the cluster is
// never fully disrupted (kube-controller-manager taints no node NoExecute
// when no node is Ready).
func startHealthyNode(t *testing.T, cs kubernetes.Interface, clock *stepClock, name string) {
	t.Helper()
	ctx := ctxT(t)
	beat := metav1.NewTime(clock.Now())
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: corev1.NodeStatus{
		Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastHeartbeatTime: beat, LastTransitionTime: beat}}}}
	if _, err := cs.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	createNodeLease(t, cs, name, clock.Now().Add(24*time.Hour))
}

// createNodeLease creates node name's Lease in kube-node-lease, renewed at
// renew, as its kubelet would.
func createNodeLease(t *testing.T, cs kubernetes.Interface, name string, renew time.Time) {
	t.Helper()
	rt := metav1.NewMicroTime(renew)
	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kube-node-lease"},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To(name), LeaseDurationSeconds: ptr.To[int32](40), RenewTime: &rt}}
	if _, err := cs.CoordinationV1().Leases("kube-node-lease").Create(ctxT(t), lease, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// setNodeConditions writes conds as node name's status conditions, as its
// kubelet would. (The ttl controller annotates a new node meanwhile: a
// conflict is retried on the node as it then is.)
func setNodeConditions(t *testing.T, cs kubernetes.Interface, name string, conds []corev1.NodeCondition) {
	t.Helper()
	ctx := ctxT(t)
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		n, err := cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		n.Status.Conditions = conds
		_, err = cs.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{})
		return err
	}); err != nil {
		t.Fatal(err)
	}
}

// A node whose kubelet stops (its Lease and status not renewed for the
// grace period) goes Unknown and is tainted unreachable; a node no kubelet
// ever reported on is marked as never posted; a cordoned node is tainted
// unschedulable. (A third node stays Ready: see
// TestNodeLifecycleSparesAFullyDisruptedCluster for a cluster without.)
func TestNodeLifecycleMarksSilentNodes(t *testing.T) {
	t.Parallel()
	clock := &stepClock{now: time.Now()}
	cp := fakeplane.Start(t, fakeplane.WithClock(clock.Now))
	cs := clientset(t, cp)
	ctx := ctxT(t)
	startHealthyNode(t, cs, clock, "healthy")
	// A kubelet of the test's: one status, one lease renewal, then silence.
	if _, err := cs.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-0"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The not-ready taint kube-apiserver gives a new node goes: it has no
	// Ready condition yet.
	waitNode(t, cs, "node-0", "untainted", func(n *corev1.Node) bool { return len(n.Spec.Taints) == 0 })
	beat := metav1.NewTime(clock.Now())
	var conds []corev1.NodeCondition
	for _, typ := range []corev1.NodeConditionType{corev1.NodeMemoryPressure, corev1.NodeDiskPressure, corev1.NodePIDPressure, corev1.NodeReady} {
		st := corev1.ConditionFalse
		if typ == corev1.NodeReady {
			st = corev1.ConditionTrue
		}
		conds = append(conds, corev1.NodeCondition{Type: typ, Status: st, LastHeartbeatTime: beat, LastTransitionTime: beat})
	}
	setNodeConditions(t, cs, "node-0", conds)
	createNodeLease(t, cs, "node-0", clock.Now())
	bare := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "bare"}}
	if _, err := cs.CoreV1().Nodes().Create(ctx, bare, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// A pod of node-0's, running and ready, that tolerates its taints.
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p0"}, Spec: corev1.PodSpec{NodeName: "node-0", Containers: []corev1.Container{{Name: "c", Image: "busybox"}},
		Tolerations: []corev1.Toleration{{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}}}}
	pod, err := cs.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pod.Status.Phase = corev1.PodRunning
	pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: beat}, {Type: corev1.ContainersReady, Status: corev1.ConditionTrue, LastTransitionTime: beat}}
	if _, err := cs.CoreV1().Pods("default").UpdateStatus(ctx, pod, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Within the grace period, the node is healthy and untainted.
	clock.Advance(30 * time.Second)
	renew := metav1.NewMicroTime(clock.Now())
	lease, err := cs.CoordinationV1().Leases("kube-node-lease").Get(ctx, "node-0", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lease.Spec.RenewTime = &renew
	if _, err := cs.CoordinationV1().Leases("kube-node-lease").Update(ctx, lease, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(40 * time.Second) // 70s after the status, 40s after the lease: still alive
	// The pass that found bare silent is over once bare has its NoExecute
	// taint: it took the zone's token at this time, so that node-0 finds
	// one 20 s on (moving the clock within that pass would make it later).
	waitNode(t, cs, "bare", "never posted", func(n *corev1.Node) bool {
		return nodeCondition(n, corev1.NodeReady).Status == corev1.ConditionUnknown &&
			slices.Contains(taintKeys(n), "node.kubernetes.io/unreachable:NoExecute")
	})
	if n, err := cs.CoreV1().Nodes().Get(ctx, "node-0", metav1.GetOptions{}); err != nil || len(n.Spec.Taints) != 0 || nodeCondition(n, corev1.NodeReady).Status != corev1.ConditionTrue {
		t.Fatalf("node-0 with a lease renewed 40s ago: %v, taints %v", err, taintKeys(n))
	}
	clock.Advance(20 * time.Second) // 60s after the lease

	n := waitNode(t, cs, "node-0", "unreachable", func(n *corev1.Node) bool {
		return slices.Equal(taintKeys(n), []string{"node.kubernetes.io/unreachable:NoExecute", "node.kubernetes.io/unreachable:NoSchedule"})
	})
	// As refplane's: the NoSchedule taint first, then the NoExecute one,
	// each with the time it was added.
	if ts := n.Spec.Taints; ts[0].Effect != corev1.TaintEffectNoSchedule || ts[1].Effect != corev1.TaintEffectNoExecute || ts[0].TimeAdded == nil || ts[1].TimeAdded == nil {
		t.Errorf("node-0's taints %+v, want unreachable NoSchedule then NoExecute, both with timeAdded", ts)
	}
	for _, typ := range []corev1.NodeConditionType{corev1.NodeReady, corev1.NodeMemoryPressure, corev1.NodeDiskPressure, corev1.NodePIDPressure} {
		c := nodeCondition(n, typ)
		if c.Status != corev1.ConditionUnknown || c.Reason != "NodeStatusUnknown" || c.Message != "Kubelet stopped posting node status." {
			t.Errorf("node-0 %s: %+v, want Unknown: NodeStatusUnknown", typ, c)
		}
	}
	// As kube-controller-manager's (recorded from refplane): node-0, which
	// was Ready, has a NodeNotReady event and its pod is not ready, with a
	// NodeNotReady warning; the ContainersReady condition stays.
	waitFor(t, func() bool {
		p, err := cs.CoreV1().Pods("default").Get(ctx, "p0", metav1.GetOptions{})
		return err == nil && len(p.Status.Conditions) == 2 && p.Status.Conditions[0].Status == corev1.ConditionFalse && p.Status.Conditions[1].Status == corev1.ConditionTrue
	})
	nodeEvents := func() []string {
		// (A node's events are in the default namespace, as the pod's.)
		l, err := cs.CoreV1().Events("default").List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range l.Items {
			if e.Source.Component == "node-controller" {
				out = append(out, e.InvolvedObject.Kind+" "+e.InvolvedObject.Name+" "+e.Type+" "+e.Reason+": "+e.Message)
			}
		}
		slices.Sort(out)
		return out
	}
	want := []string{
		"Node bare Normal RegisteredNode: Node bare event: Registered Node bare in Controller",
		"Node healthy Normal RegisteredNode: Node healthy event: Registered Node healthy in Controller",
		"Node node-0 Normal NodeNotReady: Node node-0 status is now: NodeNotReady",
		"Node node-0 Normal RegisteredNode: Node node-0 event: Registered Node node-0 in Controller",
		"Pod p0 Warning NodeNotReady: Node is not ready",
	}
	waitFor(t, func() bool { return slices.Equal(nodeEvents(), want) })
	n = waitNode(t, cs, "bare", "never posted", func(n *corev1.Node) bool {
		return nodeCondition(n, corev1.NodeReady).Status == corev1.ConditionUnknown && len(n.Spec.Taints) == 2
	})
	if c := nodeCondition(n, corev1.NodeReady); c.Reason != "NodeStatusNeverUpdated" || c.Message != "Kubelet never posted node status." {
		t.Errorf("bare Ready: %+v, want NodeStatusNeverUpdated", c)
	}

	n.Spec.Unschedulable = true
	if _, err := cs.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitNode(t, cs, "bare", "cordoned", func(n *corev1.Node) bool {
		return slices.Contains(taintKeys(n), "node.kubernetes.io/unschedulable:NoSchedule")
	})
	if err := cs.CoreV1().Nodes().Delete(ctx, "bare", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		return slices.Contains(nodeEvents(), "Node bare Normal RemovingNode: Node bare event: Removing Node bare from Controller")
	})
}

// TestTTLControllerAnnotatesNodes: kube-controller-manager's ttl-controller
// gives every node node.alpha.kubernetes.io/ttl, "0" in a cluster of up to
// 100 nodes, as its own Update (recorded from refplane with KCM and kwok),
// and puts it back when a client removes it.
func TestTTLControllerAnnotatesNodes(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithNodes(1))
	cs := clientset(t, cp)
	ctx := ctxT(t)
	ttlOwned := func(n *corev1.Node) bool {
		for _, f := range n.ManagedFields {
			if f.Manager == "kube-controller-manager" && f.Operation == metav1.ManagedFieldsOperationUpdate && string(f.FieldsV1.Raw) == `{"f:metadata":{"f:annotations":{"f:node.alpha.kubernetes.io/ttl":{}}}}` {
				return true
			}
		}
		return false
	}
	var node *corev1.Node
	waitFor(t, func() bool {
		n, err := cs.CoreV1().Nodes().Get(ctx, "node-0", metav1.GetOptions{})
		node = n
		return err == nil && n.Annotations[corev1.ObjectTTLAnnotationKey] == "0" && ttlOwned(n)
	})
	delete(node.Annotations, corev1.ObjectTTLAnnotationKey)
	if _, err := cs.CoreV1().Nodes().Update(ctx, node, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		n, err := cs.CoreV1().Nodes().Get(ctx, "node-0", metav1.GetOptions{})
		return err == nil && n.Annotations[corev1.ObjectTTLAnnotationKey] == "0"
	})
}

// TestNoExecuteTaintsEvictPodsAsKubeControllerManager: kube-controller-manager's
// taint-eviction-controller deletes the pods of a node tainted NoExecute
// that do not tolerate the taint at once, and those that tolerate it for a
// while when that time is up, marking each with the DisruptionTarget
// condition and an event first; a deletion still waiting when the taint
// goes is called off with an event, and a pod that tolerates the taint
// forever stays. The events, conditions and outcomes are those refplane's
// kube-controller-manager gave the same pods.
func TestNoExecuteTaintsEvictPodsAsKubeControllerManager(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithNodes(1))
	cs := clientset(t, cp)
	ctx := ctxT(t)
	pod := func(name string, tolerations ...corev1.Toleration) {
		t.Helper()
		if _, err := cs.CoreV1().Pods("default").Create(ctx, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec:       corev1.PodSpec{NodeName: "node-0", Containers: []corev1.Container{{Name: "c", Image: "nginx"}}, Tolerations: tolerations},
		}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	tolerate := func(seconds *int64) corev1.Toleration {
		return corev1.Toleration{Key: "t", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: seconds}
	}
	pod("at-once")
	pod("after-a-second", tolerate(ptr.To[int64](1)))
	pod("after-a-minute", tolerate(ptr.To[int64](60)))
	pod("forever", tolerate(nil))
	// The DisruptionTarget condition comes before the delete.
	w, err := cs.CoreV1().Pods("default").Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=at-once"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	taint := func(on bool) {
		t.Helper()
		n, err := cs.CoreV1().Nodes().Get(ctx, "node-0", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		n.Spec.Taints = slices.DeleteFunc(n.Spec.Taints, func(t corev1.Taint) bool { return t.Key == "t" })
		if on {
			n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: "t", Value: "v", Effect: corev1.TaintEffectNoExecute})
		}
		if _, err := cs.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	taint(true)
	var marked *corev1.Pod
	for ev := range w.ResultChan() {
		p, ok := ev.Object.(*corev1.Pod)
		if !ok {
			continue
		}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.DisruptionTarget && marked == nil {
				if p.DeletionTimestamp != nil {
					t.Errorf("the condition came with the delete: %+v", p.ObjectMeta)
				}
				marked = p.DeepCopy()
				if c.Status != corev1.ConditionTrue || c.Reason != "DeletionByTaintManager" || c.Message != "Taint manager: deleting due to NoExecute taint" || c.ObservedGeneration != p.Generation {
					t.Errorf("condition %+v", c)
				}
			}
		}
		if p.DeletionTimestamp != nil {
			break
		}
	}
	if marked == nil {
		t.Fatal("no DisruptionTarget condition before the delete")
	}
	gone := func(name string) func(ctx context.Context) (bool, error) {
		return func(ctx context.Context) (bool, error) {
			_, err := cs.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{})
			return apierrors.IsNotFound(err), nil
		}
	}
	eventuallyT(t, "at-once deleted", gone("at-once"))
	eventuallyT(t, "after-a-second deleted", gone("after-a-second"))
	taint(false)
	events := func(name string) []string {
		var out []string
		for _, e := range eventsFor(t, cs, "default", "Pod", name) {
			if e.Reason == "TaintManagerEviction" && e.Source.Component == "taint-eviction-controller" {
				out = append(out, e.Message)
			}
		}
		return out
	}
	eventuallyT(t, "the called-off deletion's event", func(context.Context) (bool, error) {
		return slices.Equal(events("after-a-minute"), []string{"Cancelling deletion of Pod default/after-a-minute"}), nil
	})
	for name, want := range map[string][]string{
		"at-once":        {"Marking for deletion Pod default/at-once"},
		"after-a-second": {"Marking for deletion Pod default/after-a-second"},
		"forever":        nil,
	} {
		if got := events(name); !slices.Equal(got, want) {
			t.Errorf("%s's events %q, want %q", name, got, want)
		}
	}
	for _, name := range []string{"after-a-minute", "forever"} {
		if p, err := cs.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{}); err != nil || p.DeletionTimestamp != nil {
			t.Errorf("%s: %v %v", name, err, p.DeletionTimestamp)
		}
	}
}

// A pod that already has the taint manager's DisruptionTarget condition
// (the same status, reason and message) is deleted without a status write,
// whatever the condition's observedGeneration, as upstream's
// UpdatePodCondition finds nothing to change.
func TestTaintEvictionLeavesAnEqualConditionAsItIs(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithNodes(1))
	cs := clientset(t, cp)
	ctx := ctxT(t)
	p, err := cs.CoreV1().Pods("default").Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "marked"},
		Spec:       corev1.PodSpec{NodeName: "node-0", Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The simulated kubelet writes the status too: retry on its conflicts.
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := cs.CoreV1().Pods("default").Get(ctx, "marked", metav1.GetOptions{})
		if err != nil {
			return err
		}
		// A recent one: the disruption controller resets one 2 minutes old.
		cur.Status.Conditions = append(cur.Status.Conditions, corev1.PodCondition{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue,
			Reason: "DeletionByTaintManager", Message: "Taint manager: deleting due to NoExecute taint", LastTransitionTime: metav1.Now()})
		p, err = cs.CoreV1().Pods("default").UpdateStatus(ctx, cur, metav1.UpdateOptions{})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	w, err := cs.CoreV1().Pods("default").Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=marked", ResourceVersion: p.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	n, err := cs.CoreV1().Nodes().Get(ctx, "node-0", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: "t", Effect: corev1.TaintEffectNoExecute})
	if _, err := cs.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	for ev := range w.ResultChan() {
		got, ok := ev.Object.(*corev1.Pod)
		if !ok {
			t.Fatalf("watch: %v", ev.Object)
		}
		for _, c := range got.Status.Conditions {
			if c.Type == corev1.DisruptionTarget && c.ObservedGeneration != 0 {
				t.Errorf("the condition was written again: %+v", c)
			}
		}
		if got.DeletionTimestamp != nil {
			return
		}
	}
	t.Fatal("the watch ended before the pod's delete")
}

// TestNodeLifecycleSparesAFullyDisruptedCluster: as kube-controller-manager
// (seen on refplane with no Ready node: the unreachable NoSchedule taint
// only, for minutes), a cluster whose every node is silent enters "master
// disruption mode" and no node is tainted NoExecute, so no pod is evicted.
// Once a node is Ready again the mode ends, and the silent node gets its
// NoExecute taint at the zone's rate: the limiter starts drained, so 10 s
// later.
func TestNodeLifecycleSparesAFullyDisruptedCluster(t *testing.T) {
	t.Parallel()
	clock := &stepClock{now: time.Now()}
	logs := &logged{level: slog.LevelInfo}
	cp := fakeplane.Start(t, fakeplane.WithClock(clock.Now), fakeplane.WithLogger(slog.New(logs)))
	cs := clientset(t, cp)
	ctx := ctxT(t)
	if _, err := cs.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-0"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(61 * time.Second) // past the startup grace period
	waitNode(t, cs, "node-0", "unreachable", func(n *corev1.Node) bool {
		return slices.Equal(taintKeys(n), []string{"node.kubernetes.io/unreachable:NoSchedule"})
	})
	waitFor(t, func() bool {
		return logs.has("Controller detected that all Nodes are not-Ready. Entering master disruption mode")
	})
	// As upstream's: a pass without nodes neither enters nor leaves the
	// mode, so nothing was left before it was entered.
	if logs.has("Controller detected that some Nodes are Ready. Exiting master disruption mode") {
		t.Fatal("the mode was left before it was entered")
	}
	clock.Advance(time.Minute)

	startHealthyNode(t, cs, clock, "healthy")
	waitFor(t, func() bool {
		return logs.has("Controller detected that some Nodes are Ready. Exiting master disruption mode")
	})
	// Every pass until now ran in the mode, and the first after it has no
	// token: node-0 is not tainted NoExecute yet.
	if n, err := cs.CoreV1().Nodes().Get(ctx, "node-0", metav1.GetOptions{}); err != nil || slices.Contains(taintKeys(n), "node.kubernetes.io/unreachable:NoExecute") {
		t.Fatalf("node-0 during the disruption: %v, taints %v; want no NoExecute taint", err, taintKeys(n))
	}
	clock.Advance(10 * time.Second)
	waitNode(t, cs, "node-0", "tainted NoExecute", func(n *corev1.Node) bool {
		return slices.Equal(taintKeys(n), []string{"node.kubernetes.io/unreachable:NoExecute", "node.kubernetes.io/unreachable:NoSchedule"})
	})
}

// TestNodeLifecycleTaintsAZoneAtItsRate: as kube-controller-manager's, the
// NoExecute taints of a zone's not-Ready nodes come one at a time, 10 s
// apart on the controller's clock, the first at once (a new zone's limiter
// is full); a node Ready again loses its taint at once.
func TestNodeLifecycleTaintsAZoneAtItsRate(t *testing.T) {
	t.Parallel()
	clock := &stepClock{now: time.Now()}
	cp := fakeplane.Start(t, fakeplane.WithClock(clock.Now))
	cs := clientset(t, cp)
	ctx := ctxT(t)
	startHealthyNode(t, cs, clock, "healthy")
	setReady := func(name string, st corev1.ConditionStatus) {
		t.Helper()
		beat := metav1.NewTime(clock.Now())
		setNodeConditions(t, cs, name, []corev1.NodeCondition{{Type: corev1.NodeReady, Status: st, LastHeartbeatTime: beat, LastTransitionTime: beat}})
	}
	notReady := []string{"node.kubernetes.io/not-ready:NoExecute", "node.kubernetes.io/not-ready:NoSchedule"}
	for _, name := range []string{"a", "b"} {
		if _, err := cs.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	setReady("a", corev1.ConditionFalse)
	waitNode(t, cs, "a", "tainted at once", func(n *corev1.Node) bool { return slices.Equal(taintKeys(n), notReady) })
	setReady("b", corev1.ConditionFalse)
	// b is queued behind a's token: its NoSchedule taint comes, the
	// NoExecute one not until the clock moves.
	n := waitNode(t, cs, "b", "not ready", func(n *corev1.Node) bool {
		return slices.Contains(taintKeys(n), "node.kubernetes.io/not-ready:NoSchedule")
	})
	if slices.Contains(taintKeys(n), "node.kubernetes.io/not-ready:NoExecute") {
		t.Fatalf("b tainted NoExecute within 10 s of a: %v", taintKeys(n))
	}
	clock.Advance(10 * time.Second)
	waitNode(t, cs, "b", "tainted 10 s later", func(n *corev1.Node) bool { return slices.Equal(taintKeys(n), notReady) })
	setReady("a", corev1.ConditionTrue)
	waitNode(t, cs, "a", "untainted once Ready", func(n *corev1.Node) bool { return len(n.Spec.Taints) == 0 })
}
