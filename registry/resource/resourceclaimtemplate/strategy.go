// Package resourceclaimtemplate holds the ResourceClaimTemplate strategy: kube-apiserver's
// pkg/registry/resource/resourceclaimtemplate flags, and the validation of
// resource.k8s.io/v1 ResourceClaimTemplates (package resource).
package resourceclaimtemplate

import (
	"github.com/fakeplane/fakeplane/registry/resource"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the ResourceClaimTemplate strategy.
var Strategy = resourceClaimTemplateStrategy{Base: strategy.Base{Namespaced: true, UnconditionalUpdate: true, ReturnDeleted: true}}

type resourceClaimTemplateStrategy struct {
	strategy.Base
	resource.Validation
}
