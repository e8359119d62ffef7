package resource

import (
	resourcev1 "k8s.io/api/resource/v1"
)

// The fields below belong to feature gates that are off by default in
// kube-apiserver v1.37, whose default gates fakeplane serves. As the
// dropDisabled* functions of upstream's pkg/registry/resource strategies
// and pkg/api/resourceclaimspec do, a write clears such a field, unless
// the object being updated (old) already uses the feature: then the field
// is kept, so that an object written while the gate was on survives
// unrelated updates. On create old is nil.
//
// Gates off by default in v1.37 that need nothing here: DRAResourcePoolStatus
// (its ResourcePoolStatusRequest API is not served), DRAWorkloadResourceClaims
// (fields of scheduling.k8s.io, not of resource.k8s.io) and
// DRAFractionalCapacityRange (it changes validation, drops no field).

// DropDisabledClaimSpecFields clears the fields of a claim's spec (of a
// ResourceClaim or of a ResourceClaimTemplate's spec.spec) whose gates are
// off, as upstream's resourceclaimspec.DropDisabledFields: the derived
// attributes of requests and subrequests (DRADerivedAttributes).
func DropDisabledClaimSpecFields(spec, old *resourcev1.ResourceClaimSpec) {
	if derivedAttributesInUse(old) {
		return
	}
	for i := range spec.Devices.Requests {
		req := &spec.Devices.Requests[i]
		if req.Exactly != nil {
			req.Exactly.DerivedAttributes = nil
		}
		for j := range req.FirstAvailable {
			req.FirstAvailable[j].DerivedAttributes = nil
		}
	}
}

// derivedAttributesInUse reports whether a claim spec has derived
// attributes (DRADerivedAttributes).
func derivedAttributesInUse(spec *resourcev1.ResourceClaimSpec) bool {
	if spec == nil {
		return false
	}
	for _, req := range spec.Devices.Requests {
		if req.Exactly != nil && len(req.Exactly.DerivedAttributes) > 0 {
			return true
		}
		for _, sub := range req.FirstAvailable {
			if len(sub.DerivedAttributes) > 0 {
				return true
			}
		}
	}
	return false
}

// DropDisabledClaimStatusFields clears the fields of a claim's status whose
// gates are off, as the dropDisabledStatusFields of upstream's
// ResourceClaim status strategy: the skipped node operations of
// allocation results (DRAOptionalNodeOperations).
func DropDisabledClaimStatusFields(claim, old *resourcev1.ResourceClaim) {
	if old != nil && old.Status.Allocation != nil {
		for _, result := range old.Status.Allocation.Devices.Results {
			if len(result.SkipNodeOperations) > 0 {
				return
			}
		}
	}
	if claim.Status.Allocation == nil {
		return
	}
	for i := range claim.Status.Allocation.Devices.Results {
		claim.Status.Allocation.Devices.Results[i].SkipNodeOperations = nil
	}
}

// DropDisabledSliceFields clears the fields of a ResourceSlice whose gates
// are off, as the dropDisabledFields of upstream's ResourceSlice strategy,
// each gate on its own: the compatibility groups of counter consumptions
// (DRADeviceCompatibilityGroups), the node allocatable resources of devices
// (DRANodeAllocatableResources), list-typed attribute values
// (DRAListTypeAttributes), the partition type attribute
// (DRAPartitionableDevicesType) and the skipped node operations
// (DRAOptionalNodeOperations).
func DropDisabledSliceFields(slice, old *resourcev1.ResourceSlice) {
	var oldSpec *resourcev1.ResourceSliceSpec
	if old != nil {
		oldSpec = &old.Spec
	}
	spec := &slice.Spec
	if !anyDevice(oldSpec, func(d *resourcev1.Device) bool {
		for _, c := range d.ConsumesCounters {
			if len(c.CompatibilityGroups) > 0 {
				return true
			}
		}
		return false
	}) {
		for i := range spec.Devices {
			for j := range spec.Devices[i].ConsumesCounters {
				spec.Devices[i].ConsumesCounters[j].CompatibilityGroups = nil
			}
		}
	}
	if !anyDevice(oldSpec, func(d *resourcev1.Device) bool { return len(d.NodeAllocatableResources) > 0 }) {
		for i := range spec.Devices {
			spec.Devices[i].NodeAllocatableResources = nil
		}
	}
	if !anyDevice(oldSpec, func(d *resourcev1.Device) bool {
		for _, a := range d.Attributes {
			if a.BoolValues != nil || a.IntValues != nil || a.StringValues != nil || a.VersionValues != nil {
				return true
			}
		}
		return false
	}) {
		for i := range spec.Devices {
			for name, a := range spec.Devices[i].Attributes {
				if a.BoolValues != nil || a.IntValues != nil || a.StringValues != nil || a.VersionValues != nil {
					a.BoolValues, a.IntValues, a.StringValues, a.VersionValues = nil, nil, nil, nil
					spec.Devices[i].Attributes[name] = a
				}
			}
		}
	}
	if oldSpec == nil || oldSpec.PartitionTypeAttribute == nil {
		spec.PartitionTypeAttribute = nil
	}
	if oldSpec == nil || len(oldSpec.SkipNodeOperations) == 0 {
		spec.SkipNodeOperations = nil
	}
}

// anyDevice reports whether a device of spec (nil: none) satisfies uses.
func anyDevice(spec *resourcev1.ResourceSliceSpec, uses func(*resourcev1.Device) bool) bool {
	if spec == nil {
		return false
	}
	for i := range spec.Devices {
		if uses(&spec.Devices[i]) {
			return true
		}
	}
	return false
}
