// Package podcertificaterequest holds the PodCertificateRequest strategy:
// kube-apiserver's pkg/registry/certificates/podcertificaterequest strategy
// and status strategy, with their validation (upstream's
// ValidatePodCertificateRequestCreate, ValidatePodCertificateRequestUpdate
// and ValidatePodCertificateRequestStatusUpdate, in validation.go) and the
// "sign" permission a write to the status needs.
package podcertificaterequest

import (
	"context"
	"fmt"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"

	"github.com/fakeplane/fakeplane/admission"
	"github.com/fakeplane/fakeplane/internal/validate"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the PodCertificateRequest strategy.
var Strategy = podCertificateRequestStrategy{strategy.Base{Namespaced: true, ResetStatusOnCreate: true}}

type podCertificateRequestStrategy struct{ strategy.Base }

// Default sets the v1 default of spec.maxExpirationSeconds, 86400.
func (podCertificateRequestStrategy) Default(obj runtime.Object) {
	if r, ok := obj.(*certificatesv1.PodCertificateRequest); ok && r.Spec.MaxExpirationSeconds == nil {
		v := int32(DefaultMaxExpirationSeconds)
		r.Spec.MaxExpirationSeconds = &v
	}
}

// Validate checks a new request's spec; its status, cleared by
// PrepareForCreate, has nothing to check.
func (podCertificateRequestStrategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validateCreate(&obj.(*certificatesv1.PodCertificateRequest).Spec)
}

// PrepareForUpdate keeps the stored status: a write to the request changes
// its metadata alone (the status subresource sets the status).
func (podCertificateRequestStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	obj.(*certificatesv1.PodCertificateRequest).Status = old.(*certificatesv1.PodCertificateRequest).Status
}

// ValidateUpdate refuses any change of the spec, which is immutable: one
// error at spec, whose value upstream shows as the JSON of its internal
// type's Go fields.
func (podCertificateRequestStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	n, o := obj.(*certificatesv1.PodCertificateRequest), old.(*certificatesv1.PodCertificateRequest)
	if equality.Semantic.DeepEqual(n.Spec, o.Spec) {
		return nil
	}
	return field.ErrorList{field.Invalid(specPath, internalSpec(&n.Spec), "field is immutable")}
}

// PrepareForStatusUpdate keeps the stored spec; the server keeps the stored
// metadata (Base.StatusWritesMetadata is false), as upstream's
// ResetObjectMetaForStatus.
func (podCertificateRequestStrategy) PrepareForStatusUpdate(_ context.Context, obj, old runtime.Object) {
	obj.(*certificatesv1.PodCertificateRequest).Spec = old.(*certificatesv1.PodCertificateRequest).Spec
}

// ValidateStatusUpdate checks a write to /status; a valid one that changes
// the status also needs the caller to be allowed to "sign" for the
// request's signer, when the server has an authorizer
// (validate.AuthorizerFrom).
func (podCertificateRequestStrategy) ValidateStatusUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	n, o := obj.(*certificatesv1.PodCertificateRequest), old.(*certificatesv1.PodCertificateRequest)
	if errs := validateStatusUpdate(n, o, time.Now()); len(errs) > 0 {
		return errs
	}
	if equality.Semantic.DeepEqual(o.Status, n.Status) {
		return nil
	}
	authz := validate.AuthorizerFrom(ctx)
	if authz == nil {
		return nil
	}
	u, ok := genericapirequest.UserFrom(ctx)
	if !ok {
		return field.ErrorList{field.InternalError(signerNamePath, fmt.Errorf("cannot determine calling user to perform \"sign\" check"))}
	}
	if !admission.AuthorizedForSigner(ctx, authz, u, "sign", o.Spec.SignerName) {
		return field.ErrorList{field.Forbidden(signerNamePath, fmt.Sprintf("User %q is not permitted to \"sign\" for signer %q", u.GetName(), o.Spec.SignerName))}
	}
	return nil
}

// specFields is upstream's internal PodCertificateRequestSpec, whose Go
// field names (it has no JSON tags) and order the value of the
// immutability error shows.
type specFields struct {
	SignerName                string
	PodName                   string
	PodUID                    string
	ServiceAccountName        string
	ServiceAccountUID         string
	NodeName                  string
	NodeUID                   string
	MaxExpirationSeconds      *int32
	PKIXPublicKey             []byte
	ProofOfPossession         []byte
	StubPKCS10Request         []byte
	UnverifiedUserAnnotations map[string]string
}

// internalSpec converts a v1 spec to specFields.
func internalSpec(s *certificatesv1.PodCertificateRequestSpec) specFields {
	return specFields{
		SignerName:                s.SignerName,
		PodName:                   s.PodName,
		PodUID:                    string(s.PodUID),
		ServiceAccountName:        s.ServiceAccountName,
		ServiceAccountUID:         string(s.ServiceAccountUID),
		NodeName:                  string(s.NodeName),
		NodeUID:                   string(s.NodeUID),
		MaxExpirationSeconds:      s.MaxExpirationSeconds,
		StubPKCS10Request:         s.StubPKCS10Request,
		UnverifiedUserAnnotations: s.UnverifiedUserAnnotations,
	}
}
