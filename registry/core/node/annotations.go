package node

import (
	"encoding/json"
	"fmt"
	"regexp"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validateNodeAnnotations is upstream's ValidateNodeSpecificAnnotations:
// the legacy taints annotation must hold valid, unique taints, and the
// preferAvoidPods annotation entries that name a controller.
func validateNodeAnnotations(annotations map[string]string) field.ErrorList {
	var errs field.ErrorList
	fld := field.NewPath("metadata", "annotations")
	if v := annotations[corev1.TaintsAnnotationKey]; v != "" {
		var taints []corev1.Taint
		if err := json.Unmarshal([]byte(v), &taints); err != nil {
			errs = append(errs, field.Invalid(fld, corev1.TaintsAnnotationKey, err.Error()))
		} else if len(taints) > 0 {
			errs = append(errs, validateNodeTaints(taints, fld.Child(corev1.TaintsAnnotationKey))...)
		}
	}
	if v := annotations[corev1.PreferAvoidPodsAnnotationKey]; v != "" {
		var avoid corev1.AvoidPods
		if err := json.Unmarshal([]byte(v), &avoid); err != nil {
			return append(errs, field.Invalid(fld.Child("AvoidPods"), corev1.PreferAvoidPodsAnnotationKey, err.Error()))
		}
		for i, e := range avoid.PreferAvoidPods {
			sig := fld.Child(corev1.PreferAvoidPodsAnnotationKey).Index(i).Child("PodSignature")
			switch c := e.PodSignature.PodController; {
			case c == nil:
				errs = append(errs, field.Required(sig, ""))
			case c.Controller == nil || !*c.Controller:
				errs = append(errs, field.Invalid(sig.Child("PodController", "Controller"), false, "must point to a controller"))
			}
		}
	}
	return errs
}

// declaredFeatureName is upstream's rule for a node's declared feature:
// an UpperCamelCase segment, then "/"-separated alphanumeric segments.
var declaredFeatureName = regexp.MustCompile(`^[A-Z][a-zA-Z0-9]*(/[a-zA-Z][a-zA-Z0-9]*)*$`)

// validateDeclaredFeatures is upstream's validateNodeDeclaredFeatures: valid
// names, sorted, without duplicates.
func validateDeclaredFeatures(features []string, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, f := range features {
		switch {
		case len(f) > validation.DNS1123SubdomainMaxLength:
			errs = append(errs, field.Invalid(fld.Index(i), f, fmt.Sprintf("invalid feature name %q: must be no more than %d characters", f, validation.DNS1123SubdomainMaxLength)))
		case !declaredFeatureName.MatchString(f):
			errs = append(errs, field.Invalid(fld.Index(i), f, fmt.Sprintf("invalid feature name %q: must start with an UpperCamelCase segment, with subsequent segments separated by '/' (e.g., MyFeature or MyFeature/mySubFeature), and contain only alphanumeric characters and slashes", f)))
		}
		if i+1 < len(features) {
			switch next := features[i+1]; {
			case f == next:
				errs = append(errs, field.Duplicate(fld.Index(i+1), next))
			case f > next:
				errs = append(errs, field.Invalid(fld.Index(i+1), next, "list must be sorted alphabetically"))
			}
		}
	}
	return errs
}
