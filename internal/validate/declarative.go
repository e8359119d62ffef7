package validate

import (
	"context"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/operation"
	apivalidate "k8s.io/apimachinery/pkg/api/validate"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Declarative validation as kube-apiserver v1.37 merges it into a
// strategy's answer (rest.ValidateDeclarativelyWithMigrationChecks, with
// DeclarativeValidationBeta on by default): the handwritten errors come
// first, less those marked as covered that an enforced declarative error
// (standard or beta) matches by type, origin and field; the enforced
// declarative errors follow. For kinds whose generated Validate_* functions
// live in k8s.io/kubernetes (not a dependency), the strategies spell out
// the few declarative rules themselves and merge them with WithDeclarative.

// WithDeclarative merges handwritten and declarative errors the way
// upstream answers them.
func WithDeclarative(ctx context.Context, handwritten, declarative field.ErrorList) field.ErrorList {
	enforced := apivalidate.FilterEnforcedDeclarativeErrors(ctx, declarative, true)
	kept := apivalidate.FilterCoveredHandwrittenErrors(ctx, handwritten.MarkFromImperative(), enforced, true)
	return append(kept, enforced...)
}

// Operation is the declarative validation operation of a write: an update
// when there is an old object.
func Operation(update bool) operation.Operation {
	if update {
		return operation.Operation{Type: operation.Update}
	}
	return operation.Operation{Type: operation.Create}
}

// Unchanged reports whether a declarative rule skips a value on update
// (upstream's ratcheting): it is semantically equal to the old object's
// (two nil pointers are equal). op is an update only when there is an old
// object.
func Unchanged[T any](op operation.Operation, obj, old *T) bool {
	return op.Type == operation.Update && equality.Semantic.DeepEqual(obj, old)
}
