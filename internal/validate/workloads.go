package validate

import (
	"strconv"

	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The helpers of pkg/apis/core/validation, pkg/apis/apps/validation and
// pkg/apis/batch/validation that the workload strategies (pods and their
// templates, claims, the apps and batch controllers' objects) share with
// other resources' rules.

// Nonnegative is upstream's ValidateNonnegativeField.
func Nonnegative(v int64, fld *field.Path) field.ErrorList {
	return apimachineryvalidation.ValidateNonnegativeField(v, fld)
}

func percentValue(v intstr.IntOrString) (int, bool) {
	if v.Type != intstr.String || len(validation.IsValidPercent(v.StrVal)) != 0 {
		return 0, false
	}
	n, _ := strconv.Atoi(v.StrVal[:len(v.StrVal)-1])
	return n, true
}

// IntOrPercentValue is upstream's getIntOrPercentValue: the number of a
// valid percent, else the integer.
func IntOrPercentValue(v intstr.IntOrString) int {
	if n, ok := percentValue(v); ok {
		return n
	}
	return v.IntValue()
}

// WorkloadSelector is the strict selector rule of Deployments and
// ReplicaSets: required, valid and not empty (kind names the workload in
// the message).
func WorkloadSelector(sel *metav1.LabelSelector, fld *field.Path, kind string) field.ErrorList {
	if sel == nil {
		return field.ErrorList{field.Required(fld, "")}
	}
	errs := metav1validation.ValidateLabelSelector(sel, metav1validation.LabelSelectorValidationOptions{}, fld)
	if len(sel.MatchLabels)+len(sel.MatchExpressions) == 0 {
		errs = append(errs, field.Invalid(fld, sel, "empty selector is invalid for "+kind))
	}
	return errs
}

// StatusCount is one count of a workload's status, by its field name.
type StatusCount struct {
	Name  string
	Value int64
}

// Count is the StatusCount of a field.
func Count(name string, v int64) StatusCount { return StatusCount{Name: name, Value: v} }

// AboveReplicas is upstream's message for a status count above
// status.replicas.
const AboveReplicas = "cannot be greater than status.replicas"

// StatusCounts checks that counts are not negative.
func StatusCounts(st *field.Path, counts ...StatusCount) field.ErrorList {
	var errs field.ErrorList
	for _, c := range counts {
		errs = append(errs, Nonnegative(c.Value, st.Child(c.Name))...)
	}
	return errs
}

// NotAbove reports counts above limit with msg.
func NotAbove(st *field.Path, limit int32, msg string, counts ...StatusCount) field.ErrorList {
	var errs field.ErrorList
	for _, c := range counts {
		if c.Value > int64(limit) {
			errs = append(errs, field.Invalid(st.Child(c.Name), int32(c.Value), msg))
		}
	}
	return errs
}

// CollisionDecremented is upstream's rule that status.collisionCount does
// not go down.
func CollisionDecremented(st *field.Path, n, p *int32) field.ErrorList {
	if p != nil && (n == nil || *n < *p) {
		v := int32(0)
		if n != nil {
			v = *n
		}
		return field.ErrorList{field.Invalid(st.Child("collisionCount"), v, "cannot be decremented")}
	}
	return nil
}
