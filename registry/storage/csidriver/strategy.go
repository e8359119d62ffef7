// Package csidriver holds the CSIDriver strategy: the flags of kube-apiserver's
// pkg/registry/storage/csidriver strategy and storage. Its validation is the
// object metadata validation the server runs for every resource; upstream's
// rules for the rest of a CSIDriver are not reimplemented.
package csidriver

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the CSIDriver strategy. Upstream's PrepareForUpdate also
// increments metadata.generation when the spec changes (without setting it
// at create); fakeplane has never kept a CSIDriver's generation, which the
// move of its flags into this strategy keeps.
var Strategy = csiDriverStrategy{strategy.Base{ReturnDeleted: true}}

type csiDriverStrategy struct{ strategy.Base }

// Validate adds nothing to the metadata validation of a new CSIDriver.
func (csiDriverStrategy) Validate(context.Context, runtime.Object) field.ErrorList { return nil }

// ValidateUpdate adds nothing to the metadata validation of an update.
func (csiDriverStrategy) ValidateUpdate(context.Context, runtime.Object, runtime.Object) field.ErrorList {
	return nil
}
