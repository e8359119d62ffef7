// Package storageclass holds the StorageClass strategy: kube-apiserver's
// pkg/registry/storage/storageclass rules.
package storageclass

import (
	"context"
	"strings"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the StorageClass strategy.
var Strategy = storageClassStrategy{strategy.Base{UnconditionalUpdate: true, ReturnDeleted: true}}

type storageClassStrategy struct{ strategy.Base }

// Default sets the reclaim policy and the volume binding mode.
func (storageClassStrategy) Default(obj runtime.Object) {
	o := obj.(*storagev1.StorageClass)
	if o.ReclaimPolicy == nil {
		p := corev1.PersistentVolumeReclaimDelete
		o.ReclaimPolicy = &p
	}
	if o.VolumeBindingMode == nil {
		m := storagev1.VolumeBindingImmediate
		o.VolumeBindingMode = &m
	}
}

// Validate checks a new class's provisioner, parameters and policies.
func (storageClassStrategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validateStorageClass(obj.(*storagev1.StorageClass), nil)
}

// ValidateUpdate keeps the provisioner, parameters and policies.
func (storageClassStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validateStorageClass(obj.(*storagev1.StorageClass), old.(*storagev1.StorageClass))
}

// validateStorageClass is upstream's ValidateStorageClass(Update) less the
// metadata (allowed topologies not checked).
func validateStorageClass(sc, old *storagev1.StorageClass) field.ErrorList {
	if old != nil {
		var errs field.ErrorList
		errs = append(errs, validate.ImmutableField(sc.Parameters, old.Parameters, field.NewPath("parameters"))...)
		errs = append(errs, validate.ImmutableField(sc.Provisioner, old.Provisioner, field.NewPath("provisioner"))...)
		errs = append(errs, validate.ImmutableField(sc.ReclaimPolicy, old.ReclaimPolicy, field.NewPath("reclaimPolicy"))...)
		return append(errs, validate.ImmutableField(sc.VolumeBindingMode, old.VolumeBindingMode, field.NewPath("volumeBindingMode"))...)
	}
	errs := ValidateProvisioner(sc.Provisioner, field.NewPath("provisioner"))
	errs = append(errs, ValidateParameters(sc.Parameters, true, field.NewPath("parameters"))...)
	if p := sc.ReclaimPolicy; p != nil && *p != "" && *p != corev1.PersistentVolumeReclaimDelete && *p != corev1.PersistentVolumeReclaimRetain {
		errs = append(errs, field.NotSupported(field.NewPath("reclaimPolicy"), p, []string{"Delete", "Retain"}))
	}
	if m := sc.VolumeBindingMode; m == nil {
		errs = append(errs, field.Required(field.NewPath("volumeBindingMode"), ""))
	} else if *m != storagev1.VolumeBindingImmediate && *m != storagev1.VolumeBindingWaitForFirstConsumer {
		errs = append(errs, field.NotSupported(field.NewPath("volumeBindingMode"), m, []string{"Immediate", "WaitForFirstConsumer"}))
	}
	return errs
}

// ValidateProvisioner is upstream's check of a provisioner's or a driver's
// name: required, and a qualified name once lowercased.
func ValidateProvisioner(name string, fld *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(fld, "")}
	}
	var errs field.ErrorList
	for _, msg := range validation.IsQualifiedName(strings.ToLower(name)) {
		errs = append(errs, field.Invalid(fld, strings.ToLower(name), msg))
	}
	return errs
}

// ValidateParameters is upstream's check of a class's parameters: at most
// 512, no empty key, 256 KiB of keys and values in all, and (unless
// allowEmpty) at least one.
func ValidateParameters(params map[string]string, allowEmpty bool, fld *field.Path) field.ErrorList {
	if len(params) > 512 {
		return field.ErrorList{field.TooLong(fld, "", 512)}
	}
	var errs field.ErrorList
	size := 0
	for _, k := range validate.SortedKeys(params) {
		if k == "" {
			errs = append(errs, field.Invalid(fld, k, "field can not be empty."))
		}
		size += len(k) + len(params[k])
	}
	if size > 256*1024 {
		errs = append(errs, field.TooLong(fld, "", 256*1024))
	}
	if !allowEmpty && len(params) == 0 {
		errs = append(errs, field.Required(fld, "must contain at least one key/value pair"))
	}
	return errs
}
