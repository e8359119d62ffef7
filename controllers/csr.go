package controllers

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"

	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
)

// csrsBucket is the store bucket of CertificateSigningRequests.
const csrsBucket = "certificates.k8s.io/certificatesigningrequests"

var csrsGVR = certificatesv1.SchemeGroupVersion.WithResource("certificatesigningrequests")

// legacyUnknownSignerName is certificates.k8s.io/v1beta1's signer of
// requests that named none; v1 refuses it, but a request stored through
// v1beta1 may still carry it.
const legacyUnknownSignerName = "kubernetes.io/legacy-unknown"

// csrUser is the service account kube-controller-manager's three
// CertificateSigningRequest controllers act as.
const csrUser = "certificate-controller"

// syncCSRs is the Sync of the signer and the approver: it remembers in
// pending the requests among events that wants accepts (forgetting the
// others), then hands each remembered name to handle, in name order, as
// user under the field manager kube-controller-manager, and forgets those
// handle handled.
func syncCSRs(ctx context.Context, log *slog.Logger, u user.Info, pending map[string]bool, events []store.Event,
	wants func(*certificatesv1.CertificateSigningRequest) bool, handle func(ctx context.Context, name string) error) error {
	for _, ev := range events {
		if ev.Type == store.Deleted {
			delete(pending, ev.Key)
			continue
		}
		csr, err := decodeEvent[certificatesv1.CertificateSigningRequest](ev)
		if err != nil {
			log.Warn("undecodable CertificateSigningRequest", "err", err)
			continue
		}
		if wants(csr) {
			pending[ev.Key] = true
		} else {
			delete(pending, ev.Key)
		}
	}
	ctx = registry.WithFieldManager(apirequest.WithUser(ctx, u), "kube-controller-manager")
	var errs []error
	for _, name := range sortedKeys(pending) {
		if err := handle(ctx, name); err != nil {
			errs = append(errs, err)
			continue
		}
		delete(pending, name)
	}
	return errors.Join(errs...)
}

// hasTrueCondition reports whether csr has a condition of type t whose
// status is True.
func hasTrueCondition(csr *certificatesv1.CertificateSigningRequest, t certificatesv1.RequestConditionType) bool {
	return slices.ContainsFunc(csr.Status.Conditions, func(c certificatesv1.CertificateSigningRequestCondition) bool {
		return c.Type == t && c.Status == corev1.ConditionTrue
	})
}

// approvedOrDenied reports whether csr carries an Approved or a Denied
// condition, whatever its status, as upstream's GetCertApprovalCondition.
func approvedOrDenied(csr *certificatesv1.CertificateSigningRequest) (approved, denied bool) {
	for _, c := range csr.Status.Conditions {
		approved = approved || c.Type == certificatesv1.CertificateApproved
		denied = denied || c.Type == certificatesv1.CertificateDenied
	}
	return approved, denied
}

// The reasons a request is no kubelet's, in upstream's words.
var (
	errOrganizationNotSystemNodes = errors.New("subject organization is not system:nodes")
	errCommonNameNotSystemNode    = errors.New("subject common name does not begin with system:node:")
	errDNSOrIPSANRequired         = errors.New("DNS or IP subjectAltName is required")
	errDNSSANNotAllowed           = errors.New("DNS subjectAltNames are not allowed")
	errEmailSANNotAllowed         = errors.New("Email subjectAltNames are not allowed")
	errIPSANNotAllowed            = errors.New("IP subjectAltNames are not allowed")
	errURISANNotAllowed           = errors.New("URI subjectAltNames are not allowed")
)

// usagesAre reports whether usages, as a set, is exactly one of the sets
// given.
func usagesAre(usages []certificatesv1.KeyUsage, sets ...[]certificatesv1.KeyUsage) bool {
	have := map[certificatesv1.KeyUsage]bool{}
	for _, u := range usages {
		have[u] = true
	}
	for _, set := range sets {
		if len(set) == len(have) && !slices.ContainsFunc(set, func(u certificatesv1.KeyUsage) bool { return !have[u] }) {
			return true
		}
	}
	return false
}

// usagesMismatch is upstream's error for usages other than the required
// ones, which it prints as a sorted list.
func usagesMismatch(required []certificatesv1.KeyUsage) error {
	names := make([]string, len(required))
	for i, u := range required {
		names[i] = string(u)
	}
	slices.Sort(names)
	return fmt.Errorf("usages did not match [%s]", strings.Join(names, " "))
}

// kubeletServingUsages and kubeletClientUsages are the usages a kubelet's
// serving and client certificates must ask for: all of them, or all but
// key encipherment (a key that is not RSA).
var (
	kubeletServingUsages = []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature, certificatesv1.UsageKeyEncipherment, certificatesv1.UsageServerAuth}
	kubeletClientUsages  = []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature, certificatesv1.UsageKeyEncipherment, certificatesv1.UsageClientAuth}
)

// validateKubeletServingCSR checks a kubernetes.io/kubelet-serving request
// as upstream's ValidateKubeletServingCSR does, in its order.
func validateKubeletServingCSR(req *x509.CertificateRequest, usages []certificatesv1.KeyUsage) error {
	switch {
	case !slices.Equal(req.Subject.Organization, []string{"system:nodes"}):
		return errOrganizationNotSystemNodes
	case len(req.DNSNames) == 0 && len(req.IPAddresses) == 0:
		return errDNSOrIPSANRequired
	case len(req.EmailAddresses) > 0:
		return errEmailSANNotAllowed
	case len(req.URIs) > 0:
		return errURISANNotAllowed
	case !usagesAre(usages, kubeletServingUsages, withoutKeyEncipherment(kubeletServingUsages)):
		return usagesMismatch(kubeletServingUsages)
	case !strings.HasPrefix(req.Subject.CommonName, "system:node:"):
		return errCommonNameNotSystemNode
	}
	return nil
}

// validateKubeletClientCSR checks a kubernetes.io/kube-apiserver-client-kubelet
// request as upstream's ValidateKubeletClientCSR does, in its order.
func validateKubeletClientCSR(req *x509.CertificateRequest, usages []certificatesv1.KeyUsage) error {
	switch {
	case !slices.Equal(req.Subject.Organization, []string{"system:nodes"}):
		return errOrganizationNotSystemNodes
	case len(req.DNSNames) > 0:
		return errDNSSANNotAllowed
	case len(req.EmailAddresses) > 0:
		return errEmailSANNotAllowed
	case len(req.IPAddresses) > 0:
		return errIPSANNotAllowed
	case len(req.URIs) > 0:
		return errURISANNotAllowed
	case !strings.HasPrefix(req.Subject.CommonName, "system:node:"):
		return errCommonNameNotSystemNode
	case !usagesAre(usages, kubeletClientUsages, withoutKeyEncipherment(kubeletClientUsages)):
		return usagesMismatch(kubeletClientUsages)
	}
	return nil
}

// validateAPIServerClientUsages checks a kubernetes.io/kube-apiserver-client
// request's usages: client auth, with digital signature and key
// encipherment at most.
func validateAPIServerClientUsages(usages []certificatesv1.KeyUsage) error {
	hasClientAuth := false
	for _, u := range usages {
		switch u {
		case certificatesv1.UsageDigitalSignature, certificatesv1.UsageKeyEncipherment:
		case certificatesv1.UsageClientAuth:
			hasClientAuth = true
		default:
			return fmt.Errorf("invalid usage for client certificate: %s", u)
		}
	}
	if !hasClientAuth {
		return fmt.Errorf("missing required usage for client certificate: %s", certificatesv1.UsageClientAuth)
	}
	return nil
}

// withoutKeyEncipherment is usages less key encipherment.
func withoutKeyEncipherment(usages []certificatesv1.KeyUsage) []certificatesv1.KeyUsage {
	return slices.DeleteFunc(slices.Clone(usages), func(u certificatesv1.KeyUsage) bool { return u == certificatesv1.UsageKeyEncipherment })
}

// csrResource is the resource the approver asks the authorizer about,
// certificatesigningrequests with a subresource.
var csrResource = schema.GroupResource{Group: certificatesv1.GroupName, Resource: "certificatesigningrequests"}
