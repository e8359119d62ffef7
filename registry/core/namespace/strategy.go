// Package namespace holds the Namespace strategy: kube-apiserver's
// pkg/registry/core/namespace rules (the main, status and finalize
// strategies).
package namespace

import (
	"context"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the Namespace strategy.
var Strategy = namespaceStrategy{strategy.Base{UnconditionalUpdate: true, ReturnDeleted: true, StatusWritesMetadata: true}}

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

// PrepareForCreate gives a new namespace the kubernetes finalizer after
// the ones it names, the Active phase and the kubernetes.io/metadata.name
// label naming it.
func (namespaceStrategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	ns := obj.(*corev1.Namespace)
	if !slices.Contains(ns.Spec.Finalizers, corev1.FinalizerKubernetes) {
		ns.Spec.Finalizers = append(ns.Spec.Finalizers, corev1.FinalizerKubernetes)
	}
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

// Validate checks the finalizers' names as upstream's ValidateNamespace
// does: as ValidateFinalizeUpdate, with the path of the list.
func (namespaceStrategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	var errs field.ErrorList
	fld := field.NewPath("spec", "finalizers")
	for _, f := range obj.(*corev1.Namespace).Spec.Finalizers {
		errs = append(errs, apivalidation.ValidateFinalizerName(string(f), fld)...)
		errs = append(errs, strategy.KubeFinalizerErrors(string(f), fld)...)
	}
	return errs
}

// ValidateStatusUpdate checks the phase against the deletion, as
// upstream's ValidateNamespaceStatusUpdate (its path says "Phase").
func (namespaceStrategy) ValidateStatusUpdate(_ context.Context, obj, _ runtime.Object) field.ErrorList {
	ns := obj.(*corev1.Namespace)
	fld := field.NewPath("status", "Phase")
	switch {
	case ns.DeletionTimestamp.IsZero() && ns.Status.Phase != corev1.NamespaceActive:
		return field.ErrorList{field.Invalid(fld, ns.Status.Phase, "may only be 'Active' if `deletionTimestamp` is empty")}
	case !ns.DeletionTimestamp.IsZero() && ns.Status.Phase != corev1.NamespaceTerminating:
		return field.ErrorList{field.Invalid(fld, ns.Status.Phase, "may only be 'Terminating' if `deletionTimestamp` is not empty")}
	}
	return nil
}

// ValidateFinalizeUpdate checks each finalizer's name: qualified, and a
// standard finalizer when it has no domain (upstream's
// ValidateNamespaceFinalizeUpdate).
func (namespaceStrategy) ValidateFinalizeUpdate(_ context.Context, obj, _ runtime.Object) field.ErrorList {
	var errs field.ErrorList
	for i, f := range obj.(*corev1.Namespace).Spec.Finalizers {
		fld := field.NewPath("spec", "finalizers").Index(i)
		name := string(f)
		errs = append(errs, apivalidation.ValidateFinalizerName(name, fld)...)
		errs = append(errs, strategy.KubeFinalizerErrors(name, fld)...)
	}
	return errs
}

// ValidateUpdate finds nothing: the metadata is validated by the server.
func (namespaceStrategy) ValidateUpdate(context.Context, runtime.Object, runtime.Object) field.ErrorList {
	return nil
}
