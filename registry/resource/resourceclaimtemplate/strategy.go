// Package resourceclaimtemplate holds the ResourceClaimTemplate strategy: kube-apiserver's
// pkg/registry/resource/resourceclaimtemplate flags, and the validation of
// resource.k8s.io/v1 ResourceClaimTemplates (package resource).
package resourceclaimtemplate

import (
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/fakeplane/fakeplane/registry/resource"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the ResourceClaimTemplate strategy.
var Strategy = resourceClaimTemplateStrategy{Base: strategy.Base{Namespaced: true, UnconditionalUpdate: true, ReturnDeleted: true}}

type resourceClaimTemplateStrategy struct {
	strategy.Base
	resource.Validation
}

// Default sets upstream's v1 defaults, which kube-apiserver stores.
func (resourceClaimTemplateStrategy) Default(obj runtime.Object) { resource.ApplyDefaults(obj) }
