// Package ingressclass holds the IngressClass strategy: kube-apiserver's
// pkg/registry/networking/ingressclass rules (its defaults; the spec's
// validation is not reimplemented).
package ingressclass

import (
	"context"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"
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

// Validate checks nothing beyond the metadata.
func (ingressClassStrategy) Validate(context.Context, runtime.Object) field.ErrorList { return nil }

// ValidateUpdate checks nothing beyond the metadata.
func (ingressClassStrategy) ValidateUpdate(context.Context, runtime.Object, runtime.Object) field.ErrorList {
	return nil
}
