package scheduler

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	resourcehelper "k8s.io/component-helpers/resource"
)

// eventResource is the kind of object a cluster event is about, as
// kube-scheduler names them.
type eventResource string

// The resources of the events the scheduler fires. A pod event is about an
// assigned pod (bound or assumed), or about the pending pod itself (the
// target pod, whose own update may make it schedulable).
const (
	resAssignedPod           eventResource = "AssignedPod"
	resTargetPod             eventResource = "TargetPod"
	resNode                  eventResource = "Node"
	resPersistentVolume      eventResource = "PersistentVolume"
	resPersistentVolumeClaim eventResource = "PersistentVolumeClaim"
	resStorageClass          eventResource = "storage.k8s.io/StorageClass"
	resResourceClaim         eventResource = "resource.k8s.io/ResourceClaim"
	resResourceSlice         eventResource = "resource.k8s.io/ResourceSlice"
	resDeviceClass           eventResource = "resource.k8s.io/DeviceClass"
)

// actionType is what happened to the object, a bit each, as kube-scheduler's
// ActionType: an update is classified by what it changed.
type actionType uint32

// The action types, in kube-scheduler's order.
const (
	actAdd actionType = 1 << iota
	actDelete
	actUpdateNodeAllocatable
	actUpdateNodeLabel
	// actUpdateNodeTaint is also a node that stops being unschedulable.
	actUpdateNodeTaint
	actUpdateNodeCondition
	actUpdateNodeAnnotation
	actUpdateNodeDeclaredFeature
	actUpdateNodePreemptionPolicy
	actUpdatePodLabel
	actUpdatePodScaleDown
	actUpdatePodScaleUp
	actUpdatePodToleration
	actUpdatePodSchedulingGatesEliminated
	actUpdatePodGeneratedResourceClaim

	// actAll is every action.
	actAll actionType = 1<<iota - 1
	// actUpdate is any update: an update that changed nothing a more
	// specific type names.
	actUpdate = actAll &^ (actAdd | actDelete)
)

// actionNames are the action types' names in event labels.
var actionNames = map[actionType]string{
	actAdd: "Add", actDelete: "Delete", actUpdateNodeAllocatable: "UpdateNodeAllocatable",
	actUpdateNodeLabel: "UpdateNodeLabel", actUpdateNodeTaint: "UpdateNodeTaint", actUpdateNodeCondition: "UpdateNodeCondition",
	actUpdateNodeAnnotation: "UpdateNodeAnnotation", actUpdateNodeDeclaredFeature: "UpdateNodeDeclaredFeature",
	actUpdateNodePreemptionPolicy: "UpdateNodePreemptionPolicy", actUpdatePodLabel: "UpdatePodLabel",
	actUpdatePodScaleDown: "UpdatePodScaleDown", actUpdatePodScaleUp: "UpdatePodScaleUp", actUpdatePodToleration: "UpdatePodToleration",
	actUpdatePodSchedulingGatesEliminated: "UpdatePodSchedulingGatesEliminated",
	actUpdatePodGeneratedResourceClaim:    "UpdatePodGeneratedResourceClaim", actAll: "All", actUpdate: "Update",
}

// clusterEvent is a change in the cluster: its resource and action, and the
// object before (nil for an addition) and after it (nil for a deletion).
// The queue asks the queueing hints of the plugins that rejected a pod
// whether the event may make the pod schedulable.
type clusterEvent struct {
	resource       eventResource
	action         actionType
	oldObj, newObj any
	// only, when set, limits the waiting pods the event may move
	// (kube-scheduler's PreEnqueueCheck); pods in flight see it anyway.
	only func(*corev1.Pod) bool
}

// label names the event as kube-scheduler's logs and metrics do, such as
// "AssignedPodAdd" or "NodeUpdateNodeLabel".
func (e clusterEvent) label() string {
	name, ok := actionNames[e.action]
	if !ok {
		name = fmt.Sprintf("%d", e.action)
	}
	return string(e.resource) + name
}

// eventHint is one registration of a plugin (kube-scheduler's
// ClusterEventWithHint): the events that may make a pod it rejected
// schedulable, and the hint that decides for one event and pod whether it
// does (nil: it always may).
type eventHint struct {
	resource eventResource
	actions  actionType
	hint     func(pod *corev1.Pod, e clusterEvent) bool
}

// matches reports whether the registration covers the event: the same
// resource and an action among the registered ones (a general update only
// when all updates are registered).
func (h eventHint) matches(e clusterEvent) bool {
	return h.resource == e.resource && h.actions&e.action != 0 && e.action <= h.actions
}

// queueingHinter is a plugin that says which cluster events may make a pod
// it rejected schedulable (kube-scheduler's EnqueueExtensions).
type queueingHinter interface {
	plugin
	eventsToRegister() []eventHint
}

// podUpdateEvents classifies a pod update as kube-scheduler does: one event
// per kind of change (labels, lower or higher requests, removed scheduling
// gates, more tolerations), or one general update when none of those
// changed. The events are about an assigned pod when the new pod is bound,
// else about the target pod (the updated pending pod itself).
func podUpdateEvents(old, pod *corev1.Pod) []clusterEvent {
	res := resTargetPod
	if pod.Spec.NodeName != "" {
		res = resAssignedPod
	}
	var actions []actionType
	if !equality.Semantic.DeepEqual(pod.Labels, old.Labels) {
		actions = append(actions, actUpdatePodLabel)
	}
	oldReq, newReq := eventRequests(old), eventRequests(pod)
	if scaledDown(oldReq, newReq) {
		actions = append(actions, actUpdatePodScaleDown)
	}
	if scaledDown(newReq, oldReq) {
		actions = append(actions, actUpdatePodScaleUp)
	}
	if len(pod.Spec.SchedulingGates) == 0 && len(old.Spec.SchedulingGates) != 0 {
		actions = append(actions, actUpdatePodSchedulingGatesEliminated)
	}
	if len(pod.Spec.Tolerations) != len(old.Spec.Tolerations) {
		// Tolerations can only be added: a changed count is a new one.
		actions = append(actions, actUpdatePodToleration)
	}
	if !equality.Semantic.DeepEqual(pod.Status.ResourceClaimStatuses, old.Status.ResourceClaimStatuses) ||
		!equality.Semantic.DeepEqual(pod.Status.ExtendedResourceClaimStatus, old.Status.ExtendedResourceClaimStatus) {
		actions = append(actions, actUpdatePodGeneratedResourceClaim)
	}
	if len(actions) == 0 {
		actions = append(actions, actUpdate)
	}
	out := make([]clusterEvent, 0, len(actions))
	for _, a := range actions {
		out = append(out, clusterEvent{resource: res, action: a, oldObj: old, newObj: pod})
	}
	return out
}

// eventRequests are a pod's requests as kube-scheduler compares them for
// scale events: with the resources the kubelet reports in status (in-place
// resize is GA).
func eventRequests(pod *corev1.Pod) corev1.ResourceList {
	return resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{UseStatusResources: true, InPlacePodLevelResourcesVerticalScalingEnabled: true})
}

// scaledDown reports whether a resource in from is gone or lower in to.
func scaledDown(from, to corev1.ResourceList) bool {
	for name, q := range from {
		n, ok := to[name]
		if !ok || q.MilliValue() > n.MilliValue() {
			return true
		}
	}
	return false
}

// nodeUpdateEvents classifies a node update as kube-scheduler does, one
// event per kind of change; an update that changes none of them (a
// heartbeat) is no event. A node that stops being unschedulable counts as
// a taint change; one that becomes unschedulable is no event.
func nodeUpdateEvents(old, node *corev1.Node) []clusterEvent {
	var actions []actionType
	if node.Spec.Unschedulable != old.Spec.Unschedulable && !node.Spec.Unschedulable {
		actions = append(actions, actUpdateNodeTaint)
	}
	if !equality.Semantic.DeepEqual(old.Status.Allocatable, node.Status.Allocatable) {
		actions = append(actions, actUpdateNodeAllocatable)
	}
	if !equality.Semantic.DeepEqual(old.Labels, node.Labels) {
		actions = append(actions, actUpdateNodeLabel)
	}
	if !equality.Semantic.DeepEqual(old.Spec.Taints, node.Spec.Taints) {
		actions = append(actions, actUpdateNodeTaint)
	}
	if !equality.Semantic.DeepEqual(conditionStatuses(old), conditionStatuses(node)) {
		actions = append(actions, actUpdateNodeCondition)
	}
	if !equality.Semantic.DeepEqual(old.Annotations, node.Annotations) {
		actions = append(actions, actUpdateNodeAnnotation)
	}
	if !equality.Semantic.DeepEqual(old.Spec.PodPreemptionPolicy, node.Spec.PodPreemptionPolicy) {
		actions = append(actions, actUpdateNodePreemptionPolicy)
	}
	if !slices.Equal(old.Status.DeclaredFeatures, node.Status.DeclaredFeatures) {
		actions = append(actions, actUpdateNodeDeclaredFeature)
	}
	out := make([]clusterEvent, 0, len(actions))
	for _, a := range actions {
		out = append(out, clusterEvent{resource: resNode, action: a, oldObj: old, newObj: node})
	}
	return out
}

// conditionStatuses maps a node's condition types to their statuses (a
// change of a heartbeat time alone is no condition change).
func conditionStatuses(n *corev1.Node) map[corev1.NodeConditionType]corev1.ConditionStatus {
	out := make(map[corev1.NodeConditionType]corev1.ConditionStatus, len(n.Status.Conditions))
	for _, c := range n.Status.Conditions {
		out[c.Type] = c.Status
	}
	return out
}

// eventPods returns an event's old and new objects as pods (nil where the
// event has none, or another kind of object).
func eventPods(e clusterEvent) (old, pod *corev1.Pod) {
	old, _ = e.oldObj.(*corev1.Pod)
	pod, _ = e.newObj.(*corev1.Pod)
	return old, pod
}

// eventNodes returns an event's old and new objects as nodes.
func eventNodes(e clusterEvent) (old, node *corev1.Node) {
	old, _ = e.oldObj.(*corev1.Node)
	node, _ = e.newObj.(*corev1.Node)
	return old, node
}

// placed reports whether a pod is on a node or nominated to one: only
// such pods count for the plugins that look at other pods.
func placed(p *corev1.Pod) bool {
	return p.Spec.NodeName != "" || p.Status.NominatedNodeName != ""
}
