package admission

import (
	"context"
	"fmt"

	certificatesv1 "k8s.io/api/certificates/v1"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// ValidateCertificateApproval is kube-apiserver's CertificateApproval
// plugin on a write to a CertificateSigningRequest's approval
// subresource: u must be allowed to approve for the signer the stored
// request (old) names.
func ValidateCertificateApproval(ctx context.Context, authz authorizer.Authorizer, u user.Info, old *certificatesv1.CertificateSigningRequest) error {
	if !AuthorizedForSigner(ctx, authz, u, "approve", old.Spec.SignerName) {
		return fmt.Errorf("user not permitted to approve requests with signerName %q", old.Spec.SignerName)
	}
	return nil
}
