package node

import (
	corev1 "k8s.io/api/core/v1"
)

// dropDisabledSpecFields clears the fields of a node spec whose feature
// gates are off by default in kube-apiserver v1.37, as upstream's node
// strategy's dropDisabledFields: spec.podPreemptionPolicy
// (InPlacePodVerticalScalingSchedulerPreemption), kept when old (nil on
// create) already sets it.
func dropDisabledSpecFields(spec, old *corev1.NodeSpec) {
	if old == nil || old.PodPreemptionPolicy == nil {
		spec.PodPreemptionPolicy = nil
	}
}
