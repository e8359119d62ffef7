package crd

import (
	"fmt"
	"math"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidateScale checks what a version's scale subresource reads from a
// custom resource, as upstream's custom resource validator does on every
// write: the replicas at specReplicasPath (when spec is set: not on writes
// to /status) and statusReplicasPath must be integers from 0 to MaxInt32 (or
// absent), and labelSelectorPath must name a string (or nothing). scale nil
// checks nothing.
func ValidateScale(obj map[string]any, scale *apiextensionsv1.CustomResourceSubresourceScale, spec bool) field.ErrorList {
	if scale == nil {
		return nil
	}
	var errs field.ErrorList
	if spec {
		errs = append(errs, validateReplicas(obj, scale.SpecReplicasPath)...)
	}
	errs = append(errs, validateReplicas(obj, scale.StatusReplicasPath)...)
	if scale.LabelSelectorPath == nil {
		return errs
	}
	return append(errs, validateLabelSelectorPath(obj, *scale.LabelSelectorPath)...)
}

// validateReplicas checks the replicas a scale path names.
func validateReplicas(obj map[string]any, path string) field.ErrorList {
	replicas, _, err := unstructured.NestedInt64(obj, strings.Split(strings.TrimPrefix(path, "."), ".")...)
	switch {
	case err != nil:
		return field.ErrorList{field.Invalid(field.NewPath(path), replicas, err.Error())}
	case replicas < 0:
		return field.ErrorList{field.Invalid(field.NewPath(path), replicas, "should be a non-negative integer")}
	case replicas > math.MaxInt32:
		return field.ErrorList{field.Invalid(field.NewPath(path), replicas, fmt.Sprintf("should be less than or equal to %v", math.MaxInt32))}
	}
	return nil
}

// validateLabelSelectorPath checks that the scale's label selector path
// names a string, if anything.
func validateLabelSelectorPath(obj map[string]any, path string) field.ErrorList {
	selector, _, err := unstructured.NestedString(obj, strings.Split(strings.TrimPrefix(path, "."), ".")...)
	if err != nil {
		return field.ErrorList{field.Invalid(field.NewPath(path), selector, err.Error())}
	}
	return nil
}
