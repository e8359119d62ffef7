// Package csistoragecapacity holds the CSIStorageCapacity strategy: the flags of kube-apiserver's
// pkg/registry/storage/csistoragecapacity strategy and storage. Its validation is the
// object metadata validation the server runs for every resource; upstream's
// rules for the rest of a CSIStorageCapacity are not reimplemented.
package csistoragecapacity

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the CSIStorageCapacity strategy.
var Strategy = csiStorageCapacityStrategy{strategy.Base{Namespaced: true}}

type csiStorageCapacityStrategy struct{ strategy.Base }

// Validate adds nothing to the metadata validation of a new CSIStorageCapacity.
func (csiStorageCapacityStrategy) Validate(context.Context, runtime.Object) field.ErrorList {
	return nil
}

// ValidateUpdate adds nothing to the metadata validation of an update.
func (csiStorageCapacityStrategy) ValidateUpdate(context.Context, runtime.Object, runtime.Object) field.ErrorList {
	return nil
}
