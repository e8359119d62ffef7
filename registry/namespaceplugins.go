package registry

// The namespace admission plugins around a create in a namespace:
// NamespaceAutoProvision, NamespaceLifecycle (admitNamespace, with its
// refusal to delete the immortal namespaces in builtinPlugins) and
// NamespaceExists.

import (
	"context"
	"errors"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/admission"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"

	"github.com/fakeplane/fakeplane/store"
)

// admitNamespaceCreate runs the mutating namespace plugins on a create
// of o: NamespaceAutoProvision creates o's namespace when it is missing
// (not on a dry run), then NamespaceLifecycle refuses a namespace that is
// missing or terminating.
func (s *Registry) admitNamespaceCreate(c *Request, o *Object, dry bool) error {
	if !dry && s.plugins.Enabled("NamespaceAutoProvision") {
		if err := s.provisionNamespace(c, o); err != nil {
			return err
		}
	}
	if !s.plugins.Enabled("NamespaceLifecycle") {
		return nil
	}
	return s.admitNamespace(c, o)
}

// storedNamespace reads namespace ns as stored: a 404 when it does not
// exist, as NamespaceLifecycle and NamespaceExists answer.
func (s *Registry) storedNamespace(ns string) (*store.Object, error) {
	cur, err := s.store.Get(namespacesBucket, ns)
	if errors.Is(err, store.ErrNotFound) {
		return nil, apierrors.NewNotFound(schemaNamespaces, ns)
	}
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	return cur, nil
}

// provisionNamespace is the NamespaceAutoProvision plugin: a create in
// a namespace that does not exist creates the namespace first, as
// kube-apiserver's loopback client (system:apiserver, field manager
// kube-apiserver) does. Namespaces themselves are left alone.
func (s *Registry) provisionNamespace(c *Request, o *Object) error {
	ns := o.Meta.GetNamespace()
	if ns == "" || c.Res.GR == schemaNamespaces {
		return nil
	}
	if _, err := s.store.Get(namespacesBucket, ns); err == nil {
		return nil
	} else if !errors.Is(err, store.ErrNotFound) {
		return admission.NewForbidden(s.namespaceAttributes(c, o), err)
	}
	ctx := WithFieldManager(apirequest.WithUser(context.Background(), systemUser), "kube-apiserver")
	_, err := s.API().Create(ctx, corev1.SchemeGroupVersion.WithResource("namespaces"), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return admission.NewForbidden(s.namespaceAttributes(c, o), err)
	}
	return nil
}

// namespaceAttributes are the admission attributes of a create of o, for
// the namespace plugins' errors.
func (s *Registry) namespaceAttributes(c *Request, o *Object) admission.Attributes {
	return admissionAttributes(c, admission.Create, admissionTarget{obj: o.Obj, kind: c.Res.GVK, name: o.Meta.GetName()}, nil, c.dryRun)
}
