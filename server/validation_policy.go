package server

import (
	"fmt"
	"github.com/fakeplane/fakeplane/internal/validate"
	"strings"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// PodDisruptionBudgets (pkg/apis/policy/validation) and the scale target
// and replica bounds of HorizontalPodAutoscalers
// (pkg/apis/autoscaling/validation) as upstream validates them.

func validatePDB(p *policyv1.PodDisruptionBudget) field.ErrorList {
	spec := field.NewPath("spec")
	s := p.Spec
	var errs field.ErrorList
	if s.MinAvailable != nil && s.MaxUnavailable != nil {
		errs = append(errs, field.Invalid(spec, validate.InternalValue(s), "minAvailable and maxUnavailable cannot be both set"))
	}
	if s.MinAvailable != nil {
		errs = append(errs, validate.PositiveIntOrPercent(*s.MinAvailable, spec.Child("minAvailable"))...)
		errs = append(errs, validate.NotMoreThan100Percent(*s.MinAvailable, spec.Child("minAvailable"))...)
	}
	if s.MaxUnavailable != nil {
		errs = append(errs, validate.PositiveIntOrPercent(*s.MaxUnavailable, spec.Child("maxUnavailable"))...)
		errs = append(errs, validate.NotMoreThan100Percent(*s.MaxUnavailable, spec.Child("maxUnavailable"))...)
	}
	errs = append(errs, metav1validation.ValidateLabelSelector(s.Selector, metav1validation.LabelSelectorValidationOptions{}, spec.Child("selector"))...)
	if pol := s.UnhealthyPodEvictionPolicy; pol != nil && *pol != policyv1.IfHealthyBudget && *pol != policyv1.AlwaysAllow {
		errs = append(errs, field.NotSupported(spec.Child("unhealthyPodEvictionPolicy"), *pol, []string{"AlwaysAllow", "IfHealthyBudget"}))
	}
	return errs
}

// validateHPA checks an autoscaler's replica bounds, scale target and
// scale-to-zero metrics (not the metrics' and behavior's own rules);
// upstream checks the bounds declaratively, those errors come last.
func validateHPA(h, old *autoscalingv2.HorizontalPodAutoscaler) field.ErrorList {
	spec := field.NewPath("spec")
	s := &h.Spec
	var errs, declarative field.ErrorList
	// HPAScaleToZero is on in v1.37: minReplicas may be 0.
	if s.MinReplicas != nil && *s.MinReplicas < 0 {
		declarative = append(declarative, field.Invalid(spec.Child("minReplicas"), *s.MinReplicas, "must be greater than or equal to 0"))
	}
	if s.MaxReplicas == 0 {
		declarative = append(declarative, field.Required(spec.Child("maxReplicas"), ""))
	} else if s.MaxReplicas < 0 {
		declarative = append(declarative, field.Invalid(spec.Child("maxReplicas"), s.MaxReplicas, "must be greater than or equal to 1"))
	}
	if s.MinReplicas != nil && s.MaxReplicas < *s.MinReplicas {
		errs = append(errs, field.Invalid(spec.Child("maxReplicas"), s.MaxReplicas, "must be greater than or equal to `minReplicas`"))
	}
	ref := s.ScaleTargetRef
	rf := spec.Child("scaleTargetRef")
	errs = append(errs, validate.RequiredPathSegment(rf.Child("kind"), ref.Kind)...)
	errs = append(errs, validate.RequiredPathSegment(rf.Child("name"), ref.Name)...)
	unchanged := old != nil && old.Spec.ScaleTargetRef.APIVersion == ref.APIVersion && old.Spec.ScaleTargetRef.Kind == ref.Kind
	if !unchanged {
		if gv, err := schema.ParseGroupVersion(ref.APIVersion); err != nil {
			errs = append(errs, field.Invalid(rf.Child("apiVersion"), ref.APIVersion, err.Error()))
		} else if gv.Group == "" && ref.Kind != "ReplicationController" {
			errs = append(errs, field.Invalid(rf.Child("apiVersion"), ref.APIVersion, "apiVersion must specify API group"))
		}
	}
	if s.MinReplicas != nil && *s.MinReplicas == 0 {
		scalesToZero := false
		for _, m := range s.Metrics {
			scalesToZero = scalesToZero || m.Type == autoscalingv2.ObjectMetricSourceType || m.Type == autoscalingv2.ExternalMetricSourceType
		}
		if !scalesToZero {
			errs = append(errs, field.Forbidden(spec.Child("metrics"), "must specify at least one Object or External metric to support scaling to zero replicas"))
		}
	}
	return append(errs, declarative...)
}

// systemPriorityClasses are the reserved classes upstream knows (value,
// global default).
var systemPriorityClasses = map[string]int32{"system-node-critical": 2000001000, "system-cluster-critical": 2000000000}

// validatePriorityClass is upstream's ValidatePriorityClass(Update) less the
// metadata.
func validatePriorityClass(pc, old *schedulingv1.PriorityClass) field.ErrorList {
	var errs field.ErrorList
	if old != nil {
		if pc.Value != old.Value {
			errs = append(errs, field.Forbidden(field.NewPath("value"), "may not be changed in an update."))
		}
		return append(errs, validate.ImmutableField(pc.PreemptionPolicy, old.PreemptionPolicy, field.NewPath("preemptionPolicy"))...)
	}
	if strings.HasPrefix(pc.Name, "system-") {
		var err string
		if v, ok := systemPriorityClasses[pc.Name]; !ok {
			err = pc.Name + " is not a known system priority class"
		} else if v != pc.Value {
			err = fmt.Sprintf("value of %v PriorityClass must be %v", pc.Name, v)
		} else if pc.GlobalDefault {
			err = fmt.Sprintf("globalDefault of %v PriorityClass must be false", pc.Name)
		}
		if err != "" {
			errs = append(errs, field.Forbidden(field.NewPath("metadata", "name"), "priority class names with 'system-' prefix are reserved for system use only. error: "+err))
		}
	} else if pc.Value > 1000000000 {
		errs = append(errs, field.Forbidden(field.NewPath("value"), "maximum allowed value of a user defined priority is 1000000000"))
	}
	if p := pc.PreemptionPolicy; p != nil {
		errs = append(errs, validate.SupportedValue(field.NewPath("preemptionPolicy"), string(*p), "PreemptLowerPriority", "Never")...)
	}
	return errs
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
	var errs field.ErrorList
	if sc.Provisioner == "" {
		errs = append(errs, field.Required(field.NewPath("provisioner"), ""))
	} else {
		for _, msg := range validation.IsQualifiedName(strings.ToLower(sc.Provisioner)) {
			errs = append(errs, field.Invalid(field.NewPath("provisioner"), strings.ToLower(sc.Provisioner), msg))
		}
	}
	params := field.NewPath("parameters")
	if len(sc.Parameters) > 512 {
		errs = append(errs, field.TooLong(params, "", 512))
	} else {
		size := 0
		for _, k := range validate.SortedKeys(sc.Parameters) {
			if k == "" {
				errs = append(errs, field.Invalid(params, k, "field can not be empty."))
			}
			size += len(k) + len(sc.Parameters[k])
		}
		if size > 256*1024 {
			errs = append(errs, field.TooLong(params, "", 256*1024))
		}
	}
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
