package validate

import (
	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// NodeSelector is upstream's ValidateNodeSelector for a required node
// selector (a pod's required node affinity, a device's node selector): at
// least one term, each valid with valid label values.
func NodeSelector(ns *corev1.NodeSelector, fld *field.Path) field.ErrorList {
	terms := fld.Child("nodeSelectorTerms")
	if len(ns.NodeSelectorTerms) == 0 {
		return field.ErrorList{field.Required(terms, "must have at least one node selector term")}
	}
	var errs field.ErrorList
	for i, term := range ns.NodeSelectorTerms {
		errs = append(errs, NodeSelectorTerm(term, false, terms.Index(i))...)
	}
	return errs
}

// NodeSelectorTerm is upstream's ValidateNodeSelectorTerm: a term's label
// expressions (whose values may be invalid label values when
// allowInvalidValues, as in preferred terms) and field expressions.
func NodeSelectorTerm(term corev1.NodeSelectorTerm, allowInvalidValues bool, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for j, req := range term.MatchExpressions {
		errs = append(errs, validateNodeSelectorRequirement(req, allowInvalidValues, fld.Child("matchExpressions").Index(j))...)
	}
	for j, req := range term.MatchFields {
		errs = append(errs, validateNodeFieldSelectorRequirement(req, fld.Child("matchFields").Index(j))...)
	}
	return errs
}

// validateNodeSelectorRequirement checks one label expression.
func validateNodeSelectorRequirement(rq corev1.NodeSelectorRequirement, allowInvalidValues bool, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch rq.Operator {
	case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn:
		if len(rq.Values) == 0 {
			errs = append(errs, field.Required(fld.Child("values"), "must be specified when `operator` is 'In' or 'NotIn'"))
		}
	case corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist:
		if len(rq.Values) > 0 {
			errs = append(errs, field.Forbidden(fld.Child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
		}
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
		if len(rq.Values) != 1 {
			errs = append(errs, field.Required(fld.Child("values"), "must be specified single value when `operator` is 'Lt' or 'Gt'"))
		}
	default:
		errs = append(errs, field.Invalid(fld.Child("operator"), rq.Operator, "not a valid selector operator"))
	}
	errs = append(errs, metav1validation.ValidateLabelName(rq.Key, fld.Child("key"))...)
	if !allowInvalidValues {
		for i, v := range rq.Values {
			for _, msg := range validation.IsValidLabelValue(v) {
				errs = append(errs, field.Invalid(fld.Child("values").Index(i), v, msg).WithOrigin("format=k8s-label-value"))
			}
		}
	}
	return errs
}

// validateNodeFieldSelectorRequirement checks one field expression: only
// metadata.name, with one value.
func validateNodeFieldSelectorRequirement(rq corev1.NodeSelectorRequirement, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch rq.Operator {
	case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn:
		if len(rq.Values) != 1 {
			errs = append(errs, field.Required(fld.Child("values"), "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"))
		}
	default:
		errs = append(errs, field.Invalid(fld.Child("operator"), rq.Operator, "not a valid selector operator"))
	}
	if rq.Key != metav1.ObjectNameField {
		return append(errs, field.Invalid(fld.Child("key"), rq.Key, "not a valid field selector key"))
	}
	for i, v := range rq.Values {
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(v, false) {
			errs = append(errs, field.Invalid(fld.Child("values").Index(i), v, msg).WithOrigin("format=k8s-label-value"))
		}
	}
	return errs
}
