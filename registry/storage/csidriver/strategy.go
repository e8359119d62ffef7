// Package csidriver holds the CSIDriver strategy: the flags of kube-apiserver's
// pkg/registry/storage/csidriver strategy and storage. Its validation is the
// object metadata validation the server runs for every resource; upstream's
// rules for the rest of a CSIDriver are not reimplemented.
package csidriver

import (
	"context"
	storagev1 "k8s.io/api/storage/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the CSIDriver strategy. As upstream's, it leaves
// metadata.generation unset at create and increments it when an update
// changes the spec (PrepareForUpdate), so it does not track generation the
// way resources with a status do.
var Strategy = csiDriverStrategy{strategy.Base{ReturnDeleted: true}}

type csiDriverStrategy struct{ strategy.Base }

// PrepareForUpdate increments metadata.generation when the spec changes.
func (csiDriverStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	d, ok := obj.(*storagev1.CSIDriver)
	o, ok2 := old.(*storagev1.CSIDriver)
	if !ok || !ok2 {
		return
	}
	if !apiequality.Semantic.DeepEqual(d.Spec, o.Spec) {
		d.Generation = o.Generation + 1
	}
}

// Validate adds nothing to the metadata validation of a new CSIDriver.
func (csiDriverStrategy) Validate(context.Context, runtime.Object) field.ErrorList { return nil }

// ValidateUpdate adds nothing to the metadata validation of an update.
func (csiDriverStrategy) ValidateUpdate(context.Context, runtime.Object, runtime.Object) field.ErrorList {
	return nil
}
