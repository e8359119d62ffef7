package controllers

import (
	"context"
	"fmt"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// podKind is the kind a claim's owner reference to a pod names.
var podKind = corev1.SchemeGroupVersion.WithKind("Pod")

// This file is the StatefulSet controller's half of the claim retention
// policy (spec.persistentVolumeClaimRetentionPolicy), as upstream's: the
// owner references it keeps on the claims of each pod, for the garbage
// collector to delete them with the set (whenDeleted: Delete) or with
// their pod once it is scaled away (whenScaled: Delete).

// claimRetention is the set's retention policy, Retain for what it leaves
// unset.
func claimRetention(set *appsv1.StatefulSet) (whenScaled, whenDeleted appsv1.PersistentVolumeClaimRetentionPolicyType) {
	whenScaled, whenDeleted = appsv1.RetainPersistentVolumeClaimRetentionPolicyType, appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	if p := set.Spec.PersistentVolumeClaimRetentionPolicy; p != nil {
		whenScaled, whenDeleted = p.WhenScaled, p.WhenDeleted
	}
	return whenScaled, whenDeleted
}

// refersTo reports whether ref names obj (kind and name, whatever UID).
func refersTo(ref *metav1.OwnerReference, obj metav1.Object, gvk schema.GroupVersionKind) bool {
	return ref.APIVersion == gvk.GroupVersion().String() && ref.Kind == gvk.Kind && ref.Name == obj.GetName()
}

// claimOwnedBy reports whether claim has an owner reference with owner's UID.
func claimOwnedBy(claim, owner metav1.Object) bool {
	for _, ref := range claim.GetOwnerReferences() {
		if ref.UID == owner.GetUID() {
			return true
		}
	}
	return false
}

// staleOwnerRef reports whether claim refers to obj by kind and name with
// another UID: an earlier set or pod of that name.
func staleOwnerRef(claim metav1.Object, obj metav1.Object, gvk schema.GroupVersionKind) bool {
	for _, ref := range claim.GetOwnerReferences() {
		if refersTo(&ref, obj, gvk) {
			return ref.UID != obj.GetUID()
		}
	}
	return false
}

// unexpectedController reports whether, under a policy that deletes,
// claim has a controller other than the set and its pod (or refers to
// either with another UID).
func unexpectedController(claim *corev1.PersistentVolumeClaim, set *appsv1.StatefulSet, pod *corev1.Pod) bool {
	whenScaled, whenDeleted := claimRetention(set)
	if whenScaled == appsv1.RetainPersistentVolumeClaimRetentionPolicyType && whenDeleted == appsv1.RetainPersistentVolumeClaimRetentionPolicyType {
		return false
	}
	for _, ref := range claim.OwnerReferences {
		switch {
		case refersTo(&ref, set, statefulSetKind):
			if ref.UID != set.UID {
				return true
			}
		case refersTo(&ref, pod, podKind):
			if ref.UID != pod.UID {
				return true
			}
		case ref.Controller != nil && *ref.Controller:
			return true
		}
	}
	return false
}

// nonControllerOwner reports whether the set or the pod owns claim
// without being its controller.
func nonControllerOwner(claim *corev1.PersistentVolumeClaim, set *appsv1.StatefulSet, pod *corev1.Pod) bool {
	for _, ref := range claim.OwnerReferences {
		if (ref.UID == set.UID || ref.UID == pod.UID) && (ref.Controller == nil || !*ref.Controller) {
			return true
		}
	}
	return false
}

// claimOwnersUpToDate reports whether claim's owner references are what
// the set's policy wants for pod: the set's while the pod is in the
// set's ordinals (whenDeleted: Delete), the pod's once it is not
// (whenScaled: Delete), none under Retain. A claim that refers to an
// earlier set or pod, or has another controller and neither reference,
// is left as it is.
func claimOwnersUpToDate(claim *corev1.PersistentVolumeClaim, set *appsv1.StatefulSet, pod *corev1.Pod, scaledDown bool) bool {
	if staleOwnerRef(claim, set, statefulSetKind) || staleOwnerRef(claim, pod, podKind) {
		return true
	}
	if unexpectedController(claim, set, pod) {
		return !claimOwnedBy(claim, set) && !claimOwnedBy(claim, pod)
	}
	if nonControllerOwner(claim, set, pod) {
		return false
	}
	wantSet, wantPod := claimOwnersWanted(set, scaledDown)
	return claimOwnedBy(claim, set) == wantSet && claimOwnedBy(claim, pod) == wantPod
}

// claimOwnersWanted is whether the policy wants the set, and the pod, to
// own a claim of a pod scaled away or not.
func claimOwnersWanted(set *appsv1.StatefulSet, scaledDown bool) (wantSet, wantPod bool) {
	whenScaled, whenDeleted := claimRetention(set)
	del := appsv1.DeletePersistentVolumeClaimRetentionPolicyType
	switch {
	case whenScaled == del && whenDeleted == del:
		return !scaledDown, scaledDown
	case whenScaled == del:
		return false, scaledDown
	case whenDeleted == del:
		return true, false
	}
	return false, false
}

// setClaimOwners rewrites claim's references to the set and the pod as
// the policy wants them (only removing them when the claim has another
// controller).
func setClaimOwners(claim *corev1.PersistentVolumeClaim, set *appsv1.StatefulSet, pod *corev1.Pod, scaledDown bool) {
	unexpected := unexpectedController(claim, set, pod)
	refs := []metav1.OwnerReference{}
	for _, ref := range claim.OwnerReferences {
		if !refersTo(&ref, set, statefulSetKind) && !refersTo(&ref, pod, podKind) {
			refs = append(refs, ref)
		}
	}
	if !unexpected {
		wantSet, wantPod := claimOwnersWanted(set, scaledDown)
		if wantPod {
			refs = append(refs, *metav1.NewControllerRef(pod, podKind))
		}
		if wantSet {
			refs = append(refs, *metav1.NewControllerRef(set, statefulSetKind))
		}
	}
	claim.OwnerReferences = refs
}

// statefulPodName is the name of the set's pod of ordinal ord.
func statefulPodName(set *appsv1.StatefulSet, ord int) string {
	return set.Name + "-" + strconv.Itoa(ord)
}

// statefulClaimName is the name of the claim of the set's pod of ordinal
// ord from the claim template named template.
func statefulClaimName(set *appsv1.StatefulSet, template string, ord int) string {
	return fmt.Sprintf("%s-%s-%d", template, set.Name, ord)
}

// statefulClaimNames are the names of the claims of the set's pod of
// ordinal ord, one per claim template.
func statefulClaimNames(set *appsv1.StatefulSet, ord int) []string {
	names := make([]string, 0, len(set.Spec.VolumeClaimTemplates))
	for _, t := range set.Spec.VolumeClaimTemplates {
		names = append(names, statefulClaimName(set, t.Name, ord))
	}
	return names
}

// statefulOrdinals are the set's replicas' ordinals: start to end,
// end excluded.
func statefulOrdinals(set *appsv1.StatefulSet) (start, end int) {
	if set.Spec.Ordinals != nil {
		start = int(set.Spec.Ordinals.Start)
	}
	return start, start + int(statefulReplicas(set))
}

// statefulScaledDown reports whether ordinal ord is outside the set's
// ordinals.
func statefulScaledDown(set *appsv1.StatefulSet, ord int) bool {
	start, end := statefulOrdinals(set)
	return ord < start || ord >= end
}

// claimsMatchRetention reports whether the claims of pod (of ordinal ord)
// that exist have the owner references the set's policy wants.
func (c *StatefulSet) claimsMatchRetention(set *appsv1.StatefulSet, pod *corev1.Pod, ord int) bool {
	for _, name := range statefulClaimNames(set, ord) {
		if claim := c.claims[set.Namespace+"/"+name]; claim != nil && !claimOwnersUpToDate(claim, set, pod, statefulScaledDown(set, ord)) {
			return false
		}
	}
	return true
}

// updateClaimsForRetention gives the claims of pod (of ordinal ord) the
// owner references the set's policy wants, warning of a claim another
// controller owns (ConflictingController), as upstream's
// UpdatePodClaimForRetentionPolicy.
func (c *StatefulSet) updateClaimsForRetention(ctx context.Context, set *appsv1.StatefulSet, pod *corev1.Pod, ord int) error {
	scaledDown := statefulScaledDown(set, ord)
	for _, name := range statefulClaimNames(set, ord) {
		claim := c.claims[set.Namespace+"/"+name]
		if claim == nil {
			continue
		}
		if unexpectedController(claim, set, pod) {
			c.rec.Eventf(ctx, EventRef("apps/v1", "StatefulSet", set), corev1.EventTypeWarning, "ConflictingController",
				"PersistentVolumeClaim %s has a conflicting OwnerReference that acts as a manging controller, the retention policy is ignored for this claim", name)
		}
		if claimOwnersUpToDate(claim, set, pod, scaledDown) {
			continue
		}
		got, err := c.reg.Update(ctx, pvcsGVR, set.Namespace, name, func(cur runtime.Object) (runtime.Object, error) {
			pvc := cur.(*corev1.PersistentVolumeClaim)
			setClaimOwners(pvc, set, pod, scaledDown)
			return pvc, nil
		})
		if err != nil {
			return fmt.Errorf("could not update claim %s for delete policy ownerRefs: %w", name, err)
		}
		c.claims[set.Namespace+"/"+name] = got.(*corev1.PersistentVolumeClaim)
	}
	return nil
}

// podClaimIsStale reports whether, under whenScaled: Delete, a claim of
// the pod to create (of ordinal ord) still belongs to an earlier pod of
// its name: the pod waits until the garbage collector has deleted it.
func (c *StatefulSet) podClaimIsStale(set *appsv1.StatefulSet, ord int) bool {
	if whenScaled, _ := claimRetention(set); whenScaled == appsv1.RetainPersistentVolumeClaimRetentionPolicyType {
		return false
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: statefulPodName(set, ord)}} // not created yet: no UID
	for _, name := range statefulClaimNames(set, ord) {
		if claim := c.claims[set.Namespace+"/"+name]; claim != nil && staleOwnerRef(claim, pod, podKind) {
			return true
		}
	}
	return false
}
