package scheduler

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
	resourcehelper "k8s.io/component-helpers/resource"
	"k8s.io/utils/ptr"
)

// Extended resources backed by DRA (DRAExtendedResource, GA in v1.37): a
// pod that asks for an extended resource (example.com/gpu, or the implicit
// deviceclass.resource.kubernetes.io/<class>) that a DeviceClass maps, on a
// node that does not advertise it in status.allocatable, gets its devices
// from DRA. As kube-scheduler's DynamicResources plugin:
//
//   - PreFilter adds to the pod's claims the claim the scheduler made for
//     it in an earlier cycle (annotated resource.kubernetes.io/
//     extended-resource-claim and controlled by the pod), or else an
//     in-memory claim without requests, named "<extended-resources>";
//   - Filter fills, per node, that claim's requests with what the node must
//     provide through DRA (one request per container, "container-<i>-
//     request-<j>"), with the mappings of containers to requests, and the
//     structured allocator allocates it with the other claims; a claim left
//     from an earlier cycle fails every node ("cannot schedule extended
//     resource claim") and PostFilter deletes it;
//   - PreBind creates the claim (generateName <pod>-extended-resources-),
//     writes its allocation and reservation as for the other claims, and
//     records it in the pod's status.extendedResourceClaimStatus;
//   - Unreserve deletes a claim it created.
//
// NodeResourcesFit leaves such resources to DRA on nodes that do not
// advertise them.

// extendedClaimInMemName is the name of the claim of a pod's extended
// resources until PreBind creates it: not a valid object name, so that it
// never clashes with a stored claim.
const extendedClaimInMemName = "<extended-resources>"

// Reasons of the extended-resource claim's failures, upstream's.
const (
	reasonStaleExtendedClaim = "cannot schedule extended resource claim"
	reasonCannotFitResource  = "cannot fit resource"
	reasonClaimDeleted       = "deletion of ResourceClaim completed"
)

// deviceClassResolver maps an extended resource name to the DeviceClass
// that provides it (upstream's ExtendedResourceCache; a nil cache maps
// nothing).
type deviceClassResolver interface {
	GetDeviceClass(name corev1.ResourceName) *resourceapi.DeviceClass
}

// draExtended is one cycle's view of the claim of a pod's extended
// resources: claims[index] of the cycle's draState.
type draExtended struct {
	index int
	// initialUID is the claim's UID in PreFilter: the in-memory claim's
	// made-up UID, under which Reserve records the allocation in flight.
	initialUID types.UID
	// requests are the pod's scalar requests.
	requests map[corev1.ResourceName]int64
	// nodes are Filter's claims for the nodes that passed, by node name
	// (nil: the node needs nothing of DRA for them).
	nodes map[string]*extendedNodeClaim
}

// extendedNodeClaim is the claim of a pod's extended resources for one
// node: its requests, and which container's resource each serves.
type extendedNodeClaim struct {
	claim    *resourceapi.ResourceClaim
	mappings []corev1.ContainerExtendedResourceRequest
}

// isDRAExtendedResourceName reports whether a resource may be backed by a
// DeviceClass: an extended resource name, or an implicit one
// (deviceclass.resource.kubernetes.io/<class>).
func isDRAExtendedResourceName(name corev1.ResourceName) bool {
	return isExtendedResourceName(name) || strings.HasPrefix(string(name), resourceapi.ResourceDeviceClassPrefix)
}

// isExtendedResourceName is the API's definition: a domain-prefixed name
// outside *kubernetes.io/ that is a qualified name behind "requests.".
func isExtendedResourceName(name corev1.ResourceName) bool {
	s := string(name)
	if !strings.Contains(s, "/") || strings.Contains(s, corev1.ResourceDefaultNamespacePrefix) || strings.HasPrefix(s, corev1.DefaultResourceRequestsPrefix) {
		return false
	}
	return len(validation.IsQualifiedName(corev1.DefaultResourceRequestsPrefix+s)) == 0
}

// delegatedToDRA reports whether NodeResourcesFit leaves a resource the pod
// asks for to DRA on a node (nil: any node): the node does not advertise it
// and a DeviceClass maps it.
func delegatedToDRA(name corev1.ResourceName, n *nodeInfo, classes deviceClassResolver) bool {
	if classes == nil {
		return false
	}
	if n != nil && n.allocatable.scalar[name] > 0 {
		return false
	}
	return classes.GetDeviceClass(name) != nil
}

// classResolver returns the extended resources' DeviceClasses (nil when
// the scheduler does not watch DRA objects).
func (h *handle) classResolver() deviceClassResolver {
	if h == nil || h.draExtended == nil {
		return nil
	}
	return h.draExtended
}

// preFilterExtended returns the claim of the pod's extended resources when
// the pod asks for one a DeviceClass maps: the one an earlier cycle
// created, or a new in-memory one; nil when there is none to handle.
func (p *dynamicResources) preFilterExtended(pod *corev1.Pod) (*resourceapi.ResourceClaim, *draExtended, error) {
	classes := p.h.classResolver()
	if classes == nil {
		return nil, nil, nil
	}
	reqs := resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{})
	mapped := false
	for name, q := range reqs {
		if !q.IsZero() && isDRAExtendedResourceName(name) && classes.GetDeviceClass(name) != nil {
			mapped = true
			break
		}
	}
	if !mapped {
		return nil, nil, nil
	}
	ext := &draExtended{requests: resourcesOf(reqs).scalar, nodes: map[string]*extendedNodeClaim{}}
	claim, err := p.h.draClaims.extendedClaimOf(pod)
	if err != nil {
		return nil, nil, fmt.Errorf("listing ResourceClaims: %w", err)
	}
	if claim == nil {
		claim = &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{
			Namespace:    pod.Namespace,
			Name:         extendedClaimInMemName,
			UID:          uuid.NewUUID(),
			GenerateName: pod.Name + "-extended-resources-",
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: pod.UID, Controller: ptr.To(true),
			}},
			Annotations: map[string]string{resourceapi.ExtendedResourceClaimAnnotation: "true"},
		}}
	}
	ext.initialUID = claim.UID
	return claim, ext, nil
}

// extendedClaimOf returns the claim made for a pod's extended resources
// (annotated so and controlled by the pod), as the scheduler last knew it;
// nil when there is none.
func (c *draClaims) extendedClaimOf(pod *corev1.Pod) (*resourceapi.ResourceClaim, error) {
	claims, err := c.lister.ResourceClaims(pod.Namespace).List(labels.Everything())
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, claim := range claims {
		claim = c.latestLocked(claim)
		if claim.Annotations[resourceapi.ExtendedResourceClaimAnnotation] != "true" {
			continue
		}
		for _, ref := range claim.OwnerReferences {
			if ref.Name == pod.Name && ref.UID == pod.UID && ptr.Deref(ref.Controller, false) {
				return claim, nil
			}
		}
	}
	return nil, nil
}

// numUserClaims is how many of the cycle's claims are the pod's own.
func (s *draState) numUserClaims() int {
	if s.ext == nil {
		return len(s.claims)
	}
	return s.ext.index
}

// extendedClaim returns the claim of the pod's extended resources (nil:
// none).
func (s *draState) extendedClaim() *resourceapi.ResourceClaim {
	if s.ext == nil {
		return nil
	}
	return s.claims[s.ext.index]
}

// filterExtended returns the claim of the pod's extended resources for a
// node: with a request for each container's share of the resources the
// node must provide through DRA. It returns nil when there is nothing to
// allocate for them and the pod has no claim of its own, or when the claim
// is allocated; a failure when the claim is left from an earlier cycle
// (PostFilter deletes it) or the pod asks for a resource the node neither
// advertises nor gets through DRA.
func (p *dynamicResources) filterExtended(s *draState, pod *corev1.Pod, n *nodeInfo) (*extendedNodeClaim, *status) {
	claim := s.extendedClaim()
	if claim == nil {
		return nil, nil
	}
	if claim.Spec.Devices.Requests != nil {
		return nil, newStatus(unresolvable, reasonStaleExtendedClaim)
	}
	classes := p.h.classResolver()
	viaDRA := map[corev1.ResourceName]int64{}
	for name, q := range s.ext.requests {
		if !isDRAExtendedResourceName(name) || q == 0 {
			continue
		}
		allocatable, advertised := n.allocatable.scalar[name]
		if classes.GetDeviceClass(name) != nil && allocatable == 0 {
			viaDRA[name] = q
		} else if !advertised {
			return nil, newStatus(unresolvable, reasonCannotFitResource)
		}
	}
	if s.numUserClaims() == 0 && len(viaDRA) == 0 {
		return nil, nil
	}
	if claim.Status.Allocation != nil {
		return nil, nil
	}
	nodeClaim := claim.DeepCopy()
	reqs, mappings := extendedRequests(pod, viaDRA, classes)
	nodeClaim.Spec.Devices.Requests = reqs
	return &extendedNodeClaim{claim: nodeClaim, mappings: mappings}, nil
}

// extendedRequests returns the device requests of the resources (names to
// what the pod asks for) and the mappings of the containers to them, as
// upstream builds them: for each resource, in name order, each long-lived
// container (regular or sidecar) at index i of init containers then
// containers gets "container-<i>-request-<j>", j the resource's position
// among its requests' sorted names, of the count it asks for; a regular
// init container reuses the requests of the long-lived containers that
// run after it as far as they cover what it asks, and asks for the rest,
// all of them under the largest such request. Requests are sorted by name.
func extendedRequests(pod *corev1.Pod, viaDRA map[corev1.ResourceName]int64, classes deviceClassResolver) ([]resourceapi.DeviceRequest, []corev1.ContainerExtendedResourceRequest) {
	containers := slices.Concat(pod.Spec.InitContainers, pod.Spec.Containers)
	var longLived, shortLived []int
	for i, c := range containers {
		if i < len(pod.Spec.InitContainers) && ptr.Deref(c.RestartPolicy, "") != corev1.ContainerRestartPolicyAlways {
			shortLived = append(shortLived, i)
			continue
		}
		longLived = append(longLived, i)
	}
	names := make([]corev1.ResourceName, 0, len(viaDRA))
	for name := range viaDRA {
		names = append(names, name)
	}
	slices.Sort(names)
	var requests []resourceapi.DeviceRequest
	var mappings []corev1.ContainerExtendedResourceRequest
	for _, name := range names {
		class := classes.GetDeviceClass(name)
		if class == nil {
			continue
		}
		var longMappings, shortMappings []corev1.ContainerExtendedResourceRequest
		longRequests := make([]*resourceapi.DeviceRequest, len(containers))
		for _, i := range longLived {
			req, m := containerRequest(i, &containers[i], name, class.Name, nil)
			longRequests[i] = req
			longMappings = append(longMappings, m...)
		}
		var largest *resourceapi.DeviceRequest
		shortNames := sets.New[string]()
		for _, i := range shortLived {
			req, m := containerRequest(i, &containers[i], name, class.Name, longRequests[i:])
			if req != nil {
				shortNames.Insert(req.Name)
				if largest == nil || largest.Exactly.Count < req.Exactly.Count {
					largest = req
				}
			}
			shortMappings = append(shortMappings, m...)
		}
		if largest != nil && shortNames.Len() > 1 {
			shortNames.Delete(largest.Name)
			for i := range shortMappings {
				if shortNames.Has(shortMappings[i].RequestName) {
					shortMappings[i].RequestName = largest.Name
				}
			}
		}
		if largest != nil {
			requests = append(requests, *largest)
		}
		for _, req := range longRequests {
			if req != nil {
				requests = append(requests, *req)
			}
		}
		mappings = append(mappings, longMappings...)
		mappings = append(mappings, shortMappings...)
	}
	slices.SortFunc(requests, func(a, b resourceapi.DeviceRequest) int { return strings.Compare(a.Name, b.Name) })
	return requests, mappings
}

// containerRequest returns the request of the container at index idx
// (init containers then containers) for a resource of a class, after
// those of reusable (nil entries skipped) have served it as far as they
// go (nil when they cover it, or it asks for none), and its mappings.
func containerRequest(idx int, c *corev1.Container, name corev1.ResourceName, class string, reusable []*resourceapi.DeviceRequest) (*resourceapi.DeviceRequest, []corev1.ContainerExtendedResourceRequest) {
	q, ok := c.Resources.Requests[name]
	if !ok {
		return nil, nil
	}
	want, ok := q.AsInt64()
	if !ok || want == 0 {
		return nil, nil
	}
	var mappings []corev1.ContainerExtendedResourceRequest
	var got int64
	for _, r := range reusable {
		if r == nil {
			continue
		}
		got += r.Exactly.Count
		mappings = append(mappings, corev1.ContainerExtendedResourceRequest{ContainerName: c.Name, ResourceName: string(name), RequestName: r.Name})
		if got >= want {
			return nil, mappings
		}
	}
	keys := make([]string, 0, len(c.Resources.Requests))
	for k := range c.Resources.Requests {
		keys = append(keys, string(k))
	}
	slices.Sort(keys)
	pos := max(slices.Index(keys, string(name)), 0)
	req := &resourceapi.DeviceRequest{
		Name: fmt.Sprintf("container-%d-request-%d", idx, pos),
		Exactly: &resourceapi.ExactDeviceRequest{
			DeviceClassName: class,
			AllocationMode:  resourceapi.DeviceAllocationModeExactCount,
			Count:           want - got,
		},
	}
	return req, append(mappings, corev1.ContainerExtendedResourceRequest{ContainerName: c.Name, ResourceName: string(name), RequestName: req.Name})
}

// bindExtendedClaim is PreBind for the claim of the pod's extended
// resources: nothing when it has no allocation to write and no requests
// (the node's device plugins serve the pod); else the claim is created
// when it exists in memory only (then it replaces it in the cycle, for
// Unreserve to delete), gets its allocation and the pod's reservation, and
// the pod's status.extendedResourceClaimStatus records it.
func (p *dynamicResources) bindExtendedClaim(ctx context.Context, client kubernetes.Interface, s *draState, pod *corev1.Pod, node string) (*resourceapi.ResourceClaim, error) {
	claim := s.extendedClaim()
	allocation := s.allocations[s.ext.index]
	if allocation == nil && claim.Spec.Devices.Requests == nil {
		return claim, nil
	}
	nodeClaim := s.ext.nodes[node]
	if claim.Name == extendedClaimInMemName {
		if nodeClaim == nil || nodeClaim.claim == nil {
			return nil, fmt.Errorf("extended resource claim not found for node %s", node)
		}
		want := nodeClaim.claim.DeepCopy()
		want.Status.Allocation, want.Name, want.UID = nil, "", ""
		created, err := client.ResourceV1().ResourceClaims(want.Namespace).Create(ctx, want, metav1.CreateOptions{})
		if err != nil {
			return nil, fmt.Errorf("create claim for extended resources %s/%s: %w", want.Namespace, want.GenerateName, err)
		}
		claim = created
		s.claims[s.ext.index] = created
		p.h.draClaims.mu.Lock()
		p.h.draClaims.assumed[created.UID] = created
		p.h.draClaims.mu.Unlock()
	}
	updated, err := p.bindClaim(ctx, client, claim, allocation, pod)
	if err != nil {
		return nil, err
	}
	var mappings []corev1.ContainerExtendedResourceRequest
	if nodeClaim != nil {
		mappings = nodeClaim.mappings
	}
	if len(mappings) == 0 {
		return nil, fmt.Errorf("nil or empty request mappings, no update of pod %s/%s ExtendedResourceClaimStatus", pod.Namespace, pod.Name)
	}
	st := pod.Status.DeepCopy()
	st.ExtendedResourceClaimStatus = &corev1.PodExtendedResourceClaimStatus{RequestMappings: mappings, ResourceClaimName: updated.Name}
	if err := patchPodStatus(ctx, client, pod, st); err != nil {
		return nil, fmt.Errorf("update pod %s/%s ExtendedResourceClaimStatus: %w", pod.Namespace, pod.Name, err)
	}
	return updated, nil
}

// patchPodStatus patches the pod's status to st with a strategic merge
// patch of what changed (nothing sent when nothing did), retrying
// conflicts, as kube-scheduler's PatchPodStatus.
func patchPodStatus(ctx context.Context, client kubernetes.Interface, pod *corev1.Pod, st *corev1.PodStatus) error {
	oldData, err := json.Marshal(corev1.Pod{Status: pod.Status})
	if err != nil {
		return err
	}
	newData, err := json.Marshal(corev1.Pod{Status: *st})
	if err != nil {
		return err
	}
	patch, err := strategicpatch.CreateTwoWayMergePatch(oldData, newData, &corev1.Pod{})
	if err != nil {
		return fmt.Errorf("failed to create merge patch for pod %q/%q: %w", pod.Namespace, pod.Name, err)
	}
	if string(patch) == "{}" {
		return nil
	}
	return retry.OnError(retry.DefaultBackoff, func(err error) bool {
		return apierrors.IsConflict(err) || apierrors.IsServerTimeout(err) || apierrors.IsTooManyRequests(err)
	}, func() error {
		_, err := client.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status")
		return err
	})
}

// unreserveExtended forgets the allocation in flight of the claim of the
// pod's extended resources and deletes the claim if PreBind created it.
func (p *dynamicResources) unreserveExtended(ctx context.Context, client kubernetes.Interface, s *draState) {
	claim := s.extendedClaim()
	if claim == nil {
		return
	}
	p.h.draClaims.mu.Lock()
	delete(p.h.draClaims.inFlight, s.ext.initialUID)
	p.h.draClaims.mu.Unlock()
	if claim.Name == extendedClaimInMemName {
		return
	}
	if err := deleteClaim(ctx, client, claim); err != nil && p.h.log != nil {
		p.h.log.Warn("scheduler: delete the claim of a pod's extended resources", "claim", claim.Namespace+"/"+claim.Name, "err", err)
	}
}

// deleteClaim deletes a claim the scheduler made, after taking off its
// delete-protection finalizer (with an update even when it has none, as
// upstream's), retrying on conflicts with the claim read again.
func deleteClaim(ctx context.Context, client kubernetes.Interface, claim *resourceapi.ResourceClaim) error {
	claims := client.ResourceV1().ResourceClaims(claim.Namespace)
	if _, err := updateClaimRetrying(ctx, claims, claim, "get resourceclaim %s/%s: %w", func(claim *resourceapi.ResourceClaim) (*resourceapi.ResourceClaim, error) {
		if i := slices.Index(claim.Finalizers, resourceapi.Finalizer); i >= 0 {
			claim.Finalizers = slices.Delete(claim.Finalizers, i, i+1)
		}
		cur, err := claims.Update(ctx, claim, metav1.UpdateOptions{})
		if err != nil {
			return nil, fmt.Errorf("update resourceclaim %s/%s: %w", claim.Namespace, claim.Name, err)
		}
		return cur, nil
	}); err != nil {
		return err
	}
	if err := claims.Delete(ctx, claim.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete resourceclaim %s/%s: %w", claim.Namespace, claim.Name, err)
	}
	return nil
}
