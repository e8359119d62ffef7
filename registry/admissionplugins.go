package registry

// The glue between builtinPlugins' entries and the plugins' logic in
// package admission: RuntimeClass, CertificateApproval,
// CertificateSigning, ClusterTrustBundleAttest,
// CertificateSubjectRestriction and DefaultIngressClass read what they
// need from the store and the server's authorizer here.

import (
	"errors"
	"fmt"

	certificatesv1 "k8s.io/api/certificates/v1"
	certificatesv1beta1 "k8s.io/api/certificates/v1beta1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	nodev1 "k8s.io/api/node/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"

	admissionplugins "github.com/fakeplane/fakeplane/admission"
	"github.com/fakeplane/fakeplane/store"
)

// handlesOn is a builtinPlugin's handles: ops on group/resource's
// subresource sub ("" for the resource itself).
func handlesOn(group, resource, sub string, ops ...admission.Operation) func(admission.Operation, schema.GroupResource, string) bool {
	return func(op admission.Operation, gr schema.GroupResource, s string) bool {
		if gr.Group != group || gr.Resource != resource || s != sub {
			return false
		}
		for _, o := range ops {
			if o == op {
				return true
			}
		}
		return false
	}
}

// getTyped reads the stored object of a built-in resource, or an error
// wrapping store.ErrNotFound.
func getTyped[T any](s *Registry, group, resource, ns, name string) (*T, error) {
	r, ok := s.served.Lookup(group, "v1", resource)
	if !ok {
		return nil, fmt.Errorf("%s.%s %q: %w", resource, group, name, store.ErrNotFound)
	}
	it, err := s.store.Get(r.Bucket, ObjectKey(ns, name))
	if err != nil {
		return nil, fmt.Errorf("%s.%s %q: %w", resource, group, name, err)
	}
	v := new(T)
	if err := JSONUnmarshal(it.Value, v); err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	return v, nil
}

// runtimeClassPod is the pod of a RuntimeClass admission and the
// RuntimeClass it names (nil when it names none).
func (s *Registry) runtimeClassPod(a admission.Attributes) (*corev1.Pod, *nodev1.RuntimeClass, error) {
	pod, ok := a.GetObject().(*corev1.Pod)
	if !ok {
		return nil, nil, apierrors.NewBadRequest("Resource was marked with kind Pod but was unable to be converted")
	}
	if pod.Spec.RuntimeClassName == nil {
		return pod, nil, nil
	}
	rc, err := getTyped[nodev1.RuntimeClass](s, "node.k8s.io", "runtimeclasses", "", *pod.Spec.RuntimeClassName)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil, admissionplugins.RuntimeClassNotFound(*pod.Spec.RuntimeClassName)
	}
	if err != nil {
		return nil, nil, err
	}
	return pod, rc, nil
}

// admitRuntimeClass is the RuntimeClass plugin's mutating half.
func admitRuntimeClass(s *Registry, _ *Request, a admission.Attributes) error {
	pod, rc, err := s.runtimeClassPod(a)
	if err != nil {
		return err
	}
	return admissionplugins.AdmitRuntimeClass(pod, rc)
}

// validateRuntimeClass is the RuntimeClass plugin's validating half.
func validateRuntimeClass(s *Registry, _ *Request, a admission.Attributes) error {
	pod, rc, err := s.runtimeClassPod(a)
	if err != nil {
		return err
	}
	return admissionplugins.ValidateRuntimeClass(pod, rc)
}

// validateCertificateApproval is the CertificateApproval plugin.
func validateCertificateApproval(s *Registry, c *Request, a admission.Attributes) error {
	if s.hooks.Authorizer == nil {
		return nil
	}
	old, ok := a.GetOldObject().(*certificatesv1.CertificateSigningRequest)
	if !ok {
		return fmt.Errorf("expected type CertificateSigningRequest, got: %T", a.GetOldObject())
	}
	return admissionplugins.ValidateCertificateApproval(c.Context(), s.hooks.Authorizer, a.GetUserInfo(), old)
}

// validateCertificateSigning is the CertificateSigning plugin.
func validateCertificateSigning(s *Registry, c *Request, a admission.Attributes) error {
	if s.hooks.Authorizer == nil {
		return nil
	}
	old, ok := a.GetOldObject().(*certificatesv1.CertificateSigningRequest)
	if !ok {
		return fmt.Errorf("expected type CertificateSigningRequest, got: %T", a.GetOldObject())
	}
	csr, ok := a.GetObject().(*certificatesv1.CertificateSigningRequest)
	if !ok {
		return fmt.Errorf("expected type CertificateSigningRequest, got: %T", a.GetObject())
	}
	return admissionplugins.ValidateCertificateSigning(c.Context(), s.hooks.Authorizer, a.GetUserInfo(), csr, old)
}

// validateClusterTrustBundleAttest is the ClusterTrustBundleAttest plugin.
func validateClusterTrustBundleAttest(s *Registry, c *Request, a admission.Attributes) error {
	if s.hooks.Authorizer == nil {
		return nil
	}
	var signer string
	switch b := a.GetObject().(type) {
	case *certificatesv1.ClusterTrustBundle:
		signer = b.Spec.SignerName
	case *certificatesv1beta1.ClusterTrustBundle:
		signer = b.Spec.SignerName
	default:
		return fmt.Errorf("expected type ClusterTrustBundle, got: %T", a.GetOldObject())
	}
	return admissionplugins.ValidateClusterTrustBundleAttest(c.Context(), s.hooks.Authorizer, a.GetUserInfo(), signer, a.GetObject(), a.GetOldObject())
}

// validateCertificateSubjectRestriction is the
// CertificateSubjectRestriction plugin.
func validateCertificateSubjectRestriction(_ *Registry, _ *Request, a admission.Attributes) error {
	csr, ok := a.GetObject().(*certificatesv1.CertificateSigningRequest)
	if !ok {
		return fmt.Errorf("expected type CertificateSigningRequest, got: %T", a.GetObject())
	}
	return admissionplugins.ValidateCertificateSubject(csr)
}

// admitDefaultIngressClass is the DefaultIngressClass plugin.
func admitDefaultIngressClass(s *Registry, _ *Request, a admission.Attributes) error {
	ing, ok := a.GetObject().(*networkingv1.Ingress)
	if !ok {
		return apierrors.NewInternalError(fmt.Errorf("Expected Ingress resource, got: %v", a.GetKind()))
	}
	if ing.Spec.IngressClassName != nil {
		return nil
	}
	classes, err := listTyped[networkingv1.IngressClass](s, "networking.k8s.io", "ingressclasses", "")
	if err != nil {
		return err
	}
	admissionplugins.DefaultIngressClass(ing, classes)
	return nil
}
