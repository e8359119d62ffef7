package scheduler

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	resourceclient "k8s.io/client-go/kubernetes/typed/resource/v1"
	resourcelisters "k8s.io/client-go/listers/resource/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/retry"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	dracel "k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/deviceclass/extendedresourcecache"
	"k8s.io/dynamic-resource-allocation/resourceclaim"
	resourceslicetracker "k8s.io/dynamic-resource-allocation/resourceslice/tracker"
	"k8s.io/dynamic-resource-allocation/structured"
)

// DynamicResources is the plugin that allocates the devices of pods'
// ResourceClaims (resource.k8s.io/v1).
const DynamicResources = "DynamicResources"

// draFeatures are the allocator features of kube-scheduler v1.37's default
// feature gates (the DRA gates on by default: GA and beta).
var draFeatures = structured.Features{
	AdminAccess:             true,
	PrioritizedList:         true,
	PartitionableDevices:    true,
	DeviceTaints:            true,
	DeviceBindingAndStatus:  true,
	ConsumableCapacity:      true,
	FractionalCapacityRange: true,
}

// draStateKey is where PreFilter keeps the cycle's draState.
const draStateKey = DynamicResources

// draClaims is what the scheduler knows of ResourceClaims besides its
// informer: the claims it allocated in a cycle and has not written yet (in
// flight, so that the next cycles count their devices as taken) and the
// claims it wrote, until the informer has them.
type draClaims struct {
	lister resourcelisters.ResourceClaimLister
	mu     sync.Mutex
	// inFlight are the claims with the allocation Reserve chose, by UID.
	inFlight map[types.UID]*resourceapi.ResourceClaim
	// assumed are claims as PreBind wrote them, by UID.
	assumed map[types.UID]*resourceapi.ResourceClaim
}

// newDRAClaims returns an empty tracker reading the informer's lister.
func newDRAClaims(lister resourcelisters.ResourceClaimLister) *draClaims {
	return &draClaims{lister: lister, inFlight: map[types.UID]*resourceapi.ResourceClaim{}, assumed: map[types.UID]*resourceapi.ResourceClaim{}}
}

// get returns a claim as the scheduler last knew it.
func (c *draClaims) get(namespace, name string) (*resourceapi.ResourceClaim, error) {
	claim, err := c.lister.ResourceClaims(namespace).Get(name)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.latestLocked(claim), nil
}

// latestLocked returns the claim as PreBind wrote it when the informer's
// copy is older, else the informer's copy. c.mu is held.
func (c *draClaims) latestLocked(claim *resourceapi.ResourceClaim) *resourceapi.ResourceClaim {
	if a := c.assumed[claim.UID]; a != nil && newerThan(a, claim) {
		return a
	}
	return claim
}

// observed drops an assumed claim once the informer has it (or a later
// version), and a deleted claim's entries.
func (c *draClaims) observed(claim *resourceapi.ResourceClaim, deleted bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if deleted {
		delete(c.assumed, claim.UID)
		delete(c.inFlight, claim.UID)
		return
	}
	if a := c.assumed[claim.UID]; a != nil && !newerThan(a, claim) {
		delete(c.assumed, claim.UID)
	}
}

// newerThan reports whether a's resourceVersion is after b's (both are
// numbers here, as etcd's revisions).
func newerThan(a, b *resourceapi.ResourceClaim) bool {
	ra, errA := strconv.ParseUint(a.ResourceVersion, 10, 64)
	rb, errB := strconv.ParseUint(b.ResourceVersion, 10, 64)
	return errA == nil && errB == nil && ra > rb
}

// pending reports whether a claim's allocation is in flight.
func (c *draClaims) pending(uid types.UID) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.inFlight[uid] != nil
}

// allocatedState gathers the devices taken by every allocated claim and
// every claim in flight: dedicated devices, shared ones by share, and the
// capacity shares consume.
func (c *draClaims) allocatedState() (*structured.AllocatedState, error) {
	claims, err := c.lister.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	state := &structured.AllocatedState{
		AllocatedDevices:         sets.New[structured.DeviceID](),
		AllocatedSharedDeviceIDs: sets.New[structured.SharedDeviceID](),
		AggregatedCapacity:       structured.NewConsumedCapacityCollection(),
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	add := func(claim *resourceapi.ResourceClaim) {
		if claim.Status.Allocation == nil {
			return
		}
		for _, r := range claim.Status.Allocation.Devices.Results {
			if r.AdminAccess != nil && *r.AdminAccess {
				continue // admin access takes no device
			}
			id := structured.MakeDeviceID(r.Driver, r.Pool, r.Device)
			if r.ShareID != nil {
				state.AllocatedSharedDeviceIDs.Insert(structured.MakeSharedDeviceID(id, r.ShareID))
				if r.ConsumedCapacity != nil {
					state.AggregatedCapacity.Insert(structured.NewDeviceConsumedCapacity(id, r.ConsumedCapacity))
				}
				continue
			}
			state.AllocatedDevices.Insert(id)
		}
	}
	listed := sets.New[types.UID]()
	for _, claim := range claims {
		listed.Insert(claim.UID)
		claim = c.latestLocked(claim)
		if c.inFlight[claim.UID] == nil {
			add(claim)
		}
	}
	// A claim PreBind created (an extended-resource claim) that the
	// informer has not delivered yet.
	for uid, claim := range c.assumed {
		if !listed.Has(uid) && c.inFlight[uid] == nil {
			add(claim)
		}
	}
	for _, claim := range c.inFlight {
		add(claim)
	}
	return state, nil
}

// dynamicResources is kube-scheduler's DynamicResources plugin: a pod whose
// ResourceClaims do not exist yet waits (PreEnqueue), a node fits when the
// allocated claims are available there and the others can be allocated from
// its ResourceSlices (upstream's structured allocator), and the claims get
// their allocation and the pod's reservation before the binding.
type dynamicResources struct {
	h *handle
}

func (*dynamicResources) Name() string { return DynamicResources }

// draState is one cycle's view of a pod's claims.
type draState struct {
	// claims are the pod's claims, in spec order (none: nothing to do).
	claims []*resourceapi.ResourceClaim
	// availableOn are the nodes an allocated claim can be used on, by
	// claim index (nil: any node, or not allocated).
	availableOn []*nodeaffinity.NodeSelector
	// allocator allocates the unallocated claims (nil: none).
	allocator structured.Allocator
	// nodeAllocations are Filter's allocations of the unallocated claims,
	// by node, in the order of those claims.
	nodeAllocations map[string][]resourceapi.AllocationResult
	// unavailable are the indexes of allocated claims a node did not
	// offer (for PostFilter).
	unavailable sets.Set[int]
	// allocations are Reserve's allocation of each claim to allocate,
	// by claim index.
	allocations map[int]*resourceapi.AllocationResult
	// ext is the claim of the pod's extended resources backed by DRA,
	// last in claims (nil: none).
	ext *draExtended
}

// toAllocate returns the indexes of the claims without an allocation.
func (s *draState) toAllocate() []int {
	var idx []int
	for i, c := range s.claims {
		if c.Status.Allocation == nil {
			idx = append(idx, i)
		}
	}
	return idx
}

// watching reports whether the scheduler watches the DRA objects (not in
// unit tests without informers).
func (p *dynamicResources) watching() bool { return p.h != nil && p.h.draClaims != nil }

// foreachClaim resolves the pod's claims, as upstream's
// foreachPodResourceClaim: an error when one does not exist yet, is being
// deleted, or was generated for another pod.
func (p *dynamicResources) foreachClaim(pod *corev1.Pod, cb func(claim *resourceapi.ResourceClaim)) error {
	for i := range pod.Spec.ResourceClaims {
		name, mustCheckOwner, err := resourceclaim.Name(pod, &pod.Spec.ResourceClaims[i])
		if err != nil {
			return err
		}
		if name == nil {
			continue
		}
		claim, err := p.h.draClaims.get(pod.Namespace, *name)
		if err != nil {
			return err
		}
		if claim.DeletionTimestamp != nil {
			return fmt.Errorf("resourceclaim %q is being deleted", claim.Name)
		}
		if mustCheckOwner {
			if err := resourceclaim.IsForPod(pod, claim, false); err != nil {
				return err
			}
		}
		if cb != nil {
			cb(claim)
		}
	}
	return nil
}

// PreEnqueue holds back a pod whose claims cannot be resolved yet (the
// resourceclaim controller has not created them, or a user must).
func (p *dynamicResources) PreEnqueue(pod *corev1.Pod) *status {
	if len(pod.Spec.ResourceClaims) == 0 || !p.watching() {
		return nil
	}
	if err := p.foreachClaim(pod, nil); err != nil {
		return newStatus(unresolvable, err.Error())
	}
	return nil
}

// PreFilter resolves the claims, checks that the allocated ones can be
// reserved and that the device classes of the others exist, and prepares
// the allocator with the devices other claims took.
func (p *dynamicResources) PreFilter(state *cycleState, pod *corev1.Pod) *status {
	s := &draState{}
	state.data[draStateKey] = s
	if !p.watching() {
		return nil
	}
	var claims []*resourceapi.ResourceClaim
	if err := p.foreachClaim(pod, func(c *resourceapi.ResourceClaim) { claims = append(claims, c) }); err != nil {
		return newStatus(unresolvable, err.Error())
	}
	extClaim, ext, err := p.preFilterExtended(pod)
	if err != nil {
		return newStatus(unresolvable, err.Error())
	}
	if extClaim != nil {
		ext.index = len(claims)
		claims = append(claims, extClaim)
		s.ext = ext
	}
	if len(claims) == 0 {
		return nil
	}
	availableOn := make([]*nodeaffinity.NodeSelector, len(claims))
	toAllocate := 0
	for i, claim := range claims {
		if claim.Status.Allocation != nil {
			if !resourceclaim.CanBeReserved(claim) && !resourceclaim.IsReservedForPod(pod, claim, false) {
				return newStatus(unresolvable, "resourceclaim in use")
			}
			if ns := claim.Status.Allocation.NodeSelector; ns != nil {
				sel, err := nodeaffinity.NewNodeSelector(ns)
				if err != nil {
					return newStatus(unresolvable, err.Error())
				}
				availableOn[i] = sel
			}
			continue
		}
		toAllocate++
		if p.h.draClaims.pending(claim.UID) {
			return newStatus(unresolvable, fmt.Sprintf("resource claim %s/%s is in the process of being allocated", claim.Namespace, claim.Name))
		}
		if ext != nil && i == ext.index {
			// Its requests are the node's, made in Filter; one left
			// from an earlier cycle fails there.
			continue
		}
		for _, req := range claim.Spec.Devices.Requests {
			switch {
			case req.Exactly != nil:
				if st := p.checkDeviceClass(req.Exactly.DeviceClassName, req.Name); st != nil {
					return st
				}
			case len(req.FirstAvailable) > 0:
				for _, sub := range req.FirstAvailable {
					if st := p.checkDeviceClass(sub.DeviceClassName, req.Name+"/"+sub.Name); st != nil {
						return st
					}
				}
			default:
				return newStatus(unresolvable, fmt.Sprintf("resource claim %s/%s, request %s: unknown request type", claim.Namespace, claim.Name, req.Name))
			}
		}
	}
	if toAllocate > 0 {
		allocated, err := p.h.draClaims.allocatedState()
		if err != nil {
			return newStatus(unresolvable, err.Error())
		}
		slices, err := p.h.draSlices.ListPatchedResourceSlices()
		if err != nil {
			return newStatus(unresolvable, err.Error())
		}
		alloc, err := structured.NewAllocator(context.Background(), draFeatures, *allocated, deviceClasses{p.h.draClasses}, slices, p.h.draCEL)
		if err != nil {
			return newStatus(unresolvable, err.Error())
		}
		s.allocator = alloc
		s.nodeAllocations = map[string][]resourceapi.AllocationResult{}
	}
	s.claims, s.availableOn = claims, availableOn
	return nil
}

// deviceClasses is the informer's lister as the allocator lists classes.
type deviceClasses struct {
	resourcelisters.DeviceClassLister
}

// List returns every DeviceClass.
func (l deviceClasses) List() ([]*resourceapi.DeviceClass, error) {
	return l.DeviceClassLister.List(labels.Everything())
}

// checkDeviceClass refuses a request whose class does not exist.
func (p *dynamicResources) checkDeviceClass(class, request string) *status {
	if class == "" {
		return newStatus(unresolvable, fmt.Sprintf("request %s: unsupported request type", request))
	}
	if _, err := p.h.draClasses.Get(class); apierrors.IsNotFound(err) {
		return newStatus(unresolvable, fmt.Sprintf("request %s: device class %s does not exist", request, class))
	}
	return nil
}

// Filter accepts a node where every allocated claim is available and the
// others can be allocated.
func (p *dynamicResources) Filter(state *cycleState, pod *corev1.Pod, n *nodeInfo) *status {
	s, _ := state.data[draStateKey].(*draState)
	if s == nil || len(s.claims) == 0 {
		return nil
	}
	nodeExt, st := p.filterExtended(s, pod, n)
	if st != nil {
		return st
	}
	if nodeExt == nil && s.numUserClaims() == 0 {
		// Only extended resources, all advertised by the node.
		return nil
	}
	var unavailable []int
	for i, sel := range s.availableOn {
		if sel != nil && !sel.Match(n.node) {
			unavailable = append(unavailable, i)
		}
	}
	if s.allocator != nil {
		idx := s.toAllocate()
		claims := make([]*resourceapi.ResourceClaim, len(idx))
		for j, i := range idx {
			claims[j] = s.claims[i]
			if nodeExt != nil && s.ext != nil && i == s.ext.index {
				claims[j] = nodeExt.claim
			}
		}
		result, err := s.allocator.Allocate(context.Background(), n.node, claims)
		switch {
		case errors.Is(err, structured.ErrFailedAllocationOnNode):
			return newStatus(unresolvable, err.Error())
		case err != nil:
			return newStatus(unresolvable, err.Error())
		case len(result) != len(claims):
			return newStatus(unresolvable, "cannot allocate all claims")
		}
		s.nodeAllocations[n.node.Name] = result
		if s.ext != nil {
			s.ext.nodes[n.node.Name] = nodeExt
		}
	}
	if len(unavailable) > 0 {
		if s.unavailable == nil {
			s.unavailable = sets.New[int]()
		}
		s.unavailable.Insert(unavailable...)
		return newStatus(unresolvable, "resourceclaim not available on the node")
	}
	return nil
}

// PreScore implements preScorePlugin (nothing to prepare).
func (p *dynamicResources) PreScore(*cycleState, *corev1.Pod, []*nodeInfo) {}

// Score prefers the nodes where the claims' prioritized lists got their
// earlier subrequests, as upstream's (with DRAPrioritizedList).
func (p *dynamicResources) Score(state *cycleState, _ *corev1.Pod, n *nodeInfo) int64 {
	s, _ := state.data[draStateKey].(*draState)
	if s == nil || len(s.claims) == 0 {
		return 0
	}
	results, ok := s.nodeAllocations[n.node.Name]
	if !ok {
		return 0
	}
	var score int64
	next := 0
	for _, claim := range s.claims {
		alloc := claim.Status.Allocation
		if alloc == nil {
			if next >= len(results) {
				return 0
			}
			alloc = &results[next]
			next++
		}
		chosen := sets.New[string]()
		for _, r := range alloc.Devices.Results {
			if resourceclaim.IsSubRequestRef(r.Request) {
				chosen.Insert(r.Request)
			}
		}
		for _, req := range claim.Spec.Devices.Requests {
			for i, sub := range req.FirstAvailable {
				if chosen.Has(resourceclaim.CreateSubRequestRef(req.Name, sub.Name)) {
					score += int64(resourceapi.FirstAvailableDeviceRequestMaxSize - i)
				}
			}
		}
	}
	return score
}

// NormalizeScore scales the scores to [0, maxNodeScore], the highest to
// maxNodeScore (upstream's DefaultNormalizeScore).
func (p *dynamicResources) NormalizeScore(_ *cycleState, _ *corev1.Pod, scores []int64) {
	var highest int64
	for _, s := range scores {
		highest = max(highest, s)
	}
	if highest == 0 {
		return
	}
	for i := range scores {
		scores[i] = maxNodeScore * scores[i] / highest
	}
}

// postFilter is the plugin's PostFilter, which kube-scheduler runs before
// DefaultPreemption's: an allocated claim that was not available on the
// nodes and that no other pod uses is deallocated, so that the next
// attempt may allocate it elsewhere. It returns the reason it gives (""
// for none) and whether the PostFilter phase ends there: when PreFilter
// never ran (a PreFilter plugin ahead of it rejected the pod), upstream's
// fails with "not found".
func (p *dynamicResources) postFilter(ctx context.Context, client kubernetes.Interface, state *cycleState, pod *corev1.Pod) (string, bool) {
	s, ok := state.data[draStateKey].(*draState)
	if !ok {
		return "not found", true
	}
	if len(s.claims) == 0 {
		return "", false
	}
	ext := s.extendedClaim()
	for _, i := range sets.List(s.unavailable) {
		claim := s.claims[i]
		if claim == ext {
			if ext.Name != extendedClaimInMemName {
				break
			}
			continue
		}
		if r := claim.Status.ReservedFor; len(r) == 0 || len(r) == 1 && r[0].UID == pod.UID {
			claim = claim.DeepCopy()
			claim.Status.ReservedFor, claim.Status.Allocation, claim.Status.Devices = nil, nil, nil
			if _, err := client.ResourceV1().ResourceClaims(claim.Namespace).UpdateStatus(ctx, claim, metav1.UpdateOptions{}); err != nil {
				return err.Error(), true
			}
			return "deallocation of ResourceClaim completed", false
		}
	}
	if ext != nil && ext.Name != extendedClaimInMemName {
		// Made in an earlier cycle, whose allocation may no longer
		// hold: deleted, for the next attempt to make it anew.
		if err := deleteClaim(ctx, client, ext); err != nil {
			return err.Error(), true
		}
		return reasonClaimDeleted, false
	}
	return "", false
}

// reserve records the allocations chosen for the node as in flight, so
// that the next cycles do not give their devices away.
func (p *dynamicResources) reserve(state *cycleState, node string) error {
	s, _ := state.data[draStateKey].(*draState)
	if s == nil || s.allocator == nil {
		return nil
	}
	results := s.nodeAllocations[node]
	idx := s.toAllocate()
	if len(results) == 0 && !slices.ContainsFunc(idx, func(i int) bool { return s.ext == nil || i != s.ext.index }) {
		// Only the extended-resource claim, which the node's own
		// resources serve: nothing to allocate.
		return nil
	}
	if len(results) != len(idx) {
		return fmt.Errorf("internal error, have %d allocations, %d claims to allocate", len(results), len(idx))
	}
	s.allocations = map[int]*resourceapi.AllocationResult{}
	p.h.draClaims.mu.Lock()
	defer p.h.draClaims.mu.Unlock()
	for j, i := range idx {
		s.allocations[i] = &results[j]
		claim := s.claims[i]
		if s.ext != nil && i == s.ext.index {
			if nc := s.ext.nodes[node]; nc != nil {
				claim = nc.claim
			}
		}
		claim = claim.DeepCopy()
		if !slices.Contains(claim.Finalizers, resourceapi.Finalizer) {
			claim.Finalizers = append(claim.Finalizers, resourceapi.Finalizer)
		}
		claim.Status.Allocation = &results[j]
		p.h.draClaims.inFlight[claim.UID] = claim
	}
	return nil
}

// unreserve forgets the cycle's allocations in flight and takes the pod
// out of the claims reserved for it, after a failed binding.
func (p *dynamicResources) unreserve(ctx context.Context, client kubernetes.Interface, state *cycleState, pod *corev1.Pod) {
	s, _ := state.data[draStateKey].(*draState)
	if s == nil {
		return
	}
	p.h.draClaims.mu.Lock()
	for _, claim := range s.claims {
		delete(p.h.draClaims.inFlight, claim.UID)
	}
	p.h.draClaims.mu.Unlock()
	for _, claim := range s.claims[:s.numUserClaims()] {
		cur, err := p.h.draClaims.get(claim.Namespace, claim.Name)
		if err != nil || cur.UID != claim.UID || cur.Status.Allocation == nil || !resourceclaim.IsReservedForPod(pod, cur, false) {
			continue
		}
		patch := fmt.Sprintf(`{"metadata":{"uid":%q},"status":{"reservedFor":[{"$patch":"delete","uid":%q}]}}`, cur.UID, pod.UID)
		_, _ = client.ResourceV1().ResourceClaims(cur.Namespace).Patch(ctx, cur.Name, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}, "status")
	}
	p.unreserveExtended(ctx, client, s)
}

// hasClaims reports whether the cycle found claims of the pod: then
// PreBind has work (upstream's PreBindPreFlight succeeds).
func (p *dynamicResources) hasClaims(state *cycleState) bool {
	s, _ := state.data[draStateKey].(*draState)
	return s != nil && len(s.claims) > 0
}

// preBind writes each claim not yet reserved for the pod: the
// delete-protection finalizer and the allocation for the claims Reserve
// allocated, and the pod among those it is reserved for.
func (p *dynamicResources) preBind(ctx context.Context, client kubernetes.Interface, state *cycleState, pod *corev1.Pod, node string) error {
	s, _ := state.data[draStateKey].(*draState)
	if s == nil {
		return nil
	}
	for i, claim := range s.claims {
		if resourceclaim.IsReservedForPod(pod, claim, false) {
			continue
		}
		var updated *resourceapi.ResourceClaim
		var err error
		if s.ext != nil && i == s.ext.index {
			updated, err = p.bindExtendedClaim(ctx, client, s, pod, node)
		} else {
			updated, err = p.bindClaim(ctx, client, claim, s.allocations[i], pod)
		}
		if err != nil {
			return err
		}
		s.claims[i] = updated
		p.h.draClaims.mu.Lock()
		delete(p.h.draClaims.inFlight, updated.UID)
		if s.ext != nil && i == s.ext.index {
			delete(p.h.draClaims.inFlight, s.ext.initialUID)
		}
		if updated.Name != extendedClaimInMemName {
			p.h.draClaims.assumed[updated.UID] = updated
		}
		p.h.draClaims.mu.Unlock()
	}
	return nil
}

// bindClaim writes one claim, retrying on conflicts with the claim read
// again, as upstream's.
func (p *dynamicResources) bindClaim(ctx context.Context, client kubernetes.Interface, claim *resourceapi.ResourceClaim, allocation *resourceapi.AllocationResult, pod *corev1.Pod) (*resourceapi.ResourceClaim, error) {
	claims := client.ResourceV1().ResourceClaims(claim.Namespace)
	return updateClaimRetrying(ctx, claims, claim, "get updated claim %s/%s after conflict: %w", func(claim *resourceapi.ResourceClaim) (*resourceapi.ResourceClaim, error) {
		if claim.DeletionTimestamp != nil {
			return nil, fmt.Errorf("claim %s/%s got deleted in the meantime", claim.Namespace, claim.Name)
		}
		if allocation != nil {
			if claim.Status.Allocation != nil {
				return nil, fmt.Errorf("claim %s/%s got allocated elsewhere in the meantime", claim.Namespace, claim.Name)
			}
			if !slices.Contains(claim.Finalizers, resourceapi.Finalizer) {
				claim.Finalizers = append(claim.Finalizers, resourceapi.Finalizer)
				cur, err := claims.Update(ctx, claim, metav1.UpdateOptions{})
				if err != nil {
					return nil, fmt.Errorf("add finalizer to claim %s/%s: %w", claim.Namespace, claim.Name, err)
				}
				claim = cur
			}
			claim.Status.Allocation = allocation.DeepCopy()
		}
		claim.Status.ReservedFor = append(claim.Status.ReservedFor, resourceapi.ResourceClaimConsumerReference{Resource: "pods", Name: pod.Name, UID: pod.UID})
		if claim.Status.Allocation == nil {
			return nil, fmt.Errorf("claim %s/%s got deallocated elsewhere in the meantime", claim.Namespace, claim.Name)
		}
		if claim.Status.Allocation.AllocationTimestamp == nil {
			claim.Status.Allocation.AllocationTimestamp = &metav1.Time{Time: time.Now()}
		}
		cur, err := claims.UpdateStatus(ctx, claim, metav1.UpdateOptions{})
		if err != nil {
			if allocation != nil {
				return nil, fmt.Errorf("add allocation and reservation to claim %s/%s: %w", claim.Namespace, claim.Name, err)
			}
			return nil, fmt.Errorf("add reservation to claim %s/%s: %w", claim.Namespace, claim.Name, err)
		}
		return cur, nil
	})
}

// updateClaimRetrying calls change with a copy of claim, and after each
// conflict again with the claim read anew (a failed read is worded by
// getErr, a format of the claim's namespace, name and the error), as
// upstream's retries; it returns what change returned last.
func updateClaimRetrying(ctx context.Context, claims resourceclient.ResourceClaimInterface, claim *resourceapi.ResourceClaim, getErr string,
	change func(*resourceapi.ResourceClaim) (*resourceapi.ResourceClaim, error)) (*resourceapi.ResourceClaim, error) {
	cur := claim.DeepCopy()
	var updated *resourceapi.ResourceClaim
	refresh := false
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if refresh {
			got, err := claims.Get(ctx, cur.Name, metav1.GetOptions{})
			if err != nil {
				return fmt.Errorf(getErr, cur.Namespace, cur.Name, err)
			}
			cur = got
		}
		refresh = true
		var err error
		updated, err = change(cur)
		return err
	})
	if err != nil {
		return cur, err
	}
	return updated, nil
}

// eventsToRegister implements queueingHinter: upstream's registrations. A
// claim that comes, changes or goes (hinted), the pod's own claims
// generated, a device class or a ResourceSlice that comes or changes, a
// node that comes or changes labels or allocatable.
func (p *dynamicResources) eventsToRegister() []eventHint {
	return []eventHint{
		{resource: resNode, actions: actAdd | actUpdateNodeLabel | actUpdateNodeAllocatable},
		{resource: resResourceClaim, actions: actAdd | actUpdate | actDelete, hint: p.afterClaimChange},
		{resource: resTargetPod, actions: actUpdatePodGeneratedResourceClaim, hint: p.afterGeneratedClaim},
		{resource: resDeviceClass, actions: actAdd | actUpdate},
		{resource: resResourceSlice, actions: actAdd | actUpdate},
	}
}

// afterClaimChange: a claim that was deallocated or deleted while
// allocated (its devices are free), or one of the pod's claims that came or
// whose status changed.
func (p *dynamicResources) afterClaimChange(pod *corev1.Pod, e clusterEvent) bool {
	old, _ := e.oldObj.(*resourceapi.ResourceClaim)
	cur, _ := e.newObj.(*resourceapi.ResourceClaim)
	if cur == nil {
		return old == nil || old.Status.Allocation != nil
	}
	uses := false
	if err := p.foreachClaim(pod, func(c *resourceapi.ResourceClaim) { uses = uses || c.UID == cur.UID }); err != nil {
		return false
	}
	if old != nil && old.Status.Allocation != nil && cur.Status.Allocation == nil {
		return true
	}
	if !uses {
		return false
	}
	return old == nil || !equality.Semantic.DeepEqual(&old.Status, &cur.Status)
}

// afterGeneratedClaim: the pod's claims can all be resolved now.
func (p *dynamicResources) afterGeneratedClaim(_ *corev1.Pod, e clusterEvent) bool {
	pod, _ := e.newObj.(*corev1.Pod)
	return pod != nil && p.foreachClaim(pod, nil) == nil
}

// draCELCache is the size of the compiled-selector cache, upstream's.
const draCELCache = 10

// newDRACELCache returns the cache of compiled device selectors.
func newDRACELCache() *dracel.Cache {
	return dracel.NewCache(draCELCache, dracel.Features{EnableConsumableCapacity: draFeatures.ConsumableCapacity})
}

// watchDRA sets up the informers of ResourceClaims, ResourceSlices (through
// upstream's tracker, which applies DeviceTaintRules to their devices) and
// DeviceClasses: their listers for the plugin, and their changes as cluster
// events. It returns their HasSynced.
func (s *Scheduler) watchDRA(ctx context.Context, factory informers.SharedInformerFactory) ([]cache.InformerSynced, error) {
	claims := factory.Resource().V1().ResourceClaims()
	classes := factory.Resource().V1().DeviceClasses()
	slices, err := resourceslicetracker.StartTracker(ctx, resourceslicetracker.Options{
		EnableDeviceTaintRules:   true,
		EnableConsumableCapacity: draFeatures.ConsumableCapacity,
		SliceInformer:            factory.Resource().V1().ResourceSlices(),
		TaintInformer:            factory.Resource().V1().DeviceTaintRules(),
		KubeClient:               s.client,
	})
	if err != nil {
		return nil, fmt.Errorf("scheduler: resource slice tracker: %w", err)
	}
	s.draSlices = slices
	s.handle.draClaims = newDRAClaims(claims.Lister())
	s.handle.draSlices, s.handle.draClasses = slices, classes.Lister()
	s.handle.draCEL = newDRACELCache()
	tracker := s.handle.draClaims
	_, _ = claims.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if c, ok := obj.(*resourceapi.ResourceClaim); ok {
				tracker.observed(c, false)
			}
			s.queue.Move(clusterEvent{resource: resResourceClaim, action: actAdd, newObj: obj})
		},
		UpdateFunc: func(old, obj any) {
			if c, ok := obj.(*resourceapi.ResourceClaim); ok {
				tracker.observed(c, false)
			}
			s.queue.Move(clusterEvent{resource: resResourceClaim, action: actUpdate, oldObj: old, newObj: obj})
		},
		DeleteFunc: func(obj any) {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			if c, ok := obj.(*resourceapi.ResourceClaim); ok {
				tracker.observed(c, true)
				s.queue.Move(clusterEvent{resource: resResourceClaim, action: actDelete, oldObj: c})
			}
		},
	})
	moves := func(res eventResource) cache.ResourceEventHandler {
		return cache.ResourceEventHandlerFuncs{
			AddFunc: func(obj any) { s.queue.Move(clusterEvent{resource: res, action: actAdd, newObj: obj}) },
			UpdateFunc: func(old, obj any) {
				s.queue.Move(clusterEvent{resource: res, action: actUpdate, oldObj: old, newObj: obj})
			},
		}
	}
	_, _ = slices.AddEventHandler(moves(resResourceSlice))
	// As kube-scheduler, a DeviceClass event updates the extended
	// resources' mapping before it moves pods.
	s.handle.draExtended = extendedresourcecache.NewExtendedResourceCache(s.logger, moves(resDeviceClass))
	mapped, err := classes.Informer().AddEventHandler(s.handle.draExtended)
	if err != nil {
		return nil, fmt.Errorf("scheduler: device class handler: %w", err)
	}
	return []cache.InformerSynced{claims.Informer().HasSynced, slices.HasSynced, classes.Informer().HasSynced, mapped.HasSynced}, nil
}

// patchedSlices lists the ResourceSlices with the DeviceTaintRules'
// taints on their devices.
type patchedSlices interface {
	ListPatchedResourceSlices() ([]*resourceapi.ResourceSlice, error)
}
