package horizontalpodautoscaler

import (
	"context"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate"
)

// ValidateStatusUpdate checks a write to /status of either version, as
// autoscaling/v2 (upstream's ValidateHorizontalPodAutoscalerStatusUpdate
// less the metadata): each condition's observedGeneration and the current
// and desired replicas not negative. The status's declarative rules (the
// described objects of the current metrics) are alpha in v1.37 and not
// enforced.
func (hpaStrategy) ValidateStatusUpdate(_ context.Context, obj, _ runtime.Object) field.ErrorList {
	if n := asV2(obj); n != nil {
		return validateStatus(&n.Status)
	}
	return nil
}

// validateStatus checks an autoscaler's status.
func validateStatus(st *autoscalingv2.HorizontalPodAutoscalerStatus) field.ErrorList {
	var errs field.ErrorList
	fld := field.NewPath("status")
	for i, c := range st.Conditions {
		if c.ObservedGeneration != nil {
			errs = append(errs, validate.Nonnegative(*c.ObservedGeneration, fld.Child("conditions").Index(i).Child("observedGeneration"))...)
		}
	}
	errs = append(errs, validate.Nonnegative(int64(st.CurrentReplicas), fld.Child("currentReplicas"))...)
	return append(errs, validate.Nonnegative(int64(st.DesiredReplicas), fld.Child("desiredReplicas"))...)
}
