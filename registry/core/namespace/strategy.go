// Package namespace holds the Namespace strategy: kube-apiserver's
// pkg/registry/core/namespace rules (the main, status and finalize
// strategies), less the validation of the spec, which fakeplane does not do
// yet.
package namespace

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the Namespace strategy.
var Strategy = namespaceStrategy{strategy.Base{UnconditionalUpdate: true, ReturnDeleted: true}}

type namespaceStrategy struct{ strategy.Base }

// Default sets what upstream's defaulting sets when a Namespace is decoded
// (before the field manager sees it, so the label is tracked): the
// kubernetes.io/metadata.name label naming it, when it has a name, and the
// Active phase.
func (namespaceStrategy) Default(obj runtime.Object) {
	ns := obj.(*corev1.Namespace)
	if ns.Name != "" {
		labels := ns.GetLabels()
		if labels == nil {
			labels = map[string]string{}
		}
		labels[corev1.LabelMetadataName] = ns.Name
		ns.SetLabels(labels)
	}
	if ns.Status.Phase == "" {
		ns.Status.Phase = corev1.NamespaceActive
	}
}

// PrepareForCreate gives a new namespace the kubernetes finalizer, the
// Active phase and the kubernetes.io/metadata.name label naming it.
func (namespaceStrategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	ns := obj.(*corev1.Namespace)
	ns.Spec.Finalizers = []corev1.FinalizerName{corev1.FinalizerKubernetes}
	ns.Status = corev1.NamespaceStatus{Phase: corev1.NamespaceActive}
	labels := ns.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels[corev1.LabelMetadataName] = ns.Name
	ns.SetLabels(labels)
}

// PrepareForUpdate keeps the stored finalizers and status: an update
// changes neither.
func (namespaceStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	ns, prev := obj.(*corev1.Namespace), old.(*corev1.Namespace)
	ns.Spec.Finalizers = prev.Spec.Finalizers
	ns.Status = prev.Status
}

// PrepareForStatusUpdate keeps the stored finalizers: a write to /status
// does not change them.
func (namespaceStrategy) PrepareForStatusUpdate(_ context.Context, obj, old runtime.Object) {
	obj.(*corev1.Namespace).Spec.Finalizers = old.(*corev1.Namespace).Spec.Finalizers
}

// PrepareForFinalizeUpdate keeps the stored status: a write to /finalize
// changes the finalizers only.
func (namespaceStrategy) PrepareForFinalizeUpdate(_ context.Context, obj, old runtime.Object) {
	obj.(*corev1.Namespace).Status = old.(*corev1.Namespace).Status
}

// Validate finds nothing: the metadata is validated by the server.
func (namespaceStrategy) Validate(context.Context, runtime.Object) field.ErrorList { return nil }

// ValidateUpdate finds nothing: the metadata is validated by the server.
func (namespaceStrategy) ValidateUpdate(context.Context, runtime.Object, runtime.Object) field.ErrorList {
	return nil
}
