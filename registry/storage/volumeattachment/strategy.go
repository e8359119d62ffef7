// Package volumeattachment holds the VolumeAttachment strategy: the flags of kube-apiserver's
// pkg/registry/storage/volumeattachment strategy and storage, and upstream's
// validation of a VolumeAttachment (pkg/apis/storage/validation): the attacher (a
// CSI driver name), exactly one source (a PersistentVolume's name, or an inline
// volume spec checked as one), the node's name, the status (attachment metadata
// size, errors' messages and codes) and a spec that updates keep, on create,
// update and writes to /status. The attacher's rules and the spec's immutability
// are also declarative upstream, beta in v1.37, and answered as such
// (validate.WithDeclarative).
package volumeattachment

import (
	"context"
	"math"

	storagev1 "k8s.io/api/storage/v1"
	apivalidate "k8s.io/apimachinery/pkg/api/validate"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the VolumeAttachment strategy.
var Strategy = volumeAttachmentStrategy{strategy.Base{ReturnDeleted: true, ResetStatusOnCreate: true, NameRuleOnStatus: true}}

type volumeAttachmentStrategy struct{ strategy.Base }

// Limits of a VolumeAttachment's fields.
const (
	maxAttacherLen           = 63
	maxAttachmentMetadata    = 256 * (1 << 10) // bytes of keys and values
	maxVolumeErrorMessageLen = 1024
)

// Validate checks a new VolumeAttachment.
func (volumeAttachmentStrategy) Validate(ctx context.Context, obj runtime.Object) field.ErrorList {
	va := obj.(*storagev1.VolumeAttachment)
	return validate.WithDeclarative(ctx, validateAttachment(va), declareSpec(va, nil))
}

// ValidateUpdate checks an update, which keeps the spec.
func (volumeAttachmentStrategy) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	va, was := obj.(*storagev1.VolumeAttachment), old.(*storagev1.VolumeAttachment)
	errs := validateAttachment(va)
	errs = append(errs, validate.ImmutableInternal(va.Spec, was.Spec, field.NewPath("spec")).WithOrigin("immutable").MarkCoveredByDeclarative()...)
	return validate.WithDeclarative(ctx, errs, declareSpec(va, was))
}

// ValidateStatusUpdate checks a write to /status as an update: upstream's
// status strategy validates the whole object (its spec is the stored one).
func (s volumeAttachmentStrategy) ValidateStatusUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	return s.ValidateUpdate(ctx, obj, old)
}

// validateAttachment is upstream's ValidateVolumeAttachment without the
// metadata, which the server validates: the spec, the status, and the
// PersistentVolume's name as a name.
func validateAttachment(va *storagev1.VolumeAttachment) field.ErrorList {
	errs := validateSpec(&va.Spec, field.NewPath("spec"))
	errs = append(errs, validateStatus(&va.Status, field.NewPath("status"))...)
	if pv := va.Spec.Source.PersistentVolumeName; pv != nil {
		for _, msg := range apivalidation.NameIsDNSSubdomain(*pv, false) {
			errs = append(errs, field.Invalid(field.NewPath("spec", "source", "persistentVolumeName"), *pv, msg))
		}
	}
	return errs
}

// validateSpec checks the attacher, the source and the node's name. The
// attacher's errors are covered by the declarative rules.
func validateSpec(spec *storagev1.VolumeAttachmentSpec, fld *field.Path) field.ErrorList {
	errs := attacherErrors(spec.Attacher, fld.Child("attacher"))
	src := fld.Child("source")
	switch s := spec.Source; {
	case s.InlineVolumeSpec == nil && s.PersistentVolumeName == nil:
		errs = append(errs, field.Required(src, "must specify exactly one of inlineVolumeSpec and persistentVolumeName"))
	case s.InlineVolumeSpec != nil && s.PersistentVolumeName != nil:
		errs = append(errs, field.Forbidden(src, "must specify exactly one of inlineVolumeSpec and persistentVolumeName"))
	case s.PersistentVolumeName != nil:
		if *s.PersistentVolumeName == "" {
			errs = append(errs, field.Required(src.Child("persistentVolumeName"), "must specify non empty persistentVolumeName"))
		}
	default:
		errs = append(errs, validateInlineSpec(s.InlineVolumeSpec, src.Child("inlineVolumeSpec"))...)
	}
	for _, msg := range apivalidation.NameIsDNSSubdomain(spec.NodeName, false) {
		errs = append(errs, field.Invalid(fld.Child("nodeName"), spec.NodeName, msg))
	}
	return errs
}

// attacherErrors is upstream's ValidateCSIDriverName with every error
// marked as covered by the declarative rules: required, at most 63 bytes,
// a DNS subdomain in any case.
func attacherErrors(name string, fld *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(fld, "").MarkCoveredByDeclarative()}
	}
	var errs field.ErrorList
	if len(name) > maxAttacherLen {
		errs = append(errs, field.TooLong(fld, "", maxAttacherLen).WithOrigin("maxLength").MarkCoveredByDeclarative())
	}
	for _, e := range validate.CSIDriverName(name, fld) {
		if e.Type == field.ErrorTypeInvalid {
			errs = append(errs, e.WithOrigin("format=k8s-long-name-caseless").MarkCoveredByDeclarative())
		}
	}
	return errs
}

// validateStatus checks the attachment metadata's size and the errors.
func validateStatus(st *storagev1.VolumeAttachmentStatus, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	size := 0
	for k, v := range st.AttachmentMetadata {
		size += len(k) + len(v)
	}
	if size > maxAttachmentMetadata {
		errs = append(errs, field.TooLong(fld.Child("attachmentMetadata"), "", maxAttachmentMetadata))
	}
	errs = append(errs, validateVolumeError(st.AttachError, fld.Child("attachError"))...)
	return append(errs, validateVolumeError(st.DetachError, fld.Child("detachError"))...)
}

// validateVolumeError checks an error's message length and code.
func validateVolumeError(e *storagev1.VolumeError, fld *field.Path) field.ErrorList {
	if e == nil {
		return nil
	}
	var errs field.ErrorList
	if len(e.Message) > maxVolumeErrorMessageLen {
		errs = append(errs, field.TooLong(fld.Child("message"), "", maxVolumeErrorMessageLen))
	}
	if c := e.ErrorCode; c != nil && *c < 0 {
		errs = append(errs, field.Invalid(fld.Child("errorCode"), *c, validation.InclusiveRangeError(0, math.MaxInt32)))
	}
	return errs
}

// declareSpec is the spec's declarative validation (beta in v1.37): an
// update keeps it, which says no more of it; else the attacher is required,
// a DNS subdomain in any case and at most 63 characters. An unchanged spec
// is not validated again.
func declareSpec(va, old *storagev1.VolumeAttachment) field.ErrorList {
	op := validate.Operation(old != nil)
	var was *storagev1.VolumeAttachmentSpec
	if old != nil {
		was = &old.Spec
	}
	if validate.Unchanged(op, &va.Spec, was) {
		return nil
	}
	ctx, fld := context.Background(), field.NewPath("spec")
	if errs := apivalidate.Immutable(ctx, op, fld, &va.Spec, was).MarkBeta(); len(errs) != 0 {
		return errs
	}
	attacher := fld.Child("attacher")
	if errs := apivalidate.RequiredValue(ctx, op, attacher, &va.Spec.Attacher, nil).MarkBeta(); len(errs) != 0 {
		return errs
	}
	errs := apivalidate.LongNameCaseless(ctx, op, attacher, &va.Spec.Attacher, nil).MarkBeta()
	return append(errs, apivalidate.MaxLength(ctx, op, attacher, &va.Spec.Attacher, nil, maxAttacherLen).MarkBeta()...)
}
