package registry

// The off-by-default admission plugins of kube-apiserver that
// --enable-admission-plugins turns on (their logic is package admission's
// Optin functions, which check the operation and resource themselves):
// each an entry of builtinPlugins, in kube-apiserver's order there.

import (
	"context"
	"errors"
	"slices"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	admissionplugins "github.com/fakeplane/fakeplane/admission"
	"github.com/fakeplane/fakeplane/store"
)

// optin adapts an opt-in plugin's function to a builtinPlugin's: an error
// that is not an API status reaches the client as kube-apiserver answers
// such an error from admission, a 500 with its text (not wrapped as a
// 403, as builtinAdmissionErr wraps the other plugins' errors).
func optin(f func(admission.Attributes) error) func(*Registry, *Request, admission.Attributes) error {
	return func(_ *Registry, _ *Request, a admission.Attributes) error {
		return plainAdmissionErr(f(a))
	}
}

// optinWithNamespace is optin for a plugin that reads the request's
// namespace (nil when it does not exist).
func optinWithNamespace(f func(*Registry, admission.Attributes, *corev1.Namespace) error) func(*Registry, *Request, admission.Attributes) error {
	return func(s *Registry, _ *Request, a admission.Attributes) error {
		ns, err := s.namespaceObject(a.GetNamespace())
		if err != nil {
			return err
		}
		return plainAdmissionErr(f(s, a, ns))
	}
}

// plainAdmissionErr is err as kube-apiserver answers an admission error
// that is not an API status: 500, no reason, its text as the message.
func plainAdmissionErr(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := err.(apierrors.APIStatus); ok {
		return err
	}
	return &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: 500, Message: err.Error()}}
}

// namespaceObject reads namespace name, nil when it does not exist.
func (s *Registry) namespaceObject(name string) (*corev1.Namespace, error) {
	cur, err := s.storedNamespace(name)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	ns := &corev1.Namespace{}
	if err := JSONUnmarshal(cur.Value, ns); err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	return ns, nil
}

// admitPodNodeSelector and validatePodNodeSelector are PodNodeSelector,
// with its configuration.
func admitPodNodeSelector(s *Registry, a admission.Attributes, ns *corev1.Namespace) error {
	return admissionplugins.PodNodeSelectorAdmit(a, s.podNodeSelector, ns)
}

func validatePodNodeSelector(s *Registry, a admission.Attributes, ns *corev1.Namespace) error {
	return admissionplugins.PodNodeSelectorValidate(a, s.podNodeSelector, ns)
}

// admitPodTolerationRestriction and validatePodTolerationRestriction are
// PodTolerationRestriction, with its configuration.
func admitPodTolerationRestriction(s *Registry, a admission.Attributes, ns *corev1.Namespace) error {
	return admissionplugins.PodTolerationRestrictionAdmit(a, s.podTolerationRestriction, ns)
}

func validatePodTolerationRestriction(s *Registry, a admission.Attributes, ns *corev1.Namespace) error {
	return admissionplugins.PodTolerationRestrictionValidate(a, s.podTolerationRestriction, ns)
}

// validateOwnerReferences is OwnerReferencesPermissionEnforcement: who
// sets ownerReferences must be allowed to delete the object, and to update
// the owner's finalizers to block its deletion.
func validateOwnerReferences(s *Registry, c *Request, a admission.Attributes) error {
	if s.hooks.Authorizer == nil {
		return nil
	}
	ctx := c.contextOrBackground()
	return plainAdmissionErr(admissionplugins.OwnerReferencesPermissionEnforcementValidate(ctx, a, s.hooks.Authorizer, s.restMappings))
}

// restMappings are the REST mappings of a kind among the served resources
// (of the versions given, or all), as a discovery REST mapper's.
func (s *Registry) restMappings(gk schema.GroupKind, versions ...string) ([]*meta.RESTMapping, error) {
	var out []*meta.RESTMapping
	for _, r := range s.served.ForGroupKind(gk) {
		if len(versions) > 0 && !slices.Contains(versions, r.GVK.Version) {
			continue
		}
		scope := meta.RESTScopeRoot
		if r.Namespaced {
			scope = meta.RESTScopeNamespace
		}
		out = append(out, &meta.RESTMapping{Resource: r.GVK.GroupVersion().WithResource(r.Resource.Resource), GroupVersionKind: r.GVK, Scope: scope})
	}
	if len(out) == 0 {
		return nil, &meta.NoKindMatchError{GroupKind: gk, SearchedVersions: versions}
	}
	return out, nil
}

// validateEventRateLimit is EventRateLimit, with its buckets.
func validateEventRateLimit(s *Registry, _ *Request, a admission.Attributes) error {
	if s.eventRateLimit == nil {
		return nil
	}
	return plainAdmissionErr(s.eventRateLimit.Validate(a))
}

// validateImagePolicy is ImagePolicyWebhook, with its backend.
func validateImagePolicy(s *Registry, c *Request, a admission.Attributes) error {
	if s.imagePolicy == nil {
		return nil
	}
	ctx := c.contextOrBackground()
	return plainAdmissionErr(s.imagePolicy.Validate(ctx, a))
}

// admitNodeRestriction is NodeRestriction: what a node (a user
// system:node:<name> in system:nodes) may write, reading the objects it
// asks about from the store.
func admitNodeRestriction(s *Registry, c *Request, a admission.Attributes) error {
	if _, isNode := admissionplugins.NodeRestrictionNodeIdentity(a.GetUserInfo()); !isNode {
		return nil
	}
	ctx := c.contextOrBackground()
	var authz authorizer.UnconditionalAuthorizer
	if s.hooks.Authorizer != nil {
		authz = s.hooks.Authorizer
	}
	return plainAdmissionErr(admissionplugins.NodeRestrictionAdmit(ctx, a, admissionplugins.NodeRestrictionLookups{
		Pod: func(ns, name string) (*corev1.Pod, error) { return storedOrNil[corev1.Pod](s, "", "pods", ns, name) },
		Node: func(name string) (*corev1.Node, error) {
			return storedOrNil[corev1.Node](s, "", "nodes", "", name)
		},
		ServiceAccount: func(ns, name string) (*corev1.ServiceAccount, error) {
			return storedOrNil[corev1.ServiceAccount](s, "", "serviceaccounts", ns, name)
		},
		PVC: func(ns, name string) (*corev1.PersistentVolumeClaim, error) {
			return storedOrNil[corev1.PersistentVolumeClaim](s, "", "persistentvolumeclaims", ns, name)
		},
		PV: func(name string) (*corev1.PersistentVolume, error) {
			return storedOrNil[corev1.PersistentVolume](s, "", "persistentvolumes", "", name)
		},
		CSIDriver: func(name string) (*storagev1.CSIDriver, error) {
			return storedOrNil[storagev1.CSIDriver](s, "storage.k8s.io", "csidrivers", "", name)
		},
		Authorizer: authz,
	}))
}

// storedOrNil is getTyped with a missing object answered nil.
func storedOrNil[T any](s *Registry, group, resource, ns, name string) (*T, error) {
	v, err := getTyped[T](s, group, resource, ns, name)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	return v, err
}

// contextOrBackground is the request's context, or the background one for
// a request made without (what the plugins' authorizer calls need).
func (c *Request) contextOrBackground() context.Context {
	if ctx := c.Context(); ctx != nil {
		return ctx
	}
	return context.Background()
}
