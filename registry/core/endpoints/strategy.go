// Package endpoints holds the Endpoints strategy: kube-apiserver's
// pkg/registry/core/endpoint rules: its defaults, the subsets' validation
// and its warnings.
package endpoints

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the Endpoints strategy.
var Strategy = endpointsStrategy{strategy.Base{Namespaced: true, CreateOnUpdate: true, UnconditionalUpdate: true}}

type endpointsStrategy struct{ strategy.Base }

// Default sets the ports' protocol.
func (endpointsStrategy) Default(obj runtime.Object) {
	o := obj.(*corev1.Endpoints)
	for i := range o.Subsets {
		for j := range o.Subsets[i].Ports {
			if p := &o.Subsets[i].Ports[j]; p.Protocol == "" {
				p.Protocol = corev1.ProtocolTCP
			}
		}
	}
}

// Validate checks the subsets (upstream's ValidateEndpointsCreate).
func (endpointsStrategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validateSubsets(obj.(*corev1.Endpoints).Subsets, field.NewPath("subsets"))
}

// ValidateUpdate checks the subsets as on create, unless the update left
// them as they were: upstream takes what older versions stored.
func (endpointsStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	n, o := obj.(*corev1.Endpoints), old.(*corev1.Endpoints)
	errs := validateSubsets(n.Subsets, field.NewPath("subsets"))
	if len(errs) > 0 && apiequality.Semantic.DeepEqual(n.Subsets, o.Subsets) {
		return nil
	}
	return errs
}

// WarningsOnCreate warns about addresses in a non-standard IP form.
func (endpointsStrategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	return warnings(obj.(*corev1.Endpoints))
}

// WarningsOnUpdate warns about addresses in a non-standard IP form.
func (endpointsStrategy) WarningsOnUpdate(_ context.Context, obj, _ runtime.Object) []string {
	return warnings(obj.(*corev1.Endpoints))
}
