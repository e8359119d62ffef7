package poddisruptionbudget

import (
	"context"

	policyv1 "k8s.io/api/policy/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate"
)

// ValidateStatusUpdate checks a write to /status, upstream's
// ValidatePodDisruptionBudgetStatusUpdate for policy/v1 (fakeplane serves
// no other version): the conditions (metav1.Condition's rules) and the
// four counts not negative. The conditions' declarative rules are alpha in
// v1.37 and not enforced.
func (pdbStrategy) ValidateStatusUpdate(_ context.Context, obj, _ runtime.Object) field.ErrorList {
	return validateStatus(&obj.(*policyv1.PodDisruptionBudget).Status)
}

// validateStatus checks a budget's status.
func validateStatus(st *policyv1.PodDisruptionBudgetStatus) field.ErrorList {
	fld := field.NewPath("status")
	errs := metav1validation.ValidateConditions(st.Conditions, fld.Child("conditions"))
	errs = append(errs, validate.Nonnegative(int64(st.DisruptionsAllowed), fld.Child("disruptionsAllowed"))...)
	errs = append(errs, validate.Nonnegative(int64(st.CurrentHealthy), fld.Child("currentHealthy"))...)
	errs = append(errs, validate.Nonnegative(int64(st.DesiredHealthy), fld.Child("desiredHealthy"))...)
	return append(errs, validate.Nonnegative(int64(st.ExpectedPods), fld.Child("expectedPods"))...)
}
