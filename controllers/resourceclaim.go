package controllers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utilcache "k8s.io/apimachinery/pkg/util/cache"
	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/dynamic-resource-allocation/resourceclaim"
	"k8s.io/utils/lru"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
)

// The store buckets of Dynamic Resource Allocation's claims and claim
// templates.
const (
	resourceClaimsBucket         = "resource.k8s.io/resourceclaims"
	resourceClaimTemplatesBucket = "resource.k8s.io/resourceclaimtemplates"
)

var resourceClaimsGVR = schema.GroupVersionResource{Group: resourcev1.GroupName, Version: "v1", Resource: "resourceclaims"}

// templateGR names a missing template in the controller's error, as
// client-go's lister names it (singular).
var templateGR = schema.GroupResource{Group: resourcev1.GroupName, Resource: "resourceclaimtemplate"}

const (
	// podClaimStatusManager is the field manager of the controller's apply
	// of a pod's status.resourceClaimStatuses.
	podClaimStatusManager = "ResourceClaimController"
	// maxClaimNameBase bounds a generated claim's generateName, leaving
	// room for the five random characters within 63.
	maxClaimNameBase = 57
	// deletedPodsRemembered is how many deleted pods' UIDs the controller
	// keeps, so that their reservations go without a lookup.
	deletedPodsRemembered = 500
	// claimRetryBase and claimRetryMax bound the per-object backoff of
	// a pod or claim whose sync fails: client-go's default controller
	// rate limiter's, which upstream's work queue uses.
	claimRetryBase = 5 * time.Millisecond
	claimRetryMax  = 1000 * time.Second
	// createdClaimsRemembered and createdClaimTTL bound upstream's
	// mutation cache of the claims the controller created.
	createdClaimsRemembered = 1000
	createdClaimTTL         = time.Hour
)

// ResourceClaims is kube-controller-manager's resourceclaim-controller
// (Dynamic Resource Allocation, resource.k8s.io/v1):
//
//   - each ResourceClaimTemplate a pod names in spec.resourceClaims gets its
//     ResourceClaim, generated as <pod>-<claim>-xxxxx from the template,
//     controlled by the pod and annotated with the pod's claim name, and
//     the pod's status.resourceClaimStatuses records it (a server-side
//     apply of field manager ResourceClaimController); a missing template
//     is a FailedResourceClaimCreation event on the pod, and the pod is
//     retried with a growing backoff or when the template comes;
//   - a claim that is allocated but not reserved for a pod bound to a node
//     (spec.nodeName set outside the scheduler) gets the pod appended to
//     status.reservedFor;
//   - a claim's reservations for pods that are gone, replaced or done
//     (terminal, or deleted before being scheduled) are dropped; once none
//     is left, a claim holding resource.kubernetes.io/delete-protection
//     loses its allocation and then that finalizer, and so does a claim
//     being deleted that nothing uses; a generated claim nothing uses whose
//     pod is done or replaced is deleted.
//
// The claim the scheduler makes for a pod's extended resources backed by
// DRA (DRAExtendedResource), which the pod's
// status.extendedResourceClaimStatus names, is released and deleted the
// same way when the pod is done or gone.
//
// It writes as kube-system/resource-claim-controller, under field manager
// kube-controller-manager. PodGroup claims (DRAWorkloadResourceClaims, off
// by default) are not handled.
type ResourceClaims struct {
	reg  registry.Interface
	log  *slog.Logger
	user user.Info
	rec  *Recorder
	// clock times the retries and the created claims' hour: the real
	// clock, as upstream's work queue and caches, not the control plane's
	// (which a test may stop).
	clock func() time.Time
	// pods are the pods with spec.resourceClaims or
	// status.extendedResourceClaimStatus, by store key.
	pods map[string]*corev1.Pod
	// claims and templates are the ResourceClaims and the
	// ResourceClaimTemplates by store key.
	claims    map[string]*resourcev1.ResourceClaim
	templates map[string]*resourcev1.ResourceClaimTemplate
	// owned indexes the claims a pod controls: "namespace/uid" to claim
	// keys.
	owned map[string]map[string]bool
	// deleted remembers the UIDs of deleted pods.
	deleted *lru.Cache
	// created are the claims the controller created, by store key, as
	// upstream's mutation cache keeps them: a claim stands in for what
	// the controller has seen of it until it has seen that version or a
	// later one, or for an hour; it is not dropped when it is deleted,
	// so that the claim of a pod that is done, which the controller
	// deletes, is not made again and again.
	created *utilcache.LRUExpireCache
	// dirtyPods and dirtyClaims are the keys to sync.
	dirtyPods, dirtyClaims map[string]bool
	// failures counts the consecutive failed syncs of a "pod:" or
	// "claim:" key; retryAt is when a failed key is synced again.
	failures map[string]int
	retryAt  map[string]time.Time
}

// NewResourceClaims returns the resourceclaim-controller, writing through
// reg (which must implement registry.Applier for the pods' status), dating
// its events by now (nil: time.Now) and logging to log (nil:
// slog.Default()).
func NewResourceClaims(reg registry.Interface, now func() time.Time, log *slog.Logger) *ResourceClaims {
	if log == nil {
		log = slog.Default()
	}
	if now == nil {
		now = time.Now
	}
	u := controllerUser("resource-claim-controller")
	c := &ResourceClaims{
		reg: reg, log: log, user: u, clock: time.Now,
		rec:         NewRecorder(reg, "resource_claim", u, now, log),
		pods:        map[string]*corev1.Pod{},
		claims:      map[string]*resourcev1.ResourceClaim{},
		templates:   map[string]*resourcev1.ResourceClaimTemplate{},
		owned:       map[string]map[string]bool{},
		deleted:     lru.New(deletedPodsRemembered),
		dirtyPods:   map[string]bool{},
		dirtyClaims: map[string]bool{},
		failures:    map[string]int{},
		retryAt:     map[string]time.Time{},
	}
	c.created = utilcache.NewLRUExpireCacheWithClock(createdClaimsRemembered, clockFunc(func() time.Time { return c.clock() }))
	return c
}

// clockFunc is a clock of the cache package.
type clockFunc func() time.Time

func (f clockFunc) Now() time.Time { return f() }

// Name implements Controller.
func (c *ResourceClaims) Name() string { return ResourceClaimName }

// Resources implements Controller.
func (c *ResourceClaims) Resources() []string {
	return []string{podsBucket, resourceClaimsBucket, resourceClaimTemplatesBucket}
}

// Sync implements Controller.
func (c *ResourceClaims) Sync(ctx context.Context, events []store.Event) error {
	// The claims and templates that changed: the pods that use them are
	// looked at again, once the batch is in.
	changedClaims, changedTemplates := map[string]bool{}, map[string]bool{}
	for _, ev := range events {
		var err error
		switch ev.Resource {
		case podsBucket:
			err = c.observePod(ev)
		case resourceClaimsBucket:
			err = c.observeClaim(ev, changedClaims)
		case resourceClaimTemplatesBucket:
			if ev.Type == store.Deleted {
				delete(c.templates, ev.Key)
				continue
			}
			if _, err = trackEvent(c.templates, ev); err == nil {
				changedTemplates[ev.Key] = true
			}
		}
		if err != nil {
			c.log.Warn("undecodable object", "resource", ev.Resource, "key", ev.Key, "err", err)
		}
	}
	if len(changedClaims)+len(changedTemplates) > 0 {
		for key, pod := range c.pods {
			if podUses(pod, changedClaims, changedTemplates) {
				c.enqueuePod(key, pod, false)
			}
		}
	}
	now := c.clock()
	for key, at := range c.retryAt {
		if !at.After(now) {
			delete(c.retryAt, key)
			if ns, ok := strings.CutPrefix(key, "pod:"); ok {
				c.dirtyPods[ns] = true
			} else if ns, ok := strings.CutPrefix(key, "claim:"); ok {
				c.dirtyClaims[ns] = true
			}
		}
	}

	ctx = registry.WithFieldManager(apirequest.WithUser(ctx, c.user), "kube-controller-manager")
	var errs []error
	for _, key := range sortedKeys(c.dirtyPods) {
		delete(c.dirtyPods, key)
		c.settle(&errs, "pod:"+key, c.syncPod(ctx, c.pods[key]), now)
	}
	for _, key := range sortedKeys(c.dirtyClaims) {
		delete(c.dirtyClaims, key)
		c.settle(&errs, "claim:"+key, c.syncClaim(ctx, key), now)
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if len(c.retryAt) == 0 {
		return nil
	}
	soonest := time.Duration(-1)
	for _, at := range c.retryAt {
		if d := at.Sub(now); soonest < 0 || d < soonest {
			soonest = d
		}
	}
	return &Requeue{After: max(soonest, time.Millisecond)}
}

// settle records the outcome of a key's sync: a failure is added to errs
// and the key is synced again after its backoff (5 ms doubling up to 1000 s,
// as upstream's rate-limited queue), unless an event comes first; a success
// forgets the key's failures.
func (c *ResourceClaims) settle(errs *[]error, key string, err error, now time.Time) {
	if err == nil {
		delete(c.failures, key)
		delete(c.retryAt, key)
		return
	}
	*errs = append(*errs, err)
	n := c.failures[key]
	c.failures[key] = n + 1
	delay := claimRetryMax
	if n < 40 {
		delay = min(claimRetryBase<<n, claimRetryMax)
	}
	c.retryAt[key] = now.Add(delay)
}

// claimPod is what the controller decodes of a pod.
type claimPod struct {
	Metadata metav1.ObjectMeta `json:"metadata"`
	Spec     struct {
		NodeName       string                    `json:"nodeName"`
		ResourceClaims []corev1.PodResourceClaim `json:"resourceClaims"`
	} `json:"spec"`
	Status struct {
		Phase                       corev1.PodPhase                        `json:"phase"`
		ResourceClaimStatuses       []corev1.PodResourceClaimStatus        `json:"resourceClaimStatuses"`
		ExtendedResourceClaimStatus *corev1.PodExtendedResourceClaimStatus `json:"extendedResourceClaimStatus"`
	} `json:"status"`
}

// resourceClaimsField is in the JSON of every pod with spec.resourceClaims
// (immutable), extendedResourceClaimField in that of every pod whose
// extended resources have a claim: the other pods are not decoded.
var (
	resourceClaimsField        = []byte(`"resourceClaims"`)
	extendedResourceClaimField = []byte(`"extendedResourceClaimStatus"`)
)

// observePod records a pod event, as upstream's pod event handlers.
func (c *ResourceClaims) observePod(ev store.Event) error {
	if !bytes.Contains(ev.Value, resourceClaimsField) && !bytes.Contains(ev.Value, extendedResourceClaimField) {
		delete(c.pods, ev.Key)
		return nil
	}
	p, err := decodeEvent[claimPod](ev)
	if err != nil {
		return err
	}
	pod := &corev1.Pod{ObjectMeta: p.Metadata}
	pod.Spec.NodeName, pod.Spec.ResourceClaims = p.Spec.NodeName, p.Spec.ResourceClaims
	pod.Status.Phase, pod.Status.ResourceClaimStatuses = p.Status.Phase, p.Status.ResourceClaimStatuses
	pod.Status.ExtendedResourceClaimStatus = p.Status.ExtendedResourceClaimStatus
	if len(pod.Spec.ResourceClaims) == 0 && pod.Status.ExtendedResourceClaimStatus == nil {
		delete(c.pods, ev.Key)
		return nil
	}
	deleted := ev.Type == store.Deleted
	if deleted {
		delete(c.pods, ev.Key)
	} else {
		c.pods[ev.Key] = pod
	}
	c.enqueuePod(ev.Key, pod, deleted)
	return nil
}

// observeClaim records a claim event: the claim is synced (unless it is
// gone) and the pods that use it are looked at.
func (c *ResourceClaims) observeClaim(ev store.Event, changed map[string]bool) error {
	changed[ev.Key] = true
	c.unindexClaim(ev.Key)
	if ev.Type == store.Deleted {
		delete(c.claims, ev.Key)
		return nil
	}
	claim, err := trackEvent(c.claims, ev)
	if err != nil {
		return err
	}
	c.indexClaim(ev.Key, claim)
	c.dirtyClaims[ev.Key] = true
	return nil
}

// indexClaim records in owned the pod that controls a claim, if any.
func (c *ResourceClaims) indexClaim(key string, claim *resourcev1.ResourceClaim) {
	if _, uid := owningPod(claim); uid != "" {
		owner := claim.Namespace + "/" + string(uid)
		if c.owned[owner] == nil {
			c.owned[owner] = map[string]bool{}
		}
		c.owned[owner][key] = true
	}
}

// unindexClaim removes the claim stored at key from owned.
func (c *ResourceClaims) unindexClaim(key string) {
	claim := c.claims[key]
	if claim == nil {
		return
	}
	if _, uid := owningPod(claim); uid != "" {
		owner := claim.Namespace + "/" + string(uid)
		delete(c.owned[owner], key)
		if len(c.owned[owner]) == 0 {
			delete(c.owned, owner)
		}
	}
}

// claim is what upstream's mutation cache answers for the claim at key:
// the claim as seen, or as created if the controller has not seen that
// version yet (then also if it is gone). ok is false for neither.
func (c *ResourceClaims) claim(key string) (*resourcev1.ResourceClaim, bool) {
	seen, ok := c.claims[key]
	v, created := c.created.Get(key)
	switch {
	case !created:
		return seen, ok
	case !ok:
		return v.(*resourcev1.ResourceClaim), true
	}
	return c.newer(key, seen, v.(*resourcev1.ResourceClaim)), true
}

// newer is the later of a claim as seen and as created, forgetting the
// created one once it is seen (that version or a later one).
func (c *ResourceClaims) newer(key string, seen, created *resourcev1.ResourceClaim) *resourcev1.ResourceClaim {
	if rvNumber(seen.ResourceVersion) >= rvNumber(created.ResourceVersion) {
		c.created.Remove(key)
		return seen
	}
	return created
}

// rvNumber is a resourceVersion as a number (0 when it is not one).
func rvNumber(rv string) uint64 {
	n, _ := strconv.ParseUint(rv, 10, 64)
	return n
}

// podUses reports whether a pod names one of the claims or templates.
func podUses(pod *corev1.Pod, claims, templates map[string]bool) bool {
	for i := range pod.Spec.ResourceClaims {
		pc := &pod.Spec.ResourceClaims[i]
		if pc.ResourceClaimTemplateName != nil && templates[pod.Namespace+"/"+*pc.ResourceClaimTemplateName] {
			return true
		}
		if name, _, err := resourceclaim.Name(pod, pc); err == nil && name != nil && claims[pod.Namespace+"/"+*name] {
			return true
		}
	}
	return false
}

// enqueuePod is upstream's: the claims of a pod that no longer needs them
// (those of spec.resourceClaims and its extended resources' claim) are
// synced (their reservations may go), and the pod is synced unless it is
// gone.
func (c *ResourceClaims) enqueuePod(key string, pod *corev1.Pod, deleted bool) {
	if deleted {
		c.deleted.Add(pod.UID, nil)
	}
	if !podNeedsClaims(pod, deleted) {
		for name := range resourceclaim.PodClaims(pod) {
			c.dirtyClaims[pod.Namespace+"/"+name] = true
		}
	}
	if !deleted {
		c.dirtyPods[key] = true
	}
}

// podNeedsClaims reports whether a pod may still run and use its claims.
func podNeedsClaims(pod *corev1.Pod, deleted bool) bool {
	switch {
	case deleted, podTerminal(pod):
		return false
	case pod.DeletionTimestamp != nil && pod.Spec.NodeName == "":
		return false
	}
	return true
}

// podTerminal reports whether a pod succeeded or failed.
func podTerminal(pod *corev1.Pod) bool {
	return pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed
}

// isPodDone reports whether none of a pod's containers runs or ever will:
// it is terminal, or deleted before being scheduled.
func isPodDone(pod *corev1.Pod) bool {
	return podTerminal(pod) || pod.DeletionTimestamp != nil && pod.Spec.NodeName == ""
}

// owningPod returns the pod that controls a claim, if any.
func owningPod(claim *resourcev1.ResourceClaim) (string, types.UID) {
	for _, ref := range claim.OwnerReferences {
		if ptr.Deref(ref.Controller, false) && ref.APIVersion == "v1" && ref.Kind == "Pod" {
			return ref.Name, ref.UID
		}
	}
	return "", ""
}

// podNeedsWork is upstream's filter of the pods to sync: one whose
// template claim is not created yet, or bound to a node with an allocated
// claim not reserved for it.
func (c *ResourceClaims) podNeedsWork(pod *corev1.Pod) bool {
	if pod.DeletionTimestamp != nil {
		return false
	}
	for i := range pod.Spec.ResourceClaims {
		pc := &pod.Spec.ResourceClaims[i]
		name, checkOwner, err := resourceclaim.Name(pod, pc)
		switch {
		case err != nil:
			return true
		case name == nil:
			continue
		}
		claim, ok := c.claims[pod.Namespace+"/"+*name]
		if !ok {
			if pc.ResourceClaimTemplateName != nil {
				return true
			}
			continue // the user creates it
		}
		if checkOwner && resourceclaim.IsForPod(pod, claim, false) != nil {
			continue
		}
		if pod.Spec.NodeName == "" {
			continue
		}
		if claim.Status.Allocation != nil && !resourceclaim.IsReservedForPod(pod, claim, false) && resourceclaim.CanBeReserved(claim) {
			return true
		}
	}
	return false
}

// syncPod is upstream's: the pod's template claims are created and
// recorded in its status, then, once it is bound to a node, its allocated
// claims are reserved for it.
func (c *ResourceClaims) syncPod(ctx context.Context, pod *corev1.Pod) error {
	if pod == nil || !c.podNeedsWork(pod) {
		return nil
	}
	var newClaims map[string]string
	for _, pc := range pod.Spec.ResourceClaims {
		if err := c.handleClaim(ctx, pod, pc, &newClaims); err != nil {
			c.rec.Eventf(ctx, EventRef("v1", "Pod", pod), corev1.EventTypeWarning, "FailedResourceClaimCreation", "PodResourceClaim %s: %v", pc.Name, err)
			return fmt.Errorf("pod %s/%s, PodResourceClaim %s: %w", pod.Namespace, pod.Name, pc.Name, err)
		}
	}
	if newClaims != nil {
		if err := c.applyClaimStatuses(ctx, pod, newClaims); err != nil {
			if apierrors.IsNotFound(err) {
				return nil // gone: its event follows
			}
			return fmt.Errorf("update pod %s/%s ResourceClaimStatuses: %w", pod.Namespace, pod.Name, err)
		}
	}
	if pod.Spec.NodeName == "" {
		return nil // the scheduler reserves
	}
	for i := range pod.Spec.ResourceClaims {
		pc := &pod.Spec.ResourceClaims[i]
		name, checkOwner, err := resourceclaim.Name(pod, pc)
		if err != nil {
			if newClaims[pc.Name] != "" {
				// Created above: the pod's status says so once its
				// event comes.
				continue
			}
			return err
		}
		if name == nil {
			continue
		}
		claim, ok := c.claims[pod.Namespace+"/"+*name]
		if !ok {
			return nil
		}
		if checkOwner {
			if err := resourceclaim.IsForPod(pod, claim, false); err != nil {
				return err
			}
		}
		if claim.Status.Allocation != nil && !resourceclaim.IsReservedForPod(pod, claim, false) && resourceclaim.CanBeReserved(claim) {
			if err := c.reserveFor(ctx, pod, claim); err != nil {
				return err
			}
		}
	}
	return nil
}

// handleClaim is upstream's, for one entry of a pod's spec.resourceClaims:
// a template's claim is created unless the pod has it, and recorded in
// newClaims (pod claim name to claim name) when the pod's status lacks it.
func (c *ResourceClaims) handleClaim(ctx context.Context, pod *corev1.Pod, pc corev1.PodResourceClaim, newClaims *map[string]string) error {
	name, checkOwner, err := resourceclaim.Name(pod, &pc)
	switch {
	case errors.Is(err, resourceclaim.ErrClaimNotFound):
	case err != nil:
		return fmt.Errorf("checking for claim before creating it: %w", err)
	case name == nil:
		return nil
	case *name != "":
		if claim, ok := c.claim(pod.Namespace + "/" + *name); ok {
			if !checkOwner {
				return nil
			}
			err := resourceclaim.IsForPod(pod, claim, false)
			if err == nil {
				return nil
			}
			c.log.Warn("claim created for the pod is no longer owned by it; creating a new one", "pod", pod.Namespace+"/"+pod.Name, "podClaim", pc.Name, "claim", *name, "err", err)
		}
	}
	if pc.ResourceClaimTemplateName == nil {
		return nil
	}
	// A claim created for the pod before its status could record it is
	// taken instead of a new one.
	claim := c.findPodClaim(pod, pc.Name)
	if claim == nil {
		tmplName := *pc.ResourceClaimTemplateName
		tmpl, ok := c.templates[pod.Namespace+"/"+tmplName]
		if !ok {
			return fmt.Errorf("resource claim template %q: %w", tmplName, apierrors.NewNotFound(templateGR, tmplName))
		}
		claim = claimFromTemplate(pod, pc.Name, tmpl)
		obj, err := c.reg.Create(ctx, resourceClaimsGVR, claim)
		if err != nil {
			return fmt.Errorf("create ResourceClaim %s: %w", claim.Name, err)
		}
		var ok2 bool
		if claim, ok2 = obj.(*resourcev1.ResourceClaim); !ok2 {
			return fmt.Errorf("create ResourceClaim: the registry answered with a %T", obj)
		}
		c.log.Debug("created ResourceClaim", "claim", claim.Namespace+"/"+claim.Name, "pod", pod.Namespace+"/"+pod.Name)
		c.created.Add(registry.ObjectKey(claim.Namespace, claim.Name), claim, createdClaimTTL)
	}
	if *newClaims == nil {
		*newClaims = map[string]string{}
	}
	(*newClaims)[pc.Name] = claim.Name
	return nil
}

// claimFromTemplate is the claim a pod's template claim podClaim gets:
// named <pod>-<podClaim>-xxxxx, both parts cut in proportion to their
// length when longer than 57 characters together, controlled by the pod
// (without blockOwnerDeletion), with the template's labels, annotations
// plus resource.kubernetes.io/pod-claim-name, and spec.
func claimFromTemplate(pod *corev1.Pod, podClaim string, tmpl *resourcev1.ResourceClaimTemplate) *resourcev1.ResourceClaim {
	annotations := maps.Clone(tmpl.Spec.Annotations)
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[resourcev1.PodResourceClaimAnnotation] = podClaim
	base := pod.Name + "-" + podClaim + "-"
	if n := len(base); n > maxClaimNameBase {
		base = pod.Name[:len(pod.Name)*maxClaimNameBase/n] + "-" + podClaim[:len(podClaim)*maxClaimNameBase/n]
	}
	return &resourcev1.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{
			GenerateName: base,
			Namespace:    pod.Namespace,
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: pod.UID, Controller: ptr.To(true),
			}},
			Annotations: annotations,
			Labels:      maps.Clone(tmpl.Spec.Labels),
		},
		Spec: *tmpl.Spec.Spec.DeepCopy(),
	}
}

// findPodClaim returns the claim the pod controls that is annotated with
// its claim name podClaim, if any: the first of those seen, in key order,
// then of those created (upstream's mutation cache's ByIndex).
func (c *ResourceClaims) findPodClaim(pod *corev1.Pod, podClaim string) *resourcev1.ResourceClaim {
	forPodClaim := func(claim *resourcev1.ResourceClaim) bool {
		name, ok := claim.Annotations[resourcev1.PodResourceClaimAnnotation]
		return ok && name == podClaim
	}
	owned := c.owned[pod.Namespace+"/"+string(pod.UID)]
	for _, key := range sortedKeys(owned) {
		claim := c.claims[key]
		if v, ok := c.created.Get(key); ok {
			claim = c.newer(key, claim, v.(*resourcev1.ResourceClaim))
		}
		if forPodClaim(claim) {
			return claim
		}
	}
	for _, k := range c.created.Keys() {
		v, ok := c.created.Get(k)
		if !ok || owned[k.(string)] {
			continue
		}
		claim := v.(*resourcev1.ResourceClaim)
		if _, uid := owningPod(claim); claim.Namespace == pod.Namespace && uid == pod.UID && forPodClaim(claim) {
			return claim
		}
	}
	return nil
}

// applyClaimStatuses applies, with force, the pod's
// status.resourceClaimStatuses: those it has merged with newClaims, by
// name.
func (c *ResourceClaims) applyClaimStatuses(ctx context.Context, pod *corev1.Pod, newClaims map[string]string) error {
	applier, ok := c.reg.(registry.Applier)
	if !ok {
		return errors.New("the registry cannot apply")
	}
	merged := map[string]string{}
	for _, st := range pod.Status.ResourceClaimStatuses {
		if st.ResourceClaimName != nil {
			merged[st.Name] = *st.ResourceClaimName
		}
	}
	maps.Copy(merged, newClaims)
	statuses := make([]any, 0, len(merged))
	for _, name := range sortedKeys(merged) {
		statuses = append(statuses, map[string]any{"name": name, "resourceClaimName": merged[name]})
	}
	applied := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1",
		"kind":       "Pod",
		"metadata":   map[string]any{"name": pod.Name, "namespace": pod.Namespace},
		"status":     map[string]any{"resourceClaimStatuses": statuses},
	}}
	_, err := applier.ApplySubresource(registry.WithFieldManager(ctx, podClaimStatusManager), podsGVR, "status", pod.Namespace, pod.Name, applied, true)
	return err
}

// reserveFor appends the pod to the claim's status.reservedFor. The write
// fails if the claim changed since it was seen: its event follows, and
// the pod is looked at again then.
func (c *ResourceClaims) reserveFor(ctx context.Context, pod *corev1.Pod, claim *resourcev1.ResourceClaim) error {
	want := claim.DeepCopy()
	want.Status.ReservedFor = append(want.Status.ReservedFor, resourcev1.ResourceClaimConsumerReference{
		Resource: "pods", Name: pod.Name, UID: pod.UID,
	})
	_, err := c.updateClaimStatus(ctx, want)
	switch {
	case apierrors.IsConflict(err), apierrors.IsNotFound(err):
		return nil
	case err != nil:
		return fmt.Errorf("reserve claim %s/%s: %w", claim.Namespace, claim.Name, err)
	}
	return nil
}

// updateClaimStatus writes claim's status, as it was read: a Conflict if
// the stored claim changed since.
func (c *ResourceClaims) updateClaimStatus(ctx context.Context, claim *resourcev1.ResourceClaim) (*resourcev1.ResourceClaim, error) {
	obj, err := c.reg.UpdateSubresource(ctx, resourceClaimsGVR, "status", claim.Namespace, claim.Name, func(runtime.Object) (runtime.Object, error) {
		return claim.DeepCopy(), nil
	})
	if err != nil {
		return nil, err
	}
	out, ok := obj.(*resourcev1.ResourceClaim)
	if !ok {
		return nil, fmt.Errorf("the registry answered with a %T", obj)
	}
	return out, nil
}

// removeClaimFinalizer removes resource.kubernetes.io/delete-protection
// from the claim, if it is still there and the claim is not allocated.
func (c *ResourceClaims) removeClaimFinalizer(ctx context.Context, claim *resourcev1.ResourceClaim) error {
	_, err := c.reg.Update(ctx, resourceClaimsGVR, claim.Namespace, claim.Name, func(cur runtime.Object) (runtime.Object, error) {
		cl, ok := cur.(*resourcev1.ResourceClaim)
		if !ok {
			return nil, fmt.Errorf("the registry answered with a %T", cur)
		}
		i := slices.Index(cl.Finalizers, resourcev1.Finalizer)
		if i < 0 || cl.Status.Allocation != nil {
			return nil, errNoChange
		}
		cl.Finalizers = slices.Delete(cl.Finalizers, i, i+1)
		return cl, nil
	})
	switch {
	case errors.Is(err, errNoChange), apierrors.IsNotFound(err):
		return nil
	case err != nil:
		return fmt.Errorf("remove finalizer %s of claim %s/%s: %w", resourcev1.Finalizer, claim.Namespace, claim.Name, err)
	}
	return nil
}

// syncClaim is upstream's: the claim's reservations for pods that will not
// run go, and with the last of them its allocation and its
// delete-protection finalizer; a claim being deleted that nothing uses
// loses both too; and a claim generated for a pod that is done or
// replaced is deleted once nothing uses it.
func (c *ResourceClaims) syncClaim(ctx context.Context, key string) error {
	claim, ok := c.claims[key]
	if !ok {
		return nil
	}
	remaining := make([]resourcev1.ResourceClaimConsumerReference, 0, len(claim.Status.ReservedFor))
	for _, ref := range claim.Status.ReservedFor {
		if ref.APIGroup == "" && ref.Resource == "pods" {
			keep, err := c.podMayUse(ctx, claim.Namespace, ref)
			if err != nil {
				return fmt.Errorf("claim %s: %w", key, err)
			}
			if !keep {
				continue
			}
		}
		// Other consumers are kept: the controller cannot tell.
		remaining = append(remaining, ref)
	}
	protected := slices.Contains(claim.Finalizers, resourcev1.Finalizer)
	switch {
	case len(remaining) < len(claim.Status.ReservedFor):
		want := claim.DeepCopy()
		want.Status.ReservedFor = remaining
		if len(remaining) == 0 && protected {
			// Allocated by the scheduler: released with its last user,
			// so that its next user may have it allocated anew.
			want.Status.Allocation = nil
		}
		out, err := c.updateClaimStatus(ctx, want)
		switch {
		case apierrors.IsConflict(err), apierrors.IsNotFound(err):
			return nil // changed meanwhile: its event follows
		case err != nil:
			return fmt.Errorf("claim %s: drop reservations: %w", key, err)
		}
		c.log.Debug("removed consumers", "claim", key, "remaining", len(out.Status.ReservedFor), "allocated", out.Status.Allocation != nil)
		if slices.Contains(out.Finalizers, resourcev1.Finalizer) && out.Status.Allocation == nil {
			if err := c.removeClaimFinalizer(ctx, out); err != nil {
				return err
			}
		}
	case protected && claim.DeletionTimestamp != nil && len(remaining) == 0:
		cur := claim
		if claim.Status.Allocation != nil {
			want := claim.DeepCopy()
			want.Status.Allocation = nil
			out, err := c.updateClaimStatus(ctx, want)
			switch {
			case apierrors.IsConflict(err), apierrors.IsNotFound(err):
				return nil
			case err != nil:
				return fmt.Errorf("claim %s: clear allocation: %w", key, err)
			}
			cur = out
		}
		if err := c.removeClaimFinalizer(ctx, cur); err != nil {
			return err
		}
	}
	if len(remaining) > 0 {
		return nil
	}
	// Nothing uses it: a claim generated for a pod that is not going to
	// run goes (the garbage collector deletes those of pods that are gone).
	podName, podUID := owningPod(claim)
	if podName == "" {
		return nil
	}
	pod, ok := c.pods[registry.ObjectKey(claim.Namespace, podName)]
	if !ok || pod.UID == podUID && !isPodDone(pod) {
		return nil
	}
	_, err := c.reg.Delete(ctx, resourceClaimsGVR, claim.Namespace, claim.Name, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete unused generated claim %s: %w", key, err)
	}
	c.log.Debug("deleted unused generated claim", "claim", key, "pod", claim.Namespace+"/"+podName)
	return nil
}

// podMayUse reports whether the pod a claim is reserved for may still use
// it: it is not known to be deleted, it is the same pod (UID), and it is
// not done. A pod the controller does not track (one without
// spec.resourceClaims, or not seen yet) is read from the registry.
func (c *ResourceClaims) podMayUse(ctx context.Context, ns string, ref resourcev1.ResourceClaimConsumerReference) (bool, error) {
	if _, gone := c.deleted.Get(ref.UID); gone {
		return false, nil
	}
	pod, ok := c.pods[registry.ObjectKey(ns, ref.Name)]
	if !ok {
		obj, err := c.reg.Get(ctx, podsGVR, ns, ref.Name)
		switch {
		case apierrors.IsNotFound(err):
			return false, nil
		case err != nil:
			return false, fmt.Errorf("get pod %s/%s: %w", ns, ref.Name, err)
		}
		if pod, ok = obj.(*corev1.Pod); !ok {
			return false, fmt.Errorf("get pod %s/%s: the registry answered with a %T", ns, ref.Name, obj)
		}
	}
	return pod.UID == ref.UID && !isPodDone(pod), nil
}
