package controllers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"

	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
)

// leasesBucket is the store bucket of Leases.
const leasesBucket = "coordination.k8s.io/leases"

// NodeMonitorGracePeriod is how long a node may go without a heartbeat
// (its Lease's renewTime, or its Ready condition's lastHeartbeatTime)
// before the node lifecycle controller marks it Unknown:
// kube-controller-manager's --node-monitor-grace-period default.
const NodeMonitorGracePeriod = 50 * time.Second

// NodeStartupGracePeriod is NodeMonitorGracePeriod for a node that never
// had a Ready condition: kube-controller-manager's
// --node-startup-grace-period default.
const NodeStartupGracePeriod = 60 * time.Second

// nodeLifecycleRecheck is how often, while nodes exist, their heartbeats
// are looked at again: the time passing is not an event.
const nodeLifecycleRecheck = time.Second

var nodesGVR = schema.GroupVersionResource{Version: "v1", Resource: "nodes"}

// NodeLifecycle watches the nodes' heartbeats as kube-controller-manager's
// node-lifecycle-controller does: a node whose heartbeat is older than
// NodeMonitorGracePeriod on the control plane's clock gets its Ready,
// MemoryPressure, DiskPressure and PIDPressure conditions Unknown
// ("Kubelet stopped posting node status.", or "Kubelet never posted node
// status." for a node that never had them), and each node carries the
// taints of its state: node.kubernetes.io/not-ready (Ready False) or
// node.kubernetes.io/unreachable (Ready Unknown), with effects NoSchedule
// and NoExecute, the NoSchedule taints of memory, disk and PID pressure
// and of an unavailable network, and node.kubernetes.io/unschedulable
// while spec.unschedulable is set. So a new node loses the not-ready taint
// kube-apiserver gives it once it is Ready, or at once if it has no Ready
// condition yet.
//
// The NoExecute taints come as kube-controller-manager's do: a node whose
// Ready condition turns False or Unknown is queued in its zone (its
// topology region and zone labels), and each zone's queue is tainted at
// one node per 10 s (the first at once); a node already tainted gets the
// other taint at once, and one Ready again loses it at once. A zone with
// more than two nodes not Ready, and at least 55% of it, is tainted no
// more (up to 50 nodes; a larger one at one node per 100 s); and when no
// zone has a Ready node at all, no node is tainted NoExecute and the taints
// are removed ("master disruption mode"). So the only node of a cluster,
// gone silent, is never tainted NoExecute and its pods stay.
//
// The pods of a node with NoExecute taints are evicted by TaintEviction.
// When the controller turns a Ready node's conditions Unknown, the node
// gets a NodeNotReady event and its pods their Ready condition False, each
// with a NodeNotReady warning; a node it sees first gets RegisteredNode,
// one that goes RemovingNode, as upstream's records them.
type NodeLifecycle struct {
	reg  registry.Interface
	log  *slog.Logger
	user user.Info
	rec  *Recorder
	now  func() time.Time
	// nodes and leases are what the controller was fed, by name.
	nodes  map[string]*corev1.Node
	leases map[string]time.Time
	// zoneStates and tainters are the zones' health and NoExecute
	// tainting queues (nodedisruption.go).
	zoneStates map[string]zoneState
	tainters   map[string]*zoneTainter
}

// NewNodeLifecycle returns the node lifecycle controller, writing through
// reg with now as its clock (nil: time.Now) and logging to log (nil:
// slog.Default()).
func NewNodeLifecycle(reg registry.Interface, now func() time.Time, log *slog.Logger) *NodeLifecycle {
	if log == nil {
		log = slog.Default()
	}
	if now == nil {
		now = time.Now
	}
	u := controllerUser("node-controller")
	return &NodeLifecycle{reg: reg, log: log, now: now, user: u, rec: NewRecorder(reg, "node-controller", u, now, log),
		nodes: map[string]*corev1.Node{}, leases: map[string]time.Time{}, zoneStates: map[string]zoneState{}, tainters: map[string]*zoneTainter{}}
}

// Name implements Controller.
func (c *NodeLifecycle) Name() string { return NodeLifecycleName }

// Resources implements Controller.
func (c *NodeLifecycle) Resources() []string { return []string{nodesBucket, leasesBucket} }

// Wants implements Filter: the nodes, and the Leases in kube-node-lease.
func (c *NodeLifecycle) Wants(resource, key string) bool {
	if resource != leasesBucket {
		return true
	}
	ns, _ := splitKey(key)
	return ns == corev1.NamespaceNodeLease
}

// Sync implements Controller.
func (c *NodeLifecycle) Sync(ctx context.Context, events []store.Event) error {
	ctx = registry.WithFieldManager(apirequest.WithUser(ctx, c.user), "kube-controller-manager")
	for _, ev := range events {
		switch ev.Resource {
		case nodesBucket:
			node, err := decodeEvent[corev1.Node](ev)
			if err != nil {
				c.log.Warn("skipped", "err", err)
				continue
			}
			_, known := c.nodes[ev.Key]
			if ev.Type == store.Deleted {
				delete(c.nodes, ev.Key)
				if known {
					c.nodeEvent(ctx, node, "RemovingNode", fmt.Sprintf("Removing Node %v from Controller", node.Name))
				}
				continue
			}
			if !known {
				c.nodeEvent(ctx, node, "RegisteredNode", fmt.Sprintf("Registered Node %v in Controller", node.Name))
			}
			c.nodes[ev.Key] = node
		case leasesBucket:
			_, name := splitKey(ev.Key)
			if ev.Type == store.Deleted {
				delete(c.leases, name)
				continue
			}
			lease, err := decodeEvent[coordinationv1.Lease](ev)
			if err != nil {
				c.log.Warn("skipped", "err", err)
				continue
			}
			if lease.Spec.RenewTime != nil {
				c.leases[name] = lease.Spec.RenewTime.Time
			}
		}
	}
	now := c.now()
	var errs []error
	names := slices.Sorted(maps.Keys(c.nodes))
	for _, name := range names {
		if err := c.syncNodeHealth(ctx, c.nodes[name], now); err != nil {
			errs = append(errs, fmt.Errorf("node %s: %w", name, err))
		}
	}
	if err := c.handleDisruption(ctx); err != nil {
		errs = append(errs, err)
	}
	for _, name := range names {
		if node := c.nodes[name]; node != nil {
			if err := c.syncTaints(ctx, node, now); err != nil {
				errs = append(errs, fmt.Errorf("node %s: %w", name, err))
			}
		}
	}
	if err := c.noExecuteTaintingPass(ctx); err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if len(c.nodes) > 0 {
		return &Requeue{After: nodeLifecycleRecheck}
	}
	return nil
}

// nodeHeartbeat is the latest sign of life of node: its Lease's renewal,
// its Ready condition's heartbeat, or its creation.
func (c *NodeLifecycle) nodeHeartbeat(node *corev1.Node) time.Time {
	beat := node.CreationTimestamp.Time
	if t, ok := c.leases[node.Name]; ok && t.After(beat) {
		beat = t
	}
	for _, cond := range node.Status.Conditions {
		if cond.Type == corev1.NodeReady && cond.LastHeartbeatTime.After(beat) {
			beat = cond.LastHeartbeatTime.Time
		}
	}
	return beat
}

// nodeEvent records an event about a node as upstream's RecordNodeEvent
// words it.
func (c *NodeLifecycle) nodeEvent(ctx context.Context, node *corev1.Node, reason, event string) {
	c.rec.Eventf(ctx, nodeRef(node), corev1.EventTypeNormal, reason, "Node %s event: %s", node.Name, event)
}

// nodeRef is the reference upstream's node events give a node (without
// its resourceVersion).
func nodeRef(node *corev1.Node) corev1.ObjectReference {
	return corev1.ObjectReference{APIVersion: "v1", Kind: "Node", Name: node.Name, UID: node.UID}
}

// markPodsNotReady turns the Ready condition of the node's pods False, with
// a NodeNotReady warning each, as upstream's MarkPodsNotReady does when it
// marks their node Unknown.
func (c *NodeLifecycle) markPodsNotReady(ctx context.Context, node string, now time.Time) error {
	lst, err := c.reg.List(ctx, podsGVR, "", metav1.ListOptions{FieldSelector: "spec.nodeName=" + node})
	if err != nil {
		return fmt.Errorf("pods of node %s: %w", node, err)
	}
	pods := lst.(*corev1.PodList).Items
	var errs []error
	for i := range pods {
		pod := &pods[i]
		ready := slices.IndexFunc(pod.Status.Conditions, func(c corev1.PodCondition) bool { return c.Type == corev1.PodReady })
		if ready < 0 || pod.Status.Conditions[ready].Status == corev1.ConditionFalse {
			continue
		}
		_, err := c.reg.UpdateSubresource(ctx, podsGVR, "status", pod.Namespace, pod.Name, func(cur runtime.Object) (runtime.Object, error) {
			p := cur.(*corev1.Pod)
			for j := range p.Status.Conditions {
				if p.Status.Conditions[j].Type == corev1.PodReady && p.Status.Conditions[j].Status != corev1.ConditionFalse {
					p.Status.Conditions[j].Status = corev1.ConditionFalse
					p.Status.Conditions[j].LastTransitionTime = metav1.NewTime(now)
				}
			}
			return p, nil
		})
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("mark pod %s/%s not ready: %w", pod.Namespace, pod.Name, err))
		}
		c.rec.Eventf(ctx, EventRef("v1", "Pod", pod), corev1.EventTypeWarning, "NodeNotReady", "Node is not ready")
	}
	return errors.Join(errs...)
}

// gracePeriod is how long node may be silent: NodeStartupGracePeriod until
// it has a Ready condition, NodeMonitorGracePeriod then.
func gracePeriod(node *corev1.Node) time.Duration {
	if nodeReadyStatus(node) == "" {
		return NodeStartupGracePeriod
	}
	return NodeMonitorGracePeriod
}

// syncNodeHealth marks a silent node Unknown.
func (c *NodeLifecycle) syncNodeHealth(ctx context.Context, node *corev1.Node, now time.Time) error {
	if now.Sub(c.nodeHeartbeat(node)) > gracePeriod(node) && nodeReadyStatus(node) != corev1.ConditionUnknown {
		wasReady := nodeReadyStatus(node) == corev1.ConditionTrue
		got, err := c.reg.UpdateSubresource(ctx, nodesGVR, "status", "", node.Name, func(cur runtime.Object) (runtime.Object, error) {
			n := cur.(*corev1.Node)
			if now.Sub(c.nodeHeartbeat(n)) <= gracePeriod(n) {
				return n, nil // it spoke meanwhile
			}
			markNodeUnknown(n, metav1.NewTime(now))
			return n, nil
		})
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("mark unknown: %w", err)
		}
		node = got.(*corev1.Node)
		c.nodes[node.Name] = node
		if wasReady && nodeReadyStatus(node) == corev1.ConditionUnknown {
			c.rec.Eventf(ctx, nodeRef(node), corev1.EventTypeNormal, "NodeNotReady", "Node %s status is now: %s", node.Name, "NodeNotReady")
			if err := c.markPodsNotReady(ctx, node.Name, now); err != nil {
				return err
			}
		}
	}
	return nil
}

// syncTaints sets the taints of node's state (see nodeStateTaints), and
// queues it in its zone for the NoExecute taint its Ready status calls for
// when it has none yet.
func (c *NodeLifecycle) syncTaints(ctx context.Context, node *corev1.Node, now time.Time) error {
	switch _, ok := noExecuteTaint(node); {
	case !ok:
		c.tainter(nodeZone(node)).dequeue(node.Name)
	case !slices.ContainsFunc(node.Spec.Taints, isNoExecuteStateTaint):
		c.tainter(nodeZone(node)).enqueue(node.Name)
	}
	want := nodeStateTaints(node)
	sortTaints(want)
	if slices.EqualFunc(nodeOwnTaints(node.Spec.Taints), want, sameTaint) {
		return nil
	}
	got, err := c.reg.Update(ctx, nodesGVR, "", node.Name, func(cur runtime.Object) (runtime.Object, error) {
		n := cur.(*corev1.Node)
		// The taints that stay keep their place; new ones are appended,
		// with the time they were added, the NoSchedule ones first, as
		// upstream's two tainting passes add them.
		want := nodeStateTaints(n)
		var taints []corev1.Taint
		for _, t := range n.Spec.Taints {
			if !nodeOwnTaint(t) || slices.ContainsFunc(want, func(w corev1.Taint) bool { return sameTaint(w, t) }) {
				taints = append(taints, t)
			}
		}
		stamp := metav1.NewTime(now)
		for _, effect := range []corev1.TaintEffect{corev1.TaintEffectNoSchedule, corev1.TaintEffectNoExecute} {
			for _, t := range want {
				if t.Effect == effect && !slices.ContainsFunc(taints, func(have corev1.Taint) bool { return sameTaint(have, t) }) {
					t.TimeAdded = &stamp
					taints = append(taints, t)
				}
			}
		}
		n.Spec.Taints = taints
		return n, nil
	})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("taints: %w", err)
	}
	c.nodes[node.Name] = got.(*corev1.Node)
	return nil
}

// nodeReadyStatus is the status of the node's Ready condition ("" without
// one).
func nodeReadyStatus(node *corev1.Node) corev1.ConditionStatus {
	for _, cond := range node.Status.Conditions {
		if cond.Type == corev1.NodeReady {
			return cond.Status
		}
	}
	return ""
}

// markNodeUnknown sets the conditions a kubelet reports to Unknown.
func markNodeUnknown(n *corev1.Node, now metav1.Time) {
	for _, typ := range []corev1.NodeConditionType{corev1.NodeReady, corev1.NodeMemoryPressure, corev1.NodeDiskPressure, corev1.NodePIDPressure} {
		i := slices.IndexFunc(n.Status.Conditions, func(c corev1.NodeCondition) bool { return c.Type == typ })
		if i < 0 {
			n.Status.Conditions = append(n.Status.Conditions, corev1.NodeCondition{
				Type: typ, Status: corev1.ConditionUnknown, Reason: "NodeStatusNeverUpdated",
				Message: "Kubelet never posted node status.", LastHeartbeatTime: n.CreationTimestamp, LastTransitionTime: now,
			})
			continue
		}
		if c := &n.Status.Conditions[i]; c.Status != corev1.ConditionUnknown {
			c.Status, c.Reason, c.Message, c.LastTransitionTime = corev1.ConditionUnknown, "NodeStatusUnknown", "Kubelet stopped posting node status.", now
		}
	}
}

// nodeConditionTaints maps a node condition and status to the NoSchedule
// taint it calls for (the NoExecute ones follow Ready alone).
var nodeConditionTaints = map[corev1.NodeConditionType]map[corev1.ConditionStatus]string{
	corev1.NodeReady:              {corev1.ConditionFalse: corev1.TaintNodeNotReady, corev1.ConditionUnknown: corev1.TaintNodeUnreachable},
	corev1.NodeMemoryPressure:     {corev1.ConditionTrue: corev1.TaintNodeMemoryPressure},
	corev1.NodeDiskPressure:       {corev1.ConditionTrue: corev1.TaintNodeDiskPressure},
	corev1.NodePIDPressure:        {corev1.ConditionTrue: corev1.TaintNodePIDPressure},
	corev1.NodeNetworkUnavailable: {corev1.ConditionTrue: corev1.TaintNodeNetworkUnavailable},
}

// nodeOwnTaint reports whether the controller owns taint t: the NoSchedule
// taints of conditions and of cordoning, and the NoExecute not-ready and
// unreachable taints.
func nodeOwnTaint(t corev1.Taint) bool {
	switch t.Key {
	case corev1.TaintNodeNotReady, corev1.TaintNodeUnreachable:
		return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
	case corev1.TaintNodeMemoryPressure, corev1.TaintNodeDiskPressure, corev1.TaintNodePIDPressure,
		corev1.TaintNodeNetworkUnavailable, corev1.TaintNodeUnschedulable:
		return t.Effect == corev1.TaintEffectNoSchedule
	}
	return false
}

// nodeOwnTaints are the taints of taints the controller owns, sorted (see
// sortTaints).
func nodeOwnTaints(taints []corev1.Taint) []corev1.Taint {
	var out []corev1.Taint
	for _, t := range taints {
		if nodeOwnTaint(t) {
			out = append(out, corev1.Taint{Key: t.Key, Effect: t.Effect})
		}
	}
	sortTaints(out)
	return out
}

// nodeStateTaints are the taints node's state calls for, in the order
// upstream adds them: its conditions' NoSchedule taints, in the order of
// its conditions, then the unschedulable one. The NoExecute taint of its
// Ready status is among them only when the node has one of the two
// already (swapped for the other at once); a node without is tainted by
// the zone's queue (noExecuteTaintingPass), and one Ready loses it.
func nodeStateTaints(node *corev1.Node) []corev1.Taint {
	var out []corev1.Taint
	for _, cond := range node.Status.Conditions {
		key := nodeConditionTaints[cond.Type][cond.Status]
		if key == "" {
			continue
		}
		out = append(out, corev1.Taint{Key: key, Effect: corev1.TaintEffectNoSchedule})
	}
	if t, ok := noExecuteTaint(node); ok && slices.ContainsFunc(node.Spec.Taints, isNoExecuteStateTaint) {
		out = append(out, t)
	}
	if node.Spec.Unschedulable {
		out = append(out, corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule})
	}
	return out
}

// sortTaints sorts taints by key and effect.
func sortTaints(ts []corev1.Taint) {
	slices.SortFunc(ts, func(a, b corev1.Taint) int {
		if a.Key != b.Key {
			return strings.Compare(a.Key, b.Key)
		}
		return strings.Compare(string(a.Effect), string(b.Effect))
	})
}

// sameTaint compares taints by key, value and effect.
func sameTaint(a, b corev1.Taint) bool {
	return a.Key == b.Key && a.Value == b.Value && a.Effect == b.Effect
}
