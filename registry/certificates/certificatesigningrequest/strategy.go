// Package certificatesigningrequest holds the CertificateSigningRequest
// strategy: kube-apiserver's pkg/registry/certificates/certificates rules,
// with its status and approval strategies: the validation of the spec
// (validation.go), of the status and of updates (status.go), and the
// preparation of writes to /approval and /status (approval.go).
package certificatesigningrequest

import (
	"context"

	certificatesv1 "k8s.io/api/certificates/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"

	"github.com/fakeplane/fakeplane/internal/validate"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the CertificateSigningRequest strategy.
var Strategy = csrStrategy{strategy.Base{UnconditionalUpdate: true, ResetStatusOnCreate: true, StatusWritesMetadata: true}}

type csrStrategy struct{ strategy.Base }

// PrepareForCreate clears the status and sets the requestor to the user in
// ctx, whatever the request says, as upstream's PrepareForCreate does;
// without a user in ctx the requestor is empty.
func (s csrStrategy) PrepareForCreate(ctx context.Context, obj runtime.Object) {
	s.Base.PrepareForCreate(ctx, obj)
	csr := obj.(*certificatesv1.CertificateSigningRequest)
	csr.Spec.Username, csr.Spec.UID, csr.Spec.Groups, csr.Spec.Extra = "", "", nil, nil
	u, ok := genericapirequest.UserFrom(ctx)
	if !ok || u == nil {
		return
	}
	csr.Spec.Username, csr.Spec.UID, csr.Spec.Groups = u.GetName(), u.GetUID(), u.GetGroups()
	if extra := u.GetExtra(); len(extra) > 0 {
		csr.Spec.Extra = map[string]certificatesv1.ExtraValue{}
		for k, v := range extra {
			csr.Spec.Extra[k] = v
		}
	}
}

// PrepareForUpdate keeps the stored spec, the requestor included, and
// status: an update changes neither (the status and approval subresources
// do).
func (csrStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	n, o := obj.(*certificatesv1.CertificateSigningRequest), old.(*certificatesv1.CertificateSigningRequest)
	n.Spec = o.Spec
	n.Status = o.Status
}

// Validate checks a new request (upstream's
// ValidateCertificateSigningRequestCreate less the metadata); its status,
// cleared by PrepareForCreate, has nothing to check.
func (csrStrategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validateRequest(obj.(*certificatesv1.CertificateSigningRequest), checkOptions{})
}

// ValidateUpdate checks a write to the request itself, which keeps the
// stored spec and status (upstream's ValidateCertificateSigningRequestUpdate),
// then the declarative rules of the conditions.
func (csrStrategy) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	return validateUpdate(ctx, obj, old, false)
}

// ValidateApprovalUpdate checks a write to /approval, which may also set
// the Approved and Denied conditions (upstream's
// ValidateCertificateSigningRequestApprovalUpdate), then the declarative
// rules of the conditions.
func (csrStrategy) ValidateApprovalUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	return validateUpdate(ctx, obj, old, true)
}

// validateUpdate checks a write to the request or, with approval, to
// /approval.
func validateUpdate(ctx context.Context, obj, old runtime.Object, approval bool) field.ErrorList {
	n, o := obj.(*certificatesv1.CertificateSigningRequest), old.(*certificatesv1.CertificateSigningRequest)
	opts := checkOptionsFor(n, o)
	opts.approvalConditions = approval
	return validate.WithDeclarative(ctx, validateRequestUpdate(n, o, opts), declareConditions(&n.Status, &o.Status))
}

// ValidateStatusUpdate checks a write to /status, which may also set the
// certificate, once (upstream's ValidateCertificateSigningRequestStatusUpdate),
// then the declarative rules of the conditions.
func (csrStrategy) ValidateStatusUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	n, o := obj.(*certificatesv1.CertificateSigningRequest), old.(*certificatesv1.CertificateSigningRequest)
	opts := checkOptionsFor(n, o)
	opts.setCertificate = true
	return validate.WithDeclarative(ctx, validateRequestUpdate(n, o, opts), declareConditions(&n.Status, &o.Status))
}
