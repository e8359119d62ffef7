// Package deviceclass holds the DeviceClass strategy: kube-apiserver's
// pkg/registry/resource/deviceclass flags, and the validation of
// resource.k8s.io/v1 DeviceClasss (package resource).
package deviceclass

import (
	"github.com/fakeplane/fakeplane/registry/resource"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the DeviceClass strategy.
var Strategy = deviceClassStrategy{Base: strategy.Base{UnconditionalUpdate: true, Generation: true, ReturnDeleted: true}}

type deviceClassStrategy struct {
	strategy.Base
	resource.Validation
}
