package controllers

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"slices"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/registry/certificates/certificatesigningrequest"
	"github.com/fakeplane/fakeplane/store"
)

// DefaultCSRSigningDuration is kube-controller-manager's
// --cluster-signing-duration: the longest certificate the signer issues.
const DefaultCSRSigningDuration = 365 * 24 * time.Hour

// Bounds of the signer's certificates, upstream's: a certificate starts
// csrBackdate before it is signed (clocks differ); one that lasts at least
// csrShort ends csrBackdate early, so that it lasts what was asked; a
// request's spec.expirationSeconds is raised to csrMinDuration.
const (
	csrBackdate    = 5 * time.Minute
	csrShort       = 8 * time.Hour
	csrMinDuration = 10 * time.Minute
)

// CSRSigningCA is the certificate authority the signer signs with.
type CSRSigningCA struct {
	Cert *x509.Certificate
	Key  crypto.Signer
}

// CSRSigning signs the approved CertificateSigningRequests of the signers
// kube-controller-manager's certificatesigningrequest-signing-controller
// serves (kubernetes.io/kube-apiserver-client, kube-apiserver-client-kubelet,
// kubelet-serving and legacy-unknown) with the cluster CA, as that
// controller does when it is given the CA's files: a request that breaks its
// signer's rules gets a Failed condition (SignerValidationFailure), the
// others their certificate in status.certificate. It writes as
// kube-system/certificate-controller.
type CSRSigning struct {
	reg      registry.Interface
	log      *slog.Logger
	user     user.Info
	ca       CSRSigningCA
	duration time.Duration
	now      func() time.Time
	// pending are the requests to look at.
	pending map[string]bool
}

// NewCSRSigning returns the signing controller, signing with ca
// certificates that last duration at most (0: DefaultCSRSigningDuration),
// reading the time from now (nil: time.Now), writing through reg and
// logging to log (nil: slog.Default()).
func NewCSRSigning(reg registry.Interface, ca CSRSigningCA, duration time.Duration, now func() time.Time, log *slog.Logger) *CSRSigning {
	if log == nil {
		log = slog.Default()
	}
	if now == nil {
		now = time.Now
	}
	if duration <= 0 {
		duration = DefaultCSRSigningDuration
	}
	return &CSRSigning{reg: reg, log: log, user: controllerUser(csrUser), ca: ca, duration: duration, now: now, pending: map[string]bool{}}
}

// Name implements Controller.
func (c *CSRSigning) Name() string { return CSRSigningName }

// Resources implements Controller.
func (c *CSRSigning) Resources() []string { return []string{csrsBucket} }

// Sync implements Controller.
func (c *CSRSigning) Sync(ctx context.Context, events []store.Event) error {
	return syncCSRs(ctx, c.log, c.user, c.pending, events, c.wants, c.handle)
}

// wants reports whether csr waits for this signer: approved, neither failed
// nor issued, and for one of its signers.
func (c *CSRSigning) wants(csr *certificatesv1.CertificateSigningRequest) bool {
	if !hasTrueCondition(csr, certificatesv1.CertificateApproved) || hasTrueCondition(csr, certificatesv1.CertificateFailed) || len(csr.Status.Certificate) > 0 {
		return false
	}
	switch csr.Spec.SignerName {
	case certificatesv1.KubeAPIServerClientSignerName, certificatesv1.KubeAPIServerClientKubeletSignerName,
		certificatesv1.KubeletServingSignerName, legacyUnknownSignerName:
		return true
	}
	return false
}

// handle signs the request name, or marks it failed.
func (c *CSRSigning) handle(ctx context.Context, name string) error {
	_, err := c.reg.UpdateSubresource(ctx, csrsGVR, "status", "", name, func(cur runtime.Object) (runtime.Object, error) {
		csr := cur.(*certificatesv1.CertificateSigningRequest)
		if !c.wants(csr) {
			return nil, errNoChange
		}
		req, err := certificatesigningrequest.ParseRequest(csr.Spec.Request)
		if err != nil {
			return nil, fmt.Errorf("unable to parse csr %q: %w", csr.Name, err)
		}
		if err := signerRules(csr.Spec.SignerName, req, csr.Spec.Usages); err != nil {
			csr.Status.Conditions = append(csr.Status.Conditions, certificatesv1.CertificateSigningRequestCondition{
				Type:           certificatesv1.CertificateFailed,
				Status:         corev1.ConditionTrue,
				Reason:         "SignerValidationFailure",
				Message:        err.Error(),
				LastUpdateTime: metav1.NewTime(c.now()),
			})
			return csr, nil
		}
		cert, err := c.sign(req, csr.Spec.Usages, csr.Spec.ExpirationSeconds)
		if err != nil {
			return nil, fmt.Errorf("error auto signing csr: %w", err)
		}
		csr.Status.Certificate = cert
		return csr, nil
	})
	switch {
	case err == nil, errors.Is(err, errNoChange), apierrors.IsNotFound(err):
		return nil
	}
	return fmt.Errorf("sign CertificateSigningRequest %s: %w", name, err)
}

// signerRules checks a request against its signer's rules.
func signerRules(signer string, req *x509.CertificateRequest, usages []certificatesv1.KeyUsage) error {
	switch signer {
	case certificatesv1.KubeletServingSignerName:
		return validateKubeletServingCSR(req, usages)
	case certificatesv1.KubeAPIServerClientKubeletSignerName:
		return validateKubeletClientCSR(req, usages)
	case certificatesv1.KubeAPIServerClientSignerName:
		return validateAPIServerClientUsages(usages)
	}
	return nil
}

// ttl is how long a certificate lasts: the requested expirationSeconds
// within [csrMinDuration, c.duration], or c.duration.
func (c *CSRSigning) ttl(expirationSeconds *int32) time.Duration {
	if expirationSeconds == nil {
		return c.duration
	}
	return min(max(time.Duration(*expirationSeconds)*time.Second, csrMinDuration), c.duration)
}

// sign issues the certificate req asks for, PEM encoded, as upstream's
// permissive signing policy does: the request's subject, names and
// extensions, usages as key and extended key usages, not a CA, from
// csrBackdate ago, and never past the CA's own end.
func (c *CSRSigning) sign(req *x509.CertificateRequest, usages []certificatesv1.KeyUsage, expirationSeconds *int32) ([]byte, error) {
	if err := req.CheckSignature(); err != nil {
		return nil, fmt.Errorf("unable to verify certificate request signature: %w", err)
	}
	keyUsage, extKeyUsage, err := x509Usages(usages)
	if err != nil {
		return nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		return nil, fmt.Errorf("unable to generate a serial number for %s: %w", req.Subject.CommonName, err)
	}
	now, ttl, caEnd := c.now(), c.ttl(expirationSeconds), c.ca.Cert.NotAfter
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               req.Subject,
		DNSNames:              req.DNSNames,
		IPAddresses:           req.IPAddresses,
		EmailAddresses:        req.EmailAddresses,
		URIs:                  req.URIs,
		PublicKeyAlgorithm:    req.PublicKeyAlgorithm,
		PublicKey:             req.PublicKey,
		KeyUsage:              keyUsage,
		ExtKeyUsage:           extKeyUsage,
		BasicConstraintsValid: true,
		NotBefore:             now.Add(-csrBackdate),
		NotAfter:              now.Add(ttl),
	}
	if ttl >= csrShort {
		tmpl.NotAfter = now.Add(ttl - csrBackdate)
	}
	if !tmpl.NotAfter.Before(caEnd) {
		tmpl.NotAfter = caEnd
	}
	if !now.Before(caEnd) {
		return nil, fmt.Errorf("refusing to sign a certificate that expired in the past: NotAfter=%v", caEnd)
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, c.ca.Cert, req.PublicKey, c.ca.Key)
	if err != nil {
		return nil, fmt.Errorf("failed to sign certificate: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), nil
}

// keyUsages and extKeyUsages map a request's usages to a certificate's.
var (
	keyUsages = map[certificatesv1.KeyUsage]x509.KeyUsage{
		certificatesv1.UsageSigning:           x509.KeyUsageDigitalSignature,
		certificatesv1.UsageDigitalSignature:  x509.KeyUsageDigitalSignature,
		certificatesv1.UsageContentCommitment: x509.KeyUsageContentCommitment,
		certificatesv1.UsageKeyEncipherment:   x509.KeyUsageKeyEncipherment,
		certificatesv1.UsageKeyAgreement:      x509.KeyUsageKeyAgreement,
		certificatesv1.UsageDataEncipherment:  x509.KeyUsageDataEncipherment,
		certificatesv1.UsageCertSign:          x509.KeyUsageCertSign,
		certificatesv1.UsageCRLSign:           x509.KeyUsageCRLSign,
		certificatesv1.UsageEncipherOnly:      x509.KeyUsageEncipherOnly,
		certificatesv1.UsageDecipherOnly:      x509.KeyUsageDecipherOnly,
	}
	extKeyUsages = map[certificatesv1.KeyUsage]x509.ExtKeyUsage{
		certificatesv1.UsageAny:             x509.ExtKeyUsageAny,
		certificatesv1.UsageServerAuth:      x509.ExtKeyUsageServerAuth,
		certificatesv1.UsageClientAuth:      x509.ExtKeyUsageClientAuth,
		certificatesv1.UsageCodeSigning:     x509.ExtKeyUsageCodeSigning,
		certificatesv1.UsageEmailProtection: x509.ExtKeyUsageEmailProtection,
		certificatesv1.UsageSMIME:           x509.ExtKeyUsageEmailProtection,
		certificatesv1.UsageIPsecEndSystem:  x509.ExtKeyUsageIPSECEndSystem,
		certificatesv1.UsageIPsecTunnel:     x509.ExtKeyUsageIPSECTunnel,
		certificatesv1.UsageIPsecUser:       x509.ExtKeyUsageIPSECUser,
		certificatesv1.UsageTimestamping:    x509.ExtKeyUsageTimeStamping,
		certificatesv1.UsageOCSPSigning:     x509.ExtKeyUsageOCSPSigning,
		certificatesv1.UsageMicrosoftSGC:    x509.ExtKeyUsageMicrosoftServerGatedCrypto,
		certificatesv1.UsageNetscapeSGC:     x509.ExtKeyUsageNetscapeServerGatedCrypto,
	}
)

// x509Usages maps usages to a certificate's key usage bits and its
// extended key usages (sorted, each once).
func x509Usages(usages []certificatesv1.KeyUsage) (x509.KeyUsage, []x509.ExtKeyUsage, error) {
	var ku x509.KeyUsage
	var ext []x509.ExtKeyUsage
	var unknown []certificatesv1.KeyUsage
	for _, u := range usages {
		if k, ok := keyUsages[u]; ok {
			ku |= k
		} else if e, ok := extKeyUsages[u]; ok {
			if !slices.Contains(ext, e) {
				ext = append(ext, e)
			}
		} else {
			unknown = append(unknown, u)
		}
	}
	if len(unknown) > 0 {
		return 0, nil, fmt.Errorf("unrecognized usage values: %q", unknown)
	}
	slices.Sort(ext)
	return ku, ext, nil
}
