// Package qos classifies pods into their QoS classes as upstream's
// GetPodQOS does (pkg/apis/core/v1/helper/qos): the kubelets, the pod
// strategy and the PodTolerationRestriction admission plugin share it.
package qos

import (
	corev1 "k8s.io/api/core/v1"
	resourcehelper "k8s.io/component-helpers/resource"
)

// PodClass is the pod's status.qosClass when set, else Compute's class.
func PodClass(pod *corev1.Pod) corev1.PodQOSClass {
	if pod.Status.QOSClass != "" {
		return pod.Status.QOSClass
	}
	return Compute(pod)
}

// Compute classifies a pod as its resources say: by its pod-level
// resources when they set a resource that pods may set (cpu, memory,
// hugepages), else by every init and regular container's requirements
// (Guaranteed when all are, BestEffort when none set any, Burstable
// otherwise).
func Compute(pod *corev1.Pod) corev1.PodQOSClass {
	if resourcehelper.IsPodLevelResourcesSet(pod) {
		return Requirements(pod.Spec.Resources)
	}
	return Containers(pod.Spec.InitContainers, pod.Spec.Containers)
}

// Containers classifies the containers of lists together, as Compute does
// without pod-level resources.
func Containers(lists ...[]corev1.Container) corev1.PodQOSClass {
	var class corev1.PodQOSClass
	for _, list := range lists {
		for i := range list {
			c := Requirements(&list[i].Resources)
			switch {
			case c == corev1.PodQOSBurstable:
				return c
			case class == "":
				class = c
			case class != c:
				return corev1.PodQOSBurstable
			}
		}
	}
	if class == "" {
		return corev1.PodQOSBestEffort
	}
	return class
}

// Requirements classifies one set of requirements by the shape of cpu and
// memory: BestEffort when both are unset, Guaranteed when both have equal
// non-zero requests and limits, Burstable otherwise.
func Requirements(r *corev1.ResourceRequirements) corev1.PodQOSClass {
	if len(r.Requests) == 0 && len(r.Limits) == 0 {
		return corev1.PodQOSBestEffort
	}
	var class corev1.PodQOSClass
	for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		req, lim := r.Requests[name], r.Limits[name]
		shape := corev1.PodQOSGuaranteed
		switch {
		case !req.Equal(lim):
			return corev1.PodQOSBurstable
		case req.IsZero():
			shape = corev1.PodQOSBestEffort
		}
		if class == "" {
			class = shape
		} else if class != shape {
			return corev1.PodQOSBurstable
		}
	}
	return class
}
