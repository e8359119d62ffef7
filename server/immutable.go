package server

import (
	"reflect"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Immutable-field rules of updates with upstream's messages; validateBuiltin
// puts them where upstream's ValidateUpdate functions do.

// validateSelectorUpdate is the rule of apps/v1 workloads: the selector may
// not change.
func validateSelectorUpdate(n, p *metav1.LabelSelector) field.ErrorList {
	if reflect.DeepEqual(n, p) {
		return nil
	}
	return field.ErrorList{field.Invalid(field.NewPath("spec", "selector"), n, "field is immutable")}
}

// validateServiceClusterIPUpdate is the rule that a Service's primary
// ClusterIP may not change once set.
func validateServiceClusterIPUpdate(n, p *corev1.Service) field.ErrorList {
	if n.Spec.Type != corev1.ServiceTypeExternalName && p.Spec.Type != corev1.ServiceTypeExternalName &&
		len(p.Spec.ClusterIPs) > 0 && len(n.Spec.ClusterIPs) > 0 && n.Spec.ClusterIPs[0] != p.Spec.ClusterIPs[0] {
		return field.ErrorList{field.Invalid(field.NewPath("spec", "clusterIPs").Index(0), n.Spec.ClusterIPs, "may not change once set")}
	}
	return nil
}
