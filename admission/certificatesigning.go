package admission

import (
	"context"
	"fmt"
	"reflect"

	certificatesv1 "k8s.io/api/certificates/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// ValidateCertificateSigning is kube-apiserver's CertificateSigning
// plugin on a write to a CertificateSigningRequest's status subresource
// that changes status.certificate or status.conditions: u must be allowed
// to sign for the signer the stored request (old) names.
func ValidateCertificateSigning(ctx context.Context, authz authorizer.Authorizer, u user.Info, csr, old *certificatesv1.CertificateSigningRequest) error {
	if reflect.DeepEqual(old.Status.Certificate, csr.Status.Certificate) && equality.Semantic.DeepEqual(old.Status.Conditions, csr.Status.Conditions) {
		return nil
	}
	if !AuthorizedForSigner(ctx, authz, u, "sign", old.Spec.SignerName) {
		return fmt.Errorf("user not permitted to sign requests with signerName %q", old.Spec.SignerName)
	}
	return nil
}
