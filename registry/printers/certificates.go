package printers

import (
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	"k8s.io/apimachinery/pkg/util/duration"
)

// certificates returns the printers of the certificates.k8s.io group's resources, by resource.
func certificates() map[string]Printer {
	return map[string]Printer{
		"clustertrustbundles": {
			cells: typed(func(b *certificatesv1.ClusterTrustBundle, now time.Time) []any {
				signer := "<none>"
				if b.Spec.SignerName != "" {
					signer = b.Spec.SignerName
				}
				return []any{b.Name, signer}
			}),
		},
		"podcertificaterequests": {
			cells: typed(func(r *certificatesv1.PodCertificateRequest, now time.Time) []any {
				// Issued, Denied and Failed exclude each other.
				state := "Pending"
				for _, c := range r.Status.Conditions {
					switch c.Type {
					case certificatesv1.PodCertificateRequestConditionTypeIssued, certificatesv1.PodCertificateRequestConditionTypeDenied, certificatesv1.PodCertificateRequestConditionTypeFailed:
						state = c.Type
					}
				}
				return []any{r.Name, r.Spec.PodName, r.Spec.ServiceAccountName, string(r.Spec.NodeName), r.Spec.SignerName, state, selectorString(r.Spec.UnverifiedUserAnnotations)}
			}),
		},
		"certificatesigningrequests": {
			cells: typed(func(csr *certificatesv1.CertificateSigningRequest, now time.Time) []any {
				signer := "<none>"
				if csr.Spec.SignerName != "" {
					signer = csr.Spec.SignerName
				}
				requested := "<none>"
				if e := csr.Spec.ExpirationSeconds; e != nil {
					requested = duration.HumanDuration(time.Duration(*e) * time.Second)
				}
				return []any{csr.Name, age(now, csr.CreationTimestamp), signer, csr.Spec.Username, requested, csrCondition(csr)}
			}),
		},
	}
}

// csrCondition sums up a CertificateSigningRequest's conditions:
// Denied, Approved or Pending, then Failed and Issued.
func csrCondition(csr *certificatesv1.CertificateSigningRequest) string {
	var approved, denied, failed bool
	for _, c := range csr.Status.Conditions {
		switch c.Type {
		case certificatesv1.CertificateApproved:
			approved = true
		case certificatesv1.CertificateDenied:
			denied = true
		case certificatesv1.CertificateFailed:
			failed = true
		}
	}
	status := "Pending"
	if denied {
		status = "Denied"
	} else if approved {
		status = "Approved"
	}
	if failed {
		status += ",Failed"
	}
	if len(csr.Status.Certificate) > 0 {
		status += ",Issued"
	}
	return status
}
