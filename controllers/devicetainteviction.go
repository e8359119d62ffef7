package controllers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/dynamic-resource-allocation/resourceclaim"
	"k8s.io/utils/lru"

	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
)

// The store buckets of the devices' publications and taint rules.
const (
	resourceSlicesBucket   = "resource.k8s.io/resourceslices"
	deviceTaintRulesBucket = "resource.k8s.io/devicetaintrules"
)

var deviceTaintRulesGVR = schema.GroupVersionResource{Group: resourcev1.GroupName, Version: "v1", Resource: "devicetaintrules"}

const (
	// ruleStatusPeriod is upstream's shortest time between two updates of
	// a DeviceTaintRule's EvictionInProgress condition.
	ruleStatusPeriod = 10 * time.Second
	// evictedPodsRemembered bounds upstream's cache of the UIDs of the
	// pods it evicted.
	evictedPodsRemembered = 500
	// Upstream's pod condition and event.
	deviceTaintConditionReason  = "DeletionByDeviceTaintManager"
	deviceTaintConditionMessage = "Device Taint manager: deleting due to NoExecute taint"
	deviceTaintEventReason      = "DeviceTaintManagerEviction"
)

// DeviceTaintEviction is kube-controller-manager's
// device-taint-eviction-controller (DRADeviceTaints, with the
// DeviceTaintRules of DRADeviceTaintRules, both on by default in v1.37).
//
// A pod bound to a node whose allocated ResourceClaims (reserved for it)
// have a device with a NoExecute taint, from the device's entry in its
// ResourceSlice or from a DeviceTaintRule that selects it, is evicted at
// the taint's timeAdded, or, when the claim's request tolerates the taint
// (the allocation result's tolerations of effect NoExecute: one of no
// effect, which lets the scheduler allocate the device, does not count),
// tolerationSeconds after it (the least of those that match; a toleration
// without tolerationSeconds keeps the pod). Eviction is an event
// DeviceTaintManagerEviction "Marking for deletion", the DisruptionTarget
// condition (reason DeletionByDeviceTaintManager) on the pod's status, and
// a delete with the pod's UID as precondition; a scheduled eviction that
// the taint's removal (or a new toleration) calls off is an event
// "Cancelling deletion".
//
// Each DeviceTaintRule gets the condition EvictionInProgress in its status
// (a server-side apply of field manager device-taint-eviction-controller):
// at once when it is created or its spec changes, then at most every ten
// seconds while pods are evicted because of it, counting the pods still to
// evict and those it evicted since it started (PodsPendingEviction,
// Completed, NotStarted; NoEffect with what the rule would do for effect
// None; OtherEffect for NoSchedule).
//
// It writes pods and events as kube-system/device-taint-eviction-controller
// under field manager kube-controller-manager. Times of eviction are read
// from the system clock, as the taints' timeAdded are (kube-apiserver
// stamps them so); the clock it is given dates what it writes. PodGroup
// reservations (DRAWorkloadResourceClaims, off by default) are not
// handled.
type DeviceTaintEviction struct {
	reg  registry.Interface
	log  *slog.Logger
	user user.Info
	rec  *Recorder
	// now dates conditions and events; clock times evictions and the
	// rules' status period (the system clock).
	now, clock func() time.Time

	// pods are the pods using claims, by store key.
	pods map[string]*corev1.Pod
	// claims are all ResourceClaims by store key, allocated the
	// allocated ones with their eviction.
	claims    map[string]*resourcev1.ResourceClaim
	allocated map[string]*allocatedDeviceClaim
	// slices are the ResourceSlices by name, pools the same by driver
	// and pool.
	slices map[string]*resourcev1.ResourceSlice
	pools  map[devicePoolID]*devicePool
	// rules are all DeviceTaintRules by name, evictingRules those of
	// effect NoExecute.
	rules, evictingRules map[string]*resourcev1.DeviceTaintRule
	// ruleEvictions counts the pods evicted because of a rule, by its UID;
	// ruleWritten is when the controller last wrote a rule's condition
	// (system clock).
	ruleEvictions map[types.UID]int64
	ruleWritten   map[types.UID]time.Time
	// deletePodAt holds the scheduled evictions; evicted remembers the
	// UIDs of the pods evicted.
	deletePodAt map[devicePodRef]deviceEviction
	evicted     *lru.Cache
	// ruleWork holds the rules whose status is to be looked at.
	ruleWork map[deviceRuleRef]*ruleStatusWork
}

// devicePodRef names a pod instance.
type devicePodRef struct {
	namespace, name string
	uid             types.UID
}

// deviceRuleRef names a DeviceTaintRule instance.
type deviceRuleRef struct {
	name string
	uid  types.UID
}

// ruleStatusWork is upstream's work queue entry for a rule: now is set by
// an immediate Add, at by an AddAfter (the earliest one).
type ruleStatusWork struct {
	now bool
	at  time.Time
}

// devicePoolID names a pool of devices.
type devicePoolID struct{ driver, pool string }

// devicePool is a pool's ResourceSlices; only those of its highest
// generation count.
type devicePool struct {
	slices        map[string]*resourcev1.ResourceSlice
	maxGeneration int64
}

// allocatedDeviceClaim is an allocated claim and when (why) its pods are
// to be evicted (nil: they are not).
type allocatedDeviceClaim struct {
	claim    *resourcev1.ResourceClaim
	eviction *deviceEviction
}

// deviceEviction is when pods are to be evicted and the taints why,
// sorted (rules first, by name; then slices' taints by driver, pool,
// device and index).
type deviceEviction struct {
	when    time.Time
	reasons []deviceTaintReason
}

// deviceTaintReason is one taint: a rule's, or the index-th of a device
// in a slice.
type deviceTaintReason struct {
	rule   *resourcev1.DeviceTaintRule
	slice  *resourcev1.ResourceSlice
	device string
	index  int
}

// NewDeviceTaintEviction returns the controller, writing through reg
// (which must implement registry.Applier for the rules' status), dating
// its conditions and events by now (nil: time.Now) and logging to log
// (nil: slog.Default()).
func NewDeviceTaintEviction(reg registry.Interface, now func() time.Time, log *slog.Logger) *DeviceTaintEviction {
	if log == nil {
		log = slog.Default()
	}
	if now == nil {
		now = time.Now
	}
	u := controllerUser(DeviceTaintEvictionName)
	return &DeviceTaintEviction{
		reg: reg, log: log, user: u, now: now, clock: time.Now,
		rec:           NewRecorder(reg, DeviceTaintEvictionName, u, now, log),
		pods:          map[string]*corev1.Pod{},
		claims:        map[string]*resourcev1.ResourceClaim{},
		allocated:     map[string]*allocatedDeviceClaim{},
		slices:        map[string]*resourcev1.ResourceSlice{},
		pools:         map[devicePoolID]*devicePool{},
		rules:         map[string]*resourcev1.DeviceTaintRule{},
		evictingRules: map[string]*resourcev1.DeviceTaintRule{},
		ruleEvictions: map[types.UID]int64{},
		ruleWritten:   map[types.UID]time.Time{},
		deletePodAt:   map[devicePodRef]deviceEviction{},
		evicted:       lru.New(evictedPodsRemembered),
		ruleWork:      map[deviceRuleRef]*ruleStatusWork{},
	}
}

// Name implements Controller.
func (c *DeviceTaintEviction) Name() string { return DeviceTaintEvictionName }

// Resources implements Controller.
func (c *DeviceTaintEviction) Resources() []string {
	return []string{podsBucket, resourceClaimsBucket, resourceSlicesBucket, deviceTaintRulesBucket}
}

// Sync implements Controller: the changes update what the controller
// knows (upstream's event handlers), then the rules' status and the
// evictions that are due are done (upstream's workers).
func (c *DeviceTaintEviction) Sync(ctx context.Context, events []store.Event) error {
	ctx = registry.WithFieldManager(apirequest.WithUser(ctx, c.user), "kube-controller-manager")
	for _, ev := range events {
		var err error
		switch ev.Resource {
		case podsBucket:
			err = c.observePod(ctx, ev)
		case resourceClaimsBucket:
			err = c.observeClaim(ctx, ev)
		case resourceSlicesBucket:
			err = c.observeSlice(ctx, ev)
		case deviceTaintRulesBucket:
			err = c.observeRule(ctx, ev)
		}
		if err != nil {
			c.log.Warn("undecodable object", "resource", ev.Resource, "key", ev.Key, "err", err)
		}
	}

	var errs []error
	now := c.clock()
	// Rules first: a new rule's status is written before its evictions,
	// as upstream's queue has it first.
	for _, ref := range c.sortedRuleWork() {
		w := c.ruleWork[ref]
		if !w.now && (w.at.IsZero() || w.at.After(now)) {
			continue
		}
		w.now = false
		if !w.at.IsZero() && !w.at.After(now) {
			w.at = time.Time{}
		}
		again, err := c.updateRuleStatus(ctx, ref)
		switch {
		case err != nil:
			errs = append(errs, err)
			w.now = true
		case again > 0:
			c.queueRule(ref, again)
		}
		if !w.now && w.at.IsZero() {
			delete(c.ruleWork, ref)
		}
	}
	for _, ref := range c.duePods(now) {
		if err := c.maybeDeletePod(ctx, ref); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return c.requeue()
}

// requeue is a Requeue at the next scheduled eviction or rule status
// update, or nil.
func (c *DeviceTaintEviction) requeue() error {
	var next time.Time
	sooner := func(t time.Time) {
		if next.IsZero() || t.Before(next) {
			next = t
		}
	}
	for ref, e := range c.deletePodAt {
		if !c.wasEvicted(ref.uid) {
			sooner(e.when)
		}
	}
	for _, w := range c.ruleWork {
		if w.now {
			sooner(c.clock())
		} else if !w.at.IsZero() {
			sooner(w.at)
		}
	}
	if next.IsZero() {
		return nil
	}
	return &Requeue{After: max(next.Sub(c.clock()), time.Millisecond)}
}

// sortedRuleWork returns the rules with queued work, by name.
func (c *DeviceTaintEviction) sortedRuleWork() []deviceRuleRef {
	refs := make([]deviceRuleRef, 0, len(c.ruleWork))
	for ref := range c.ruleWork {
		refs = append(refs, ref)
	}
	slices.SortFunc(refs, func(a, b deviceRuleRef) int {
		return strings.Compare(a.name+"/"+string(a.uid), b.name+"/"+string(b.uid))
	})
	return refs
}

// duePods returns the pods whose eviction is due, soonest first.
func (c *DeviceTaintEviction) duePods(now time.Time) []devicePodRef {
	var refs []devicePodRef
	for ref, e := range c.deletePodAt {
		if !e.when.After(now) && !c.wasEvicted(ref.uid) {
			refs = append(refs, ref)
		}
	}
	slices.SortFunc(refs, func(a, b devicePodRef) int {
		if d := c.deletePodAt[a].when.Compare(c.deletePodAt[b].when); d != 0 {
			return d
		}
		return strings.Compare(a.namespace+"/"+a.name, b.namespace+"/"+b.name)
	})
	return refs
}

// queueRule queues a look at a rule's status after d (0: at once), as
// upstream's work queue does: a delayed look keeps the earliest time.
func (c *DeviceTaintEviction) queueRule(ref deviceRuleRef, d time.Duration) {
	w := c.ruleWork[ref]
	if w == nil {
		w = &ruleStatusWork{}
		c.ruleWork[ref] = w
	}
	if d <= 0 {
		w.now = true
		return
	}
	if at := c.clock().Add(d); w.at.IsZero() || at.Before(w.at) {
		w.at = at
	}
}

func ruleRefOf(rule *resourcev1.DeviceTaintRule) deviceRuleRef {
	return deviceRuleRef{name: rule.Name, uid: rule.UID}
}

func podRefOf(pod *corev1.Pod) devicePodRef {
	return devicePodRef{namespace: pod.Namespace, name: pod.Name, uid: pod.UID}
}

func (c *DeviceTaintEviction) wasEvicted(uid types.UID) bool {
	_, ok := c.evicted.Get(uid)
	return ok
}

// deviceTaintPod is what the controller decodes of a pod.
type deviceTaintPod struct {
	Metadata struct {
		Name              string       `json:"name"`
		Namespace         string       `json:"namespace"`
		UID               types.UID    `json:"uid"`
		DeletionTimestamp *metav1.Time `json:"deletionTimestamp"`
	} `json:"metadata"`
	Spec struct {
		NodeName       string                    `json:"nodeName"`
		ResourceClaims []corev1.PodResourceClaim `json:"resourceClaims"`
	} `json:"spec"`
	Status struct {
		ResourceClaimStatuses       []corev1.PodResourceClaimStatus        `json:"resourceClaimStatuses"`
		ExtendedResourceClaimStatus *corev1.PodExtendedResourceClaimStatus `json:"extendedResourceClaimStatus"`
	} `json:"status"`
}

// Only pods whose JSON has one of these may use claims.
var (
	podClaimsField         = []byte(`"resourceClaims"`)
	podExtendedClaimsField = []byte(`"extendedResourceClaimStatus"`)
)

// observePod is upstream's handlePodChange.
func (c *DeviceTaintEviction) observePod(ctx context.Context, ev store.Event) error {
	old := c.pods[ev.Key]
	if ev.Type == store.Deleted {
		if old != nil {
			delete(c.pods, ev.Key)
			c.cancelEvict(podRefOf(old))
		}
		return nil
	}
	if old == nil && !bytes.Contains(ev.Value, podClaimsField) && !bytes.Contains(ev.Value, podExtendedClaimsField) {
		return nil
	}
	p, err := decodeEvent[deviceTaintPod](ev)
	if err != nil {
		return err
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: p.Metadata.Name, Namespace: p.Metadata.Namespace, UID: p.Metadata.UID, DeletionTimestamp: p.Metadata.DeletionTimestamp}}
	pod.Spec.NodeName, pod.Spec.ResourceClaims = p.Spec.NodeName, p.Spec.ResourceClaims
	pod.Status.ResourceClaimStatuses, pod.Status.ExtendedResourceClaimStatus = p.Status.ResourceClaimStatuses, p.Status.ExtendedResourceClaimStatus
	if len(pod.Spec.ResourceClaims) == 0 && pod.Status.ExtendedResourceClaimStatus == nil {
		if old == nil {
			return nil
		}
		delete(c.pods, ev.Key)
	} else {
		c.pods[ev.Key] = pod
	}
	// A pod is looked at again only when it is scheduled or its claims
	// change (not, say, when it gets the eviction's condition).
	if old != nil && old.UID == pod.UID && old.Spec.NodeName == pod.Spec.NodeName &&
		resourceclaim.PodStatusEqual(old.Status.ResourceClaimStatuses, pod.Status.ResourceClaimStatuses) &&
		resourceclaim.PodExtendedStatusEqual(old.Status.ExtendedResourceClaimStatus, pod.Status.ExtendedResourceClaimStatus) {
		return nil
	}
	if old != nil && old.UID != pod.UID {
		c.cancelEvict(podRefOf(old))
	}
	c.handlePod(ctx, pod)
	return nil
}

// observeClaim is upstream's handleClaimChange.
func (c *DeviceTaintEviction) observeClaim(ctx context.Context, ev store.Event) error {
	old := c.claims[ev.Key]
	var cur *resourcev1.ResourceClaim
	if ev.Type == store.Deleted {
		delete(c.claims, ev.Key)
	} else {
		claim, err := decodeEvent[resourcev1.ResourceClaim](ev)
		if err != nil {
			return err
		}
		c.claims[ev.Key], cur = claim, claim
	}
	c.claimChanged(ctx, ev.Key, old, cur)
	return nil
}

func (c *DeviceTaintEviction) claimChanged(ctx context.Context, key string, old, cur *resourcev1.ResourceClaim) {
	switch {
	case old == nil && cur == nil:
	case cur == nil:
		delete(c.allocated, key)
		c.handlePods(ctx, old)
	case old == nil:
		if cur.Status.Allocation == nil {
			return
		}
		c.allocated[key] = &allocatedDeviceClaim{claim: cur, eviction: c.claimEviction(cur, c.evictingRules)}
		c.handlePods(ctx, cur)
	case old.UID != cur.UID:
		c.claimChanged(ctx, key, old, nil)
		c.claimChanged(ctx, key, nil, cur)
	default:
		both := func() {
			if !slices.Equal(old.Status.ReservedFor, cur.Status.ReservedFor) {
				c.handlePods(ctx, old)
			}
			c.handlePods(ctx, cur)
		}
		switch {
		case old.Status.Allocation == nil && cur.Status.Allocation != nil:
			c.allocated[key] = &allocatedDeviceClaim{claim: cur, eviction: c.claimEviction(cur, c.evictingRules)}
			both()
		case old.Status.Allocation != nil && cur.Status.Allocation == nil:
			delete(c.allocated, key)
			both()
		case cur.Status.Allocation != nil:
			// The allocation is immutable: its eviction stays.
			a := c.allocated[key]
			if a == nil {
				a = &allocatedDeviceClaim{eviction: c.claimEviction(cur, c.evictingRules)}
				c.allocated[key] = a
			}
			a.claim = cur
			both()
		}
	}
}

// observeSlice is upstream's handleSliceChange: the claims using a device
// whose NoExecute taints changed are looked at again.
func (c *DeviceTaintEviction) observeSlice(ctx context.Context, ev store.Event) error {
	slice, err := decodeEvent[resourcev1.ResourceSlice](ev)
	if err != nil {
		return err
	}
	id := devicePoolID{driver: slice.Spec.Driver, pool: slice.Spec.Pool.Name}
	old := c.slices[ev.Key]
	if ev.Type == store.Deleted {
		delete(c.slices, ev.Key)
	} else {
		c.slices[ev.Key] = slice
	}
	// The slice's previous version may have been of another pool.
	if old != nil {
		if oldID := (devicePoolID{driver: old.Spec.Driver, pool: old.Spec.Pool.Name}); oldID != id || ev.Type == store.Deleted {
			c.sliceChanged(ctx, oldID, old, nil)
			old = nil
		}
	}
	if ev.Type != store.Deleted {
		c.sliceChanged(ctx, id, old, slice)
	}
	return nil
}

func (c *DeviceTaintEviction) sliceChanged(ctx context.Context, id devicePoolID, old, cur *resourcev1.ResourceSlice) {
	p := c.pools[id]
	if p == nil {
		p = &devicePool{slices: map[string]*resourcev1.ResourceSlice{}, maxGeneration: math.MinInt64}
	}
	before := p.noExecuteTaints()
	if old != nil {
		p.remove(old)
	}
	if cur != nil {
		p.add(cur)
	}
	if len(p.slices) == 0 {
		delete(c.pools, id)
	} else {
		c.pools[id] = p
	}
	after := p.noExecuteTaints()
	if len(before) == 0 && len(after) == 0 {
		return
	}
	modified := map[string]bool{}
	for name, taints := range before {
		if !apiequality.Semantic.DeepEqual(taints, after[name]) {
			modified[name] = true
		}
	}
	for name := range after {
		if _, ok := before[name]; !ok {
			modified[name] = true
		}
	}
	for _, key := range sortedKeys(c.allocated) {
		a := c.allocated[key]
		if !usesModifiedDevice(a.claim.Status.Allocation, id, modified) {
			continue
		}
		e := c.claimEviction(a.claim, c.evictingRules)
		if e.equal(a.eviction) {
			continue
		}
		a.eviction = e
		c.handlePods(ctx, a.claim)
	}
}

func usesModifiedDevice(allocation *resourcev1.AllocationResult, id devicePoolID, modified map[string]bool) bool {
	for _, r := range allocation.Devices.Results {
		if r.Driver == id.driver && r.Pool == id.pool && modified[r.Device] {
			return true
		}
	}
	return false
}

func (p *devicePool) add(slice *resourcev1.ResourceSlice) {
	p.slices[slice.Name] = slice
	p.maxGeneration = max(p.maxGeneration, slice.Spec.Pool.Generation)
}

func (p *devicePool) remove(slice *resourcev1.ResourceSlice) {
	delete(p.slices, slice.Name)
	if slice.Spec.Pool.Generation == p.maxGeneration {
		p.maxGeneration = math.MinInt64
		for _, s := range p.slices {
			p.maxGeneration = max(p.maxGeneration, s.Spec.Pool.Generation)
		}
	}
}

// noExecuteTaints returns the NoExecute taints of the pool's current
// devices, by device name.
func (p *devicePool) noExecuteTaints() map[string][]resourcev1.DeviceTaint {
	out := map[string][]resourcev1.DeviceTaint{}
	if p == nil {
		return out
	}
	for _, s := range p.slices {
		if s.Spec.Pool.Generation != p.maxGeneration {
			continue
		}
		for _, d := range s.Spec.Devices {
			for _, t := range d.Taints {
				if t.Effect == resourcev1.DeviceTaintEffectNoExecute {
					out[d.Name] = append(out[d.Name], t)
				}
			}
		}
	}
	return out
}

// device returns a current device of the pool and its slice.
func (p *devicePool) device(name string) (*resourcev1.ResourceSlice, *resourcev1.Device) {
	if p == nil {
		return nil, nil
	}
	for _, s := range p.slices {
		if s.Spec.Pool.Generation != p.maxGeneration {
			continue
		}
		for i := range s.Spec.Devices {
			if s.Spec.Devices[i].Name == name {
				return s, &s.Spec.Devices[i]
			}
		}
	}
	return nil, nil
}

// observeRule is upstream's handleRuleChange: a new rule, or one whose
// spec changed, gets its status looked at once, and every allocated claim
// is looked at again.
func (c *DeviceTaintEviction) observeRule(ctx context.Context, ev store.Event) error {
	old := c.rules[ev.Key]
	var cur *resourcev1.DeviceTaintRule
	if ev.Type == store.Deleted {
		delete(c.rules, ev.Key)
	} else {
		rule, err := decodeEvent[resourcev1.DeviceTaintRule](ev)
		if err != nil {
			return err
		}
		c.rules[ev.Key], cur = rule, rule
	}
	if old != nil && cur != nil && old.UID != cur.UID {
		c.ruleChanged(ctx, old, nil)
		old = nil
	}
	c.ruleChanged(ctx, old, cur)
	return nil
}

func (c *DeviceTaintEviction) ruleChanged(ctx context.Context, old, cur *resourcev1.DeviceTaintRule) {
	if old == nil && cur == nil {
		return
	}
	if old == nil {
		c.queueRule(ruleRefOf(cur), 0)
	}
	if cur == nil {
		delete(c.ruleEvictions, old.UID)
		delete(c.ruleWritten, old.UID)
		delete(c.evictingRules, old.Name)
	}
	if old != nil && cur != nil {
		if apiequality.Semantic.DeepEqual(&old.Spec, &cur.Spec) {
			return
		}
		c.queueRule(ruleRefOf(cur), 0)
	}
	if old != nil && old.Spec.Taint.Effect == resourcev1.DeviceTaintEffectNoExecute {
		delete(c.evictingRules, old.Name)
	}
	if cur != nil && cur.Spec.Taint.Effect == resourcev1.DeviceTaintEffectNoExecute {
		c.evictingRules[cur.Name] = cur
	}
	for _, key := range sortedKeys(c.allocated) {
		a := c.allocated[key]
		e := c.claimEviction(a.claim, c.evictingRules)
		changed := !e.equal(a.eviction)
		a.eviction = e
		if changed {
			c.handlePods(ctx, a.claim)
		}
	}
}

// ruleMatchesDevice reports whether the rule's selector selects the
// device.
func ruleMatchesDevice(rule *resourcev1.DeviceTaintRule, driver, pool, device string) bool {
	s := rule.Spec.DeviceSelector
	if s == nil {
		return false
	}
	return (s.Driver == nil || *s.Driver == driver) && (s.Pool == nil || *s.Pool == pool) && (s.Device == nil || *s.Device == device)
}

// taint returns the taint a reason stands for.
func (r deviceTaintReason) taint() *resourcev1.DeviceTaint {
	if r.rule != nil {
		return &r.rule.Spec.Taint
	}
	for i := range r.slice.Spec.Devices {
		if d := &r.slice.Spec.Devices[i]; d.Name == r.device {
			return &d.Taints[r.index]
		}
	}
	return nil
}

// compare orders reasons: rules first, by name; then slices' taints by
// driver, pool, device and index.
func (r deviceTaintReason) compare(o deviceTaintReason) int {
	switch {
	case r.rule != nil && o.rule == nil:
		return -1
	case r.rule == nil && o.rule != nil:
		return 1
	case r.rule != nil:
		return strings.Compare(r.rule.Name, o.rule.Name)
	case r.slice == nil || o.slice == nil:
		return 0
	}
	if d := strings.Compare(r.slice.Spec.Driver, o.slice.Spec.Driver); d != 0 {
		return d
	}
	if d := strings.Compare(r.slice.Spec.Pool.Name, o.slice.Spec.Pool.Name); d != 0 {
		return d
	}
	if d := strings.Compare(r.device, o.device); d != 0 {
		return d
	}
	return r.index - o.index
}

func (e *deviceEviction) equal(o *deviceEviction) bool {
	if e == nil || o == nil {
		return false
	}
	return e.when.Equal(o.when) && slices.Equal(e.reasons, o.reasons)
}

// claimEviction is upstream's claimEvictionTime: the earliest time at
// which a NoExecute taint of one of the claim's devices (from its slice or
// from one of rules) is no longer tolerated, nil if none. A taint is
// tolerated for the least tolerationSeconds of the allocation result's
// tolerations of effect NoExecute that match it, forever by one without.
// A taint without timeAdded (kube-apiserver always sets one) counts as
// added now.
func (c *DeviceTaintEviction) claimEviction(claim *resourcev1.ResourceClaim, rules map[string]*resourcev1.DeviceTaintRule) *deviceEviction {
	var when *time.Time
	var reasons []deviceTaintReason
	for _, r := range claim.Status.Allocation.Devices.Results {
		slice, device := c.pools[devicePoolID{driver: r.Driver, pool: r.Pool}].device(r.Device)
		var taints []deviceTaintReason
		if device != nil {
			for i, t := range device.Taints {
				if t.Effect == resourcev1.DeviceTaintEffectNoExecute {
					taints = append(taints, deviceTaintReason{slice: slice, device: device.Name, index: i})
				}
			}
		}
		for _, name := range sortedKeys(rules) {
			if rule := rules[name]; ruleMatchesDevice(rule, r.Driver, r.Pool, r.Device) {
				taints = append(taints, deviceTaintReason{rule: rule})
			}
		}
	next:
		for _, reason := range taints {
			taint := reason.taint()
			at := c.clock()
			if taint.TimeAdded != nil {
				at = taint.TimeAdded.Time
			}
			tolerated, seconds := false, int64(math.MaxInt64)
			for _, tol := range r.Tolerations {
				if tol.Effect != resourcev1.DeviceTaintEffectNoExecute || !resourceclaim.ToleratesTaint(tol, *taint) {
					continue
				}
				if tol.TolerationSeconds == nil {
					continue next
				}
				seconds = min(seconds, max(*tol.TolerationSeconds, 0))
				tolerated = true
			}
			if tolerated {
				at = at.Add(time.Duration(seconds) * time.Second)
			}
			if !slices.Contains(reasons, reason) {
				reasons = append(reasons, reason)
			}
			if when == nil || at.Before(*when) {
				when = &at
			}
		}
	}
	if when == nil {
		return nil
	}
	slices.SortFunc(reasons, deviceTaintReason.compare)
	return &deviceEviction{when: *when, reasons: reasons}
}

// handlePods looks at the pods a claim is reserved for.
func (c *DeviceTaintEviction) handlePods(ctx context.Context, claim *resourcev1.ResourceClaim) {
	for _, consumer := range claim.Status.ReservedFor {
		if consumer.APIGroup != "" || consumer.Resource != "pods" {
			continue
		}
		pod := c.pods[claim.Namespace+"/"+consumer.Name]
		if pod == nil || pod.UID != consumer.UID {
			continue
		}
		c.handlePod(ctx, pod)
	}
}

// handlePod schedules the pod's eviction, or calls it off (with an
// event).
func (c *DeviceTaintEviction) handlePod(ctx context.Context, pod *corev1.Pod) {
	e := c.podEviction(pod, c.currentEviction)
	ref := podRefOf(pod)
	if e == nil {
		if c.cancelEvict(ref) {
			c.rec.Eventf(ctx, corev1.ObjectReference{APIVersion: "v1", Kind: "Pod", Namespace: ref.namespace, Name: ref.name, UID: ref.uid},
				corev1.EventTypeNormal, deviceTaintEventReason, "Cancelling deletion")
		}
		return
	}
	c.deletePodAt[ref] = *e
	for _, reason := range e.reasons {
		if reason.rule != nil {
			c.queueRule(ruleRefOf(reason.rule), ruleStatusPeriod)
		}
	}
}

// cancelEvict forgets a scheduled eviction, reporting whether there was
// one.
func (c *DeviceTaintEviction) cancelEvict(ref devicePodRef) bool {
	if _, ok := c.deletePodAt[ref]; !ok {
		return false
	}
	delete(c.deletePodAt, ref)
	return true
}

// podEviction is upstream's podEvictionTime: the earliest eviction of the
// allocated claims that a bound pod uses and that are reserved for it,
// with all their reasons; eviction returns a claim's by store key.
func (c *DeviceTaintEviction) podEviction(pod *corev1.Pod, eviction func(key string) *deviceEviction) *deviceEviction {
	if pod.Spec.NodeName == "" {
		return nil
	}
	var out *deviceEviction
	for name, mustCheckOwner := range resourceclaim.PodClaims(pod) {
		key := pod.Namespace + "/" + name
		a := c.allocated[key]
		if a == nil {
			continue
		}
		if mustCheckOwner && resourceclaim.IsForPod(pod, a.claim, false) != nil {
			continue
		}
		if !resourceclaim.IsReservedForPod(pod, a.claim, false) {
			continue
		}
		e := eviction(key)
		if e == nil {
			continue
		}
		if out == nil {
			out = e
			continue
		}
		merged := &deviceEviction{when: e.when, reasons: slices.Clone(e.reasons)}
		for _, r := range out.reasons {
			if i, found := slices.BinarySearchFunc(merged.reasons, r, deviceTaintReason.compare); !found {
				merged.reasons = slices.Insert(merged.reasons, i, r)
			}
		}
		if out.when.Before(merged.when) {
			merged.when = out.when
		}
		if !out.equal(merged) {
			out = merged
		}
	}
	return out
}

// maybeDeletePod is upstream's maybeDeletePod for a due eviction: the
// pod, if it is still the one, is evicted; the eviction is then done
// (also when the pod is gone or being deleted), and counted for the rules
// that caused it.
func (c *DeviceTaintEviction) maybeDeletePod(ctx context.Context, ref devicePodRef) error {
	e := c.deletePodAt[ref]
	err := c.evictPod(ctx, ref)
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	delete(c.deletePodAt, ref)
	c.evicted.Add(ref.uid, nil)
	if err != nil {
		return nil
	}
	c.log.Debug("evicted pod", "pod", ref.namespace+"/"+ref.name, "latency", c.clock().Sub(e.when))
	for _, reason := range e.reasons {
		if reason.rule != nil {
			c.ruleEvictions[reason.rule.UID]++
			c.queueRule(ruleRefOf(reason.rule), ruleStatusPeriod)
		}
	}
	return nil
}

// evictPod is upstream's addConditionAndDeletePod: a NotFound error when
// the pod is gone or replaced, nil when it is already being deleted.
func (c *DeviceTaintEviction) evictPod(ctx context.Context, ref devicePodRef) error {
	obj, err := c.reg.Get(ctx, podsGVR, ref.namespace, ref.name)
	if err != nil {
		return fmt.Errorf("get pod %s/%s: %w", ref.namespace, ref.name, err)
	}
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return fmt.Errorf("get pod %s/%s: unexpected %T", ref.namespace, ref.name, obj)
	}
	if pod.UID != ref.uid {
		return apierrors.NewNotFound(podsGVR.GroupResource(), ref.name)
	}
	if pod.DeletionTimestamp != nil {
		return nil
	}
	c.rec.Eventf(ctx, corev1.ObjectReference{APIVersion: "v1", Kind: "Pod", Namespace: ref.namespace, Name: ref.name, UID: ref.uid},
		corev1.EventTypeNormal, deviceTaintEventReason, "Marking for deletion")
	_, err = c.reg.UpdateSubresource(ctx, podsGVR, "status", ref.namespace, ref.name, func(cur runtime.Object) (runtime.Object, error) {
		pod := cur.(*corev1.Pod)
		if pod.UID != ref.uid {
			return nil, apierrors.NewNotFound(podsGVR.GroupResource(), ref.name)
		}
		cond := corev1.PodCondition{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue,
			Reason: deviceTaintConditionReason, Message: deviceTaintConditionMessage}
		if !updatePodCondition(&pod.Status, cond, metav1.NewTime(c.now())) {
			return nil, errNoChange
		}
		return pod, nil
	})
	if err != nil && !errors.Is(err, errNoChange) {
		return fmt.Errorf("mark pod %s/%s for deletion: %w", ref.namespace, ref.name, err)
	}
	uid := ref.uid
	if _, err := c.reg.Delete(ctx, podsGVR, ref.namespace, ref.name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}}); err != nil {
		return fmt.Errorf("delete pod %s/%s: %w", ref.namespace, ref.name, err)
	}
	return nil
}

// updateRuleStatus is upstream's maybeUpdateRuleStatus: it returns when
// to look again when the rule's condition was written less than ten
// seconds ago.
func (c *DeviceTaintEviction) updateRuleStatus(ctx context.Context, ref deviceRuleRef) (time.Duration, error) {
	rule := c.rules[ref.name]
	if rule == nil || rule.UID != ref.uid {
		return 0, nil
	}
	var existing metav1.Condition
	if i := slices.IndexFunc(rule.Status.Conditions, func(c metav1.Condition) bool {
		return c.Type == resourcev1.DeviceTaintConditionEvictionInProgress
	}); i >= 0 {
		existing = rule.Status.Conditions[i]
		written, ok := c.ruleWritten[rule.UID]
		if !ok {
			written = existing.LastTransitionTime.Time
		}
		since := min(max(c.clock().Sub(written), 0), ruleStatusPeriod)
		if existing.ObservedGeneration == rule.Generation && since < ruleStatusPeriod {
			return ruleStatusPeriod - since, nil
		}
	}

	cond := metav1.Condition{
		Type:               resourcev1.DeviceTaintConditionEvictionInProgress,
		Status:             metav1.ConditionFalse,
		ObservedGeneration: rule.Generation,
		LastTransitionTime: existing.LastTransitionTime,
	}
	evicted := c.ruleEvictions[rule.UID]
	switch rule.Spec.Taint.Effect {
	case resourcev1.DeviceTaintEffectNoExecute:
		pods, namespaces := c.pendingPods(rule, c.currentEviction)
		switch {
		case pods > 0:
			cond.Reason, cond.Status = "PodsPendingEviction", metav1.ConditionTrue
			cond.Message = plural(pods, "1 pod needs", "%d pods need") + " to be evicted in " + plural(namespaces, "1 namespace.", "%d different namespaces.")
		case evicted > 0:
			cond.Reason = "Completed"
		default:
			cond.Reason = "NotStarted"
		}
	case resourcev1.DeviceTaintEffectNone:
		// What the rule would do with effect NoExecute, had no other rule
		// that effect.
		sim := rule.DeepCopy()
		sim.Spec.Taint.Effect = resourcev1.DeviceTaintEffectNoExecute
		simRules := map[string]*resourcev1.DeviceTaintRule{sim.Name: sim}
		pods, namespaces := c.pendingPods(sim, func(key string) *deviceEviction {
			if a := c.allocated[key]; a != nil {
				return c.claimEviction(a.claim, simRules)
			}
			return nil
		})
		published, allocated := c.selectedDevices(rule)
		cond.Reason = "NoEffect"
		cond.Message = plural(published, "1 published device", "%d published devices") + " selected. " +
			plural(allocated, "1 allocated device", "%d allocated devices") + " selected. " +
			plural(pods, "1 pod", "%d pods") + " would be evicted in " + plural(namespaces, "1 namespace", "%d different namespaces") +
			" if the effect was NoExecute. This information will not be updated again. Recreate the DeviceTaintRule to trigger an update."
	default:
		cond.Reason = "OtherEffect"
		cond.Message = "Eviction only happens for the NoExecute effect."
	}
	if evicted > 0 {
		if cond.Message != "" {
			cond.Message += " "
		}
		cond.Message += plural(evicted, "1 pod", "%d pods") + " evicted since starting the controller."
	}
	if cond == existing {
		return 0, nil
	}
	cond.LastTransitionTime = metav1.NewTime(c.now())
	applier, ok := c.reg.(registry.Applier)
	if !ok {
		return 0, fmt.Errorf("add condition to DeviceTaintRule %s status: the registry cannot apply", rule.Name)
	}
	condition := map[string]any{
		"type": cond.Type, "status": string(cond.Status), "reason": cond.Reason, "message": cond.Message,
		"observedGeneration": cond.ObservedGeneration, "lastTransitionTime": cond.LastTransitionTime.UTC().Format(time.RFC3339),
	}
	applied := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": deviceTaintRulesGVR.GroupVersion().String(),
		"kind":       "DeviceTaintRule",
		"metadata":   map[string]any{"name": rule.Name, "uid": string(rule.UID)},
		"status":     map[string]any{"conditions": []any{condition}},
	}}
	if _, err := applier.ApplySubresource(registry.WithFieldManager(ctx, DeviceTaintEvictionName), deviceTaintRulesGVR, "status", "", rule.Name, applied, true); err != nil {
		return 0, fmt.Errorf("add condition to DeviceTaintRule %s status: %w", rule.Name, err)
	}
	c.ruleWritten[rule.UID] = c.clock()
	return 0, nil
}

// currentEviction is the eviction of the allocated claim of store key
// key.
func (c *DeviceTaintEviction) currentEviction(key string) *deviceEviction {
	if a := c.allocated[key]; a != nil {
		return a.eviction
	}
	return nil
}

// pendingPods counts the pods not being deleted whose eviction (with the
// claims' evictions eviction returns) the rule causes, and their
// namespaces.
func (c *DeviceTaintEviction) pendingPods(rule *resourcev1.DeviceTaintRule, eviction func(key string) *deviceEviction) (pods, namespaces int64) {
	seen := map[string]bool{}
	for _, key := range sortedKeys(c.pods) {
		pod := c.pods[key]
		if pod.DeletionTimestamp != nil {
			continue
		}
		e := c.podEviction(pod, eviction)
		if e == nil {
			continue
		}
		for _, r := range e.reasons {
			if r.rule != nil && r.rule.UID == rule.UID {
				pods++
				seen[pod.Namespace] = true
			}
		}
	}
	return pods, int64(len(seen))
}

// selectedDevices counts the current devices of the slices the rule
// selects, and the allocated devices it selects.
func (c *DeviceTaintEviction) selectedDevices(rule *resourcev1.DeviceTaintRule) (published, allocated int64) {
	for id, p := range c.pools {
		for _, s := range p.slices {
			if s.Spec.Pool.Generation != p.maxGeneration {
				continue
			}
			for _, d := range s.Spec.Devices {
				if ruleMatchesDevice(rule, id.driver, id.pool, d.Name) {
					published++
				}
			}
		}
	}
	for _, a := range c.allocated {
		for _, r := range a.claim.Status.Allocation.Devices.Results {
			if ruleMatchesDevice(rule, r.Driver, r.Pool, r.Device) {
				allocated++
			}
		}
	}
	return published, allocated
}

// plural is one when n is 1, else many with n.
func plural(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return fmt.Sprintf(many, n)
}
