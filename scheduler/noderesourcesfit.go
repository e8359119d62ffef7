package scheduler

import (
	"fmt"
	"math"
	"slices"

	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	resourcehelper "k8s.io/component-helpers/resource"
	configv1 "k8s.io/kube-scheduler/config/v1"
	"k8s.io/utils/ptr"
)

// errReasonTooManyPods is kube-scheduler's reason for a node at its pod
// capacity.
const errReasonTooManyPods = "Too many pods"

// maxCustomPriorityScore is the top of a RequestedToCapacityRatio shape's
// score scale.
const maxCustomPriorityScore = 10

// nodeResourcesFit rejects nodes whose allocatable minus the requests of
// the pods on them cannot hold the pod's requests (pod-level resources when
// set), or that hold their pod capacity already, leaving to DRA the
// extended resources a DeviceClass backs on nodes that do not advertise
// them; and scores nodes by the profile's scoring strategy (the
// NodeResourcesFit plugin).
type nodeResourcesFit struct {
	strategy  configv1.ScoringStrategyType
	resources []configv1.ResourceSpec
	shape     []configv1.UtilizationShapePoint
	// h gives the DeviceClasses of extended resources (nil in unit tests).
	h *handle
}

func newNodeResourcesFit(args *configv1.NodeResourcesFitArgs, h *handle) *nodeResourcesFit {
	p := &nodeResourcesFit{strategy: args.ScoringStrategy.Type, resources: args.ScoringStrategy.Resources, h: h}
	if r := args.ScoringStrategy.RequestedToCapacityRatio; r != nil {
		p.shape = r.Shape
	}
	return p
}

func (*nodeResourcesFit) Name() string { return NodeResourcesFit }

// podInfoKey is where PreFilter keeps the pod's requests.
const podInfoKey = "podInfo"

// cyclePodInfo returns the pod's requests, computed once per cycle.
func cyclePodInfo(state *cycleState, pod *corev1.Pod) *podInfo {
	if pi, ok := state.data[podInfoKey].(*podInfo); ok && pi.pod == pod {
		return pi
	}
	pi := newPodInfo(pod)
	state.data[podInfoKey] = pi
	return pi
}

// insufficient lists the reasons a node cannot hold the pod, in
// kube-scheduler's order: pods, cpu, memory, ephemeral-storage, then other
// resources (but those classes map to a DeviceClass and the node does not
// advertise: DynamicResources checks them); unresolvable is set when the
// pod asks for more of a resource than the node has at all (preemption
// cannot help).
func insufficient(req resources, n *nodeInfo, classes deviceClassResolver) (reasons []string, unresolvable bool) {
	if int64(len(n.pods))+1 > n.allowedPods {
		reasons = append(reasons, errReasonTooManyPods)
	}
	if req.milliCPU > 0 && req.milliCPU > n.allocatable.milliCPU-n.requested.milliCPU {
		reasons = append(reasons, "Insufficient cpu")
		unresolvable = unresolvable || req.milliCPU > n.allocatable.milliCPU
	}
	if req.memory > 0 && req.memory > n.allocatable.memory-n.requested.memory {
		reasons = append(reasons, "Insufficient memory")
		unresolvable = unresolvable || req.memory > n.allocatable.memory
	}
	if req.ephemeralStorage > 0 && req.ephemeralStorage > n.allocatable.ephemeralStorage-n.requested.ephemeralStorage {
		reasons = append(reasons, "Insufficient ephemeral-storage")
		unresolvable = unresolvable || req.ephemeralStorage > n.allocatable.ephemeralStorage
	}
	names := make([]corev1.ResourceName, 0, len(req.scalar))
	for name := range req.scalar {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		q := req.scalar[name]
		if q > 0 && delegatedToDRA(name, n, classes) {
			continue
		}
		if q > 0 && q > n.allocatable.scalar[name]-n.requested.scalar[name] {
			reasons = append(reasons, fmt.Sprintf("Insufficient %v", name))
			unresolvable = unresolvable || q > n.allocatable.scalar[name]
		}
	}
	return reasons, unresolvable
}

// Filter implements filterPlugin.
func (p *nodeResourcesFit) Filter(state *cycleState, pod *corev1.Pod, n *nodeInfo) *status {
	reasons, unresolvableReq := insufficient(cyclePodInfo(state, pod).requests, n, p.h.classResolver())
	if len(reasons) == 0 {
		return nil
	}
	if unresolvableReq {
		return newStatus(unresolvable, reasons...)
	}
	return newStatus(unschedulable, reasons...)
}

// allocation returns, per scored resource, what the node would have
// requested with the pod and what it has allocatable (0: not scored), with
// the non-zero requests for cpu and memory unless useRequested.
func allocation(specs []configv1.ResourceSpec, pi *podInfo, n *nodeInfo, useRequested bool) (withPod, without, alloc []int64) {
	withPod = make([]int64, len(specs))
	without = make([]int64, len(specs))
	alloc = make([]int64, len(specs))
	nodeReq, podReq := n.nonZero, pi.nonZero
	if useRequested {
		nodeReq, podReq = n.requested, pi.requests
	}
	for i, s := range specs {
		name := corev1.ResourceName(s.Name)
		var a, used, req int64
		switch name {
		case corev1.ResourceCPU:
			a, used, req = n.allocatable.milliCPU, nodeReq.milliCPU, podReq.milliCPU
		case corev1.ResourceMemory:
			a, used, req = n.allocatable.memory, nodeReq.memory, podReq.memory
		case corev1.ResourceEphemeralStorage:
			a, used, req = n.allocatable.ephemeralStorage, n.requested.ephemeralStorage, pi.requests.ephemeralStorage
		default:
			req = pi.requests.scalar[name]
			if req == 0 && isScalarResource(name) {
				continue
			}
			a, used = n.allocatable.scalar[name], n.requested.scalar[name]
		}
		if a == 0 {
			continue
		}
		alloc[i], without[i], withPod[i] = a, used, used+req
	}
	return withPod, without, alloc
}

// Score implements scorePlugin with the configured strategy.
func (p *nodeResourcesFit) Score(state *cycleState, pod *corev1.Pod, n *nodeInfo) int64 {
	requested, _, alloc := allocation(p.resources, cyclePodInfo(state, pod), n, false)
	var score, weights int64
	for i := range requested {
		if alloc[i] == 0 {
			continue
		}
		w := int64(p.resources[i].Weight)
		var s int64
		switch p.strategy {
		case configv1.MostAllocated:
			r := min(requested[i], alloc[i])
			s = r * maxNodeScore / alloc[i]
		case configv1.RequestedToCapacityRatio:
			u := int64(100)
			if requested[i] <= alloc[i] {
				u = requested[i] * 100 / alloc[i]
			}
			s = p.shapeScore(u)
			if s <= 0 {
				continue
			}
		default: // LeastAllocated
			if requested[i] <= alloc[i] {
				s = (alloc[i] - requested[i]) * maxNodeScore / alloc[i]
			}
		}
		score += s * w
		weights += w
	}
	if weights == 0 {
		return 0
	}
	if p.strategy == configv1.RequestedToCapacityRatio {
		return int64(math.Round(float64(score) / float64(weights)))
	}
	return score / weights
}

// shapeScore is the RequestedToCapacityRatio broken-linear function at
// utilization u, on the 0-100 scale.
func (p *nodeResourcesFit) shapeScore(u int64) int64 {
	scale := maxNodeScore / maxCustomPriorityScore
	for i, pt := range p.shape {
		if u <= int64(pt.Utilization) {
			if i == 0 {
				return int64(pt.Score) * scale
			}
			prev := p.shape[i-1]
			ps, cs := int64(prev.Score)*scale, int64(pt.Score)*scale
			return ps + (cs-ps)*(u-int64(prev.Utilization))/int64(pt.Utilization-prev.Utilization)
		}
	}
	return int64(p.shape[len(p.shape)-1].Score) * scale
}

// eventsToRegister implements queueingHinter: an assigned pod that goes or
// is scaled down, the pod's own scale-down (in-place resize is GA), a node
// that comes or changes allocatable, and a DeviceClass that comes or
// changes its extended resource name (kube-scheduler's NodeResourcesFit
// registrations; those for deferred resizes are left out, as this
// scheduler has none).
func (p *nodeResourcesFit) eventsToRegister() []eventHint {
	return []eventHint{
		{resource: resAssignedPod, actions: actDelete, hint: afterAssignedPodDelete},
		{resource: resNode, actions: actAdd | actUpdateNodeAllocatable, hint: p.afterNodeChange},
		{resource: resDeviceClass, actions: actAdd | actUpdate, hint: afterDeviceClassChange},
		{resource: resAssignedPod, actions: actUpdatePodScaleDown, hint: p.afterAssignedPodScaleDown},
		{resource: resTargetPod, actions: actUpdatePodScaleDown},
	}
}

// afterAssignedPodDelete: any placed pod that goes may free room.
func afterAssignedPodDelete(_ *corev1.Pod, e clusterEvent) bool {
	old, _ := eventPods(e)
	return old == nil || placed(old)
}

// afterAssignedPodScaleDown: a bound pod whose requests went down for a
// resource the pod asks for.
func (p *nodeResourcesFit) afterAssignedPodScaleDown(pod *corev1.Pod, e clusterEvent) bool {
	old, cur := eventPods(e)
	if old == nil || cur == nil {
		return true
	}
	if cur.Spec.NodeName == "" {
		return false
	}
	was, now := resourcesOf(eventRequests(old)), resourcesOf(eventRequests(cur))
	return moreOfWhatIsAsked(resourcesOf(eventRequests(pod)), was, now)
}

// moreOfWhatIsAsked reports whether more holds more than less of a
// resource that want asks for.
func moreOfWhatIsAsked(want, more, less resources) bool {
	if (want.milliCPU > 0 && more.milliCPU > less.milliCPU) || (want.memory > 0 && more.memory > less.memory) ||
		(want.ephemeralStorage > 0 && more.ephemeralStorage > less.ephemeralStorage) {
		return true
	}
	for name, q := range want.scalar {
		if q > 0 && more.scalar[name] > less.scalar[name] {
			return true
		}
	}
	return false
}

// afterNodeChange: a node the pod fits when empty, new, or with more of a
// resource the pod asks for (or room for more pods) than before.
func (p *nodeResourcesFit) afterNodeChange(pod *corev1.Pod, e clusterEvent) bool {
	old, cur := eventNodes(e)
	if cur == nil {
		return true
	}
	req := newPodInfo(pod).requests
	empty := &nodeInfo{}
	empty.setNode(cur)
	classes := p.h.classResolver()
	if reasons, _ := insufficient(req, empty, classes); len(reasons) > 0 {
		return false
	}
	if old == nil {
		return true
	}
	before := &nodeInfo{}
	before.setNode(old)
	if empty.allowedPods > before.allowedPods {
		return true
	}
	if moreOfWhatIsAsked(req, empty.allocatable, before.allocatable) {
		return true
	}
	// A resource DRA may provide on the node: DynamicResources decides.
	for name, q := range req.scalar {
		if q > 0 && delegatedToDRA(name, empty, classes) {
			return true
		}
	}
	return false
}

// afterDeviceClassChange: a DeviceClass that comes backing (implicitly or
// by its extendedResourceName) a resource the pod asks for, or that
// changes its extendedResourceName to one.
func afterDeviceClassChange(pod *corev1.Pod, e clusterEvent) bool {
	old, _ := e.oldObj.(*resourceapi.DeviceClass)
	cur, _ := e.newObj.(*resourceapi.DeviceClass)
	if cur == nil {
		return true
	}
	var reqs corev1.ResourceList
	if old != nil {
		if ptr.Deref(old.Spec.ExtendedResourceName, "") == ptr.Deref(cur.Spec.ExtendedResourceName, "") {
			return false
		}
	} else {
		reqs = resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{})
		if _, ok := reqs[corev1.ResourceName(resourceapi.ResourceDeviceClassPrefix+cur.Name)]; ok {
			return true
		}
	}
	if cur.Spec.ExtendedResourceName == nil {
		return false
	}
	if reqs == nil {
		reqs = resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{})
	}
	_, ok := reqs[corev1.ResourceName(*cur.Spec.ExtendedResourceName)]
	return ok
}
