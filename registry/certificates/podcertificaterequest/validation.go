package podcertificaterequest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net/mail"
	"strings"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/types"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate"
)

// Upstream's limits (k8s.io/kubernetes pkg/apis/certificates).
const (
	// MaxStubPKCS10RequestSize is the longest spec.stubPKCS10Request.
	MaxStubPKCS10RequestSize = 10 * 1024
	// MaxCertificateChainSize is the longest status.certificateChain.
	MaxCertificateChainSize = 100 * 1024
	// MinMaxExpirationSeconds is the least spec.maxExpirationSeconds.
	MinMaxExpirationSeconds = 60 * 60
	// MaxMaxExpirationSeconds is the greatest spec.maxExpirationSeconds.
	MaxMaxExpirationSeconds = 91 * 24 * 60 * 60
	// KubernetesMaxMaxExpirationSeconds is the greatest
	// spec.maxExpirationSeconds for a Kubernetes signer (kubernetes.io or
	// one of its subdomains).
	KubernetesMaxMaxExpirationSeconds = 24 * 60 * 60
	// DefaultMaxExpirationSeconds is the v1 default of
	// spec.maxExpirationSeconds.
	DefaultMaxExpirationSeconds = 24 * 60 * 60
)

// The condition types of a finished request.
const (
	conditionIssued = certificatesv1.PodCertificateRequestConditionTypeIssued
	conditionDenied = certificatesv1.PodCertificateRequestConditionTypeDenied
	conditionFailed = certificatesv1.PodCertificateRequestConditionTypeFailed
)

var (
	specPath         = field.NewPath("spec")
	signerNamePath   = specPath.Child("signerName")
	pkcs10ReqPath    = specPath.Child("stubPKCS10Request")
	statusPath       = field.NewPath("status")
	certChainPath    = statusPath.Child("certificateChain")
	notBeforePath    = statusPath.Child("notBefore")
	notAfterPath     = statusPath.Child("notAfter")
	beginRefreshPath = statusPath.Child("beginRefreshAt")
)

// isKubernetesSigner is upstream's IsKubernetesSignerName: the signer's
// domain is kubernetes.io or one of its subdomains.
func isKubernetesSigner(signerName string) bool {
	domain, _, _ := strings.Cut(signerName, "/")
	return domain == "kubernetes.io" || strings.HasSuffix(domain, ".kubernetes.io")
}

// validateCreate is upstream's ValidatePodCertificateRequestCreate less the
// metadata, for the v1 type, which has the stub PKCS#10 request and not the
// older public key and proof of possession.
func validateCreate(spec *certificatesv1.PodCertificateRequestSpec) field.ErrorList {
	errs := validate.SignerName(signerNamePath, spec.SignerName)
	if spec.UnverifiedUserAnnotations != nil {
		errs = append(errs, validateUserAnnotations(spec.UnverifiedUserAnnotations, specPath.Child("unverifiedUserAnnotations"))...)
	}
	subdomain := func(name string, v string) {
		for _, msg := range apivalidation.NameIsDNSSubdomain(v, false) {
			errs = append(errs, field.Invalid(specPath.Child(name), v, msg))
		}
	}
	uid := func(name string, v types.UID) {
		if len(v) == 0 {
			errs = append(errs, field.Invalid(specPath.Child(name), v, "must not be empty"))
		}
		if len(v) > 128 {
			errs = append(errs, field.TooLong(specPath.Child(name), v, 128))
		}
	}
	subdomain("podName", spec.PodName)
	uid("podUID", spec.PodUID)
	subdomain("serviceAccountName", spec.ServiceAccountName)
	uid("serviceAccountUID", spec.ServiceAccountUID)
	subdomain("nodeName", string(spec.NodeName))
	uid("nodeUID", spec.NodeUID)

	maxPath := specPath.Child("maxExpirationSeconds")
	if spec.MaxExpirationSeconds == nil {
		return append(errs, field.Required(maxPath, "must be set"))
	}
	limit := MaxMaxExpirationSeconds
	if isKubernetesSigner(spec.SignerName) {
		limit = KubernetesMaxMaxExpirationSeconds
	}
	if v := *spec.MaxExpirationSeconds; v < MinMaxExpirationSeconds || v > int32(limit) {
		errs = append(errs, field.Invalid(maxPath, v, fmt.Sprintf("must be in the range [%d, %d]", MinMaxExpirationSeconds, limit)))
	}
	if len(spec.StubPKCS10Request) == 0 {
		return append(errs, field.Invalid(specPath, field.OmitValueType{}, "exactly one of (stubPKCS10Request) or (pkixPublicKey, proofOfPossession) must be set"))
	}
	return append(errs, validateStubPKCS10Request(spec.StubPKCS10Request)...)
}

// validateUserAnnotations is upstream's ValidateUserAnnotations: each key,
// lowercased, is a domain-prefixed key, and all fit the annotations' size
// limit. Upstream checks the keys in map order, that is in no order;
// fakeplane checks them in key order.
func validateUserAnnotations(annotations map[string]string, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, k := range validate.SortedKeys(annotations) {
		errs = append(errs, utilvalidation.IsDomainPrefixedKey(fld, strings.ToLower(k))...)
	}
	if err := apivalidation.ValidateAnnotationsSize(annotations); err != nil {
		errs = append(errs, field.TooLong(fld, "", apivalidation.TotalAnnotationSizeLimitB))
	}
	return errs
}

// validateStubPKCS10Request is upstream's check of the stub request: a
// PKCS#10 request of at most MaxStubPKCS10RequestSize bytes for an Ed25519,
// ECDSA (P-256, P-384, P-521) or RSA (3072 or 4096 bits) key, signed by it.
// Its first error is its only one.
func validateStubPKCS10Request(der []byte) field.ErrorList {
	invalid := func(v any, detail string) field.ErrorList {
		return field.ErrorList{field.Invalid(pkcs10ReqPath, v, detail)}
	}
	if len(der) > MaxStubPKCS10RequestSize {
		return field.ErrorList{field.TooLong(pkcs10ReqPath, der, MaxStubPKCS10RequestSize)}
	}
	req, err := x509.ParseCertificateRequest(der)
	if err != nil {
		return invalid(field.OmitValueType{}, "must be a valid PKCS#10 CSR")
	}
	switch pub := req.PublicKey.(type) {
	case ed25519.PublicKey:
	case *ecdsa.PublicKey:
		if c := pub.Curve; c != elliptic.P256() && c != elliptic.P384() && c != elliptic.P521() {
			return invalid("curve "+c.Params().Name, "elliptic public keys must use curve P256, P384, or P521")
		}
	case *rsa.PublicKey:
		if bits := pub.Size() * 8; bits != 3072 && bits != 4096 {
			return invalid(fmt.Sprintf("%d-bit modulus", bits), "RSA keys must have modulus size 3072 or 4096")
		}
	default:
		return invalid(field.OmitValueType{}, "unknown public key type; supported types are Ed25519, ECDSA, and RSA")
	}
	if err := req.CheckSignature(); err != nil {
		return invalid(field.OmitValueType{}, "invalid signature")
	}
	return nil
}

// statusConditionPath is where upstream reports the i-th condition's
// field in its own checks: "status.conditions.[i].<name>" (the index as a
// child), unlike the condition checks it shares with other kinds.
func statusConditionPath(i int, name string) *field.Path {
	return statusPath.Child("conditions", fmt.Sprintf("[%d]", i), name)
}

// hasCondition reports whether st has a condition of type t with status
// True.
func hasCondition(st *certificatesv1.PodCertificateRequestStatus, t string) bool {
	for _, c := range st.Conditions {
		if c.Type == t && c.Status == metav1.ConditionTrue {
			return true
		}
	}
	return false
}

// finished reports whether st has one of the terminal conditions.
func finished(st *certificatesv1.PodCertificateRequestStatus) bool {
	return hasCondition(st, conditionIssued) || hasCondition(st, conditionDenied) || hasCondition(st, conditionFailed)
}

// mustEqual is one Invalid error at status, its value omitted, when a and b
// differ semantically.
func mustEqual(a, b *certificatesv1.PodCertificateRequestStatus, detail string) field.ErrorList {
	if equality.Semantic.DeepEqual(a, b) {
		return nil
	}
	return field.ErrorList{field.Invalid(statusPath, field.OmitValueType{}, detail)}
}

// validateStatusUpdate is upstream's ValidatePodCertificateRequestStatusUpdate
// less the metadata (the server checks it, and a write to /status keeps the
// stored metadata): the conditions (at most one terminal one, True), then a
// finished request's status is immutable, a denial or failure sets only
// conditions, an issuance sets a certificate chain for the requested key
// with matching times, and any other write leaves the status alone. now
// is the server's clock.
func validateStatusUpdate(n, o *certificatesv1.PodCertificateRequest, now time.Time) field.ErrorList {
	var errs field.ErrorList
	terminal := 0
	for i, c := range n.Status.Conditions {
		switch c.Type {
		case conditionIssued, conditionDenied, conditionFailed:
			terminal++
			if terminal > 1 {
				errs = append(errs, field.Invalid(statusConditionPath(i, "type"), c.Type, `There may be at most one condition with type "Issued", "Denied", or "Failed"`))
			}
			if c.Status != metav1.ConditionTrue {
				errs = append(errs, field.NotSupported(statusConditionPath(i, "status"), c.Status, []metav1.ConditionStatus{metav1.ConditionTrue}))
			}
		default:
			errs = append(errs, field.NotSupported(statusConditionPath(i, "type"), c.Type, []string{conditionIssued, conditionDenied, conditionFailed}))
		}
	}
	errs = append(errs, metav1validation.ValidateConditions(n.Status.Conditions, statusPath.Child("conditions"))...)
	if len(errs) > 0 {
		return errs
	}
	switch {
	case finished(&o.Status):
		return mustEqual(&n.Status, &o.Status, "immutable after PodCertificateRequest is issued, denied, or failed")
	case hasCondition(&n.Status, conditionDenied) || hasCondition(&n.Status, conditionFailed):
		want := certificatesv1.PodCertificateRequestStatus{Conditions: n.Status.Conditions}
		return mustEqual(&n.Status, &want, "non-condition status fields must be empty when denying or failing the PodCertificateRequest")
	case hasCondition(&n.Status, conditionIssued):
		return validateIssued(n, o, now)
	}
	return mustEqual(&n.Status, &o.Status, `status is immutable unless transitioning to "Issued", "Denied", or "Failed"`)
}

// validateIssued is upstream's check of an issuance: the chain's leaf
// certificate (its names, its key, its times against the status's, the
// spec's and now's) and the rest of the chain. It stops at the first error
// but for the names' and the missing times'.
func validateIssued(n, o *certificatesv1.PodCertificateRequest, now time.Time) field.ErrorList {
	st := &n.Status
	chain := st.CertificateChain
	one := func(fld *field.Path, v any, detail string) field.ErrorList {
		return field.ErrorList{field.Invalid(fld, v, detail)}
	}
	if len(chain) > MaxCertificateChainSize {
		return field.ErrorList{field.TooLong(certChainPath, chain, MaxCertificateChainSize)}
	}
	leafBlock, rest := pem.Decode([]byte(chain))
	if leafBlock == nil {
		return one(certChainPath, chain, "issued certificate chain must contain at least one certificate")
	}
	if leafBlock.Type != "CERTIFICATE" {
		return one(certChainPath, chain, "issued certificate chain must consist entirely of CERTIFICATE PEM blocks")
	}
	leaf, err := x509.ParseCertificate(leafBlock.Bytes)
	if err != nil {
		return one(certChainPath, chain, "leaf certificate does not parse as valid X.509")
	}
	var errs field.ErrorList
	for _, name := range leaf.DNSNames {
		if name == "" {
			errs = append(errs, field.Invalid(certChainPath, name, "leaf certificate should not contain empty DNSName"))
		}
		if strings.Contains(name, "..") {
			errs = append(errs, field.Invalid(certChainPath, name, "leaf certificate's DNSName should not contain '..'"))
		}
		if strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".") {
			errs = append(errs, field.Invalid(certChainPath, name, "leaf certificate's DNSName should not start or end with '.'"))
		}
	}
	for _, addr := range leaf.EmailAddresses {
		if _, err := mail.ParseAddress(addr); err != nil {
			errs = append(errs, field.Invalid(certChainPath, addr, "leaf certificate should not contain invalid EmailAddress"))
		}
	}

	req, err := x509.ParseCertificateRequest(o.Spec.StubPKCS10Request)
	if err != nil {
		return append(errs, field.Invalid(pkcs10ReqPath, field.OmitValueType{}, "must be a valid PKCS#10 CSR"))
	}
	type equaler interface{ Equal(crypto.PublicKey) bool }
	switch want := req.PublicKey.(type) {
	case ed25519.PublicKey, *rsa.PublicKey, *ecdsa.PublicKey:
		if !want.(equaler).Equal(leaf.PublicKey) {
			return append(errs, field.Invalid(certChainPath, chain, "leaf certificate was not issued to the requested public key"))
		}
	}

	if st.NotBefore == nil {
		errs = append(errs, field.Required(notBeforePath, "must be present and consistent with the issued certificate"))
	}
	if st.NotAfter == nil {
		errs = append(errs, field.Required(notAfterPath, "must be present and consistent with the issued certificate"))
	}
	if st.BeginRefreshAt == nil {
		errs = append(errs, field.Required(beginRefreshPath, "must be present and in the range [notbefore+10min, notafter-10min]"))
	}
	if len(errs) > 0 {
		return errs
	}
	notBefore, notAfter, refresh := st.NotBefore.Time, st.NotAfter.Time, st.BeginRefreshAt.Time
	if !notBefore.Equal(leaf.NotBefore) {
		return one(notBeforePath, notBefore, "must be set to the NotBefore time encoded in the leaf certificate")
	}
	if !(notBefore.After(now.Add(-5*time.Minute)) && notBefore.Before(now.Add(5*time.Minute))) {
		return one(notBeforePath, notBefore, "must be set to within 5 minutes of kube-apiserver's current time")
	}
	if !notAfter.Equal(leaf.NotAfter) {
		return one(notAfterPath, notAfter, "must be set to the NotAfter time encoded in the leaf certificate")
	}
	lifetime := leaf.NotAfter.Sub(leaf.NotBefore)
	if lifetime < time.Hour {
		return one(certChainPath, lifetime, "leaf certificate lifetime must be >= 1 hour")
	}
	// The spec's maxExpirationSeconds is set (by default) on every v1
	// request; one stored without it has no upper limit.
	if m := n.Spec.MaxExpirationSeconds; m != nil && lifetime > time.Duration(*m)*time.Second {
		return one(certChainPath, lifetime, fmt.Sprintf("leaf certificate lifetime must be <= spec.maxExpirationSeconds (%v)", *m))
	}
	if refresh.Before(notBefore.Add(10 * time.Minute)) {
		return one(beginRefreshPath, refresh, "must be at least 10 minutes after status.notBefore")
	}
	if refresh.After(notAfter.Add(-10 * time.Minute)) {
		return one(beginRefreshPath, refresh, "must be at least 10 minutes before status.notAfter")
	}
	for {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			return nil
		}
		if b.Type != "CERTIFICATE" {
			// Upstream's message, misspelt.
			return one(certChainPath, chain, "issued certificate chain must consist entirely of CERTFICATE PEM blocks")
		}
		if _, err := x509.ParseCertificate(b.Bytes); err != nil {
			return one(certChainPath, chain, "intermediate certificate does not parse as valid X.509")
		}
	}
}
