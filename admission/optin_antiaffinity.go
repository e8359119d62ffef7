package admission

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	k8sadmission "k8s.io/apiserver/pkg/admission"
)

// LimitPodHardAntiAffinityTopologyPluginName is the name of upstream's
// LimitPodHardAntiAffinityTopology plugin.
const LimitPodHardAntiAffinityTopologyPluginName = "LimitPodHardAntiAffinityTopology"

// LimitPodHardAntiAffinityTopologyValidate is upstream's
// LimitPodHardAntiAffinityTopology plugin (validating only): on a Create or
// Update of a pod (the pods resource itself, no subresource) it refuses a
// requiredDuringSchedulingIgnoredDuringExecution pod anti-affinity term
// whose topologyKey is not kubernetes.io/hostname, with upstream's 403
// Forbidden `pods "name" is forbidden: affinity.PodAntiAffinity.
// RequiredDuringScheduling has TopologyKey zone but only key
// kubernetes.io/hostname is allowed` (the name is the pod's metadata.name,
// empty for a generateName create, as upstream's). It checks the
// operation, resource and subresource itself; an object that is not a
// *corev1.Pod is upstream's 400 BadRequest.
func LimitPodHardAntiAffinityTopologyValidate(a k8sadmission.Attributes) error {
	if !optinHandles(a.GetOperation(), k8sadmission.Create, k8sadmission.Update) || !optinPodProper(a) {
		return nil
	}
	pod := optinPod(a.GetObject())
	if pod == nil {
		return apierrors.NewBadRequest("Resource was marked with kind Pod but was unable to be converted")
	}
	aff := pod.Spec.Affinity
	if aff == nil || aff.PodAntiAffinity == nil {
		return nil
	}
	for _, term := range aff.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
		if term.TopologyKey != corev1.LabelHostname {
			return apierrors.NewForbidden(a.GetResource().GroupResource(), pod.Name,
				fmt.Errorf("affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey %v but only key %v is allowed", term.TopologyKey, corev1.LabelHostname))
		}
	}
	return nil
}
