package server

import (
	"reflect"

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
