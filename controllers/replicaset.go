package controllers

import (
	"context"
	"fmt"
	"log/slog"
	"reflect"
	"sort"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
)

// Store buckets and resources of the replicated workloads.
const (
	replicaSetsBucket            = "apps/replicasets"
	replicationControllersBucket = "/replicationcontrollers"
)

var (
	replicaSetsGVR            = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "replicasets"}
	replicationControllersGVR = schema.GroupVersionResource{Version: "v1", Resource: "replicationcontrollers"}
	replicaSetKind            = appsv1.SchemeGroupVersion.WithKind("ReplicaSet")
	replicationControllerKind = corev1.SchemeGroupVersion.WithKind("ReplicationController")
)

// burstReplicas bounds the pods one sync of a ReplicaSet creates or deletes,
// as kube-controller-manager's default does.
const burstReplicas = 500

// replicaKind is what differs between the ReplicaSet and the
// ReplicationController controllers: one implementation runs both, seeing
// a ReplicationController as the ReplicaSet it is equivalent to, as
// kube-controller-manager does.
type replicaKind struct {
	name      string // controller name (Selection)
	component string // event source and service account
	bucket    string
	gvr       schema.GroupVersionResource
	gvk       schema.GroupVersionKind
	// terminatingStatus says status.terminatingReplicas is kept (ReplicaSets
	// only).
	terminatingStatus bool
	// decode reads a stored object as a ReplicaSet.
	decode func(store.Event) (*appsv1.ReplicaSet, error)
	// setStatus writes status into the stored object cur.
	setStatus func(cur runtime.Object, status appsv1.ReplicaSetStatus) error
}

var replicaSetController = replicaKind{
	name:              ReplicaSetName,
	component:         "replicaset-controller",
	bucket:            replicaSetsBucket,
	gvr:               replicaSetsGVR,
	gvk:               replicaSetKind,
	terminatingStatus: true,
	decode:            decodeEvent[appsv1.ReplicaSet],
	setStatus: func(cur runtime.Object, status appsv1.ReplicaSetStatus) error {
		rs, ok := cur.(*appsv1.ReplicaSet)
		if !ok {
			return fmt.Errorf("unexpected %T", cur)
		}
		rs.Status = status
		return nil
	},
}

var replicationControllerController = replicaKind{
	name:      ReplicationControllerName,
	component: "replication-controller",
	bucket:    replicationControllersBucket,
	gvr:       replicationControllersGVR,
	gvk:       replicationControllerKind,
	decode: func(ev store.Event) (*appsv1.ReplicaSet, error) {
		rc, err := decodeEvent[corev1.ReplicationController](ev)
		if err != nil {
			return nil, err
		}
		return replicationControllerAsReplicaSet(rc), nil
	},
	setStatus: func(cur runtime.Object, status appsv1.ReplicaSetStatus) error {
		rc, ok := cur.(*corev1.ReplicationController)
		if !ok {
			return fmt.Errorf("unexpected %T", cur)
		}
		rc.Status = corev1.ReplicationControllerStatus{
			Replicas:             status.Replicas,
			FullyLabeledReplicas: status.FullyLabeledReplicas,
			ReadyReplicas:        status.ReadyReplicas,
			AvailableReplicas:    status.AvailableReplicas,
			ObservedGeneration:   status.ObservedGeneration,
		}
		for _, c := range status.Conditions {
			rc.Status.Conditions = append(rc.Status.Conditions, corev1.ReplicationControllerCondition{
				Type: corev1.ReplicationControllerConditionType(c.Type), Status: c.Status,
				LastTransitionTime: c.LastTransitionTime, Reason: c.Reason, Message: c.Message,
			})
		}
		return nil
	},
}

// replicationControllerAsReplicaSet is the ReplicaSet equivalent to rc.
func replicationControllerAsReplicaSet(rc *corev1.ReplicationController) *appsv1.ReplicaSet {
	rs := &appsv1.ReplicaSet{
		ObjectMeta: rc.ObjectMeta,
		Spec: appsv1.ReplicaSetSpec{
			Replicas:        rc.Spec.Replicas,
			MinReadySeconds: rc.Spec.MinReadySeconds,
			Selector:        &metav1.LabelSelector{MatchLabels: rc.Spec.Selector},
		},
		Status: appsv1.ReplicaSetStatus{
			Replicas:             rc.Status.Replicas,
			FullyLabeledReplicas: rc.Status.FullyLabeledReplicas,
			ReadyReplicas:        rc.Status.ReadyReplicas,
			AvailableReplicas:    rc.Status.AvailableReplicas,
			ObservedGeneration:   rc.Status.ObservedGeneration,
		},
	}
	if rs.Spec.Replicas == nil {
		rs.Spec.Replicas = ptr.To[int32](1)
	}
	if rc.Spec.Template != nil {
		rs.Spec.Template = *rc.Spec.Template
	}
	for _, c := range rc.Status.Conditions {
		rs.Status.Conditions = append(rs.Status.Conditions, appsv1.ReplicaSetCondition{
			Type: appsv1.ReplicaSetConditionType(c.Type), Status: c.Status,
			LastTransitionTime: c.LastTransitionTime, Reason: c.Reason, Message: c.Message,
		})
	}
	return rs
}

// ReplicaSet keeps the pods of each ReplicaSet (or ReplicationController)
// at its replicas, as kube-controller-manager's replicaset and
// replicationcontroller controllers do: it creates pods from the template
// (named <name>-<random>, controlled by it), deletes the pods least worth
// keeping first, adopts the orphan pods its selector matches and releases
// the pods it no longer matches, and reports replicas, fullyLabeledReplicas,
// readyReplicas, availableReplicas, terminatingReplicas (ReplicaSets) and
// the ReplicaFailure condition in its status. Pods of a deleted ReplicaSet
// are the garbage collector's.
//
// Its view of the pods is what its feed delivered: each Sync starts with
// every change up to the writes of the previous one (the runner hands over
// all events up to the current revision), so it needs no expectations of
// its own writes.
type ReplicaSet struct {
	kind replicaKind
	reg  registry.Interface
	rec  *Recorder
	log  *slog.Logger
	user user.Info
	now  func() time.Time
	// sets are the ReplicaSets by key (namespace/name).
	sets map[string]*appsv1.ReplicaSet
	// pods are the pods by namespace, then name.
	pods map[string]map[string]*corev1.Pod
	// dirty are the keys of the ReplicaSets to sync.
	dirty map[string]bool
	// due are the ReplicaSets to sync again at a time (pods becoming
	// available after minReadySeconds).
	due map[string]time.Time
	// retries are the failed syncs' retry times.
	retries *keyRetries
}

// NewReplicaSet returns the replicaset controller, writing through reg, on
// the clock now (nil: time.Now), logging to log (nil: slog.Default()).
func NewReplicaSet(reg registry.Interface, now func() time.Time, log *slog.Logger) *ReplicaSet {
	return newReplicaController(replicaSetController, reg, now, log)
}

// NewReplicationController returns the replicationcontroller controller:
// the replicaset controller for ReplicationControllers.
func NewReplicationController(reg registry.Interface, now func() time.Time, log *slog.Logger) *ReplicaSet {
	return newReplicaController(replicationControllerController, reg, now, log)
}

func newReplicaController(kind replicaKind, reg registry.Interface, now func() time.Time, log *slog.Logger) *ReplicaSet {
	if now == nil {
		now = time.Now
	}
	if log == nil {
		log = slog.Default()
	}
	u := controllerUser(kind.component)
	return &ReplicaSet{
		kind:    kind,
		reg:     reg,
		rec:     NewRecorder(reg, kind.component, u, now, log),
		log:     log,
		user:    u,
		now:     now,
		sets:    map[string]*appsv1.ReplicaSet{},
		pods:    map[string]map[string]*corev1.Pod{},
		dirty:   map[string]bool{},
		due:     map[string]time.Time{},
		retries: newKeyRetries(),
	}
}

// Name implements Controller.
func (c *ReplicaSet) Name() string { return c.kind.name }

// Resources implements Controller.
func (c *ReplicaSet) Resources() []string { return []string{c.kind.bucket, podsBucket} }

// Sync implements Controller.
func (c *ReplicaSet) Sync(ctx context.Context, events []store.Event) error {
	for _, ev := range events {
		var err error
		switch ev.Resource {
		case c.kind.bucket:
			err = c.observeSet(ev)
		case podsBucket:
			err = c.observePod(ev)
		}
		if err != nil {
			c.log.Warn("skipping undecodable object", "err", err)
		}
	}
	now := c.now()
	for key, at := range c.due {
		if !at.After(now) {
			delete(c.due, key)
			c.dirty[key] = true
		}
	}
	c.retries.due(c.dirty)
	ctx = registry.WithFieldManager(apirequest.WithUser(ctx, c.user), "kube-controller-manager")
	var errs []error
	for _, key := range sortedKeys(c.dirty) {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err := c.syncSet(ctx, key); err != nil {
			errs = append(errs, fmt.Errorf("%s %s: %w", c.kind.gvk.Kind, key, err))
			c.retries.failed(c.dirty, key)
			continue
		}
		c.retries.forget(key)
		delete(c.dirty, key)
	}
	return c.retries.result(errs, requeueAt(c.due, c.now()))
}

// requeueAt is the Requeue for the earliest of due, or nil.
func requeueAt(due map[string]time.Time, now time.Time) error {
	var first time.Time
	for _, at := range due {
		if first.IsZero() || at.Before(first) {
			first = at
		}
	}
	if first.IsZero() {
		return nil
	}
	return &Requeue{After: max(first.Sub(now), time.Millisecond)}
}

// observeSet records a ReplicaSet event.
func (c *ReplicaSet) observeSet(ev store.Event) error {
	if ev.Type == store.Deleted {
		delete(c.sets, ev.Key)
		delete(c.due, ev.Key)
		delete(c.dirty, ev.Key)
		c.retries.forget(ev.Key)
		return nil
	}
	rs, err := c.kind.decode(ev)
	if err != nil {
		return err
	}
	c.sets[ev.Key] = rs
	c.dirty[ev.Key] = true
	return nil
}

// observePod records a pod event and marks the ReplicaSets it concerns:
// its controller before and after, and, for an orphan, those that match it.
func (c *ReplicaSet) observePod(ev store.Event) error {
	ns, name := splitKey(ev.Key)
	old := c.pods[ns][name]
	var pod *corev1.Pod
	if ev.Type == store.Deleted {
		delete(c.pods[ns], name)
	} else {
		p, err := decodeEvent[corev1.Pod](ev)
		if err != nil {
			return err
		}
		pod = p
		if c.pods[ns] == nil {
			c.pods[ns] = map[string]*corev1.Pod{}
		}
		c.pods[ns][name] = pod
	}
	for _, p := range []*corev1.Pod{old, pod} {
		if p == nil {
			continue
		}
		if ref := metav1.GetControllerOfNoCopy(p); ref != nil {
			if ref.Kind == c.kind.gvk.Kind && ref.APIVersion == c.kind.gvk.GroupVersion().String() {
				c.dirty[ns+"/"+ref.Name] = true
			}
			continue
		}
		if p == pod {
			for _, key := range c.matchingSets(pod) {
				c.dirty[key] = true
			}
		}
	}
	return nil
}

// matchingSets are the keys of the ReplicaSets of the pod's namespace whose
// selector matches it.
func (c *ReplicaSet) matchingSets(pod *corev1.Pod) []string {
	var out []string
	for key, rs := range c.sets {
		if rs.Namespace != pod.Namespace {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(rs.Spec.Selector)
		if err != nil || sel.Empty() {
			continue
		}
		if selectorMatches(sel, pod.Labels) {
			out = append(out, key)
		}
	}
	return out
}

// syncSet brings one ReplicaSet's pods and status in line.
func (c *ReplicaSet) syncSet(ctx context.Context, key string) error {
	rs, ok := c.sets[key]
	if !ok {
		delete(c.due, key)
		return nil
	}
	sel, err := metav1.LabelSelectorAsSelector(rs.Spec.Selector)
	if err != nil {
		c.log.Warn("invalid selector", "key", key, "err", err)
		return nil
	}
	// The pods it controls and the orphans.
	var candidates []*corev1.Pod
	for _, p := range c.pods[rs.Namespace] {
		ref := metav1.GetControllerOfNoCopy(p)
		if ref == nil || ref.UID == rs.UID {
			candidates = append(candidates, p)
		}
	}
	sort.Slice(candidates, func(i, j int) bool { return candidates[i].Name < candidates[j].Name })
	active, err := c.claimPods(ctx, rs, sel, activePods(candidates))
	if err != nil {
		return err
	}
	var terminating []*corev1.Pod
	if c.kind.terminatingStatus {
		for _, p := range candidates {
			if isPodTerminating(p) && metav1.IsControlledBy(p, rs) && selectorMatches(sel, p.Labels) {
				terminating = append(terminating, p)
			}
		}
	}
	var manageErr error
	if rs.DeletionTimestamp == nil {
		manageErr = c.manageReplicas(ctx, rs, active)
	}
	now := c.now()
	status := replicaSetStatus(rs, active, terminating, manageErr, c.kind.terminatingStatus, now)
	if err := c.updateStatus(ctx, rs, status); err != nil {
		return err
	}
	if manageErr != nil {
		return manageErr
	}
	if rs.Spec.MinReadySeconds > 0 && status.ReadyReplicas != status.AvailableReplicas {
		next := time.Duration(rs.Spec.MinReadySeconds) * time.Second
		if d, ok := nextPodAvailabilityCheck(active, rs.Spec.MinReadySeconds, now); ok {
			next = d
		}
		c.due[key] = now.Add(next)
	} else {
		delete(c.due, key)
	}
	return nil
}

// claimPods returns the active pods rs owns once it adopted the orphans its
// selector matches and released the pods it controls that it no longer
// matches, as kube-controller-manager's ControllerRefManager does.
func (c *ReplicaSet) claimPods(ctx context.Context, rs *appsv1.ReplicaSet, sel labels.Selector, pods []*corev1.Pod) ([]*corev1.Pod, error) {
	o := newOwnerRefs(c.reg, rs, c.kind.gvr, c.kind.gvk)
	return claim(ctx, o, podsGVR, pods, sel, func(p *corev1.Pod, ref metav1.OwnerReference) *corev1.Pod {
		adopted := p.DeepCopy()
		adopted.OwnerReferences = append(adopted.OwnerReferences, ref)
		return adopted
	})
}

// manageReplicas creates or deletes pods towards rs's replicas, at most
// burstReplicas at a time.
func (c *ReplicaSet) manageReplicas(ctx context.Context, rs *appsv1.ReplicaSet, active []*corev1.Pod) error {
	diff := len(active) - int(*rs.Spec.Replicas)
	owner := EventRef(c.kind.gvk.GroupVersion().String(), c.kind.gvk.Kind, rs)
	switch {
	case diff < 0:
		n := min(-diff, burstReplicas)
		ref := controllerRefTo(rs, c.kind.gvk)
		_, err := slowStartBatch(n, slowStartInitialBatchSize, func() error {
			_, err := createPodFromTemplate(ctx, c.reg, c.rec, owner, &rs.Spec.Template, ref)
			if err != nil && apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause) {
				return nil
			}
			return err
		})
		return err
	case diff > 0:
		n := min(diff, burstReplicas)
		doomed := c.podsToDelete(rs, active, n)
		errs := make(chan error, n)
		var wg sync.WaitGroup
		for _, p := range doomed {
			wg.Go(func() {
				if err := deleteControlledPod(ctx, c.reg, c.rec, owner, p.Namespace, p.Name); err != nil && !apierrors.IsNotFound(err) {
					errs <- err
				}
			})
		}
		wg.Wait()
		select {
		case err := <-errs:
			return err
		default:
		}
	}
	return nil
}

// podsToDelete picks the n pods of active to delete first: those least
// worth keeping, counting as doubled up the pods of the ReplicaSets that
// share rs's controller (a Deployment's).
func (c *ReplicaSet) podsToDelete(rs *appsv1.ReplicaSet, active []*corev1.Pod, n int) []*corev1.Pod {
	pods := append([]*corev1.Pod(nil), active...)
	if n >= len(pods) {
		return pods
	}
	sort.Sort(rankPodsForDeletion(pods, c.relatedPods(rs), c.now()))
	return pods[:n]
}

// relatedPods are the pods of the ReplicaSets controlled by rs's controller.
func (c *ReplicaSet) relatedPods(rs *appsv1.ReplicaSet) []*corev1.Pod {
	owner := metav1.GetControllerOfNoCopy(rs)
	if owner == nil {
		return nil
	}
	seen := map[string]bool{}
	var out []*corev1.Pod
	for _, other := range c.sets {
		if other.Namespace != rs.Namespace {
			continue
		}
		if o := metav1.GetControllerOfNoCopy(other); o == nil || o.UID != owner.UID {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(other.Spec.Selector)
		if err != nil {
			continue
		}
		for _, p := range c.pods[rs.Namespace] {
			if !seen[p.Name] && selectorMatches(sel, p.Labels) {
				seen[p.Name] = true
				out = append(out, p)
			}
		}
	}
	return out
}

// replicaSetStatus is rs's status for its active and terminating pods and
// the failure, if any, of managing its replicas.
func replicaSetStatus(rs *appsv1.ReplicaSet, active, terminating []*corev1.Pod, manageErr error, withTerminating bool, now time.Time) appsv1.ReplicaSetStatus {
	st := *rs.Status.DeepCopy()
	templateLabels := labels.SelectorFromSet(rs.Spec.Template.Labels)
	var fully, ready, available int32
	for _, p := range active {
		if templateLabels.Matches(labels.Set(p.Labels)) {
			fully++
		}
		if isPodReady(p) {
			ready++
			if isPodAvailable(p, rs.Spec.MinReadySeconds, now) {
				available++
			}
		}
	}
	st.TerminatingReplicas = nil
	if withTerminating {
		st.TerminatingReplicas = ptr.To(int32(len(terminating)))
	}
	failure := replicaSetCondition(rs.Status, appsv1.ReplicaSetReplicaFailure)
	switch {
	case manageErr != nil && failure == nil:
		reason := ""
		if diff := len(active) - int(*rs.Spec.Replicas); diff < 0 {
			reason = "FailedCreate"
		} else if diff > 0 {
			reason = "FailedDelete"
		}
		st.Conditions = append(withoutReplicaSetCondition(st.Conditions, appsv1.ReplicaSetReplicaFailure), appsv1.ReplicaSetCondition{
			Type: appsv1.ReplicaSetReplicaFailure, Status: corev1.ConditionTrue,
			LastTransitionTime: metav1.NewTime(now), Reason: reason, Message: manageErr.Error(),
		})
	case manageErr == nil && failure != nil:
		st.Conditions = withoutReplicaSetCondition(st.Conditions, appsv1.ReplicaSetReplicaFailure)
	}
	st.Replicas = int32(len(active))
	st.FullyLabeledReplicas = fully
	st.ReadyReplicas = ready
	st.AvailableReplicas = available
	return st
}

// replicaSetCondition returns the condition of type t, or nil.
func replicaSetCondition(st appsv1.ReplicaSetStatus, t appsv1.ReplicaSetConditionType) *appsv1.ReplicaSetCondition {
	for i := range st.Conditions {
		if st.Conditions[i].Type == t {
			return &st.Conditions[i]
		}
	}
	return nil
}

// withoutReplicaSetCondition returns conds without those of type t.
func withoutReplicaSetCondition(conds []appsv1.ReplicaSetCondition, t appsv1.ReplicaSetConditionType) []appsv1.ReplicaSetCondition {
	var out []appsv1.ReplicaSetCondition
	for _, c := range conds {
		if c.Type != t {
			out = append(out, c)
		}
	}
	return out
}

// updateStatus writes status, with the generation acted on, unless the
// stored one already says the same.
func (c *ReplicaSet) updateStatus(ctx context.Context, rs *appsv1.ReplicaSet, status appsv1.ReplicaSetStatus) error {
	if rs.Status.Replicas == status.Replicas &&
		rs.Status.FullyLabeledReplicas == status.FullyLabeledReplicas &&
		rs.Status.ReadyReplicas == status.ReadyReplicas &&
		rs.Status.AvailableReplicas == status.AvailableReplicas &&
		ptr.Equal(rs.Status.TerminatingReplicas, status.TerminatingReplicas) &&
		rs.Generation == rs.Status.ObservedGeneration &&
		reflect.DeepEqual(rs.Status.Conditions, status.Conditions) {
		return nil
	}
	status.ObservedGeneration = rs.Generation
	_, err := c.reg.UpdateSubresource(ctx, c.kind.gvr, "status", rs.Namespace, rs.Name, func(cur runtime.Object) (runtime.Object, error) {
		m, err := metaOf(cur)
		if err != nil {
			return nil, err
		}
		if m.GetUID() != rs.UID {
			return nil, apierrors.NewNotFound(c.kind.gvr.GroupResource(), rs.Name)
		}
		if err := c.kind.setStatus(cur, status); err != nil {
			return nil, err
		}
		return cur, nil
	})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("update status: %w", err)
	}
	return nil
}
