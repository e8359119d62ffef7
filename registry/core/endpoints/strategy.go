// Package endpoints holds the Endpoints strategy: kube-apiserver's
// pkg/registry/core/endpoint rules (its defaults; the subsets' validation
// is not reimplemented).
package endpoints

import (
	"context"

	corev1 "k8s.io/api/core/v1"
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

// Validate checks nothing beyond the metadata.
func (endpointsStrategy) Validate(context.Context, runtime.Object) field.ErrorList { return nil }

// ValidateUpdate checks nothing beyond the metadata.
func (endpointsStrategy) ValidateUpdate(context.Context, runtime.Object, runtime.Object) field.ErrorList {
	return nil
}
