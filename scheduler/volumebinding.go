package scheduler

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
)

// kube-scheduler's VolumeBinding reasons.
const (
	errReasonUnboundImmediate = "pod has unbound immediate PersistentVolumeClaims"
	errReasonVolumeNode       = "node(s) didn't match PersistentVolume's node affinity"
	errReasonPVNotExist       = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"
	// annBindCompleted marks a claim the volume controller finished
	// binding.
	annBindCompleted = "pv.kubernetes.io/bind-completed"
)

// volumeStateKey is where PreFilter keeps the names of the volumes the
// pod's bound claims are bound to.
const volumeStateKey = "PreFilter" + VolumeBinding

// volumeBinding checks, before any node is looked at, the pod's
// PersistentVolumeClaims (and generic ephemeral volumes' claims) as
// kube-scheduler's VolumeBinding PreFilter does: each must exist, not be
// lost nor being deleted, and a claim whose class binds immediately must be
// bound already (with the volume controller's bind-completed annotation);
// then Filter keeps the nodes the bound volumes' node affinity allows.
// Claims whose class waits for the first consumer are let through unbound:
// no volume is found or provisioned for them.
type volumeBinding struct{ h *handle }

func (*volumeBinding) Name() string { return VolumeBinding }

// PreFilter implements preFilterPlugin.
func (p *volumeBinding) PreFilter(state *cycleState, pod *corev1.Pod) *status {
	if p.h == nil || p.h.claims == nil {
		return nil
	}
	unboundImmediate := false
	var bound []string
	for i := range pod.Spec.Volumes {
		vol := &pod.Spec.Volumes[i]
		var claimName string
		ephemeral := false
		switch {
		case vol.PersistentVolumeClaim != nil:
			claimName = vol.PersistentVolumeClaim.ClaimName
		case vol.Ephemeral != nil:
			claimName, ephemeral = pod.Name+"-"+vol.Name, true
		default:
			continue
		}
		claim, err := p.h.claims.PersistentVolumeClaims(pod.Namespace).Get(claimName)
		if err != nil {
			if ephemeral && apierrors.IsNotFound(err) {
				return newStatus(unresolvable, fmt.Sprintf("waiting for ephemeral volume controller to create the persistentvolumeclaim %q", claimName))
			}
			return newStatus(unresolvable, err.Error())
		}
		if claim.Status.Phase == corev1.ClaimLost {
			return newStatus(unresolvable, fmt.Sprintf("persistentvolumeclaim %q bound to non-existent persistentvolume %q", claim.Name, claim.Spec.VolumeName))
		}
		if claim.DeletionTimestamp != nil {
			return newStatus(unresolvable, fmt.Sprintf("persistentvolumeclaim %q is being deleted", claim.Name))
		}
		if ephemeral && !ownedBy(claim.OwnerReferences, pod) {
			return newStatus(unresolvable, fmt.Sprintf("PVC %s/%s was not created for pod %s/%s (pod is not owner)", claim.Namespace, claim.Name, pod.Namespace, pod.Name))
		}
		switch _, done := claim.Annotations[annBindCompleted]; {
		case claim.Spec.VolumeName != "" && done:
			bound = append(bound, claim.Spec.VolumeName)
		case !p.waitsForFirstConsumer(claim):
			unboundImmediate = true
		}
	}
	if unboundImmediate {
		return newStatus(unresolvable, errReasonUnboundImmediate)
	}
	state.data[volumeStateKey] = bound
	return nil
}

// Filter keeps the nodes the bound volumes' node affinity allows.
func (p *volumeBinding) Filter(state *cycleState, _ *corev1.Pod, n *nodeInfo) *status {
	bound, _ := state.data[volumeStateKey].([]string)
	for _, name := range bound {
		if p.h.volumes == nil {
			return nil
		}
		pv, err := p.h.volumes.Get(name)
		if err != nil {
			return newStatus(unresolvable, errReasonPVNotExist)
		}
		if pv.Spec.NodeAffinity == nil || pv.Spec.NodeAffinity.Required == nil {
			continue
		}
		sel, err := nodeaffinity.NewNodeSelector(pv.Spec.NodeAffinity.Required)
		if err != nil || !sel.Match(n.node) {
			return newStatus(unresolvable, errReasonVolumeNode)
		}
	}
	return nil
}

// waitsForFirstConsumer reports a claim whose StorageClass binds when a
// pod uses it.
func (p *volumeBinding) waitsForFirstConsumer(claim *corev1.PersistentVolumeClaim) bool {
	class := ""
	if claim.Spec.StorageClassName != nil {
		class = *claim.Spec.StorageClassName
	} else if c, ok := claim.Annotations[corev1.BetaStorageClassAnnotation]; ok {
		class = c
	}
	if class == "" || p.h.storageClasses == nil {
		return false
	}
	sc, err := p.h.storageClasses.Get(class)
	return err == nil && sc.VolumeBindingMode != nil && *sc.VolumeBindingMode == storagev1.VolumeBindingWaitForFirstConsumer
}

// ownedBy reports whether refs hold the pod as controller.
func ownedBy(refs []metav1.OwnerReference, pod *corev1.Pod) bool {
	for _, r := range refs {
		if r.UID == pod.UID && r.Controller != nil && *r.Controller {
			return true
		}
	}
	return false
}

// eventsToRegister implements queueingHinter with kube-scheduler's
// VolumeBinding registrations for the objects this scheduler watches: a
// StorageClass that comes or changes allowed topologies, a claim of the pod
// that comes or changes, any PersistentVolume that comes or changes, and a
// node that comes or changes labels. Upstream's CSINode, CSIDriver and
// CSIStorageCapacity registrations are left out: this scheduler does not
// watch those objects (simulated nodes have no CSI drivers).
func (p *volumeBinding) eventsToRegister() []eventHint {
	return []eventHint{
		{resource: resStorageClass, actions: actAdd | actUpdate, hint: afterStorageClassChange},
		{resource: resPersistentVolumeClaim, actions: actAdd | actUpdate, hint: afterClaimChange},
		{resource: resPersistentVolume, actions: actAdd | actUpdate},
		{resource: resNode, actions: actAdd | actUpdateNodeLabel},
	}
}

// afterStorageClassChange: a new class, or one whose allowed topologies
// changed (the binding mode is immutable).
func afterStorageClassChange(_ *corev1.Pod, e clusterEvent) bool {
	old, _ := e.oldObj.(*storagev1.StorageClass)
	cur, _ := e.newObj.(*storagev1.StorageClass)
	if old == nil || cur == nil {
		return true
	}
	return !equality.Semantic.DeepEqual(old.AllowedTopologies, cur.AllowedTopologies)
}

// afterClaimChange: a claim of the pod (or of one of its generic ephemeral
// volumes) that comes or changes.
func afterClaimChange(pod *corev1.Pod, e clusterEvent) bool {
	claim, _ := e.newObj.(*corev1.PersistentVolumeClaim)
	if claim == nil {
		return true
	}
	if claim.Namespace != pod.Namespace {
		return false
	}
	for _, vol := range pod.Spec.Volumes {
		switch {
		case vol.PersistentVolumeClaim != nil && vol.PersistentVolumeClaim.ClaimName == claim.Name:
			return true
		case vol.Ephemeral != nil && pod.Name+"-"+vol.Name == claim.Name:
			return true
		}
	}
	return false
}
