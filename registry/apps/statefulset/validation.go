package statefulset

import (
	"context"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane/internal/validate"
	"github.com/fakeplane/fakeplane/registry/core/persistentvolumeclaim"
	"github.com/fakeplane/fakeplane/registry/core/pod"
)

// setOptions are upstream's StatefulSetValidationOptions that an update
// sets: the service name and claim templates, which may not change, are
// not checked again, and a template the stored set already fails is
// checked for its labels and annotations alone.
type setOptions struct {
	allowInvalidServiceName, skipClaimTemplates, skipPodTemplate bool
}

// updateOptions are the options of every update.
var updateOptions = setOptions{allowInvalidServiceName: true, skipClaimTemplates: true}

// validateStatefulSet is upstream's ValidateStatefulSetSpec with the
// options o.
func validateStatefulSet(ctx context.Context, ss *appsv1.StatefulSet, o setOptions) field.ErrorList {
	spec := field.NewPath("spec")
	s := &ss.Spec
	var errs field.ErrorList
	switch s.PodManagementPolicy {
	case "":
		errs = append(errs, field.Required(spec.Child("podManagementPolicy"), ""))
	case appsv1.OrderedReadyPodManagement, appsv1.ParallelPodManagement:
	default:
		errs = append(errs, field.Invalid(spec.Child("podManagementPolicy"), s.PodManagementPolicy, "must be 'OrderedReady' or 'Parallel'"))
	}
	us := spec.Child("updateStrategy")
	switch s.UpdateStrategy.Type {
	case "":
		errs = append(errs, field.Required(us, ""))
	case appsv1.OnDeleteStatefulSetStrategyType:
		if s.UpdateStrategy.RollingUpdate != nil {
			errs = append(errs, field.Invalid(us.Child("rollingUpdate"), validate.InternalValue(s.UpdateStrategy.RollingUpdate), "only allowed for updateStrategy 'RollingUpdate'"))
		}
	case appsv1.RollingUpdateStatefulSetStrategyType:
		if ru := s.UpdateStrategy.RollingUpdate; ru != nil {
			p := us.Child("rollingUpdate")
			errs = append(errs, validate.Nonnegative(int64(ptr.Deref(ru.Partition, 0)), p.Child("partition"))...)
			if ru.MaxUnavailable != nil {
				errs = append(errs, validate.PositiveIntOrPercent(*ru.MaxUnavailable, p.Child("maxUnavailable"))...)
				if validate.IntOrPercentValue(*ru.MaxUnavailable) == 0 {
					errs = append(errs, field.Invalid(p.Child("maxUnavailable"), *ru.MaxUnavailable, "cannot be 0"))
				}
				errs = append(errs, validate.NotMoreThan100Percent(*ru.MaxUnavailable, p.Child("maxUnavailable"))...)
			}
		}
	default:
		errs = append(errs, field.Invalid(us, validate.InternalValue(s.UpdateStrategy), "must be 'RollingUpdate' or 'OnDelete'"))
	}
	if p := s.PersistentVolumeClaimRetentionPolicy; p != nil {
		pp := spec.Child("persistentVolumeClaimRetentionPolicy")
		for _, f := range []struct {
			v    appsv1.PersistentVolumeClaimRetentionPolicyType
			name string
		}{{p.WhenDeleted, "whenDeleted"}, {p.WhenScaled, "whenScaled"}} {
			if f.v != appsv1.RetainPersistentVolumeClaimRetentionPolicyType && f.v != appsv1.DeletePersistentVolumeClaimRetentionPolicyType {
				errs = append(errs, field.NotSupported(pp.Child(f.name), f.v, []string{"Retain", "Delete"}))
			}
		}
	}
	for i := range s.VolumeClaimTemplates {
		if o.skipClaimTemplates {
			break
		}
		errs = append(errs, persistentvolumeclaim.ValidateSpec(&s.VolumeClaimTemplates[i].Spec, spec.Child("volumeClaimTemplates").Index(i).Child("spec"))...)
	}
	errs = append(errs, validate.Nonnegative(int64(ptr.Deref(s.Replicas, 0)), spec.Child("replicas"))...)
	errs = append(errs, validate.Nonnegative(int64(s.MinReadySeconds), spec.Child("minReadySeconds"))...)
	if s.Ordinals != nil {
		errs = append(errs, validate.Nonnegative(int64(s.Ordinals.Start), spec.Child("ordinals.start"))...)
	}
	if s.ServiceName != "" && !o.allowInvalidServiceName {
		errs = append(errs, validate.DNS1123Label(s.ServiceName, spec.Child("serviceName"))...)
	}
	if s.Selector == nil {
		errs = append(errs, field.Required(spec.Child("selector"), ""))
	} else {
		errs = append(errs, metav1validation.ValidateLabelSelector(s.Selector, metav1validation.LabelSelectorValidationOptions{}, spec.Child("selector"))...)
		if len(s.Selector.MatchLabels)+len(s.Selector.MatchExpressions) == 0 {
			errs = append(errs, field.Invalid(spec.Child("selector"), s.Selector, "empty selector is invalid for statefulset"))
		}
	}
	tf := spec.Child("template")
	if sel, err := metav1.LabelSelectorAsSelector(s.Selector); err != nil {
		errs = append(errs, field.Invalid(spec.Child("selector"), s.Selector, ""))
	} else {
		t := &s.Template
		if t.Spec.Subdomain != "" || t.Spec.Hostname != "" || len(s.VolumeClaimTemplates) > 0 {
			// The controller sets subdomain and hostname, and adds a
			// volume for each claim template.
			t = t.DeepCopy()
			t.Spec.Subdomain, t.Spec.Hostname = "", ""
			var vols []corev1.Volume
			claims := map[string]bool{}
			for _, c := range s.VolumeClaimTemplates {
				claims[c.Name] = true
				vols = append(vols, corev1.Volume{Name: c.Name, VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: c.Name}}})
			}
			for _, v := range t.Spec.Volumes {
				if !claims[v.Name] {
					vols = append(vols, v)
				}
			}
			t.Spec.Volumes = vols
		}
		if !sel.Empty() && !sel.Matches(labels.Set(t.Labels)) {
			errs = append(errs, field.Invalid(tf.Child("metadata", "labels"), t.Labels, "`selector` does not match template `labels`"))
		}
		if o.skipPodTemplate {
			errs = append(errs, pod.ValidatePodTemplateMetadata(ctx, t, tf)...)
		} else {
			errs = append(errs, pod.ValidatePodTemplateSpec(ctx, t, tf)...)
		}
	}
	errs = append(errs, pod.ValidateRestartPolicyAlways(&s.Template, tf, "StatefulSet")...)
	return errs
}

func validateStatefulSetUpdate(ctx context.Context, n, p *appsv1.StatefulSet) field.ErrorList {
	o := updateOptions
	// A stored set that its own rules refuse (written before they were
	// stricter) keeps its template unchecked.
	o.skipPodTemplate = len(validateStatefulSet(ctx, p, updateOptions)) > 0
	errs := validateStatefulSet(ctx, n, o)
	spec := field.NewPath("spec")
	errs = append(errs, validate.ImmutableField(n.Spec.Selector, p.Spec.Selector, spec.Child("selector"))...)
	errs = append(errs, validate.ImmutableInternal(n.Spec.VolumeClaimTemplates, p.Spec.VolumeClaimTemplates, spec.Child("volumeClaimTemplates"))...)
	errs = append(errs, validate.ImmutableField(n.Spec.ServiceName, p.Spec.ServiceName, spec.Child("serviceName"))...)
	errs = append(errs, validate.ImmutableField(n.Spec.PodManagementPolicy, p.Spec.PodManagementPolicy, spec.Child("podManagementPolicy"))...)
	return errs
}

func validateStatefulSetStatus(n, p *appsv1.StatefulSet) field.ErrorList {
	st := field.NewPath("status")
	s := &n.Status
	errs := validate.StatusCounts(st, validate.Count("replicas", int64(s.Replicas)), validate.Count("readyReplicas", int64(s.ReadyReplicas)),
		validate.Count("currentReplicas", int64(s.CurrentReplicas)), validate.Count("updatedReplicas", int64(s.UpdatedReplicas)),
		validate.Count("availableReplicas", int64(s.AvailableReplicas)))
	if s.ObservedGeneration != 0 {
		errs = append(errs, validate.Nonnegative(s.ObservedGeneration, st.Child("observedGeneration"))...)
	}
	if s.CollisionCount != nil {
		errs = append(errs, validate.Nonnegative(int64(*s.CollisionCount), st.Child("collisionCount"))...)
	}
	errs = append(errs, validate.NotAbove(st, s.Replicas, validate.AboveReplicas, validate.Count("readyReplicas", int64(s.ReadyReplicas)),
		validate.Count("currentReplicas", int64(s.CurrentReplicas)), validate.Count("updatedReplicas", int64(s.UpdatedReplicas)),
		validate.Count("availableReplicas", int64(s.AvailableReplicas)))...)
	errs = append(errs, validate.NotAbove(st, s.ReadyReplicas, "cannot be greater than status.readyReplicas", validate.Count("availableReplicas", int64(s.AvailableReplicas)))...)
	return append(errs, validate.CollisionDecremented(st, s.CollisionCount, p.Status.CollisionCount)...)
}

// defaultStatefulSet is upstream's SetDefaults_StatefulSet.
func defaultStatefulSet(o *appsv1.StatefulSet) {
	sp := &o.Spec
	if sp.PodManagementPolicy == "" {
		sp.PodManagementPolicy = appsv1.OrderedReadyPodManagement
	}
	if sp.UpdateStrategy.Type == "" {
		sp.UpdateStrategy.Type = appsv1.RollingUpdateStatefulSetStrategyType
		if sp.UpdateStrategy.RollingUpdate == nil {
			sp.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateStatefulSetStrategy{}
		}
	}
	if sp.UpdateStrategy.Type == appsv1.RollingUpdateStatefulSetStrategyType && sp.UpdateStrategy.RollingUpdate != nil {
		if sp.UpdateStrategy.RollingUpdate.Partition == nil {
			sp.UpdateStrategy.RollingUpdate.Partition = ptr.To[int32](0)
		}
		// MaxUnavailableStatefulSet is on in v1.37.
		if sp.UpdateStrategy.RollingUpdate.MaxUnavailable == nil {
			v := intstr.FromInt32(1)
			sp.UpdateStrategy.RollingUpdate.MaxUnavailable = &v
		}
	}
	if sp.PersistentVolumeClaimRetentionPolicy == nil {
		sp.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{}
	}
	if sp.PersistentVolumeClaimRetentionPolicy.WhenDeleted == "" {
		sp.PersistentVolumeClaimRetentionPolicy.WhenDeleted = appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	}
	if sp.PersistentVolumeClaimRetentionPolicy.WhenScaled == "" {
		sp.PersistentVolumeClaimRetentionPolicy.WhenScaled = appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	}
	if sp.Replicas == nil {
		sp.Replicas = ptr.To[int32](1)
	}
	if sp.RevisionHistoryLimit == nil {
		sp.RevisionHistoryLimit = ptr.To[int32](10)
	}
	for i := range sp.VolumeClaimTemplates {
		pvc := &sp.VolumeClaimTemplates[i]
		if pvc.APIVersion == "" && pvc.Kind == "" {
			pvc.APIVersion, pvc.Kind = "v1", "PersistentVolumeClaim"
		}
		if pvc.Spec.VolumeMode == nil {
			fs := corev1.PersistentVolumeFilesystem
			pvc.Spec.VolumeMode = &fs
		}
		if pvc.Status.Phase == "" {
			pvc.Status.Phase = corev1.ClaimPending
		}
	}
	pod.DefaultPodSpec(&sp.Template.Spec)
}
