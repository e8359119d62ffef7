package resource

import (
	"errors"
	"fmt"

	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/environment"
	dracel "k8s.io/dynamic-resource-allocation/cel"
)

// celFeatures are the DRA CEL features of kube-apiserver v1.37's default
// feature gates: DRAConsumableCapacity is on (beta), DRAListTypeAttributes
// is off (alpha).
var celFeatures = dracel.Features{EnableConsumableCapacity: true, EnableListTypeAttributes: false}

// validateCELSelector is upstream's validateCELExpression for a device
// selector's expression: at most CELSelectorExpressionMaxLength bytes
// (a longer one is not compiled), compiled in the environment of new
// expressions, evaluating to a bool, with an estimated worst-case cost
// within CELSelectorExpressionMaxCost. A stored expression (kept as it
// was by an update) is not validated again.
func validateCELSelector(expression string, fld *field.Path, stored bool) field.ErrorList {
	if stored {
		return nil
	}
	if len(expression) > resourcev1.CELSelectorExpressionMaxLength {
		return field.ErrorList{field.TooLong(fld, "", resourcev1.CELSelectorExpressionMaxLength)}
	}
	envType := environment.NewExpressions
	// GetCompiler keeps one compiler per feature set, built on first use
	// and shared read-only by every control plane of the process.
	result := dracel.GetCompiler(celFeatures).CompileCELExpression(expression, dracel.Options{EnvType: &envType})
	switch {
	case result.Error != nil:
		return field.ErrorList{celError(fld, expression, result.Error)}
	case result.MaxCost > resourcev1.CELSelectorExpressionMaxCost:
		return field.ErrorList{field.Forbidden(fld, "too complex, exceeds cost limit")}
	}
	return nil
}

// celError is the field error of a CEL compilation error, by its type, as
// upstream's convertCELErrorToValidationError makes it.
func celError(fld *field.Path, expression string, err error) *field.Error {
	var celErr *apiservercel.Error
	if errors.As(err, &celErr) {
		switch celErr.Type {
		case apiservercel.ErrorTypeRequired:
			return field.Required(fld, celErr.Detail)
		case apiservercel.ErrorTypeInvalid:
			return field.Invalid(fld, expression, celErr.Detail)
		case apiservercel.ErrorTypeInternal:
			return field.InternalError(fld, celErr)
		}
	}
	return field.InternalError(fld, fmt.Errorf("unsupported error type: %w", err))
}
