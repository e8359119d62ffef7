// Package volumeattributesclass holds the VolumeAttributesClass strategy: the flags of kube-apiserver's
// pkg/registry/storage/volumeattributesclass strategy and storage. Its validation is the
// object metadata validation the server runs for every resource; upstream's
// rules for the rest of a VolumeAttributesClass are not reimplemented.
package volumeattributesclass

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the VolumeAttributesClass strategy.
var Strategy = volumeAttributesClassStrategy{strategy.Base{UnconditionalUpdate: true, ReturnDeleted: true}}

type volumeAttributesClassStrategy struct{ strategy.Base }

// Validate adds nothing to the metadata validation of a new VolumeAttributesClass.
func (volumeAttributesClassStrategy) Validate(context.Context, runtime.Object) field.ErrorList {
	return nil
}

// ValidateUpdate adds nothing to the metadata validation of an update.
func (volumeAttributesClassStrategy) ValidateUpdate(context.Context, runtime.Object, runtime.Object) field.ErrorList {
	return nil
}
