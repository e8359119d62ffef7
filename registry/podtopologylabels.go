package registry

import (
	"errors"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"

	admissionplugins "github.com/fakeplane/fakeplane/admission"
	"github.com/fakeplane/fakeplane/store"
)

// handlesPodTopologyLabels: PodTopologyLabels looks at a pod's creation
// and its binding.
func handlesPodTopologyLabels(op admission.Operation, gr schema.GroupResource, sub string) bool {
	return op == admission.Create && gr.Group == "" && gr.Resource == "pods" && (sub == "" || sub == "binding")
}

// admitPodTopologyLabels copies the node's topology labels onto a pod
// created on a node, or onto a Binding (whose labels the binding copies
// onto the pod). A node that does not exist gives none.
func admitPodTopologyLabels(s *Registry, _ *Request, a admission.Attributes) error {
	var node string
	var labels *map[string]string
	switch o := a.GetObject().(type) {
	case *corev1.Pod:
		node, labels = o.Spec.NodeName, &o.Labels
	case *corev1.Binding:
		if o.Target.Kind != "" && o.Target.Kind != "Node" {
			return nil
		}
		node, labels = o.Target.Name, &o.Labels
	default:
		return nil
	}
	if node == "" {
		return nil
	}
	n, err := getTyped[corev1.Node](s, "", "nodes", "", node)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	*labels = admissionplugins.CopyTopologyLabels(*labels, n)
	return nil
}
