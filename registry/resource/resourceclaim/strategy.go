// Package resourceclaim holds the ResourceClaim strategy: kube-apiserver's
// pkg/registry/resource/resourceclaim flags, and the validation of
// resource.k8s.io/v1 ResourceClaims, and of its /status (package resource).
package resourceclaim

import (
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/fakeplane/fakeplane/registry/resource"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the ResourceClaim strategy.
var Strategy = resourceClaimStrategy{Base: strategy.Base{Namespaced: true, UnconditionalUpdate: true, ReturnDeleted: true, ResetStatusOnCreate: true}}

type resourceClaimStrategy struct {
	strategy.Base
	resource.Validation
	resource.StatusValidation
}

// Default sets upstream's v1 defaults, which kube-apiserver stores.
func (resourceClaimStrategy) Default(obj runtime.Object) { resource.ApplyDefaults(obj) }
