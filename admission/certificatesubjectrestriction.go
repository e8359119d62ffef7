package admission

import (
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"slices"

	certificatesv1 "k8s.io/api/certificates/v1"
)

// ValidateCertificateSubject is kube-apiserver's
// CertificateSubjectRestriction plugin on a new CertificateSigningRequest:
// a request to the kubernetes.io/kube-apiserver-client signer may not ask
// for the group (subject organization) system:masters.
func ValidateCertificateSubject(csr *certificatesv1.CertificateSigningRequest) error {
	if csr.Spec.SignerName != certificatesv1.KubeAPIServerClientSignerName {
		return nil
	}
	req, err := parseCertificateRequest(csr.Spec.Request)
	if err != nil {
		return fmt.Errorf("failed to parse CSR: %v", err)
	}
	if slices.Contains(req.Subject.Organization, "system:masters") {
		return fmt.Errorf("use of %s signer with system:masters group is not allowed", certificatesv1.KubeAPIServerClientSignerName)
	}
	return nil
}

// parseCertificateRequest is the x509 request in the first PEM block of
// data, which must be a CERTIFICATE REQUEST.
func parseCertificateRequest(data []byte) (*x509.CertificateRequest, error) {
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "CERTIFICATE REQUEST" {
		return nil, errors.New("PEM block type must be CERTIFICATE REQUEST")
	}
	return x509.ParseCertificateRequest(block.Bytes)
}
