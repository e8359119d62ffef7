// Package resource holds what the strategies of resource.k8s.io/v1
// (dynamic resource allocation) share: its validation as kube-apiserver
// v1.37 runs it. First the strategy's handwritten rules
// (pkg/apis/resource/validation upstream; the most used of them are
// reimplemented in rules.go), then the declarative
// rules generated from the API's tags (k8s.io/api/resource/v1's
// Validate_* functions), merged the way rest.ValidateDeclaratively merges
// them with DeclarativeValidationBeta on: standard and beta declarative
// errors are answered, after the handwritten ones, and replace the
// handwritten errors they cover; alpha ones are not answered.
package resource

import (
	"context"
	"fmt"
	"sync"
	"time"

	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/operation"
	"k8s.io/apimachinery/pkg/api/safe"
	"k8s.io/apimachinery/pkg/api/validate"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// resourceValidationOptions are the declarative validation options the
// strategies set: ResourceSlice's DRAPartitionableDevicesType gate is off
// by default in v1.37. Every kind gets them (an option a tag names but
// the operation lacks is an internal error).
func resourceValidationOptions() map[string]bool {
	return map[string]bool{"DRAPartitionableDevicesType": false}
}

// resourceValidationScheme holds the declarative validation of the
// resource.k8s.io/v1 kinds, registered as upstream's RegisterValidations
// does: per kind, the subresources it validates.
var resourceValidationScheme = sync.OnceValue(func() *runtime.Scheme {
	s := runtime.NewScheme()
	register := func(obj runtime.Object, subresources map[string]bool, fn func(ctx context.Context, op operation.Operation, obj, old any) field.ErrorList) {
		s.AddValidationFunc(obj, func(ctx context.Context, op operation.Operation, obj, old any) field.ErrorList {
			if !subresources[op.Request.SubresourcePath()] {
				return field.ErrorList{field.InternalError(nil, fmt.Errorf("no validation found for %T, subresource: %v", obj, op.Request.SubresourcePath()))}
			}
			return fn(ctx, op, obj, old)
		})
	}
	main, withStatus := map[string]bool{"/": true}, map[string]bool{"/": true, "/status": true}
	register(&resourcev1.DeviceClass{}, main, func(ctx context.Context, op operation.Operation, obj, old any) field.ErrorList {
		return declareDeviceClass(ctx, op, obj.(*resourcev1.DeviceClass), safe.Cast[*resourcev1.DeviceClass](old))
	})
	register(&resourcev1.DeviceTaintRule{}, withStatus, func(ctx context.Context, op operation.Operation, obj, old any) field.ErrorList {
		return declareDeviceTaintRule(ctx, op, obj.(*resourcev1.DeviceTaintRule), safe.Cast[*resourcev1.DeviceTaintRule](old))
	})
	register(&resourcev1.ResourceClaim{}, withStatus, func(ctx context.Context, op operation.Operation, obj, old any) field.ErrorList {
		return declareResourceClaim(ctx, op, obj.(*resourcev1.ResourceClaim), safe.Cast[*resourcev1.ResourceClaim](old))
	})
	register(&resourcev1.ResourceClaimTemplate{}, main, func(ctx context.Context, op operation.Operation, obj, old any) field.ErrorList {
		return declareResourceClaimTemplate(ctx, op, obj.(*resourcev1.ResourceClaimTemplate), safe.Cast[*resourcev1.ResourceClaimTemplate](old))
	})
	register(&resourcev1.ResourceSlice{}, main, func(ctx context.Context, op operation.Operation, obj, old any) field.ErrorList {
		return declareResourceSlice(ctx, op, obj.(*resourcev1.ResourceSlice), safe.Cast[*resourcev1.ResourceSlice](old))
	})
	return s
})

// declared validates one field of a kind declaratively: on update an
// unchanged value is not validated again (upstream's ratcheting), else
// fn runs on the value at fld.
func declared[T any](op operation.Operation, fld *field.Path, obj, old *T, fn func(fld *field.Path, obj, old *T) field.ErrorList) field.ErrorList {
	if op.Type == operation.Update && old != nil && equality.Semantic.DeepEqual(obj, old) {
		return nil
	}
	return fn(fld, obj, old)
}

// declaredMeta is the declarative validation of a kind's metadata:
// ObjectMeta's own tags (all alpha in v1.37).
func declaredMeta(ctx context.Context, op operation.Operation, obj, old *metav1.ObjectMeta) field.ErrorList {
	return declared(op, field.NewPath("metadata"), obj, old, func(fld *field.Path, obj, old *metav1.ObjectMeta) field.ErrorList {
		return metav1validation.Validate_ObjectMeta(ctx, op, fld, obj, old)
	})
}

// oldField returns a field of the old object, nil without one.
func oldField[T, F any](old *T, get func(*T) *F) *F {
	if old == nil {
		return nil
	}
	return get(old)
}

// The declare* functions are the declarative validation of each kind,
// what upstream generates for the kind itself (its metadata, spec and
// status) around k8s.io/api's generated functions for the rest: a
// DeviceClass's name is a DNS subdomain (beta), a ResourceClaim's spec is
// immutable (beta).

func declareDeviceClass(ctx context.Context, op operation.Operation, obj, old *resourcev1.DeviceClass) field.ErrorList {
	errs := declared(op, field.NewPath("metadata"), &obj.ObjectMeta, oldField(old, func(o *resourcev1.DeviceClass) *metav1.ObjectMeta { return &o.ObjectMeta }),
		func(fld *field.Path, m, om *metav1.ObjectMeta) field.ErrorList {
			// +k8s:subfield(name)=+k8s:optional, +k8s:format=k8s-long-name (beta).
			var errs field.ErrorList
			if op.Type != operation.Update || om == nil || m.Name != om.Name {
				if m.Name != "" {
					errs = append(errs, validate.LongName(ctx, op, fld.Child("name"), &m.Name, nil).MarkBeta()...)
				}
			}
			return append(errs, metav1validation.Validate_ObjectMeta(ctx, op, fld, m, om)...)
		})
	return append(errs, declared(op, field.NewPath("spec"), &obj.Spec, oldField(old, func(o *resourcev1.DeviceClass) *resourcev1.DeviceClassSpec { return &o.Spec }),
		func(fld *field.Path, s, os *resourcev1.DeviceClassSpec) field.ErrorList {
			return resourcev1.Validate_DeviceClassSpec(ctx, op, fld, s, os)
		})...)
}

func declareDeviceTaintRule(ctx context.Context, op operation.Operation, obj, old *resourcev1.DeviceTaintRule) field.ErrorList {
	errs := declaredMeta(ctx, op, &obj.ObjectMeta, oldField(old, func(o *resourcev1.DeviceTaintRule) *metav1.ObjectMeta { return &o.ObjectMeta }))
	errs = append(errs, declared(op, field.NewPath("spec"), &obj.Spec, oldField(old, func(o *resourcev1.DeviceTaintRule) *resourcev1.DeviceTaintRuleSpec { return &o.Spec }),
		func(fld *field.Path, s, os *resourcev1.DeviceTaintRuleSpec) field.ErrorList {
			return resourcev1.Validate_DeviceTaintRuleSpec(ctx, op, fld, s, os)
		})...)
	return append(errs, declared(op, field.NewPath("status"), &obj.Status, oldField(old, func(o *resourcev1.DeviceTaintRule) *resourcev1.DeviceTaintRuleStatus { return &o.Status }),
		func(fld *field.Path, s, os *resourcev1.DeviceTaintRuleStatus) field.ErrorList {
			return resourcev1.Validate_DeviceTaintRuleStatus(ctx, op, fld, s, os)
		})...)
}

func declareResourceClaim(ctx context.Context, op operation.Operation, obj, old *resourcev1.ResourceClaim) field.ErrorList {
	errs := declaredMeta(ctx, op, &obj.ObjectMeta, oldField(old, func(o *resourcev1.ResourceClaim) *metav1.ObjectMeta { return &o.ObjectMeta }))
	errs = append(errs, declared(op, field.NewPath("spec"), &obj.Spec, oldField(old, func(o *resourcev1.ResourceClaim) *resourcev1.ResourceClaimSpec { return &o.Spec }),
		func(fld *field.Path, s, os *resourcev1.ResourceClaimSpec) field.ErrorList {
			// +k8s:immutable (beta) short-circuits the rest.
			if e := validate.Immutable(ctx, op, fld, s, os).MarkBeta(); len(e) != 0 {
				return e
			}
			return resourcev1.Validate_ResourceClaimSpec(ctx, op, fld, s, os)
		})...)
	return append(errs, declared(op, field.NewPath("status"), &obj.Status, oldField(old, func(o *resourcev1.ResourceClaim) *resourcev1.ResourceClaimStatus { return &o.Status }),
		func(fld *field.Path, s, os *resourcev1.ResourceClaimStatus) field.ErrorList {
			return resourcev1.Validate_ResourceClaimStatus(ctx, op, fld, s, os)
		})...)
}

func declareResourceClaimTemplate(ctx context.Context, op operation.Operation, obj, old *resourcev1.ResourceClaimTemplate) field.ErrorList {
	errs := declaredMeta(ctx, op, &obj.ObjectMeta, oldField(old, func(o *resourcev1.ResourceClaimTemplate) *metav1.ObjectMeta { return &o.ObjectMeta }))
	return append(errs, declared(op, field.NewPath("spec"), &obj.Spec, oldField(old, func(o *resourcev1.ResourceClaimTemplate) *resourcev1.ResourceClaimTemplateSpec { return &o.Spec }),
		func(fld *field.Path, s, os *resourcev1.ResourceClaimTemplateSpec) field.ErrorList {
			return resourcev1.Validate_ResourceClaimTemplateSpec(ctx, op, fld, s, os)
		})...)
}

func declareResourceSlice(ctx context.Context, op operation.Operation, obj, old *resourcev1.ResourceSlice) field.ErrorList {
	errs := declaredMeta(ctx, op, &obj.ObjectMeta, oldField(old, func(o *resourcev1.ResourceSlice) *metav1.ObjectMeta { return &o.ObjectMeta }))
	return append(errs, declared(op, field.NewPath("spec"), &obj.Spec, oldField(old, func(o *resourcev1.ResourceSlice) *resourcev1.ResourceSliceSpec { return &o.Spec }),
		func(fld *field.Path, s, os *resourcev1.ResourceSliceSpec) field.ErrorList {
			return resourcev1.Validate_ResourceSliceSpec(ctx, op, fld, s, os)
		})...)
}

// defaultedResource returns a resource.k8s.io/v1 object with upstream's v1
// defaults applied (see ApplyDefaults), the object kube-apiserver
// validates. The object itself is left alone (a copy is defaulted); nil
// for other types.
func defaultedResource(obj runtime.Object) runtime.Object {
	switch o := obj.(type) {
	case *resourcev1.ResourceClaim:
		o = o.DeepCopy()
		ApplyDefaults(o)
		return o
	case *resourcev1.ResourceClaimTemplate:
		o = o.DeepCopy()
		ApplyDefaults(o)
		return o
	case *resourcev1.DeviceClass, *resourcev1.ResourceSlice, *resourcev1.DeviceTaintRule:
		// No defaults (a DeviceClass) or only a taint's timeAdded, the
		// time of the write, which their strategies set when they are
		// decoded: the object itself is validated (validation changes
		// nothing).
		return obj
	}
	return nil
}

// ApplyDefaults sets upstream's resource.k8s.io/v1 defaults
// (SetObjectDefaults_*) of a ResourceClaim, ResourceClaimTemplate,
// ResourceSlice or DeviceTaintRule, which kube-apiserver stores: requests'
// allocationMode ExactCount with count 1, tolerations' operator Equal, and
// taints' timeAdded the current time, to the second. Other objects are left
// alone.
func ApplyDefaults(obj runtime.Object) {
	request := func(mode *resourcev1.DeviceAllocationMode, count *int64, tolerations []resourcev1.DeviceToleration) {
		if *mode == "" {
			*mode = resourcev1.DeviceAllocationModeExactCount
		}
		if *mode == resourcev1.DeviceAllocationModeExactCount && *count == 0 {
			*count = 1
		}
		defaultTolerations(tolerations)
	}
	claimSpec := func(s *resourcev1.ResourceClaimSpec) {
		for i := range s.Devices.Requests {
			r := &s.Devices.Requests[i]
			if e := r.Exactly; e != nil {
				request(&e.AllocationMode, &e.Count, e.Tolerations)
			}
			for j := range r.FirstAvailable {
				f := &r.FirstAvailable[j]
				request(&f.AllocationMode, &f.Count, f.Tolerations)
			}
		}
	}
	switch o := obj.(type) {
	case *resourcev1.ResourceClaim:
		claimSpec(&o.Spec)
		if o.Status.Allocation != nil {
			for i := range o.Status.Allocation.Devices.Results {
				defaultTolerations(o.Status.Allocation.Devices.Results[i].Tolerations)
			}
		}
	case *resourcev1.ResourceClaimTemplate:
		claimSpec(&o.Spec.Spec)
	case *resourcev1.ResourceSlice:
		for i := range o.Spec.Devices {
			for j := range o.Spec.Devices[i].Taints {
				defaultTimeAdded(&o.Spec.Devices[i].Taints[j])
			}
		}
	case *resourcev1.DeviceTaintRule:
		defaultTimeAdded(&o.Spec.Taint)
	}
}

// defaultTimeAdded gives a taint without a timeAdded the current time,
// truncated to the second as upstream's default does (upstream reads the
// system clock, not a control plane's).
func defaultTimeAdded(t *resourcev1.DeviceTaint) {
	if t.TimeAdded == nil {
		t.TimeAdded = &metav1.Time{Time: time.Now().Truncate(time.Second)}
	}
}

// defaultTolerations gives tolerations without an operator upstream's
// default, Equal.
func defaultTolerations(ts []resourcev1.DeviceToleration) {
	for i := range ts {
		if ts[i].Operator == "" {
			ts[i].Operator = resourcev1.DeviceTolerationOpEqual
		}
	}
}

// Validation is the validation of a resource.k8s.io/v1 kind that its
// strategy embeds: the handwritten rules (Validate, ValidateUpdate), then
// their merge with the declarative ones (ValidateDeclaratively, see
// strategy.DeclarativeValidator). Objects are validated as upstream
// defaults them (see defaultedResource) and are left unchanged.
type Validation struct{}

// Validate returns the handwritten errors of a new object, metadata
// excluded.
func (Validation) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validateResourceRules(defaultedResource(obj), nil)
}

// ValidateUpdate returns the handwritten errors of an update, metadata
// excluded.
func (Validation) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validateResourceRules(defaultedResource(obj), defaultedResource(old))
}

// ValidateDeclaratively merges errs, the metadata and handwritten errors of
// obj (old nil on create; status for a write to /status), with its
// declarative errors, the way rest.ValidateDeclaratively merges them.
func (Validation) ValidateDeclaratively(ctx context.Context, errs field.ErrorList, obj, old runtime.Object, status bool) field.ErrorList {
	return withDeclarative(ctx, errs, obj, old, status)
}

// StatusValidation is the validation of a write to the /status of a
// resource.k8s.io/v1 kind (ResourceClaim, DeviceTaintRule), which its
// strategy embeds besides Validation.
type StatusValidation struct{}

// ValidateStatusUpdate returns the handwritten errors of a write to
// /status, metadata excluded.
func (StatusValidation) ValidateStatusUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validateResourceStatusRules(defaultedResource(obj), defaultedResource(old))
}

// withDeclarative merges errs, the metadata and handwritten errors of a
// resource.k8s.io/v1 object (old nil on create; status for a write to
// /status), with its declarative errors. Other objects' errs are returned
// as they are.
func withDeclarative(ctx context.Context, errs field.ErrorList, obj, old runtime.Object, status bool) field.ErrorList {
	n := defaultedResource(obj)
	if n == nil {
		return errs
	}
	var o runtime.Object
	if old != nil {
		o = defaultedResource(old)
	}
	if _, ok := n.(*resourcev1.DeviceClass); ok {
		// The strategy validates a class's name with the declarative
		// rule (format=k8s-long-name), which covers it.
		for _, e := range errs {
			if e.Type == field.ErrorTypeInvalid && e.Field == "metadata.name" {
				e.WithOrigin("format=k8s-long-name").MarkCoveredByDeclarative()
			}
		}
	}
	var subresources []string
	if status {
		subresources = []string{"status"}
	}
	var declarative field.ErrorList
	if o == nil {
		declarative = resourceValidationScheme().Validate(ctx, resourceValidationOptions(), n, subresources...)
	} else {
		declarative = resourceValidationScheme().ValidateUpdate(ctx, resourceValidationOptions(), n, o, subresources...)
	}
	enforced := validate.FilterEnforcedDeclarativeErrors(ctx, declarative, true)
	errs = validate.FilterCoveredHandwrittenErrors(ctx, errs.MarkFromImperative(), enforced, true)
	return append(errs, enforced...)
}
