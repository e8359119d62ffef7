package controllers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/registry/certificates/certificatesigningrequest"
	"github.com/fakeplane/fakeplane/store"
)

// csrApproval is one kind of request the approver approves: those
// recognize accepts, when their requester may create the
// certificatesigningrequests subresource.
type csrApproval struct {
	subresource string
	message     string
	recognize   func(csr *certificatesv1.CertificateSigningRequest, req parsedCSR) bool
}

// parsedCSR is what the approver reads of a request's spec.request: its
// subject's common name, and why it breaks the kubelet client rules (nil
// when it does not).
type parsedCSR struct {
	commonName    string
	nodeClientErr error
}

// csrApprovals are upstream's, in its order: a node asking for its own
// client certificate, then anyone asking for a node's.
var csrApprovals = []csrApproval{
	{
		subresource: "selfnodeclient",
		message:     "Auto approving self kubelet client certificate after SubjectAccessReview.",
		recognize: func(csr *certificatesv1.CertificateSigningRequest, req parsedCSR) bool {
			return csr.Spec.Username == req.commonName && isNodeClientCSR(csr, req)
		},
	},
	{
		subresource: "nodeclient",
		message:     "Auto approving kubelet client certificate after SubjectAccessReview.",
		recognize:   isNodeClientCSR,
	},
}

// isNodeClientCSR reports whether csr asks for a kubelet's client
// certificate that follows the kube-apiserver-client-kubelet rules.
func isNodeClientCSR(csr *certificatesv1.CertificateSigningRequest, req parsedCSR) bool {
	return csr.Spec.SignerName == certificatesv1.KubeAPIServerClientKubeletSignerName && req.nodeClientErr == nil
}

// CSRApproving approves the CertificateSigningRequests of kubelets' client
// certificates whose requesters the authorizer allows to create
// certificatesigningrequests/selfnodeclient (a node's for itself) or
// certificatesigningrequests/nodeclient, as kube-controller-manager's
// certificatesigningrequest-approving-controller does (reason
// AutoApproved). It leaves the others pending. It writes through the
// approval subresource, as kube-system/certificate-controller.
type CSRApproving struct {
	reg   registry.Interface
	authz authorizer.Authorizer
	log   *slog.Logger
	user  user.Info
	// pending are the requests to look at.
	pending map[string]bool
}

// NewCSRApproving returns the approving controller, asking authz, writing
// through reg and logging to log (nil: slog.Default()).
func NewCSRApproving(reg registry.Interface, authz authorizer.Authorizer, log *slog.Logger) *CSRApproving {
	if log == nil {
		log = slog.Default()
	}
	return &CSRApproving{reg: reg, authz: authz, log: log, user: controllerUser(csrUser), pending: map[string]bool{}}
}

// Name implements Controller.
func (c *CSRApproving) Name() string { return CSRApprovingName }

// Resources implements Controller.
func (c *CSRApproving) Resources() []string { return []string{csrsBucket} }

// Sync implements Controller.
func (c *CSRApproving) Sync(ctx context.Context, events []store.Event) error {
	return syncCSRs(ctx, c.log, c.user, c.pending, events, undecided, c.handle)
}

// undecided reports whether csr is neither issued, approved nor denied.
func undecided(csr *certificatesv1.CertificateSigningRequest) bool {
	approved, denied := approvedOrDenied(csr)
	return len(csr.Status.Certificate) == 0 && !approved && !denied
}

// handle approves the request name if a recognizer accepts it and the
// authorizer allows its requester.
func (c *CSRApproving) handle(ctx context.Context, name string) error {
	_, err := c.reg.UpdateSubresource(ctx, csrsGVR, "approval", "", name, func(cur runtime.Object) (runtime.Object, error) {
		csr := cur.(*certificatesv1.CertificateSigningRequest)
		if !undecided(csr) {
			return nil, errNoChange
		}
		parsed, err := certificatesigningrequest.ParseRequest(csr.Spec.Request)
		if err != nil {
			return nil, fmt.Errorf("unable to parse csr %q: %w", csr.Name, err)
		}
		req := parsedCSR{commonName: parsed.Subject.CommonName, nodeClientErr: validateKubeletClientCSR(parsed, csr.Spec.Usages)}
		for _, a := range csrApprovals {
			if !a.recognize(csr, req) {
				continue
			}
			if c.requesterMay(ctx, csr, a.subresource) {
				csr.Status.Conditions = append(csr.Status.Conditions, certificatesv1.CertificateSigningRequestCondition{
					Type:    certificatesv1.CertificateApproved,
					Status:  corev1.ConditionTrue,
					Reason:  "AutoApproved",
					Message: a.message,
				})
				return csr, nil
			}
		}
		return nil, errNoChange
	})
	switch {
	case err == nil, errors.Is(err, errNoChange), apierrors.IsNotFound(err):
		return nil
	}
	return fmt.Errorf("approve CertificateSigningRequest %s: %w", name, err)
}

// requesterMay asks the authorizer whether the user who made csr may create
// certificatesigningrequests/subresource, as the SubjectAccessReview
// upstream's approver creates (an evaluation error is no permission, as
// the review's allowed is false then).
func (c *CSRApproving) requesterMay(ctx context.Context, csr *certificatesv1.CertificateSigningRequest, subresource string) bool {
	extra := map[string][]string{}
	for k, v := range csr.Spec.Extra {
		extra[k] = v
	}
	decision, _, _ := c.authz.Authorize(ctx, authorizer.AttributesRecord{
		User:            &user.DefaultInfo{Name: csr.Spec.Username, UID: csr.Spec.UID, Groups: csr.Spec.Groups, Extra: extra},
		Verb:            "create",
		APIGroup:        csrResource.Group,
		APIVersion:      "*",
		Resource:        csrResource.Resource,
		Subresource:     subresource,
		ResourceRequest: true,
	})
	return decision == authorizer.DecisionAllow
}
