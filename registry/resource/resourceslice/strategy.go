// Package resourceslice holds the ResourceSlice strategy: kube-apiserver's
// pkg/registry/resource/resourceslice flags, and the validation of
// resource.k8s.io/v1 ResourceSlices (package resource).
package resourceslice

import (
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/fakeplane/fakeplane/registry/resource"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the ResourceSlice strategy.
var Strategy = resourceSliceStrategy{Base: strategy.Base{UnconditionalUpdate: true, Generation: true, ReturnDeleted: true, NameRuleOnCreateOnly: true}}

type resourceSliceStrategy struct {
	strategy.Base
	resource.Validation
}

// Default sets upstream's defaults: the devices' taints' timeAdded.
func (resourceSliceStrategy) Default(obj runtime.Object) { resource.ApplyDefaults(obj) }
