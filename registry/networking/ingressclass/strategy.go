// Package ingressclass holds the IngressClass strategy: kube-apiserver's
// pkg/registry/networking/ingressclass rules, its defaults and the
// validation of the spec (a domain-prefixed controller that updates keep,
// and the parameters reference).
package ingressclass

import (
	"context"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the IngressClass strategy.
var Strategy = ingressClassStrategy{strategy.Base{UnconditionalUpdate: true, Generation: true}}

type ingressClassStrategy struct{ strategy.Base }

// Default sets the parameters' scope.
func (ingressClassStrategy) Default(obj runtime.Object) {
	if p := obj.(*networkingv1.IngressClass).Spec.Parameters; p != nil && p.Scope == nil {
		s := networkingv1.IngressClassParametersReferenceScopeCluster
		p.Scope = &s
	}
}

// maxControllerLen is the longest controller name upstream takes.
const maxControllerLen = 250

// scopes are the parameters' scopes, in upstream's order for its message.
var scopes = []string{networkingv1.IngressClassParametersReferenceScopeCluster, networkingv1.IngressClassParametersReferenceScopeNamespace}

// Validate checks the spec of a new IngressClass.
func (ingressClassStrategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validateSpec(&obj.(*networkingv1.IngressClass).Spec, field.NewPath("spec"))
}

// ValidateUpdate checks the spec of an update, which keeps the controller.
func (ingressClassStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	spec, was := &obj.(*networkingv1.IngressClass).Spec, &old.(*networkingv1.IngressClass).Spec
	errs := apivalidation.ValidateImmutableField(spec.Controller, was.Controller, field.NewPath("spec", "controller"))
	return append(errs, validateSpec(spec, field.NewPath("spec"))...)
}

// validateSpec checks the controller's name and the parameters.
func validateSpec(spec *networkingv1.IngressClassSpec, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(spec.Controller) > maxControllerLen {
		errs = append(errs, field.TooLong(fld.Child("controller"), "", maxControllerLen))
	}
	errs = append(errs, utilvalidation.IsDomainPrefixedPath(fld.Child("controller"), spec.Controller)...)
	return append(errs, validateParameters(spec.Parameters, fld.Child("parameters"))...)
}

// validateParameters checks a parameters reference: its group, kind and
// name, and a scope that a namespace goes with exactly when it is
// Namespace.
func validateParameters(p *networkingv1.IngressClassParametersReference, fld *field.Path) field.ErrorList {
	if p == nil {
		return nil
	}
	var errs field.ErrorList
	if p.APIGroup != nil {
		for _, msg := range utilvalidation.IsDNS1123Subdomain(*p.APIGroup) {
			errs = append(errs, field.Invalid(fld.Child("apiGroup"), *p.APIGroup, msg))
		}
	}
	for _, f := range []struct{ name, value string }{{"kind", p.Kind}, {"name", p.Name}} {
		if f.value == "" {
			errs = append(errs, field.Required(fld.Child(f.name), ""))
			continue
		}
		for _, msg := range content.IsPathSegmentName(f.value) {
			errs = append(errs, field.Invalid(fld.Child(f.name), f.value, msg))
		}
	}
	if p.Scope == nil {
		return append(errs, field.Required(fld.Child("scope"), ""))
	}
	switch scope := *p.Scope; scope {
	case networkingv1.IngressClassParametersReferenceScopeNamespace:
		if p.Namespace == nil {
			errs = append(errs, field.Required(fld.Child("namespace"), "`parameters.scope` is set to 'Namespace'"))
			break
		}
		for _, msg := range apivalidation.ValidateNamespaceName(*p.Namespace, false) {
			errs = append(errs, field.Invalid(fld.Child("namespace"), *p.Namespace, msg))
		}
	case networkingv1.IngressClassParametersReferenceScopeCluster:
		if p.Namespace != nil {
			errs = append(errs, field.Forbidden(fld.Child("namespace"), "`parameters.scope` is set to 'Cluster'"))
		}
	default:
		errs = append(errs, field.NotSupported(fld.Child("scope"), scope, scopes))
	}
	return errs
}
