// Package csinode holds the CSINode strategy: the flags of kube-apiserver's
// pkg/registry/storage/csinode strategy and storage, the status field its gate
// drops (gates.go), and upstream's validation of a CSINode
// (pkg/apis/storage/validation): each driver's name (a CSI driver name, once),
// node ID, allocatable count and topology keys, a driver's entry that updates
// keep but for its allocatable count (MutableCSINodeAllocatableCount, GA), and the
// status's storage health, on create, update and writes to /status.
package csinode

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the CSINode strategy.
var Strategy = csiNodeStrategy{strategy.Base{ReturnDeleted: true, ResetStatusOnCreate: true}}

type csiNodeStrategy struct{ strategy.Base }

// Limits of a CSINode's fields.
const (
	maxNodeIDLen        = 256
	maxHealthConditions = 16
	maxHealthReasonLen  = 256
	maxHealthMessageLen = 1024
)

// Validate checks a new CSINode's drivers.
func (csiNodeStrategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validateDrivers(obj.(*storagev1.CSINode).Spec.Drivers, field.NewPath("spec", "drivers"))
}

// ValidateUpdate checks the drivers, an entry for a driver the stored
// CSINode has being kept but for its allocatable count.
func (csiNodeStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	drivers, was := obj.(*storagev1.CSINode).Spec.Drivers, old.(*storagev1.CSINode).Spec.Drivers
	fld := field.NewPath("spec", "drivers")
	errs := validateDrivers(drivers, fld)
	for _, o := range was {
		for _, n := range drivers {
			if o.Name != n.Name {
				continue
			}
			o, n := o, n
			o.Allocatable, n.Allocatable = nil, nil
			errs = append(errs, validate.ImmutableInternal(&n, &o, fld)...)
		}
	}
	return errs
}

// ValidateStatusUpdate checks a write to /status: its storage health, one
// entry a driver.
func (csiNodeStrategy) ValidateStatusUpdate(_ context.Context, obj, _ runtime.Object) field.ErrorList {
	fld := field.NewPath("status", "storageHealth")
	var errs field.ErrorList
	seen := sets.New[string]()
	for i, h := range obj.(*storagev1.CSINode).Status.StorageHealth {
		p := fld.Index(i)
		if seen.Has(h.Name) {
			errs = append(errs, field.Duplicate(p, h.Name))
		}
		seen.Insert(h.Name)
		errs = append(errs, validateStorageHealth(&h, p)...)
	}
	return errs
}

// validateDrivers checks each driver: its name (once), node ID,
// allocatable count and topology keys.
func validateDrivers(drivers []storagev1.CSINodeDriver, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := sets.New[string]()
	for i, d := range drivers {
		p := fld.Index(i)
		errs = append(errs, validate.CSIDriverName(d.Name, p.Child("name"))...)
		if d.NodeID == "" {
			errs = append(errs, field.Required(p.Child("nodeID"), ""))
		}
		if len(d.NodeID) > maxNodeIDLen {
			errs = append(errs, field.Invalid(p.Child("nodeID"), d.NodeID, fmt.Sprintf("must be %d characters or less", maxNodeIDLen)))
		}
		if a := d.Allocatable; a != nil && a.Count != nil && *a.Count < 0 {
			errs = append(errs, validate.Nonnegative(int64(*a.Count), p.Child("allocatable", "count"))...)
		}
		if names.Has(d.Name) {
			errs = append(errs, field.Duplicate(p.Child("name"), d.Name))
		}
		names.Insert(d.Name)
		keys := sets.New[string]()
		for _, k := range d.TopologyKeys {
			// Upstream reports a key's errors at the driver.
			if k == "" {
				errs = append(errs, field.Required(p, k))
			}
			if keys.Has(k) {
				errs = append(errs, field.Duplicate(p, k))
			}
			keys.Insert(k)
			for _, msg := range validation.IsQualifiedName(k) {
				errs = append(errs, field.Invalid(p, k, msg))
			}
		}
	}
	return errs
}

var (
	// healthStatuses are the storage health statuses, sorted.
	healthStatuses = []storagev1.StorageHealthStatusType{storagev1.StorageDegraded, storagev1.StorageUnreachable}
	// accessModes are the access modes a health condition may name, sorted.
	accessModes = []corev1.PersistentVolumeAccessMode{corev1.ReadOnlyMany, corev1.ReadWriteMany, corev1.ReadWriteOnce, corev1.ReadWriteOncePod}
	// volumeModes are the volume modes, in upstream's order.
	volumeModes = []corev1.PersistentVolumeMode{corev1.PersistentVolumeFilesystem, corev1.PersistentVolumeBlock}
)

// validateStorageHealth checks a driver's storage health: its name, and at
// most 16 conditions, each valid.
func validateStorageHealth(h *storagev1.StorageHealth, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if h.Name == "" {
		errs = append(errs, field.Required(fld.Child("name"), ""))
	} else {
		errs = append(errs, validate.CSIDriverName(h.Name, fld.Child("name"))...)
	}
	if len(h.HealthConditions) > maxHealthConditions {
		return append(errs, field.TooMany(fld.Child("healthConditions"), len(h.HealthConditions), maxHealthConditions))
	}
	for i, c := range h.HealthConditions {
		errs = append(errs, validateHealthCondition(&c, fld.Child("healthConditions").Index(i))...)
	}
	return errs
}

// validateHealthCondition checks a condition's status, reason, message,
// access mode and volume mode.
func validateHealthCondition(c *storagev1.StorageHealthCondition, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if !sets.New(healthStatuses...).Has(c.Status) {
		errs = append(errs, field.NotSupported(fld.Child("status"), c.Status, healthStatuses))
	}
	if c.Reason == "" {
		errs = append(errs, field.Required(fld.Child("reason"), ""))
	} else {
		for _, msg := range metav1validation.IsValidConditionReason(c.Reason) {
			errs = append(errs, field.Invalid(fld.Child("reason"), c.Reason, msg))
		}
		if len(c.Reason) > maxHealthReasonLen {
			errs = append(errs, field.TooLong(fld.Child("reason"), c.Reason, maxHealthReasonLen))
		}
	}
	if len(c.Message) > maxHealthMessageLen {
		errs = append(errs, field.TooLong(fld.Child("message"), c.Message, maxHealthMessageLen))
	}
	if m := c.AccessMode; m != nil && !sets.New(accessModes...).Has(*m) {
		errs = append(errs, field.NotSupported(fld.Child("accessMode"), *m, accessModes))
	}
	if m := c.VolumeMode; m != nil && !sets.New(volumeModes...).Has(*m) {
		errs = append(errs, field.NotSupported(fld.Child("volumeMode"), *m, volumeModes))
	}
	return errs
}
