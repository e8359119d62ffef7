package node

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate"
)

// WarningsOnCreate returns upstream's warnings for a new Node
// (nodeWarnings). Its spec.configSource is cleared before, so only the
// external ID and pod CIDRs can be warned about.
func (nodeStrategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	return nodeWarnings(obj.(*corev1.Node))
}

// WarningsOnUpdate returns the same warnings for the updated Node. (A write
// to its status has none, as upstream's node status strategy.)
func (nodeStrategy) WarningsOnUpdate(_ context.Context, obj, _ runtime.Object) []string {
	return nodeWarnings(obj.(*corev1.Node))
}

// nodeWarnings is upstream's nodeWarnings: the removed dynamic kubelet
// config, the unused external ID, and pod CIDRs not in their standard form.
func nodeWarnings(n *corev1.Node) []string {
	var warnings []string
	if n.Spec.ConfigSource != nil {
		warnings = append(warnings, "spec.configSource: the feature is removed")
	}
	if n.Spec.DoNotUseExternalID != "" {
		warnings = append(warnings, "spec.externalID: this field is deprecated, and is unused by Kubernetes")
	}
	cidrs := field.NewPath("spec", "podCIDRs")
	for i, c := range n.Spec.PodCIDRs {
		warnings = append(warnings, validate.CIDRWarnings(cidrs.Index(i), c)...)
	}
	return warnings
}
