package admission

import (
	corev1 "k8s.io/api/core/v1"
)

// PodTopologyLabels are the node labels kube-apiserver's PodTopologyLabels
// plugin (PodTopologyLabelsAdmission, beta and on in v1.37) copies onto a
// pod bound to the node.
var PodTopologyLabels = []string{corev1.LabelTopologyZone, corev1.LabelTopologyRegion}

// CopyTopologyLabels copies the node's topology labels into labels
// (overwriting) and returns the result, allocated when labels was nil and
// there is something to copy.
func CopyTopologyLabels(labels map[string]string, node *corev1.Node) map[string]string {
	if node == nil {
		return labels
	}
	for _, k := range PodTopologyLabels {
		v, ok := node.Labels[k]
		if !ok {
			continue
		}
		if labels == nil {
			labels = map[string]string{}
		}
		labels[k] = v
	}
	return labels
}
