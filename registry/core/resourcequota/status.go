package resourcequota

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidateStatusUpdate checks a write to /status: upstream's
// ValidateResourceQuotaStatusUpdate less the metadata, status.hard and
// then status.used, each a list of quota resources (validateQuotaList).
// ResourceQuota has no declarative rules in v1.37 but the metadata's.
func (resourceQuotaStrategy) ValidateStatusUpdate(_ context.Context, obj, _ runtime.Object) field.ErrorList {
	q := obj.(*corev1.ResourceQuota)
	var errs field.ErrorList
	if q.ResourceVersion == "" {
		errs = append(errs, field.Required(field.NewPath("resourceVersion"), ""))
	}
	st := field.NewPath("status")
	errs = append(errs, validateQuotaList(q.Status.Hard, st.Child("hard"))...)
	return append(errs, validateQuotaList(q.Status.Used, st.Child("used"))...)
}
