package controllers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"sort"
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
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

// deploymentsBucket is the store bucket of Deployments.
const deploymentsBucket = "apps/deployments"

var (
	deploymentsGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	deploymentKind = appsv1.SchemeGroupVersion.WithKind("Deployment")
)

// Deployment rolls Deployments out through ReplicaSets, as
// kube-controller-manager's deployment controller does: a ReplicaSet per
// pod template, named <deployment>-<pod-template-hash>, scaled by the
// RollingUpdate (maxSurge, maxUnavailable) or Recreate strategy; the
// revision annotations, kept old ReplicaSets up to revisionHistoryLimit,
// proportional scaling, pausing, the progress deadline, and the status
// (replicas, updated, ready, available, unavailable and terminating
// replicas, the Available and Progressing conditions) that kubectl rollout
// reads.
//
// Like ReplicaSet, it acts on the view its feed delivered; the writes of a
// Sync are in the events of the next.
type Deployment struct {
	reg  registry.Interface
	rec  *Recorder
	log  *slog.Logger
	user user.Info
	now  func() time.Time
	// deployments, sets and pods are the view, by key (namespace/name).
	deployments map[string]*appsv1.Deployment
	sets        map[string]*appsv1.ReplicaSet
	pods        map[string]*podOwnerPhase
	// dirty are the Deployments to sync; due, those to sync again at a time
	// (the progress deadline).
	dirty map[string]bool
	due   map[string]time.Time
	// retries are the failed syncs' retry times.
	retries *keyRetries
}

// NewDeployment returns the deployment controller, writing through reg, on
// the clock now (nil: time.Now), logging to log (nil: slog.Default()).
func NewDeployment(reg registry.Interface, now func() time.Time, log *slog.Logger) *Deployment {
	if now == nil {
		now = time.Now
	}
	if log == nil {
		log = slog.Default()
	}
	u := controllerUser(DeploymentName)
	retries := newKeyRetries()
	retries.limit = deploymentMaxRetries
	return &Deployment{
		reg:         reg,
		rec:         NewRecorder(reg, DeploymentName, u, now, log),
		log:         log,
		user:        u,
		now:         now,
		deployments: map[string]*appsv1.Deployment{},
		sets:        map[string]*appsv1.ReplicaSet{},
		pods:        map[string]*podOwnerPhase{},
		dirty:       map[string]bool{},
		retries:     retries,
		due:         map[string]time.Time{},
	}
}

// deploymentMaxRetries is how many failures in a row the deployment
// controller retries; after that a Deployment waits for a change of its
// own objects (upstream's maxRetries). A failure because the namespace is
// terminating is not retried at all.
const deploymentMaxRetries = 15

// Name implements Controller.
func (c *Deployment) Name() string { return DeploymentName }

// Resources implements Controller.
func (c *Deployment) Resources() []string {
	return []string{deploymentsBucket, replicaSetsBucket, podsBucket}
}

// Sync implements Controller.
func (c *Deployment) Sync(ctx context.Context, events []store.Event) error {
	for _, ev := range events {
		var err error
		switch ev.Resource {
		case deploymentsBucket:
			err = c.observeDeployment(ev)
		case replicaSetsBucket:
			err = c.observeReplicaSet(ev)
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
		err := c.syncDeployment(ctx, key)
		if err != nil && !apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause) {
			errs = append(errs, fmt.Errorf("deployment %s: %w", key, err))
			c.retries.failed(c.dirty, key)
			continue
		}
		c.retries.forget(key)
		delete(c.dirty, key)
	}
	return c.retries.result(errs, requeueAt(c.due, c.now()))
}

func (c *Deployment) observeDeployment(ev store.Event) error {
	if ev.Type == store.Deleted {
		delete(c.deployments, ev.Key)
		delete(c.dirty, ev.Key)
		delete(c.due, ev.Key)
		c.retries.forget(ev.Key)
		return nil
	}
	d, err := decodeEvent[appsv1.Deployment](ev)
	if err != nil {
		return err
	}
	c.deployments[ev.Key] = d
	c.dirty[ev.Key] = true
	return nil
}

// observeReplicaSet records a ReplicaSet event and marks its Deployment
// (before and after), or, for an orphan, the Deployments that match it.
func (c *Deployment) observeReplicaSet(ev store.Event) error {
	old := c.sets[ev.Key]
	var rs *appsv1.ReplicaSet
	if ev.Type == store.Deleted {
		delete(c.sets, ev.Key)
	} else {
		var err error
		if rs, err = decodeEvent[appsv1.ReplicaSet](ev); err != nil {
			return err
		}
		c.sets[ev.Key] = rs
	}
	for _, s := range []*appsv1.ReplicaSet{old, rs} {
		if s == nil {
			continue
		}
		if ref := metav1.GetControllerOfNoCopy(s); ref != nil {
			if ref.Kind == deploymentKind.Kind && ref.APIVersion == deploymentKind.GroupVersion().String() {
				c.dirty[s.Namespace+"/"+ref.Name] = true
			}
			continue
		}
		if s == rs {
			for key, d := range c.deployments {
				if d.Namespace != rs.Namespace {
					continue
				}
				if sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector); err == nil && !sel.Empty() && selectorMatches(sel, rs.Labels) {
					c.dirty[key] = true
				}
			}
		}
	}
	return nil
}

// podOwnerPhase is what the deployment controller reads of a pod: its
// owners and phase (a Recreate rollout waits for the old pods to be gone).
type podOwnerPhase struct {
	Metadata struct {
		Namespace       string                  `json:"namespace"`
		OwnerReferences []metav1.OwnerReference `json:"ownerReferences"`
	} `json:"metadata"`
	Status struct {
		Phase corev1.PodPhase `json:"phase"`
	} `json:"status"`
}

// controller is the pod's controller reference, or nil.
func (p *podOwnerPhase) controller() *metav1.OwnerReference {
	for i := range p.Metadata.OwnerReferences {
		if r := &p.Metadata.OwnerReferences[i]; r.Controller != nil && *r.Controller {
			return r
		}
	}
	return nil
}

// observePod records a pod event: a Recreate rollout waits for the old
// pods to be gone.
func (c *Deployment) observePod(ev store.Event) error {
	old := c.pods[ev.Key]
	var pod *podOwnerPhase
	if ev.Type == store.Deleted {
		delete(c.pods, ev.Key)
	} else {
		var err error
		if pod, err = decodeEvent[podOwnerPhase](ev); err != nil {
			return err
		}
		c.pods[ev.Key] = pod
	}
	for _, p := range []*podOwnerPhase{old, pod} {
		if p == nil {
			continue
		}
		ref := p.controller()
		if ref == nil || ref.Kind != replicaSetKind.Kind {
			continue
		}
		ns := p.Metadata.Namespace
		rs := c.sets[ns+"/"+ref.Name]
		if rs == nil {
			continue
		}
		if dref := metav1.GetControllerOfNoCopy(rs); dref != nil && dref.Kind == deploymentKind.Kind {
			key := ns + "/" + dref.Name
			if d := c.deployments[key]; d != nil && d.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType {
				c.dirty[key] = true
			}
		}
	}
	return nil
}

// eventRef is the reference of d's events.
func (c *Deployment) eventRef(d *appsv1.Deployment) corev1.ObjectReference {
	return EventRef("apps/v1", "Deployment", d)
}

// syncDeployment is one pass of upstream's syncDeployment over key.
func (c *Deployment) syncDeployment(ctx context.Context, key string) error {
	cached, ok := c.deployments[key]
	if !ok {
		delete(c.due, key)
		return nil
	}
	d := cached.DeepCopy()
	delete(c.due, key)
	if d.Spec.Selector == nil || reflect.DeepEqual(*d.Spec.Selector, metav1.LabelSelector{}) {
		c.rec.Eventf(ctx, c.eventRef(d), corev1.EventTypeWarning, "SelectingAll", "This deployment is selecting all pods. A non-empty selector is required.")
		if d.Status.ObservedGeneration < d.Generation {
			d.Status.ObservedGeneration = d.Generation
			return c.writeStatus(ctx, d)
		}
		return nil
	}
	rsList, err := c.claimReplicaSets(ctx, d)
	if err != nil {
		return err
	}
	if d.DeletionTimestamp != nil {
		return c.syncStatusOnly(ctx, d, rsList)
	}
	if err := c.checkPausedConditions(ctx, d); err != nil {
		return err
	}
	if d.Spec.Paused {
		return c.syncScale(ctx, d, rsList)
	}
	if rollbackTo(d) != nil {
		return c.rollback(ctx, d, rsList)
	}
	scaling, err := c.isScalingEvent(ctx, d, rsList)
	if err != nil {
		return err
	}
	if scaling {
		return c.syncScale(ctx, d, rsList)
	}
	switch d.Spec.Strategy.Type {
	case appsv1.RecreateDeploymentStrategyType:
		return c.rolloutRecreate(ctx, d, rsList)
	case appsv1.RollingUpdateDeploymentStrategyType:
		return c.rolloutRolling(ctx, d, rsList)
	}
	return fmt.Errorf("unexpected deployment strategy type: %s", d.Spec.Strategy.Type)
}

// claimReplicaSets returns the ReplicaSets d controls once it adopted the
// orphans its selector matches and released those it no longer matches.
func (c *Deployment) claimReplicaSets(ctx context.Context, d *appsv1.Deployment) ([]*appsv1.ReplicaSet, error) {
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return nil, fmt.Errorf("deployment %s/%s has invalid label selector: %w", d.Namespace, d.Name, err)
	}
	var candidates []*appsv1.ReplicaSet
	for _, rs := range c.sets {
		if rs.Namespace == d.Namespace {
			candidates = append(candidates, rs)
		}
	}
	sort.Slice(candidates, func(i, j int) bool { return candidates[i].Name < candidates[j].Name })
	o := newOwnerRefs(c.reg, d, deploymentsGVR, deploymentKind)
	claimed, err := claim(ctx, o, replicaSetsGVR, candidates, sel, func(rs *appsv1.ReplicaSet, ref metav1.OwnerReference) *appsv1.ReplicaSet {
		adopted := rs.DeepCopy()
		adopted.OwnerReferences = append(adopted.OwnerReferences, ref)
		return adopted
	})
	// The rollout changes what it is given: copies, not the view's (an
	// adopted one is copied twice; adoptions are rare).
	for i, rs := range claimed {
		claimed[i] = rs.DeepCopy()
	}
	return claimed, err
}

// writeStatus writes d's status and revision annotation through /status,
// unless d's spec changed since the view (a Conflict, as upstream's stale
// update gets), and keeps d's resourceVersion current.
func (c *Deployment) writeStatus(ctx context.Context, d *appsv1.Deployment) error {
	out, err := c.reg.UpdateSubresource(ctx, deploymentsGVR, "status", d.Namespace, d.Name, func(cur runtime.Object) (runtime.Object, error) {
		dc, ok := cur.(*appsv1.Deployment)
		if !ok {
			return nil, fmt.Errorf("unexpected %T", cur)
		}
		if dc.UID != d.UID {
			return nil, apierrors.NewNotFound(deploymentsGVR.GroupResource(), d.Name)
		}
		if dc.Generation != d.Generation {
			return nil, apierrors.NewConflict(deploymentsGVR.GroupResource(), d.Name, errors.New("the object has been modified; please apply your changes to the latest version and try again"))
		}
		if v, ok := d.Annotations[revisionAnnotation]; ok {
			if dc.Annotations == nil {
				dc.Annotations = map[string]string{}
			}
			dc.Annotations[revisionAnnotation] = v
		}
		dc.Status = *d.Status.DeepCopy()
		return dc, nil
	})
	if err != nil {
		return fmt.Errorf("update status: %w", err)
	}
	d.ResourceVersion = out.(*appsv1.Deployment).ResourceVersion
	return nil
}

// updateReplicaSet writes rs's replicas, minReadySeconds and annotations,
// unless its spec changed since the view (a Conflict), and returns it as
// stored.
func (c *Deployment) updateReplicaSet(ctx context.Context, view, rs *appsv1.ReplicaSet) (*appsv1.ReplicaSet, error) {
	out, err := c.reg.Update(ctx, replicaSetsGVR, rs.Namespace, rs.Name, func(cur runtime.Object) (runtime.Object, error) {
		rc, ok := cur.(*appsv1.ReplicaSet)
		if !ok {
			return nil, fmt.Errorf("unexpected %T", cur)
		}
		if rc.UID != rs.UID {
			return nil, apierrors.NewNotFound(replicaSetsGVR.GroupResource(), rs.Name)
		}
		if rc.Generation != view.Generation || !reflect.DeepEqual(rc.Annotations, view.Annotations) {
			return nil, apierrors.NewConflict(replicaSetsGVR.GroupResource(), rs.Name, errors.New("the object has been modified; please apply your changes to the latest version and try again"))
		}
		rc.Spec.Replicas = rs.Spec.Replicas
		rc.Spec.MinReadySeconds = rs.Spec.MinReadySeconds
		rc.Annotations = rs.Annotations
		return rc, nil
	})
	if err != nil {
		return nil, err
	}
	return out.(*appsv1.ReplicaSet), nil
}

// rollbackTo is the revision of the deprecated rollback annotation, or nil.
func rollbackTo(d *appsv1.Deployment) *int64 {
	v := d.Annotations[appsv1.DeprecatedRollbackTo]
	if v == "" {
		return nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return nil
	}
	return &n
}

// rollback rolls d back to the revision of the deprecated rollback
// annotation (0: the previous one) and clears the annotation.
func (c *Deployment) rollback(ctx context.Context, d *appsv1.Deployment, rsList []*appsv1.ReplicaSet) error {
	newRS, oldRSs, err := c.getAllReplicaSetsAndSyncRevision(ctx, d, rsList, true)
	if err != nil {
		return err
	}
	all := append(oldRSs, newRS)
	to := *rollbackTo(d)
	if to == 0 {
		if to = lastRevision(all); to == 0 {
			c.rec.Eventf(ctx, c.eventRef(d), corev1.EventTypeWarning, reasonRollbackRevisionNotFound, "%s", "Unable to find last revision.")
			return c.clearRollbackTo(ctx, d, nil)
		}
	}
	for _, rs := range all {
		if v, err := revisionOf(rs); err != nil || v != to {
			continue
		}
		if equalIgnoreHash(&d.Spec.Template, &rs.Spec.Template) {
			c.rec.Eventf(ctx, c.eventRef(d), corev1.EventTypeWarning, reasonRollbackTemplateUnchanged, "%s",
				fmt.Sprintf("The rollback revision contains the same template as current deployment %q", d.Name))
			return c.clearRollbackTo(ctx, d, nil)
		}
		if err := c.clearRollbackTo(ctx, d, rs); err != nil {
			return err
		}
		c.rec.Eventf(ctx, c.eventRef(d), corev1.EventTypeNormal, reasonRollbackDone, "%s", fmt.Sprintf("Rolled back deployment %q to revision %d", d.Name, to))
		return nil
	}
	c.rec.Eventf(ctx, c.eventRef(d), corev1.EventTypeWarning, reasonRollbackRevisionNotFound, "%s", "Unable to find the revision to rollback to.")
	return c.clearRollbackTo(ctx, d, nil)
}

// clearRollbackTo removes the rollback annotation from d and, with to, sets
// d's template and annotations from that ReplicaSet.
func (c *Deployment) clearRollbackTo(ctx context.Context, d *appsv1.Deployment, to *appsv1.ReplicaSet) error {
	_, err := c.reg.Update(ctx, deploymentsGVR, d.Namespace, d.Name, func(cur runtime.Object) (runtime.Object, error) {
		dc, ok := cur.(*appsv1.Deployment)
		if !ok {
			return nil, fmt.Errorf("unexpected %T", cur)
		}
		if dc.ResourceVersion != d.ResourceVersion {
			return nil, apierrors.NewConflict(deploymentsGVR.GroupResource(), d.Name, errors.New("the object has been modified; please apply your changes to the latest version and try again"))
		}
		delete(dc.Annotations, appsv1.DeprecatedRollbackTo)
		if to != nil {
			dc.Spec.Template.ObjectMeta = *to.Spec.Template.ObjectMeta.DeepCopy()
			dc.Spec.Template.Spec = *to.Spec.Template.Spec.DeepCopy()
			delete(dc.Spec.Template.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
			kept := map[string]string{}
			for k, v := range dc.Annotations {
				if skippedAnnotations[k] {
					kept[k] = v
				}
			}
			for k, v := range to.Annotations {
				if !skippedAnnotations[k] {
					kept[k] = v
				}
			}
			dc.Annotations = kept
		}
		return dc, nil
	})
	return err
}
