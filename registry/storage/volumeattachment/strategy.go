// Package volumeattachment holds the VolumeAttachment strategy: the flags of kube-apiserver's
// pkg/registry/storage/volumeattachment strategy and storage. Its validation is the
// object metadata validation the server runs for every resource; upstream's
// rules for the rest of a VolumeAttachment are not reimplemented.
package volumeattachment

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the VolumeAttachment strategy.
var Strategy = volumeAttachmentStrategy{strategy.Base{ReturnDeleted: true, ResetStatusOnCreate: true}}

type volumeAttachmentStrategy struct{ strategy.Base }

// Validate adds nothing to the metadata validation of a new VolumeAttachment.
func (volumeAttachmentStrategy) Validate(context.Context, runtime.Object) field.ErrorList { return nil }

// ValidateUpdate adds nothing to the metadata validation of an update.
func (volumeAttachmentStrategy) ValidateUpdate(context.Context, runtime.Object, runtime.Object) field.ErrorList {
	return nil
}
