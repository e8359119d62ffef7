package certificatesigningrequest

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"slices"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/operation"
	apivalidate "k8s.io/apimachinery/pkg/api/validate"
	"k8s.io/apimachinery/pkg/util/diff"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate"
)

// checkOptions are what one of upstream's ways of writing a request lets
// through: the approval subresource sets the Approved and Denied
// conditions, the status subresource the certificate, and an update keeps
// what the stored request already breaks (checkOptionsFor).
type checkOptions struct {
	// approvalConditions lets Approved and Denied conditions be added or
	// changed (/approval).
	approvalConditions bool
	// setCertificate lets status.certificate be set (/status).
	setCertificate bool
	// bothApprovedAndDenied lets the two conditions be together.
	bothApprovedAndDenied bool
	// legacySignerName lets the signer name be the legacy one.
	legacySignerName bool
	// duplicateConditionTypes lets two conditions have one type.
	duplicateConditionTypes bool
	// emptyConditionType lets a condition have no type.
	emptyConditionType bool
	// arbitraryCertificate skips the check of status.certificate.
	arbitraryCertificate bool
	// unknownUsages lets usages be other than the known ones.
	unknownUsages bool
	// duplicateUsages lets a usage be given twice.
	duplicateUsages bool
}

// checkOptionsFor is upstream's getValidationOptions: what the stored
// request old (nil on create) already has is let through, and an unchanged
// certificate is not checked again.
func checkOptionsFor(n, old *certificatesv1.CertificateSigningRequest) checkOptions {
	if old == nil {
		return checkOptions{}
	}
	types := map[certificatesv1.RequestConditionType]int{}
	for _, c := range old.Status.Conditions {
		types[c.Type]++
	}
	opts := checkOptions{
		bothApprovedAndDenied: types[certificatesv1.CertificateApproved] > 0 && types[certificatesv1.CertificateDenied] > 0,
		legacySignerName:      old.Spec.SignerName == legacySignerName,
		emptyConditionType:    types[""] > 0,
		arbitraryCertificate: bytes.Equal(n.Status.Certificate, old.Status.Certificate) ||
			checkCertificate(old.Status.Certificate) != nil,
	}
	for _, count := range types {
		opts.duplicateConditionTypes = opts.duplicateConditionTypes || count > 1
	}
	usages := map[certificatesv1.KeyUsage]bool{}
	for _, u := range old.Spec.Usages {
		opts.unknownUsages = opts.unknownUsages || !slices.Contains(keyUsages, string(u))
		opts.duplicateUsages = opts.duplicateUsages || usages[u]
		usages[u] = true
	}
	return opts
}

// validateRequest is upstream's validateCertificateSigningRequest less the
// metadata: the spec, the conditions and the certificate.
func validateRequest(csr *certificatesv1.CertificateSigningRequest, opts checkOptions) field.ErrorList {
	errs := validateSpec(csr, opts)
	errs = append(errs, validateConditions(csr, opts)...)
	if !opts.arbitraryCertificate {
		if err := checkCertificate(csr.Status.Certificate); err != nil {
			errs = append(errs, field.Invalid(field.NewPath("status", "certificate"), "<certificate data>", err.Error()))
		}
	}
	return errs
}

// trueOnly are the condition types whose status may only be True.
var trueOnly = []certificatesv1.RequestConditionType{
	certificatesv1.CertificateApproved, certificatesv1.CertificateDenied, certificatesv1.CertificateFailed,
}

// validateConditions checks a request's conditions: a type and status each,
// True only for Approved, Denied and Failed, Approved and Denied not
// together, no type twice (opts may let the stored request's faults
// through). Approved with Denied is also a declarative rule (beta),
// declareConditions's, which answers for it: the handwritten error is
// marked as covered.
func validateConditions(csr *certificatesv1.CertificateSigningRequest, opts checkOptions) field.ErrorList {
	fld := field.NewPath("status", "conditions")
	var errs field.ErrorList
	seen := map[certificatesv1.RequestConditionType]bool{}
	var approved, denied bool
	for i, c := range csr.Status.Conditions {
		at := fld.Index(i)
		if c.Type == "" && !opts.emptyConditionType {
			errs = append(errs, field.Required(at.Child("type"), ""))
		}
		allowed := []string{string(corev1.ConditionFalse), string(corev1.ConditionTrue), string(corev1.ConditionUnknown)}
		if slices.Contains(trueOnly, c.Type) {
			allowed = []string{string(corev1.ConditionTrue)}
		}
		switch {
		case c.Status == "":
			errs = append(errs, field.Required(at.Child("status"), ""))
		case !slices.Contains(allowed, string(c.Status)):
			errs = append(errs, field.NotSupported(at.Child("status"), c.Status, allowed))
		}
		if !opts.bothApprovedAndDenied {
			approved = approved || c.Type == certificatesv1.CertificateApproved
			denied = denied || c.Type == certificatesv1.CertificateDenied
			if approved && denied && (c.Type == certificatesv1.CertificateApproved || c.Type == certificatesv1.CertificateDenied) {
				errs = append(errs, field.Invalid(fld, c.Type, "Approved and Denied conditions are mutually exclusive").
					WithOrigin("zeroOrOneOf").MarkCoveredByDeclarative())
			}
		}
		if !opts.duplicateConditionTypes {
			if seen[c.Type] {
				errs = append(errs, field.Duplicate(at.Child("type"), c.Type))
			}
			seen[c.Type] = true
		}
	}
	return errs
}

// checkCertificate checks status.certificate: empty, or one or more PEM
// CERTIFICATE blocks without headers, each holding certificates that
// parse, with upstream's errors.
func checkCertificate(data []byte) error {
	if len(data) == 0 {
		return nil
	}
	found := false
	for rest := data; ; {
		block, after := pem.Decode(rest)
		if block == nil {
			break
		}
		switch certs, err := x509.ParseCertificates(block.Bytes); {
		case block.Type != "CERTIFICATE":
			return fmt.Errorf("only CERTIFICATE PEM blocks are allowed, found %q", block.Type)
		case len(block.Headers) > 0:
			return errors.New("no PEM block headers are permitted")
		case err != nil:
			return err
		case len(certs) == 0:
			return errors.New("found CERTIFICATE PEM block containing 0 certificates")
		}
		found, rest = true, after
	}
	if !found {
		return errors.New("must contain at least one CERTIFICATE PEM block")
	}
	return nil
}

// conditionsOf returns csr's conditions of type t.
func conditionsOf(csr *certificatesv1.CertificateSigningRequest, t certificatesv1.RequestConditionType) []certificatesv1.CertificateSigningRequestCondition {
	var out []certificatesv1.CertificateSigningRequestCondition
	for _, c := range csr.Status.Conditions {
		if c.Type == t {
			out = append(out, c)
		}
	}
	return out
}

// validateRequestUpdate is upstream's validateCertificateSigningRequestUpdate
// less the metadata: the request as a whole, then no Approved, Denied or
// Failed condition removed, the Approved and Denied conditions unchanged
// unless opts lets them be set, and status.certificate unchanged unless
// opts lets it be set, once.
func validateRequestUpdate(n, old *certificatesv1.CertificateSigningRequest, opts checkOptions) field.ErrorList {
	errs := validateRequest(n, opts)
	conds := field.NewPath("status", "conditions")
	for _, t := range trueOnly {
		if len(conditionsOf(n, t)) < len(conditionsOf(old, t)) {
			errs = append(errs, field.Forbidden(conds, fmt.Sprintf("updates may not remove a condition of type %q", t)))
		}
	}
	if !opts.approvalConditions {
		for _, t := range []certificatesv1.RequestConditionType{certificatesv1.CertificateApproved, certificatesv1.CertificateDenied} {
			was, is := conditionsOf(old, t), conditionsOf(n, t)
			switch {
			case len(is) < len(was):
				// Refused above.
			case len(is) > len(was):
				errs = append(errs, field.Forbidden(conds, fmt.Sprintf("updates may not add a condition of type %q", t)))
			case !equality.Semantic.DeepEqual(was, is):
				errs = append(errs, field.Forbidden(conds, fmt.Sprintf("updates may not modify a condition of type %q\n%v", t,
					diff.Diff(validate.InternalValue(was), validate.InternalValue(is)))))
			}
		}
	}
	if !bytes.Equal(n.Status.Certificate, old.Status.Certificate) {
		cert := field.NewPath("status", "certificate")
		switch {
		case !opts.setCertificate:
			errs = append(errs, field.Forbidden(cert, "updates may not set certificate content"))
		case len(old.Status.Certificate) > 0:
			errs = append(errs, field.Forbidden(cert, "updates may not modify existing certificate content"))
		}
	}
	return errs
}

// approvalUnion is the declarative union of the conditions: at most one of
// an Approved and a Denied condition.
var approvalUnion = apivalidate.NewUnionMembership(
	apivalidate.NewUnionMember(`conditions[{"type": "Approved"}]`),
	apivalidate.NewUnionMember(`conditions[{"type": "Denied"}]`),
)

// declareConditions is the declarative validation of an update of a
// request (the tags of k8s.io/api's types; the union is beta in v1.37):
// status.conditions holds at most one of an Approved and a Denied
// condition. An unchanged status or condition list, or one whose union
// members (which of the two it has) are those of the stored one, is not
// validated again.
func declareConditions(st, old *certificatesv1.CertificateSigningRequestStatus) field.ErrorList {
	if equality.Semantic.DeepEqual(st, old) || equality.Semantic.DeepEqual(st.Conditions, old.Conditions) ||
		len(st.Conditions) == 0 {
		return nil
	}
	has := func(t certificatesv1.RequestConditionType) func([]certificatesv1.CertificateSigningRequestCondition) bool {
		return func(conds []certificatesv1.CertificateSigningRequestCondition) bool {
			return slices.ContainsFunc(conds, func(c certificatesv1.CertificateSigningRequestCondition) bool { return c.Type == t })
		}
	}
	return apivalidate.ZeroOrOneOfUnion(context.Background(), operation.Operation{Type: operation.Update},
		field.NewPath("status", "conditions"), st.Conditions, old.Conditions, approvalUnion,
		has(certificatesv1.CertificateApproved), has(certificatesv1.CertificateDenied)).MarkBeta()
}
