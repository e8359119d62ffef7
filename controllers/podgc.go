package controllers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"

	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
)

// The pod garbage collector's timing and threshold, kube-controller-manager's
// defaults: a pass every gcCheckPeriod; a node its pods name but the cluster
// lacks is checked again quarantineTime after a pass first found it missing;
// --terminated-pod-gc-threshold.
const (
	podGCCheckPeriod         = 20 * time.Second
	podGCQuarantineTime      = 40 * time.Second
	podGCTerminatedThreshold = 12500
	podGCOrphanReason        = "DeletionByPodGC"
	podGCOrphanMessage       = "PodGC: node no longer exists"
	// podGCPass is the key of the next pass in the collector's wakeups.
	podGCPass = "pass"
)

// PodGC is kube-controller-manager's pod-garbage-collector-controller. At
// start and every 20 s it force-deletes (grace period 0), after marking
// them Failed if they had not finished:
//   - terminated pods beyond the threshold (12,500), evicted ones first,
//     then the oldest;
//   - terminating pods on a node that is not Ready and has the
//     node.kubernetes.io/out-of-service taint;
//   - pods bound to a node that does not exist. A pass that finds a node
//     missing quarantines it for 40 s; the first pass after that GETs it,
//     and if it is still not found, its pods are collected, with the
//     DisruptionTarget condition (DeletionByPodGC) beside the Failed phase;
//   - terminating pods that were never scheduled.
//
// It emits no events, as upstream's does not.
type PodGC struct {
	reg  registry.Interface
	log  *slog.Logger
	user user.Info
	now  func() time.Time
	// wake has the time of the next pass (podGCPass).
	wake *jobWakeups
	// threshold is the number of terminated pods kept (0: no limit).
	threshold int
	pods      map[string]*podGCPod
	nodes     map[string]podGCNode
	// quarantine has, by name, when a missing node is to be checked.
	quarantine map[string]time.Time
}

// podGCPod is what the collector keeps of a pod: what its passes read.
type podGCPod struct {
	Metadata struct {
		Name              string       `json:"name"`
		Namespace         string       `json:"namespace"`
		UID               types.UID    `json:"uid"`
		CreationTimestamp metav1.Time  `json:"creationTimestamp"`
		DeletionTimestamp *metav1.Time `json:"deletionTimestamp"`
	} `json:"metadata"`
	Spec struct {
		NodeName string `json:"nodeName"`
	} `json:"spec"`
	Status struct {
		Phase  corev1.PodPhase `json:"phase"`
		Reason string          `json:"reason"`
	} `json:"status"`
}

// podGCNode is what the collector keeps of a node.
type podGCNode struct {
	ready, outOfService bool
}

// NewPodGC returns the pod garbage collector, writing through reg, on the
// clock now (nil: time.Now), logging to log (nil: slog.Default()).
func NewPodGC(reg registry.Interface, now func() time.Time, log *slog.Logger) *PodGC {
	if log == nil {
		log = slog.Default()
	}
	fake := now != nil
	if now == nil {
		now = time.Now
	}
	c := &PodGC{
		reg: reg, log: log, user: controllerUser("pod-garbage-collector"), now: now,
		wake:       newJobWakeups(fake),
		threshold:  podGCTerminatedThreshold,
		pods:       map[string]*podGCPod{},
		nodes:      map[string]podGCNode{},
		quarantine: map[string]time.Time{},
	}
	c.wake.after(podGCPass, time.Time{}, 0) // the first pass, at once
	return c
}

// Name implements Controller.
func (c *PodGC) Name() string { return PodGarbageCollectorName }

// Resources implements Controller.
func (c *PodGC) Resources() []string { return []string{podsBucket, nodesBucket} }

// Sync implements Controller: it keeps the pods and nodes, and runs a pass
// when one is due.
func (c *PodGC) Sync(ctx context.Context, events []store.Event) error {
	for _, ev := range events {
		if err := c.observe(ev); err != nil {
			c.log.Warn("skipping undecodable object", "resource", ev.Resource, "key", ev.Key, "err", err)
		}
	}
	now := c.now()
	if len(c.wake.due(now)) == 0 {
		return c.wake.requeue(now)
	}
	ctx = registry.WithFieldManager(apirequest.WithUser(ctx, c.user), "kube-controller-manager")
	if err := c.pass(ctx, now); err != nil {
		// The next pass retries what failed, as upstream's does.
		c.log.Warn("pod garbage collection", "err", err)
	}
	now = c.now()
	c.wake.after(podGCPass, now, podGCCheckPeriod)
	return c.wake.requeue(now)
}

// observe records a pod or node event.
func (c *PodGC) observe(ev store.Event) error {
	switch ev.Resource {
	case podsBucket:
		if ev.Type == store.Deleted {
			delete(c.pods, ev.Key)
			return nil
		}
		pod, err := decodeEvent[podGCPod](ev)
		if err != nil {
			return err
		}
		c.pods[ev.Key] = pod
	case nodesBucket:
		if ev.Type == store.Deleted {
			delete(c.nodes, ev.Key)
			return nil
		}
		node, err := decodeEvent[corev1.Node](ev)
		if err != nil {
			return err
		}
		n := podGCNode{ready: nodeReadyStatus(node) == corev1.ConditionTrue}
		for _, t := range node.Spec.Taints {
			if t.Key == corev1.TaintNodeOutOfService {
				n.outOfService = true
			}
		}
		c.nodes[ev.Key] = n
	}
	return nil
}

// pass is one round of upstream's gc: terminated, terminating on
// out-of-service nodes, orphaned, then unscheduled terminating pods.
func (c *PodGC) pass(ctx context.Context, now time.Time) error {
	pods := make([]*podGCPod, 0, len(c.pods))
	for _, key := range sortedKeys(c.pods) {
		pods = append(pods, c.pods[key])
	}
	gone := map[*podGCPod]bool{}
	var errs []error
	collect := func(victims []*podGCPod, cond *corev1.PodCondition) {
		for _, pod := range victims {
			if gone[pod] {
				continue
			}
			if err := c.markFailedAndDelete(ctx, pod, cond, now); err != nil {
				errs = append(errs, err)
				continue
			}
			gone[pod] = true
		}
	}

	if c.threshold > 0 {
		var terminated []*podGCPod
		for _, pod := range pods {
			if podTerminated(pod) {
				terminated = append(terminated, pod)
			}
		}
		if n := len(terminated) - c.threshold; n > 0 {
			sortByEvictionAndAge(terminated)
			collect(terminated[:n], nil)
		}
	}

	var terminating []*podGCPod
	for _, pod := range pods {
		if pod.Metadata.DeletionTimestamp == nil {
			continue
		}
		if n, ok := c.nodes[pod.Spec.NodeName]; ok && !n.ready && n.outOfService {
			terminating = append(terminating, pod)
		}
	}
	sortByEvictionAndAge(terminating)
	collect(terminating, nil)

	for _, pod := range pods {
		name := pod.Spec.NodeName
		if _, exists := c.nodes[name]; name == "" || exists {
			continue
		}
		if at, ok := c.quarantine[name]; !ok || now.Add(podGCQuarantineTime).Before(at) {
			c.quarantine[name] = now.Add(podGCQuarantineTime)
		}
	}
	deleted := map[string]bool{}
	for _, name := range sortedKeys(c.quarantine) {
		if c.quarantine[name].After(now) {
			continue
		}
		delete(c.quarantine, name)
		if _, exists := c.nodes[name]; exists {
			continue
		}
		if _, err := c.reg.Get(ctx, nodesGVR, "", name); apierrors.IsNotFound(err) {
			deleted[name] = true
		} else if err != nil {
			errs = append(errs, fmt.Errorf("get node %s: %w", name, err))
		}
	}
	var orphaned []*podGCPod
	for _, pod := range pods {
		if deleted[pod.Spec.NodeName] {
			orphaned = append(orphaned, pod)
		}
	}
	collect(orphaned, &corev1.PodCondition{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue,
		Reason: podGCOrphanReason, Message: podGCOrphanMessage})

	var unscheduled []*podGCPod
	for _, pod := range pods {
		if pod.Metadata.DeletionTimestamp != nil && pod.Spec.NodeName == "" {
			unscheduled = append(unscheduled, pod)
		}
	}
	collect(unscheduled, nil)
	return errors.Join(errs...)
}

// markFailedAndDelete is upstream's markFailedAndDeletePodWithCondition: a
// pod not yet finished is set Failed (with cond, if any) through its status,
// for the pod of that uid only; then it is deleted with no grace period.
func (c *PodGC) markFailedAndDelete(ctx context.Context, pod *podGCPod, cond *corev1.PodCondition, now time.Time) error {
	ns, name := pod.Metadata.Namespace, pod.Metadata.Name
	if pod.Status.Phase != corev1.PodSucceeded && pod.Status.Phase != corev1.PodFailed {
		_, err := c.reg.UpdateSubresource(ctx, podsGVR, "status", ns, name, func(cur runtime.Object) (runtime.Object, error) {
			p := cur.(*corev1.Pod)
			if p.UID != pod.Metadata.UID {
				return nil, apierrors.NewConflict(podsGVR.GroupResource(), name, fmt.Errorf("the pod's uid is %s, not %s", p.UID, pod.Metadata.UID))
			}
			p.Status.Phase = corev1.PodFailed
			p.Status.ObservedGeneration = p.Generation
			if cond != nil {
				at := *cond
				at.ObservedGeneration = p.Generation
				updatePodCondition(&p.Status, at, metav1.NewTime(now))
			}
			return p, nil
		})
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("mark pod %s/%s failed: %w", ns, name, err)
		}
	}
	zero := int64(0)
	if _, err := c.reg.Delete(ctx, podsGVR, ns, name, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete pod %s/%s: %w", ns, name, err)
	}
	return nil
}

// podTerminated reports whether the pod's phase is neither Pending, Running
// nor Unknown.
func podTerminated(pod *podGCPod) bool {
	switch pod.Status.Phase {
	case corev1.PodPending, corev1.PodRunning, corev1.PodUnknown:
		return false
	}
	return true
}

// sortByEvictionAndAge orders pods as upstream's byEvictionAndCreationTimestamp:
// evicted ones first, then by creation time, then by name.
func sortByEvictionAndAge(pods []*podGCPod) {
	evicted := func(p *podGCPod) bool { return p.Status.Phase == corev1.PodFailed && p.Status.Reason == "Evicted" }
	sort.SliceStable(pods, func(i, j int) bool {
		a, b := pods[i].Metadata, pods[j].Metadata
		if ea, eb := evicted(pods[i]), evicted(pods[j]); ea != eb {
			return ea
		}
		if a.CreationTimestamp.Equal(&b.CreationTimestamp) {
			return a.Name < b.Name
		}
		return a.CreationTimestamp.Before(&b.CreationTimestamp)
	})
}
