// Package certificatesigningrequest holds the CertificateSigningRequest
// strategy: kube-apiserver's pkg/registry/certificates/certificates rules,
// the validation of the spec (validation.go) and of the conditions
// (approval.go).
package certificatesigningrequest

import (
	"context"

	certificatesv1 "k8s.io/api/certificates/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"

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

// Validate checks the spec (upstream's ValidateCertificateSigningRequestCreate).
func (csrStrategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validateSpec(obj.(*certificatesv1.CertificateSigningRequest))
}

// ValidateUpdate checks the conditions (which only the approval and status
// subresources change); the spec, kept from the stored request, was
// checked when it was created.
func (csrStrategy) ValidateUpdate(_ context.Context, obj, _ runtime.Object) field.ErrorList {
	return validateConditions(obj.(*certificatesv1.CertificateSigningRequest))
}
