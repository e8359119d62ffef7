package controllers

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/util/flowcontrol"
)

// The node lifecycle controller's disruption handling, as
// kube-controller-manager's defaults set it.
const (
	// nodeEvictionQPS is how many nodes a second, per zone, get their
	// NoExecute taint (--node-eviction-rate).
	nodeEvictionQPS = 0.1
	// nodeSecondaryEvictionQPS is that rate in a large zone mostly
	// unhealthy (--secondary-node-eviction-rate).
	nodeSecondaryEvictionQPS = 0.01
	// largeClusterThreshold is the size above which a zone mostly
	// unhealthy keeps tainting, at the secondary rate
	// (--large-cluster-size-threshold).
	largeClusterThreshold = 50
	// unhealthyZoneThreshold is the share of not-Ready nodes (more than
	// two) that makes a zone partially disrupted
	// (--unhealthy-zone-threshold).
	unhealthyZoneThreshold = 0.55
)

// zoneState is a zone's health, as upstream's ZoneState.
type zoneState int

const (
	zoneInitial zoneState = iota
	zoneNormal
	zoneFullDisruption
	zonePartialDisruption
)

// zoneTainter gives a zone's nodes their NoExecute taints, one at a time
// at the zone's rate, in the order they were queued, as upstream's
// zoneNoExecuteTainter queue.
type zoneTainter struct {
	// qps is the rate; limiter is nil when it is 0 (nothing is tainted).
	qps     float32
	limiter flowcontrol.PassiveRateLimiter
	queue   []string
}

// tryAccept takes a token of the zone's rate, if there is one.
func (z *zoneTainter) tryAccept() bool { return z.limiter != nil && z.limiter.TryAccept() }

// setRate changes the zone's rate as upstream's SwapLimiter does: a new
// limiter with a burst of one, whose token is spent at once when the old
// one had none left.
func (z *zoneTainter) setRate(qps float32, clk nowClock) {
	if z.limiter != nil && z.qps == qps {
		return
	}
	hadToken := z.tryAccept()
	z.qps, z.limiter = qps, nil
	if qps <= 0 {
		return
	}
	z.limiter = flowcontrol.NewTokenBucketPassiveRateLimiterWithClock(qps, 1, clk)
	if !hadToken {
		z.limiter.TryAccept()
	}
}

// enqueue queues node for its NoExecute taint, once.
func (z *zoneTainter) enqueue(node string) {
	if !slices.Contains(z.queue, node) {
		z.queue = append(z.queue, node)
	}
}

// dequeue takes node out of the queue (it is Ready, or its taints were
// removed), as upstream's markNodeAsReachable does.
func (z *zoneTainter) dequeue(node string) {
	z.queue = slices.DeleteFunc(z.queue, func(n string) bool { return n == node })
}

// nodeZone is the zone key of a node, as upstream's GetZoneKey makes it
// from its topology (or failure-domain) region and zone labels; "" without
// either.
func nodeZone(node *corev1.Node) string {
	zone, ok := node.Labels[corev1.LabelTopologyZone]
	if !ok {
		zone = node.Labels[corev1.LabelFailureDomainBetaZone]
	}
	region, ok := node.Labels[corev1.LabelTopologyRegion]
	if !ok {
		region = node.Labels[corev1.LabelFailureDomainBetaRegion]
	}
	if region == "" && zone == "" {
		return ""
	}
	return region + ":\x00:" + zone
}

// computeZoneState is upstream's ComputeZoneState over a zone's nodes'
// Ready statuses: fully disrupted when none is Ready, partially when more
// than two are not and they are at least unhealthyZoneThreshold of it.
func computeZoneState(ready []corev1.ConditionStatus) zoneState {
	readyNodes, notReady := 0, 0
	for _, s := range ready {
		if s == corev1.ConditionTrue {
			readyNodes++
		} else {
			notReady++
		}
	}
	switch {
	case readyNodes == 0 && notReady > 0:
		return zoneFullDisruption
	case notReady > 2 && float32(notReady)/float32(notReady+readyNodes) >= unhealthyZoneThreshold:
		return zonePartialDisruption
	}
	return zoneNormal
}

// zoneRate is the tainting rate of a zone of size nodes in state, as
// upstream's setLimiterInZone: the eviction rate, but in a partially
// disrupted zone the secondary rate if the zone is large and none if not.
func zoneRate(state zoneState, size int) float32 {
	if state == zonePartialDisruption {
		if size > largeClusterThreshold {
			return nodeSecondaryEvictionQPS
		}
		return 0
	}
	return nodeEvictionQPS
}

// tainter is the zone's tainter, made for a zone seen first with a full
// limiter at the eviction rate.
func (c *NodeLifecycle) tainter(zone string) *zoneTainter {
	z := c.tainters[zone]
	if z == nil {
		z = &zoneTainter{qps: nodeEvictionQPS, limiter: flowcontrol.NewTokenBucketPassiveRateLimiterWithClock(nodeEvictionQPS, 1, nowClock{now: c.now})}
		c.tainters[zone] = z
	}
	return z
}

// handleDisruption updates the zones' states and rates from the nodes'
// Ready statuses, as upstream's handleDisruption: when every zone has no
// Ready node ("master disruption mode") nothing is tainted NoExecute and
// the nodes' NoExecute taints are removed as the mode is entered; when a
// node is Ready again each zone gets the rate of its state.
func (c *NodeLifecycle) handleDisruption(ctx context.Context) error {
	byZone := map[string][]corev1.ConditionStatus{}
	for _, n := range c.nodes {
		byZone[nodeZone(n)] = append(byZone[nodeZone(n)], nodeReadyStatus(n))
	}
	newStates := map[string]zoneState{}
	// As upstream's, vacuously true without nodes: with no zone before
	// either, nothing is entered or left (no "Exiting" at the first pass).
	allAre := true
	for zone, ready := range byZone {
		newStates[zone] = computeZoneState(ready)
		if newStates[zone] != zoneFullDisruption {
			allAre = false
		}
		if _, had := c.zoneStates[zone]; !had {
			c.zoneStates[zone] = zoneInitial
		}
	}
	allWere := true
	for zone, s := range c.zoneStates {
		if _, have := byZone[zone]; !have {
			delete(c.zoneStates, zone)
			continue
		}
		if s != zoneFullDisruption {
			allWere = false
		}
	}
	clk := nowClock{now: c.now}
	switch {
	case allAre && allWere:
	case allAre:
		c.log.Info("Controller detected that all Nodes are not-Ready. Entering master disruption mode")
		for zone := range c.zoneStates {
			c.tainter(zone).setRate(0, clk)
			c.zoneStates[zone] = zoneFullDisruption
		}
		return c.removeNoExecuteTaints(ctx)
	case allWere:
		for zone := range c.zoneStates {
			c.tainter(zone).setRate(zoneRate(newStates[zone], len(byZone[zone])), clk)
			c.zoneStates[zone] = newStates[zone]
		}
		// Logged once the limiters are reset: their drained token is
		// spent at the time of this pass, whoever reads the log and
		// moves a test clock.
		c.log.Info("Controller detected that some Nodes are Ready. Exiting master disruption mode")
	default:
		for zone, s := range c.zoneStates {
			if s != newStates[zone] {
				c.tainter(zone).setRate(zoneRate(newStates[zone], len(byZone[zone])), clk)
				c.zoneStates[zone] = newStates[zone]
			}
		}
	}
	return nil
}

// removeNoExecuteTaints removes the not-ready and unreachable NoExecute
// taints of every node, as upstream's markNodeAsReachable does for each
// as the master disruption mode is entered.
func (c *NodeLifecycle) removeNoExecuteTaints(ctx context.Context) error {
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(c.nodes)) {
		c.tainter(nodeZone(c.nodes[name])).dequeue(name)
		if !slices.ContainsFunc(c.nodes[name].Spec.Taints, isNoExecuteStateTaint) {
			continue
		}
		got, err := c.reg.Update(ctx, nodesGVR, "", name, func(cur runtime.Object) (runtime.Object, error) {
			n := cur.(*corev1.Node)
			n.Spec.Taints = slices.DeleteFunc(n.Spec.Taints, isNoExecuteStateTaint)
			return n, nil
		})
		switch {
		case apierrors.IsNotFound(err):
		case err != nil:
			errs = append(errs, fmt.Errorf("node %s: remove NoExecute taints: %w", name, err))
		default:
			c.nodes[name] = got.(*corev1.Node)
		}
	}
	return errors.Join(errs...)
}

// isNoExecuteStateTaint reports the NoExecute taints of a node's Ready
// state, not-ready and unreachable.
func isNoExecuteStateTaint(t corev1.Taint) bool {
	return t.Effect == corev1.TaintEffectNoExecute && (t.Key == corev1.TaintNodeNotReady || t.Key == corev1.TaintNodeUnreachable)
}

// noExecuteTaint is the NoExecute taint a node's Ready status calls for:
// not-ready when False, unreachable when Unknown, none otherwise.
func noExecuteTaint(node *corev1.Node) (corev1.Taint, bool) {
	switch nodeReadyStatus(node) {
	case corev1.ConditionFalse:
		return corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoExecute}, true
	case corev1.ConditionUnknown:
		return corev1.Taint{Key: corev1.TaintNodeUnreachable, Effect: corev1.TaintEffectNoExecute}, true
	}
	return corev1.Taint{}, false
}

// noExecuteTaintingPass gives the queued nodes of each zone their NoExecute
// taint while the zone's rate allows, in queue order, as upstream's
// doNoExecuteTaintingPass: a token is spent on each node taken, also on
// one that is Ready again or gone (which leaves the queue untainted).
func (c *NodeLifecycle) noExecuteTaintingPass(ctx context.Context) error {
	var errs []error
	for _, zone := range slices.Sorted(maps.Keys(c.tainters)) {
		z := c.tainters[zone]
		for len(z.queue) > 0 && z.tryAccept() {
			name := z.queue[0]
			z.queue = z.queue[1:]
			node := c.nodes[name]
			if node == nil {
				continue
			}
			if _, ok := noExecuteTaint(node); !ok {
				continue
			}
			if err := c.setNoExecuteTaint(ctx, name); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// setNoExecuteTaint gives the node the NoExecute taint of its Ready
// status, in place of the other one (upstream's SwapNodeControllerTaint).
func (c *NodeLifecycle) setNoExecuteTaint(ctx context.Context, name string) error {
	stamp := c.now()
	got, err := c.reg.Update(ctx, nodesGVR, "", name, func(cur runtime.Object) (runtime.Object, error) {
		n := cur.(*corev1.Node)
		want, ok := noExecuteTaint(n)
		if !ok || slices.ContainsFunc(n.Spec.Taints, func(t corev1.Taint) bool { return sameTaint(t, want) }) {
			return n, nil
		}
		n.Spec.Taints = slices.DeleteFunc(n.Spec.Taints, isNoExecuteStateTaint)
		added := metav1.NewTime(stamp)
		want.TimeAdded = &added
		n.Spec.Taints = append(n.Spec.Taints, want)
		return n, nil
	})
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		return fmt.Errorf("node %s: NoExecute taint: %w", name, err)
	}
	c.nodes[name] = got.(*corev1.Node)
	return nil
}
