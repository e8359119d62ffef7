package controllers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
	pdbhelper "k8s.io/component-helpers/apps/poddisruptionbudget"

	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
)

// Store buckets the disruption controller is fed from, besides pods and
// StatefulSets.
const (
	pdbsBucket                   = "policy/poddisruptionbudgets"
	disruptionReplicaSetsBucket  = "apps/replicasets"
	disruptionDeploymentsBucket  = "apps/deployments"
	disruptionReplicationsBucket = "/replicationcontrollers"
)

var pdbsGVR = schema.GroupVersionResource{Group: "policy", Version: "v1", Resource: "poddisruptionbudgets"}

// disruptionScale is what the disruption controller knows of a workload
// controller: its kind, UID, desired replicas and own controller.
type disruptionScale struct {
	kind     string
	uid      types.UID
	replicas int32
	owner    *metav1.OwnerReference
}

// Disruption keeps the status of PodDisruptionBudgets as
// kube-controller-manager's disruption controller does: the pods their
// selector matches, how many are healthy (Ready and not being deleted),
// how many are expected (the pods, for an integer minAvailable; else the
// replicas of their controllers: ReplicaSets, through their Deployments,
// ReplicationControllers and StatefulSets), how many must stay healthy,
// and so how many disruptions are allowed, with the DisruptionAllowed
// condition. A budget whose pods have no such controller gets upstream's
// events and a failed sync. The pods an eviction took a disruption for
// (status.disruptedPods) are not counted healthy for pdbDeletionTimeout.
// A pod whose DisruptionTarget condition has been True for
// staleDisruptionTimeout without the pod being deleted gets it set False.
//
// Not built: the scale subresource of custom controllers.
type Disruption struct {
	reg  registry.Interface
	log  *slog.Logger
	user user.Info
	rec  *Recorder
	// pdbs, pods and scales are what the controller was fed, by store key
	// (scales by UID).
	pdbs   map[string]*policyv1.PodDisruptionBudget
	pods   map[string]*corev1.Pod
	scales map[types.UID]disruptionScale
	uidOf  map[string]types.UID
	dirty  map[string]bool
	// retries are the failed syncs' retry times.
	retries *keyRetries
	// stale are when pods' DisruptionTarget conditions go stale, by pod
	// key.
	stale *jobWakeups
	now   func() time.Time
}

// staleDisruptionTimeout is how long a pod that is not being deleted may
// keep a True DisruptionTarget condition before the controller sets it
// False (upstream's stalePodDisruptionTimeout); staleDisruptionRetry is
// when a failed reset is tried again.
const (
	staleDisruptionTimeout = 2 * time.Minute
	staleDisruptionRetry   = time.Second
)

// pdbDeletionTimeout is how long a pod an eviction took a disruption for
// (status.disruptedPods) is not counted healthy while it waits to be
// deleted, as upstream's DeletionTimeout.
const pdbDeletionTimeout = 2 * time.Minute

// NewDisruption returns the disruption controller, writing through reg
// and logging to log (nil: slog.Default()).
func NewDisruption(reg registry.Interface, now func() time.Time, log *slog.Logger) *Disruption {
	if log == nil {
		log = slog.Default()
	}
	fake := now != nil
	if now == nil {
		now = time.Now
	}
	u := controllerUser("disruption-controller")
	return &Disruption{
		reg: reg, log: log, user: u,
		rec:     NewRecorder(reg, "controllermanager", u, now, log),
		pdbs:    map[string]*policyv1.PodDisruptionBudget{},
		pods:    map[string]*corev1.Pod{},
		scales:  map[types.UID]disruptionScale{},
		uidOf:   map[string]types.UID{},
		dirty:   map[string]bool{},
		retries: newKeyRetries(),
		stale:   newJobWakeups(fake),
		now:     now,
	}
}

// Name implements Controller.
func (c *Disruption) Name() string { return DisruptionName }

// Resources implements Controller.
func (c *Disruption) Resources() []string {
	return []string{pdbsBucket, podsBucket, disruptionReplicaSetsBucket, disruptionDeploymentsBucket, disruptionReplicationsBucket, statefulSetsBucket}
}

// Sync implements Controller. As upstream's, a budget is synced when it
// changes, and when a pod it selects is added, changes or goes, if it is
// the pod's budget: a pod that several budgets select is the first one's
// (by name here; upstream's choice is arbitrary) and gets a
// MultiplePodDisruptionBudgets warning. Changes to the pods' controllers
// are read at the next sync, as upstream's listers are.
func (c *Disruption) Sync(ctx context.Context, events []store.Event) error {
	ctx = registry.WithFieldManager(apirequest.WithUser(ctx, c.user), "kube-controller-manager")
	for _, ev := range events {
		if err := c.observe(ev); err != nil {
			c.log.Warn("skipped", "err", err)
			continue
		}
		switch ev.Resource {
		case pdbsBucket:
			if ev.Type != store.Deleted {
				c.dirty[ev.Key] = true
			}
		case podsBucket:
			pod := c.pods[ev.Key] // as observe decoded it
			if ev.Type == store.Deleted {
				var err error
				if pod, err = decodeEvent[corev1.Pod](ev); err != nil {
					c.log.Warn("skipped", "err", err)
					continue
				}
			}
			if key, ok := c.pdbForPod(ctx, pod); ok {
				c.dirty[key] = true
			}
			if ev.Type != store.Deleted {
				if stale, after := staleDisruption(pod, c.now()); stale {
					c.stale.after(ev.Key, c.now(), after)
				}
			}
		}
	}
	err := syncKeys(ctx, "poddisruptionbudget", c.dirty, c.retries, c.pdbs, c.sync)
	now := c.now()
	for _, key := range c.stale.due(now) {
		if rerr := c.resetStaleDisruption(ctx, key); rerr != nil {
			c.log.Warn("reset stale DisruptionTarget condition", "pod", key, "err", rerr)
			c.stale.after(key, now, staleDisruptionRetry)
		}
	}
	return earlierRequeue(err, c.stale.requeue(now))
}

// staleDisruption reports whether pod has a DisruptionTarget condition
// that goes stale if the pod is not deleted (True, not the kubelet's, on
// a pod neither terminal nor being deleted), and how long until it does.
func staleDisruption(pod *corev1.Pod, now time.Time) (bool, time.Duration) {
	if pod == nil || pod.DeletionTimestamp != nil || podTerminal(pod) {
		return false, 0
	}
	cond := podCondition(pod, corev1.DisruptionTarget)
	if cond == nil || cond.Status != corev1.ConditionTrue || cond.Reason == corev1.PodReasonTerminationByKubelet {
		return false, 0
	}
	return true, max(staleDisruptionTimeout-now.Sub(cond.LastTransitionTime.Time), 0)
}

// resetStaleDisruption sets the pod's DisruptionTarget condition False if
// it is still stale, as upstream's syncStalePodDisruption.
func (c *Disruption) resetStaleDisruption(ctx context.Context, key string) error {
	pod := c.pods[key]
	if stale, after := staleDisruption(pod, c.now()); !stale || after > 0 {
		if stale {
			c.stale.after(key, c.now(), after)
		}
		return nil
	}
	_, err := c.reg.UpdateSubresource(ctx, podsGVR, "status", pod.Namespace, pod.Name, func(cur runtime.Object) (runtime.Object, error) {
		p := cur.(*corev1.Pod)
		if p.UID != pod.UID {
			return nil, errNoChange
		}
		cond := corev1.PodCondition{Type: corev1.DisruptionTarget, Status: corev1.ConditionFalse, ObservedGeneration: p.Generation}
		if !updatePodCondition(&p.Status, cond, metav1.NewTime(c.now())) {
			return nil, errNoChange
		}
		return p, nil
	})
	if err != nil && !errors.Is(err, errNoChange) && !apierrors.IsNotFound(err) {
		return fmt.Errorf("update status: %w", err)
	}
	return nil
}

// observe records one event.
func (c *Disruption) observe(ev store.Event) error {
	if ev.Type == store.Deleted {
		switch ev.Resource {
		case pdbsBucket:
			delete(c.pdbs, ev.Key)
		case podsBucket:
			delete(c.pods, ev.Key)
		default:
			delete(c.scales, c.uidOf[ev.Resource+"|"+ev.Key])
			delete(c.uidOf, ev.Resource+"|"+ev.Key)
		}
		return nil
	}
	var s disruptionScale
	var meta metav1.Object
	switch ev.Resource {
	case pdbsBucket:
		pdb, err := decodeEvent[policyv1.PodDisruptionBudget](ev)
		if err != nil {
			return err
		}
		c.pdbs[ev.Key] = pdb
		return nil
	case podsBucket:
		pod, err := decodeEvent[corev1.Pod](ev)
		if err != nil {
			return err
		}
		c.pods[ev.Key] = pod
		return nil
	case disruptionReplicaSetsBucket:
		rs, err := decodeEvent[appsv1.ReplicaSet](ev)
		if err != nil {
			return err
		}
		s, meta = disruptionScale{kind: "ReplicaSet", replicas: replicasOr1(rs.Spec.Replicas)}, rs
	case disruptionDeploymentsBucket:
		d, err := decodeEvent[appsv1.Deployment](ev)
		if err != nil {
			return err
		}
		s, meta = disruptionScale{kind: "Deployment", replicas: replicasOr1(d.Spec.Replicas)}, d
	case disruptionReplicationsBucket:
		rc, err := decodeEvent[corev1.ReplicationController](ev)
		if err != nil {
			return err
		}
		s, meta = disruptionScale{kind: "ReplicationController", replicas: replicasOr1(rc.Spec.Replicas)}, rc
	case statefulSetsBucket:
		set, err := decodeEvent[appsv1.StatefulSet](ev)
		if err != nil {
			return err
		}
		s, meta = disruptionScale{kind: "StatefulSet", replicas: replicasOr1(set.Spec.Replicas)}, set
	default:
		return nil
	}
	s.uid, s.owner = meta.GetUID(), metav1.GetControllerOfNoCopy(meta)
	c.scales[s.uid] = s
	c.uidOf[ev.Resource+"|"+ev.Key] = s.uid
	return nil
}

// pdbForPod returns the key of the budget a pod is counted by: the first
// by name of those of its namespace whose selector matches its labels (an
// empty selector matches every pod, an invalid one none); false if none
// does. A pod that several match gets upstream's warning.
func (c *Disruption) pdbForPod(ctx context.Context, pod *corev1.Pod) (string, bool) {
	var keys []string
	for key, pdb := range c.pdbs {
		if pdb.Namespace != pod.Namespace {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil || !sel.Matches(labels.Set(pod.Labels)) {
			continue
		}
		keys = append(keys, key)
	}
	if len(keys) == 0 {
		return "", false
	}
	slices.Sort(keys)
	if len(keys) > 1 {
		c.rec.Eventf(ctx, EventRef("v1", "Pod", pod), corev1.EventTypeWarning, "MultiplePodDisruptionBudgets",
			"Pod %q/%q matches multiple PodDisruptionBudgets.  Chose %q arbitrarily.", pod.Namespace, pod.Name, c.pdbs[keys[0]].Name)
	}
	return keys[0], true
}

// replicasOr1 is spec.replicas, defaulted to 1.
func replicasOr1(r *int32) int32 {
	if r == nil {
		return 1
	}
	return *r
}

// expectedScale sums the replicas of the pods' controllers, as upstream's
// finders find them; pods without a controller are unmanaged.
func (c *Disruption) expectedScale(pods []*corev1.Pod) (expected int32, unmanaged []string, err error) {
	seen := map[types.UID]bool{}
	for _, pod := range pods {
		ref := metav1.GetControllerOfNoCopy(pod)
		if ref == nil {
			unmanaged = append(unmanaged, pod.Name)
			continue
		}
		s, ok := c.scales[ref.UID]
		if !ok || s.kind != ref.Kind {
			return 0, nil, fmt.Errorf("found no controllers for pod %q", pod.Name)
		}
		if s.kind == "ReplicaSet" && s.owner != nil && s.owner.Kind == "Deployment" {
			d, ok := c.scales[s.owner.UID]
			if !ok {
				return 0, nil, fmt.Errorf("found no controllers for pod %q", pod.Name)
			}
			s = d
		}
		if !seen[s.uid] {
			seen[s.uid] = true
			expected += s.replicas
		}
	}
	return expected, unmanaged, nil
}

// sync computes and writes one budget's status.
func (c *Disruption) sync(ctx context.Context, pdb *policyv1.PodDisruptionBudget) (time.Duration, error) {
	ref := EventRef("policy/v1", "PodDisruptionBudget", pdb)
	sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
	if err != nil {
		sel = labels.Nothing()
	}
	var pods []*corev1.Pod
	for _, p := range c.pods {
		if p.Namespace == pdb.Namespace && sel.Matches(labels.Set(p.Labels)) {
			pods = append(pods, p)
		}
	}
	if len(pods) == 0 {
		c.rec.Eventf(ctx, ref, corev1.EventTypeNormal, "NoPods", "No matching pods found")
	}
	var expected, desired int32
	var unmanaged []string
	switch {
	case pdb.Spec.MaxUnavailable != nil:
		expected, unmanaged, err = c.expectedScale(pods)
		if err == nil {
			var maxUnavailable int
			maxUnavailable, err = intstr.GetScaledValueFromIntOrPercent(pdb.Spec.MaxUnavailable, int(expected), true)
			desired = max(expected-int32(maxUnavailable), 0)
		}
	case pdb.Spec.MinAvailable != nil && pdb.Spec.MinAvailable.Type == intstr.Int:
		desired, expected = pdb.Spec.MinAvailable.IntVal, int32(len(pods))
	case pdb.Spec.MinAvailable != nil:
		expected, unmanaged, err = c.expectedScale(pods)
		if err == nil {
			var minAvailable int
			minAvailable, err = intstr.GetScaledValueFromIntOrPercent(pdb.Spec.MinAvailable, int(expected), true)
			desired = int32(minAvailable)
		}
	}
	if err != nil {
		c.rec.Eventf(ctx, ref, corev1.EventTypeWarning, "CalculateExpectedPodCountFailed", "Failed to calculate the number of expected pods: %v", err)
		return 0, c.writeStatus(ctx, pdb, func(p *policyv1.PodDisruptionBudget) {
			p.Status.DisruptionsAllowed = 0
			if p.Status.Conditions == nil {
				p.Status.Conditions = []metav1.Condition{}
			}
			meta.SetStatusCondition(&p.Status.Conditions, metav1.Condition{Type: policyv1.DisruptionAllowedCondition, Status: metav1.ConditionFalse,
				Reason: policyv1.SyncFailedReason, Message: err.Error(), ObservedGeneration: p.Status.ObservedGeneration})
		})
	}
	if len(unmanaged) > 0 {
		c.rec.Eventf(ctx, ref, corev1.EventTypeWarning, "UnmanagedPods", "Pods selected by this PodDisruptionBudget (selector: %v) were found "+
			"to be unmanaged. As a result, the status of the PDB cannot be calculated correctly, which may result in undefined behavior. "+
			"To account for these pods please set \".spec.minAvailable\" field of the PDB to an integer value.", pdb.Spec.Selector)
	}
	// The pods an eviction took a disruption for are not healthy until
	// they are deleted, or for pdbDeletionTimeout.
	now := c.now()
	disrupted, recheck := c.disruptedPods(ctx, pdb, pods, now)
	var healthy int32
	for _, p := range pods {
		if _, ok := disrupted[p.Name]; !ok && p.DeletionTimestamp == nil && isPodReady(p) {
			healthy++
		}
	}
	allowed := healthy - desired
	if expected <= 0 || allowed <= 0 {
		allowed = 0
	}
	if pdb.Status.CurrentHealthy == healthy && pdb.Status.DesiredHealthy == desired && pdb.Status.ExpectedPods == expected &&
		pdb.Status.DisruptionsAllowed == allowed && apiequality.Semantic.DeepEqual(disrupted, pdb.Status.DisruptedPods) &&
		pdb.Status.ObservedGeneration == pdb.Generation && pdbhelper.ConditionsAreUpToDate(pdb) {
		return recheck, nil
	}
	return recheck, c.writeStatus(ctx, pdb, func(p *policyv1.PodDisruptionBudget) {
		p.Status = policyv1.PodDisruptionBudgetStatus{
			CurrentHealthy: healthy, DesiredHealthy: desired, ExpectedPods: expected, DisruptionsAllowed: allowed,
			ObservedGeneration: pdb.Generation, Conditions: p.Status.Conditions, DisruptedPods: disrupted,
		}
		pdbhelper.UpdateDisruptionAllowedCondition(p)
	})
}

// disruptedPods is the budget's status.disruptedPods as upstream's
// controller keeps it: the entries of pods that still exist, are not being
// deleted, and were disrupted less than pdbDeletionTimeout ago; an expired
// one gets a NotDeleted warning. It also returns when the soonest entry
// expires (0: none).
func (c *Disruption) disruptedPods(ctx context.Context, pdb *policyv1.PodDisruptionBudget, pods []*corev1.Pod, now time.Time) (map[string]metav1.Time, time.Duration) {
	if pdb.Status.DisruptedPods == nil {
		return nil, 0
	}
	out := map[string]metav1.Time{}
	var recheck time.Duration
	for _, p := range pods {
		at, ok := pdb.Status.DisruptedPods[p.Name]
		if !ok || p.DeletionTimestamp != nil {
			continue
		}
		expires := at.Add(pdbDeletionTimeout)
		if expires.Before(now) {
			// Upstream's message names the namespace twice.
			c.rec.Eventf(ctx, EventRef("v1", "Pod", p), corev1.EventTypeWarning, "NotDeleted",
				"Pod was expected by PDB %s/%s to be deleted but it wasn't", pdb.Namespace, pdb.Namespace)
			continue
		}
		out[p.Name] = at
		if d := expires.Sub(now); recheck == 0 || d < recheck {
			recheck = d
		}
	}
	return out, recheck
}

// writeStatus writes the status change makes to the stored budget.
func (c *Disruption) writeStatus(ctx context.Context, pdb *policyv1.PodDisruptionBudget, change func(*policyv1.PodDisruptionBudget)) error {
	got, err := c.reg.UpdateSubresource(ctx, pdbsGVR, "status", pdb.Namespace, pdb.Name, func(cur runtime.Object) (runtime.Object, error) {
		p := cur.(*policyv1.PodDisruptionBudget)
		if p.UID != pdb.UID {
			return nil, apierrors.NewNotFound(pdbsGVR.GroupResource(), pdb.Name)
		}
		change(p)
		return p, nil
	})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("update status: %w", err)
	}
	p := got.(*policyv1.PodDisruptionBudget)
	c.pdbs[p.Namespace+"/"+p.Name] = p
	return nil
}
