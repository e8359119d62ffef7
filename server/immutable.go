package server

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Immutable-field rules of updates with upstream's messages; validateBuiltin
// puts them where upstream's ValidateUpdate functions do.

// validateServiceClusterIPUpdate is the rule that a Service's primary
// ClusterIP may not change once set.
func validateServiceClusterIPUpdate(n, p *corev1.Service) field.ErrorList {
	if n.Spec.Type != corev1.ServiceTypeExternalName && p.Spec.Type != corev1.ServiceTypeExternalName &&
		len(p.Spec.ClusterIPs) > 0 && len(n.Spec.ClusterIPs) > 0 && n.Spec.ClusterIPs[0] != p.Spec.ClusterIPs[0] {
		return field.ErrorList{field.Invalid(field.NewPath("spec", "clusterIPs").Index(0), n.Spec.ClusterIPs, "may not change once set")}
	}
	return nil
}
