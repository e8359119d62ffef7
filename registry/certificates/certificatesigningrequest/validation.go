package certificatesigningrequest

import (
	"crypto/x509"
	"encoding/pem"
	"errors"
	"slices"

	certificatesv1 "k8s.io/api/certificates/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate"
)

// keyUsages are the usages a request may ask for, sorted as upstream lists
// them in its message.
var keyUsages = []string{
	"any", "cert sign", "client auth", "code signing", "content commitment", "crl sign", "data encipherment",
	"decipher only", "digital signature", "email protection", "encipher only", "ipsec end system", "ipsec tunnel",
	"ipsec user", "key agreement", "key encipherment", "microsoft sgc", "netscape sgc", "ocsp signing", "s/mime",
	"server auth", "signing", "timestamping",
}

// legacySignerName is the signer name of requests made through
// certificates.k8s.io/v1beta1 without one, which v1 refuses.
const legacySignerName = "kubernetes.io/legacy-unknown"

// validateSpec is the spec part of upstream's validation of a request: a
// PEM certificate request with a valid signature, known usages given once
// each, a signer name other than the legacy one, and an expiration of at
// least ten minutes. opts lets an update keep the unknown or repeated
// usages and the legacy signer name the stored request has.
func validateSpec(csr *certificatesv1.CertificateSigningRequest, opts checkOptions) field.ErrorList {
	var errs field.ErrorList
	spec := field.NewPath("spec")
	if err := checkRequest(csr.Spec.Request); err != nil {
		errs = append(errs, field.Invalid(spec.Child("request"), csr.Spec.Request, err.Error()))
	}
	if len(csr.Spec.Usages) == 0 {
		errs = append(errs, field.Required(spec.Child("usages"), ""))
	}
	if !opts.unknownUsages {
		for i, u := range csr.Spec.Usages {
			if !slices.Contains(keyUsages, string(u)) {
				errs = append(errs, field.NotSupported(spec.Child("usages").Index(i), u, keyUsages))
			}
		}
	}
	if !opts.duplicateUsages {
		seen := map[certificatesv1.KeyUsage]bool{}
		for i, u := range csr.Spec.Usages {
			if seen[u] {
				errs = append(errs, field.Duplicate(spec.Child("usages").Index(i), u))
			}
			seen[u] = true
		}
	}
	if !opts.legacySignerName && csr.Spec.SignerName == legacySignerName {
		errs = append(errs, field.Invalid(spec.Child("signerName"), csr.Spec.SignerName, "the legacy signerName is not allowed via this API version"))
	} else {
		errs = append(errs, validate.SignerName(spec.Child("signerName"), csr.Spec.SignerName)...)
	}
	if s := csr.Spec.ExpirationSeconds; s != nil && *s < 600 {
		errs = append(errs, field.Invalid(spec.Child("expirationSeconds"), *s, "may not specify a duration less than 600 seconds (10 minutes)"))
	}
	return errs
}

// checkRequest parses a PEM certificate request and checks its signature,
// with upstream's errors.
func checkRequest(data []byte) error {
	req, err := ParseRequest(data)
	if err != nil {
		return err
	}
	return req.CheckSignature()
}

// ParseRequest parses the PEM CERTIFICATE REQUEST of a request's
// spec.request, with upstream's errors (certificates.ParseCSR).
func ParseRequest(data []byte) (*x509.CertificateRequest, error) {
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "CERTIFICATE REQUEST" {
		return nil, errors.New("PEM block type must be CERTIFICATE REQUEST")
	}
	return x509.ParseCertificateRequest(block.Bytes)
}
