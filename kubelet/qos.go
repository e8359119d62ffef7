package kubelet

import (
	corev1 "k8s.io/api/core/v1"
	resourcehelper "k8s.io/component-helpers/resource"
)

// podQOSClass is the QoS class a kubelet reports for pod: the one the API
// server stored at create, else the class computed from the pod's
// (defaulted) resources as kube-apiserver and the kubelet compute it.
func podQOSClass(pod *corev1.Pod) corev1.PodQOSClass {
	if pod.Status.QOSClass != "" {
		return pod.Status.QOSClass
	}
	return computeQOSClass(pod)
}

// computeQOSClass classifies a defaulted pod: by its pod-level resources
// when they set a resource that pods may set (cpu, memory, hugepages), else by every init and regular container's
// requirements (Guaranteed when all are, BestEffort when none set any,
// Burstable otherwise).
func computeQOSClass(pod *corev1.Pod) corev1.PodQOSClass {
	if resourcehelper.IsPodLevelResourcesSet(pod) {
		return requirementsQOSClass(pod.Spec.Resources)
	}
	var qos corev1.PodQOSClass
	for _, list := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range list {
			c := requirementsQOSClass(&list[i].Resources)
			switch {
			case c == corev1.PodQOSBurstable:
				return c
			case qos == "":
				qos = c
			case qos != c:
				return corev1.PodQOSBurstable
			}
		}
	}
	if qos == "" {
		return corev1.PodQOSBestEffort
	}
	return qos
}

// requirementsQOSClass classifies one set of requirements by the shape of
// cpu and memory: BestEffort when both are unset, Guaranteed when both
// have equal non-zero requests and limits, Burstable otherwise.
func requirementsQOSClass(r *corev1.ResourceRequirements) corev1.PodQOSClass {
	if len(r.Requests) == 0 && len(r.Limits) == 0 {
		return corev1.PodQOSBestEffort
	}
	var qos corev1.PodQOSClass
	for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		req, lim := r.Requests[name], r.Limits[name]
		shape := corev1.PodQOSGuaranteed
		switch {
		case !req.Equal(lim):
			return corev1.PodQOSBurstable
		case req.IsZero():
			shape = corev1.PodQOSBestEffort
		}
		if qos == "" {
			qos = shape
		} else if qos != shape {
			return corev1.PodQOSBurstable
		}
	}
	return qos
}
