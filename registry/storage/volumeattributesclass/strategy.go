// Package volumeattributesclass holds the VolumeAttributesClass strategy: the flags of kube-apiserver's
// pkg/registry/storage/volumeattributesclass strategy and storage, and its
// validation: a driver and parameters, as a StorageClass's provisioner and
// parameters (but at least one), that updates do not change.
package volumeattributesclass

import (
	"context"
	"reflect"

	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/registry/storage/storageclass"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the VolumeAttributesClass strategy.
var Strategy = volumeAttributesClassStrategy{strategy.Base{UnconditionalUpdate: true, ReturnDeleted: true}}

type volumeAttributesClassStrategy struct{ strategy.Base }

// Validate checks a new class's driver and parameters.
func (volumeAttributesClassStrategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validate(obj.(*storagev1.VolumeAttributesClass))
}

// ValidateUpdate forbids changes of the driver and the parameters, then
// checks the class as a new one.
func (volumeAttributesClassStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	vac, was := obj.(*storagev1.VolumeAttributesClass), old.(*storagev1.VolumeAttributesClass)
	var errs field.ErrorList
	if vac.DriverName != was.DriverName {
		errs = append(errs, field.Forbidden(field.NewPath("driverName"), "updates to driverName are forbidden."))
	}
	if !reflect.DeepEqual(vac.Parameters, was.Parameters) {
		errs = append(errs, field.Forbidden(field.NewPath("parameters"), "updates to parameters are forbidden."))
	}
	return append(errs, validate(vac)...)
}

// validate checks the driver's name and the parameters.
func validate(vac *storagev1.VolumeAttributesClass) field.ErrorList {
	errs := storageclass.ValidateProvisioner(vac.DriverName, field.NewPath("driverName"))
	return append(errs, storageclass.ValidateParameters(vac.Parameters, false, field.NewPath("parameters"))...)
}
