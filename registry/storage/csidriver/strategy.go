// Package csidriver holds the CSIDriver strategy: the flags of kube-apiserver's
// pkg/registry/storage/csidriver strategy and storage, the defaults of its spec
// (as v1.37 sets them, its SELinuxMountReadWriteOncePod and VolumeLimitScaling
// gates on) and their validation.
package csidriver

import (
	"context"
	"slices"

	storagev1 "k8s.io/api/storage/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the CSIDriver strategy. As upstream's, it leaves
// metadata.generation unset at create and increments it when an update
// changes the spec (PrepareForUpdate), so it does not track generation the
// way resources with a status do.
var Strategy = csiDriverStrategy{strategy.Base{ReturnDeleted: true, NameRuleOnCreateOnly: true}}

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

// Default sets upstream's defaults of a CSIDriver's spec.
func (csiDriverStrategy) Default(obj runtime.Object) {
	spec := &obj.(*storagev1.CSIDriver).Spec
	for p, v := range map[**bool]bool{
		&spec.AttachRequired: true, &spec.PodInfoOnMount: false, &spec.StorageCapacity: false,
		&spec.RequiresRepublish: false, &spec.SELinuxMount: false, &spec.PreventPodSchedulingIfMissing: false,
	} {
		if *p == nil {
			*p = ptr.To(v)
		}
	}
	if spec.FSGroupPolicy == nil {
		spec.FSGroupPolicy = ptr.To(storagev1.ReadWriteOnceWithFSTypeFSGroupPolicy)
	}
	if len(spec.VolumeLifecycleModes) == 0 {
		spec.VolumeLifecycleModes = []storagev1.VolumeLifecycleMode{storagev1.VolumeLifecyclePersistent}
	}
}

// Validate checks a new CSIDriver's spec.
func (csiDriverStrategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validateSpec(&obj.(*storagev1.CSIDriver).Spec, field.NewPath("spec"))
}

// ValidateUpdate checks the spec, whose attachRequired and
// volumeLifecycleModes do not change.
func (csiDriverStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	spec, was := &obj.(*storagev1.CSIDriver).Spec, &old.(*storagev1.CSIDriver).Spec
	errs := validateSpec(spec, field.NewPath("spec"))
	// (Upstream's path says "attachedRequired".)
	errs = append(errs, apivalidation.ValidateImmutableField(spec.AttachRequired, was.AttachRequired, field.NewPath("spec", "attachedRequired"))...)
	return append(errs, apivalidation.ValidateImmutableField(spec.VolumeLifecycleModes, was.VolumeLifecycleModes, field.NewPath("spec", "volumeLifecycleModes"))...)
}

// fsGroupPolicies are the fsGroupPolicy values, sorted as upstream's message
// lists them.
var fsGroupPolicies = []string{string(storagev1.FileFSGroupPolicy), string(storagev1.NoneFSGroupPolicy), string(storagev1.ReadWriteOnceWithFSTypeFSGroupPolicy)}

// validateSpec is upstream's validateCSIDriverSpec, in its order.
func validateSpec(spec *storagev1.CSIDriverSpec, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, f := range []struct {
		name string
		v    *bool
	}{{"attachedRequired", spec.AttachRequired}, {"podInfoOnMount", spec.PodInfoOnMount}, {"storageCapacity", spec.StorageCapacity}} {
		if f.v == nil {
			errs = append(errs, field.Required(fld.Child(f.name), ""))
		}
	}
	if p := spec.FSGroupPolicy; p != nil && !slices.Contains(fsGroupPolicies, string(*p)) {
		errs = append(errs, field.NotSupported(fld.Child("fsGroupPolicy"), p, fsGroupPolicies))
	}
	errs = append(errs, validateTokenRequests(spec.TokenRequests, fld.Child("tokenRequests"))...)
	for _, mode := range spec.VolumeLifecycleModes {
		if mode != storagev1.VolumeLifecyclePersistent && mode != storagev1.VolumeLifecycleEphemeral {
			errs = append(errs, field.NotSupported(fld.Child("volumeLifecycleModes"), mode, []string{string(storagev1.VolumeLifecyclePersistent), string(storagev1.VolumeLifecycleEphemeral)}))
		}
	}
	if spec.SELinuxMount == nil {
		errs = append(errs, field.Required(fld.Child("seLinuxMount"), ""))
	}
	if p := spec.NodeAllocatableUpdatePeriodSeconds; p != nil && *p < 10 {
		errs = append(errs, field.Invalid(fld.Child("nodeAllocatableUpdatePeriodSeconds"), *p, "must be greater than or equal to 10 seconds"))
	}
	if s := spec.ServiceAccountTokenInSecrets; s != nil && len(spec.TokenRequests) == 0 {
		errs = append(errs, field.Invalid(fld.Child("serviceAccountTokenInSecrets"), s, "serviceAccountTokenInSecrets is set but no tokenRequests are specified"))
	}
	if spec.PreventPodSchedulingIfMissing == nil {
		errs = append(errs, field.Required(fld.Child("preventPodSchedulingIfMissing"), ""))
	}
	return errs
}

// validateTokenRequests checks that no two token requests share an audience
// and that their expirations lie between 10 minutes and 2^32 seconds.
func validateTokenRequests(requests []storagev1.TokenRequest, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	audiences := map[string]bool{}
	for i, r := range requests {
		if audiences[r.Audience] {
			errs = append(errs, field.Duplicate(fld.Index(i).Child("audience"), r.Audience))
			continue
		}
		audiences[r.Audience] = true
		switch e := r.ExpirationSeconds; {
		case e == nil:
		case *e < 600:
			errs = append(errs, field.Invalid(fld.Index(i).Child("expirationSeconds"), *e, "may not specify a duration less than 10 minutes"))
		case *e > 1<<32:
			errs = append(errs, field.Invalid(fld.Index(i).Child("expirationSeconds"), *e, "may not specify a duration larger than 2^32 seconds"))
		}
	}
	return errs
}
