package certificatesigningrequest

import (
	"context"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
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

// PrepareForStatusUpdate keeps the stored spec and, of the new conditions,
// the Approved and Denied ones as stored when the write has as many of each
// type as the stored request (adding or removing one is left for
// validation to refuse), then fills in the missing timestamps, as
// upstream's status strategy does.
func (csrStrategy) PrepareForStatusUpdate(_ context.Context, obj, old runtime.Object) {
	n, o := obj.(*certificatesv1.CertificateSigningRequest), old.(*certificatesv1.CertificateSigningRequest)
	n.Spec = o.Spec
	keepConditions(n, o, certificatesv1.CertificateApproved)
	keepConditions(n, o, certificatesv1.CertificateDenied)
	populateConditionTimestamps(n, o, metav1.NewTime(time.Now().Truncate(time.Second)))
}

// keepConditions puts back, in order, the stored conditions of type t in
// place of the new ones, when there are as many of them.
func keepConditions(n, o *certificatesv1.CertificateSigningRequest, t certificatesv1.RequestConditionType) {
	stored, sent := conditionIndices(o, t), conditionIndices(n, t)
	if len(stored) != len(sent) {
		return
	}
	for i, j := range sent {
		n.Status.Conditions[j] = o.Status.Conditions[stored[i]]
	}
}

// conditionIndices returns where csr's conditions of type t are.
func conditionIndices(csr *certificatesv1.CertificateSigningRequest, t certificatesv1.RequestConditionType) []int {
	var at []int
	for i, c := range csr.Status.Conditions {
		if c.Type == t {
			at = append(at, i)
		}
	}
	return at
}
