// Package csinode holds the CSINode strategy: the flags of kube-apiserver's
// pkg/registry/storage/csinode strategy and storage. Its validation is the
// object metadata validation the server runs for every resource; upstream's
// rules for the rest of a CSINode are not reimplemented.
package csinode

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the CSINode strategy.
var Strategy = csiNodeStrategy{strategy.Base{ReturnDeleted: true, ResetStatusOnCreate: true}}

type csiNodeStrategy struct{ strategy.Base }

// Validate adds nothing to the metadata validation of a new CSINode.
func (csiNodeStrategy) Validate(context.Context, runtime.Object) field.ErrorList { return nil }

// ValidateUpdate adds nothing to the metadata validation of an update.
func (csiNodeStrategy) ValidateUpdate(context.Context, runtime.Object, runtime.Object) field.ErrorList {
	return nil
}
