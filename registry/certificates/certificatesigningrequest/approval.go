package certificatesigningrequest

import (
	"context"
	"slices"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// PrepareForApprovalUpdate keeps everything of the stored request but the
// new status.conditions, whose missing timestamps it fills in, as upstream's
// approval strategy does.
func (csrStrategy) PrepareForApprovalUpdate(_ context.Context, obj, old runtime.Object) {
	n, o := obj.(*certificatesv1.CertificateSigningRequest), old.(*certificatesv1.CertificateSigningRequest)
	populateConditionTimestamps(n, o, metav1.NewTime(time.Now().Truncate(time.Second)))
	conds := n.Status.Conditions
	n.Spec = o.Spec
	n.Status = o.Status
	n.Status.Conditions = conds
}

// populateConditionTimestamps sets a condition's missing lastUpdateTime to
// now, and its missing lastTransitionTime to that of the stored condition
// of the same type and status, or now.
func populateConditionTimestamps(n, o *certificatesv1.CertificateSigningRequest, now metav1.Time) {
	for i := range n.Status.Conditions {
		c := &n.Status.Conditions[i]
		if c.LastUpdateTime.IsZero() {
			c.LastUpdateTime = now
		}
		if !c.LastTransitionTime.IsZero() {
			continue
		}
		c.LastTransitionTime = now
		for _, oc := range o.Status.Conditions {
			if oc.Type == c.Type && oc.Status == c.Status && !oc.LastTransitionTime.IsZero() {
				c.LastTransitionTime = oc.LastTransitionTime
				break
			}
		}
	}
}

// validateConditions is upstream's check of a request's conditions: a type
// and status each, True only for Approved, Denied and Failed, Approved and
// Denied not together, no type twice.
func validateConditions(csr *certificatesv1.CertificateSigningRequest) field.ErrorList {
	fld := field.NewPath("status", "conditions")
	var errs field.ErrorList
	seen := map[certificatesv1.RequestConditionType]bool{}
	var approved, denied bool
	for i, c := range csr.Status.Conditions {
		if c.Type == "" {
			errs = append(errs, field.Required(fld.Index(i).Child("type"), ""))
		}
		allowed := []string{string(corev1.ConditionFalse), string(corev1.ConditionTrue), string(corev1.ConditionUnknown)}
		switch c.Type {
		case certificatesv1.CertificateApproved, certificatesv1.CertificateDenied, certificatesv1.CertificateFailed:
			allowed = []string{string(corev1.ConditionTrue)}
		}
		switch {
		case c.Status == "":
			errs = append(errs, field.Required(fld.Index(i).Child("status"), ""))
		case !slices.Contains(allowed, string(c.Status)):
			errs = append(errs, field.NotSupported(fld.Index(i).Child("status"), c.Status, allowed))
		}
		switch c.Type {
		case certificatesv1.CertificateApproved:
			approved = true
			if denied {
				errs = append(errs, field.Invalid(fld, c.Type, "Approved and Denied conditions are mutually exclusive"))
			}
		case certificatesv1.CertificateDenied:
			denied = true
			if approved {
				errs = append(errs, field.Invalid(fld, c.Type, "Approved and Denied conditions are mutually exclusive"))
			}
		}
		if seen[c.Type] {
			errs = append(errs, field.Duplicate(fld.Index(i).Child("type"), c.Type))
		}
		seen[c.Type] = true
	}
	return errs
}
