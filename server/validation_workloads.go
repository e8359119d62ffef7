package server

import (
	"fmt"
	"github.com/fakeplane/fakeplane/internal/validate"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/registry/core/pod"

	"github.com/fakeplane/fakeplane/registry/core/persistentvolumeclaim"
)

// Workload validation: upstream's pkg/apis/apps/validation and
// pkg/apis/batch/validation, and the ReplicationController and PodTemplate
// rules of pkg/apis/core/validation, on the v1 types.

func deref32(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}

func validateDeployment(d *appsv1.Deployment) field.ErrorList {
	spec := field.NewPath("spec")
	s := &d.Spec
	errs := validate.Nonnegative(int64(deref32(s.Replicas)), spec.Child("replicas"))
	errs = append(errs, validate.WorkloadSelector(s.Selector, spec.Child("selector"), "deployment")...)
	if sel, err := metav1.LabelSelectorAsSelector(s.Selector); err != nil {
		errs = append(errs, field.Invalid(spec.Child("selector"), s.Selector, "invalid label selector"))
	} else {
		errs = append(errs, pod.ValidatePodTemplateSpecForReplicaSet(&s.Template, sel, spec.Child("template"), "ReplicaSet")...)
	}
	errs = append(errs, validateDeploymentStrategy(&s.Strategy, spec.Child("strategy"))...)
	errs = append(errs, validate.Nonnegative(int64(s.MinReadySeconds), spec.Child("minReadySeconds"))...)
	if s.RevisionHistoryLimit != nil {
		errs = append(errs, validate.Nonnegative(int64(*s.RevisionHistoryLimit), spec.Child("revisionHistoryLimit"))...)
	}
	if s.ProgressDeadlineSeconds != nil {
		errs = append(errs, validate.Nonnegative(int64(*s.ProgressDeadlineSeconds), spec.Child("progressDeadlineSeconds"))...)
		if *s.ProgressDeadlineSeconds <= s.MinReadySeconds {
			errs = append(errs, field.Invalid(spec.Child("progressDeadlineSeconds"), s.ProgressDeadlineSeconds, "must be greater than minReadySeconds"))
		}
	}
	return errs
}

func validateDeploymentStrategy(st *appsv1.DeploymentStrategy, fld *field.Path) field.ErrorList {
	switch st.Type {
	case appsv1.RecreateDeploymentStrategyType:
		if st.RollingUpdate != nil {
			return field.ErrorList{field.Forbidden(fld.Child("rollingUpdate"), "may not be specified when strategy `type` is 'Recreate'")}
		}
	case appsv1.RollingUpdateDeploymentStrategyType:
		if st.RollingUpdate == nil {
			return field.ErrorList{field.Required(fld.Child("rollingUpdate"), "this should be defaulted and never be nil")}
		}
		ru := fld.Child("rollingUpdate")
		var errs field.ErrorList
		mu, ms := derefIntOrString(st.RollingUpdate.MaxUnavailable), derefIntOrString(st.RollingUpdate.MaxSurge)
		errs = append(errs, validate.PositiveIntOrPercent(mu, ru.Child("maxUnavailable"))...)
		errs = append(errs, validate.PositiveIntOrPercent(ms, ru.Child("maxSurge"))...)
		if validate.IntOrPercentValue(mu) == 0 && validate.IntOrPercentValue(ms) == 0 {
			errs = append(errs, field.Invalid(ru.Child("maxUnavailable"), mu, "may not be 0 when `maxSurge` is 0"))
		}
		errs = append(errs, validate.NotMoreThan100Percent(mu, ru.Child("maxUnavailable"))...)
		return errs
	default:
		return field.ErrorList{field.NotSupported(fld, validate.InternalValue(st), []string{string(appsv1.RecreateDeploymentStrategyType), string(appsv1.RollingUpdateDeploymentStrategyType)})}
	}
	return nil
}

func derefIntOrString(p *intstr.IntOrString) intstr.IntOrString {
	if p == nil {
		return intstr.IntOrString{}
	}
	return *p
}

func validateReplicaSet(rs *appsv1.ReplicaSet) field.ErrorList {
	spec := field.NewPath("spec")
	s := &rs.Spec
	errs := validate.Nonnegative(int64(deref32(s.Replicas)), spec.Child("replicas"))
	errs = append(errs, validate.Nonnegative(int64(s.MinReadySeconds), spec.Child("minReadySeconds"))...)
	errs = append(errs, validate.WorkloadSelector(s.Selector, spec.Child("selector"), "deployment")...)
	if sel, err := metav1.LabelSelectorAsSelector(s.Selector); err != nil {
		errs = append(errs, field.Invalid(spec.Child("selector"), s.Selector, "invalid label selector"))
	} else {
		errs = append(errs, pod.ValidatePodTemplateSpecForReplicaSet(&s.Template, sel, spec.Child("template"), "ReplicaSet")...)
	}
	return errs
}

func validateStatefulSet(ss *appsv1.StatefulSet) field.ErrorList {
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
			errs = append(errs, validate.Nonnegative(int64(deref32(ru.Partition)), p.Child("partition"))...)
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
		errs = append(errs, persistentvolumeclaim.ValidateSpec(&s.VolumeClaimTemplates[i].Spec, spec.Child("volumeClaimTemplates").Index(i).Child("spec"))...)
	}
	errs = append(errs, validate.Nonnegative(int64(deref32(s.Replicas)), spec.Child("replicas"))...)
	errs = append(errs, validate.Nonnegative(int64(s.MinReadySeconds), spec.Child("minReadySeconds"))...)
	if s.Ordinals != nil {
		errs = append(errs, validate.Nonnegative(int64(s.Ordinals.Start), spec.Child("ordinals.start"))...)
	}
	if s.ServiceName != "" {
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
		errs = append(errs, pod.ValidatePodTemplateSpec(t, tf)...)
	}
	errs = append(errs, pod.ValidateRestartPolicyAlways(&s.Template, tf, "StatefulSet")...)
	return errs
}

func validateStatefulSetUpdate(n, p *appsv1.StatefulSet) field.ErrorList {
	errs := validateStatefulSet(n)
	spec := field.NewPath("spec")
	errs = append(errs, validate.ImmutableField(n.Spec.Selector, p.Spec.Selector, spec.Child("selector"))...)
	errs = append(errs, validate.ImmutableInternal(n.Spec.VolumeClaimTemplates, p.Spec.VolumeClaimTemplates, spec.Child("volumeClaimTemplates"))...)
	errs = append(errs, validate.ImmutableField(n.Spec.ServiceName, p.Spec.ServiceName, spec.Child("serviceName"))...)
	errs = append(errs, validate.ImmutableField(n.Spec.PodManagementPolicy, p.Spec.PodManagementPolicy, spec.Child("podManagementPolicy"))...)
	return errs
}

func validateDaemonSet(ds *appsv1.DaemonSet) field.ErrorList {
	spec := field.NewPath("spec")
	s := &ds.Spec
	errs := metav1validation.ValidateLabelSelector(s.Selector, metav1validation.LabelSelectorValidationOptions{}, spec.Child("selector"))
	if sel, err := metav1.LabelSelectorAsSelector(s.Selector); err == nil && !sel.Matches(labels.Set(s.Template.Labels)) {
		errs = append(errs, field.Invalid(spec.Child("template", "metadata", "labels"), s.Template.Labels, "`selector` does not match template `labels`"))
	}
	if s.Selector != nil && len(s.Selector.MatchLabels)+len(s.Selector.MatchExpressions) == 0 {
		errs = append(errs, field.Invalid(spec.Child("selector"), s.Selector, "empty selector is invalid for daemonset"))
	}
	errs = append(errs, pod.ValidatePodTemplateSpec(&s.Template, spec.Child("template"))...)
	errs = append(errs, pod.ValidateRestartPolicyAlways(&s.Template, spec.Child("template"), "DaemonSet")...)
	errs = append(errs, validate.Nonnegative(int64(s.MinReadySeconds), spec.Child("minReadySeconds"))...)
	errs = append(errs, validate.Nonnegative(templateGeneration(ds), spec.Child("templateGeneration"))...)
	us := spec.Child("updateStrategy")
	switch s.UpdateStrategy.Type {
	case appsv1.OnDeleteDaemonSetStrategyType:
	case appsv1.RollingUpdateDaemonSetStrategyType:
		ru := s.UpdateStrategy.RollingUpdate
		if ru == nil {
			errs = append(errs, field.Required(us.Child("rollingUpdate"), ""))
			break
		}
		p := us.Child("rollingUpdate")
		mu, ms := derefIntOrString(ru.MaxUnavailable), derefIntOrString(ru.MaxSurge)
		errs = append(errs, validate.PositiveIntOrPercent(mu, p.Child("maxUnavailable"))...)
		errs = append(errs, validate.PositiveIntOrPercent(ms, p.Child("maxSurge"))...)
		errs = append(errs, validate.NotMoreThan100Percent(mu, p.Child("maxUnavailable"))...)
		errs = append(errs, validate.NotMoreThan100Percent(ms, p.Child("maxSurge"))...)
		hasU, hasS := validate.IntOrPercentValue(mu) != 0, validate.IntOrPercentValue(ms) != 0
		switch {
		case hasU && hasS:
			errs = append(errs, field.Invalid(p.Child("maxSurge"), ms, "may not be set when maxUnavailable is non-zero"))
		case !hasU && !hasS:
			errs = append(errs, field.Required(p.Child("maxUnavailable"), "cannot be 0 when maxSurge is 0"))
		}
	default:
		errs = append(errs, field.NotSupported(us, validate.InternalValue(s.UpdateStrategy), []string{string(appsv1.RollingUpdateDaemonSetStrategyType), string(appsv1.OnDeleteDaemonSetStrategyType)}))
	}
	if s.RevisionHistoryLimit != nil {
		errs = append(errs, validate.Nonnegative(int64(*s.RevisionHistoryLimit), spec.Child("revisionHistoryLimit"))...)
	}
	return errs
}

// validateJobSpec is upstream's validateJobSpec: counts, completion mode,
// the pod template and its restart policy.
func validateJobSpec(s *batchv1.JobSpec, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, f := range []struct {
		v    *int32
		name string
	}{{s.Parallelism, "parallelism"}, {s.Completions, "completions"}} {
		if f.v != nil {
			errs = append(errs, validate.Nonnegative(int64(*f.v), fld.Child(f.name))...)
		}
	}
	if s.ActiveDeadlineSeconds != nil {
		errs = append(errs, validate.Nonnegative(*s.ActiveDeadlineSeconds, fld.Child("activeDeadlineSeconds"))...)
	}
	for _, f := range []struct {
		v    *int32
		name string
	}{{s.BackoffLimit, "backoffLimit"}, {s.TTLSecondsAfterFinished, "ttlSecondsAfterFinished"}, {s.BackoffLimitPerIndex, "backoffLimitPerIndex"}} {
		if f.v != nil {
			errs = append(errs, validate.Nonnegative(int64(*f.v), fld.Child(f.name))...)
		}
	}
	if s.MaxFailedIndexes != nil {
		errs = append(errs, validate.Nonnegative(int64(*s.MaxFailedIndexes), fld.Child("maxFailedIndexes"))...)
		if s.BackoffLimitPerIndex == nil {
			errs = append(errs, field.Required(fld.Child("backoffLimitPerIndex"), "when maxFailedIndexes is specified"))
		}
	}
	indexed := s.CompletionMode != nil && *s.CompletionMode == batchv1.IndexedCompletion
	if m := s.CompletionMode; m != nil {
		if *m != batchv1.NonIndexedCompletion && *m != batchv1.IndexedCompletion {
			errs = append(errs, field.NotSupported(fld.Child("completionMode"), m, []string{string(batchv1.NonIndexedCompletion), string(batchv1.IndexedCompletion)}))
		}
		if indexed {
			if s.Completions == nil {
				errs = append(errs, field.Required(fld.Child("completions"), "when completion mode is Indexed"))
			}
			if s.Parallelism != nil && *s.Parallelism > 100000 {
				errs = append(errs, field.Invalid(fld.Child("parallelism"), *s.Parallelism, "must be less than or equal to 100000 when completion mode is Indexed"))
			}
			if s.Completions != nil && s.MaxFailedIndexes != nil && *s.MaxFailedIndexes > *s.Completions {
				errs = append(errs, field.Invalid(fld.Child("maxFailedIndexes"), *s.MaxFailedIndexes, "must be less than or equal to completions"))
			}
			if s.MaxFailedIndexes != nil && *s.MaxFailedIndexes > 100000 {
				errs = append(errs, field.Invalid(fld.Child("maxFailedIndexes"), *s.MaxFailedIndexes, "must be less than or equal to 100000"))
			}
			if s.Completions != nil && *s.Completions > 100000 && s.BackoffLimitPerIndex != nil {
				if s.MaxFailedIndexes == nil {
					errs = append(errs, field.Required(fld.Child("maxFailedIndexes"), "must be specified when completions is above 100000"))
				}
				if s.Parallelism != nil && *s.Parallelism > 10000 {
					errs = append(errs, field.Invalid(fld.Child("parallelism"), *s.Parallelism, "must be less than or equal to 10000 when completions are above 100000 and used with backoff limit per index"))
				}
				if s.MaxFailedIndexes != nil && *s.MaxFailedIndexes > 10000 {
					errs = append(errs, field.Invalid(fld.Child("maxFailedIndexes"), *s.MaxFailedIndexes, "must be less than or equal to 10000 when completions are above 100000 and used with backoff limit per index"))
				}
			}
		}
	}
	if !indexed {
		if s.BackoffLimitPerIndex != nil {
			errs = append(errs, field.Invalid(fld.Child("backoffLimitPerIndex"), *s.BackoffLimitPerIndex, "requires indexed completion mode"))
		}
		if s.MaxFailedIndexes != nil {
			errs = append(errs, field.Invalid(fld.Child("maxFailedIndexes"), *s.MaxFailedIndexes, "requires indexed completion mode"))
		}
	}
	tf := fld.Child("template")
	errs = append(errs, pod.ValidatePodTemplateSpec(&s.Template, tf)...)
	rp := s.Template.Spec.RestartPolicy
	switch {
	case rp == corev1.RestartPolicyAlways || rp == "":
		errs = append(errs, field.Required(tf.Child("spec", "restartPolicy"), `valid values: "OnFailure", "Never"`))
	case rp != corev1.RestartPolicyOnFailure && rp != corev1.RestartPolicyNever:
		errs = append(errs, field.NotSupported(tf.Child("spec", "restartPolicy"), rp, []string{"OnFailure", "Never"}))
	case s.PodFailurePolicy != nil && rp != corev1.RestartPolicyNever:
		errs = append(errs, field.Invalid(tf.Child("spec", "restartPolicy"), rp, `only "Never" is supported when podFailurePolicy is specified`))
	}
	return errs
}

// validateJob is upstream's ValidateJobCreate less the metadata.
func validateJob(j *batchv1.Job) field.ErrorList {
	var errs field.ErrorList
	tm := field.NewPath("spec", "template", "metadata")
	if (j.Spec.ManualSelector == nil || !*j.Spec.ManualSelector) && j.Spec.Selector != nil {
		if j.UID == "" {
			errs = append(errs, field.Required(field.NewPath("metadata", "uid"), ""))
		}
		want := map[string]string{}
		for _, l := range []struct{ key, value string }{
			{"controller-uid", string(j.UID)}, {"job-name", j.Name},
			{batchv1.ControllerUidLabel, string(j.UID)}, {batchv1.JobNameLabel, j.Name},
		} {
			want[l.key] = l.value
			if v, ok := j.Spec.Template.Labels[l.key]; !ok {
				errs = append(errs, field.Required(tm.Child("labels").Key(l.key), fmt.Sprintf("must be '%s'", l.value)))
			} else if v != l.value {
				errs = append(errs, field.Invalid(tm.Child("labels").Key(l.key), j.Spec.Template.Labels, fmt.Sprintf("must be '%s'", l.value)))
			}
		}
		if sel, err := metav1.LabelSelectorAsSelector(j.Spec.Selector); err == nil && !sel.Matches(labels.Set(want)) {
			errs = append(errs, field.Invalid(field.NewPath("spec", "selector"), j.Spec.Selector, "`selector` not auto-generated"))
		}
	}
	errs = append(errs, validateJobSpecWithSelector(&j.Spec, field.NewPath("spec"))...)
	errs = append(errs, validateNameAllowsCompletions(j)...)
	return errs
}

func validateJobSpecWithSelector(s *batchv1.JobSpec, spec *field.Path) field.ErrorList {
	errs := validateJobSpec(s, spec)
	if s.Selector == nil {
		errs = append(errs, field.Required(spec.Child("selector"), ""))
	} else {
		errs = append(errs, metav1validation.ValidateLabelSelector(s.Selector, metav1validation.LabelSelectorValidationOptions{}, spec.Child("selector"))...)
	}
	if sel, err := metav1.LabelSelectorAsSelector(s.Selector); err == nil && !sel.Matches(labels.Set(s.Template.Labels)) {
		errs = append(errs, field.Invalid(spec.Child("template", "metadata", "labels"), s.Template.Labels, "`selector` does not match template `labels`"))
	}
	return errs
}

func validateNameAllowsCompletions(j *batchv1.Job) field.ErrorList {
	if j.Spec.CompletionMode != nil && *j.Spec.CompletionMode == batchv1.IndexedCompletion && j.Spec.Completions != nil && *j.Spec.Completions > 0 {
		host := fmt.Sprintf("%s-%d", j.Name, *j.Spec.Completions-1)
		if len(validation.IsDNS1123Label(host)) > 0 {
			return field.ErrorList{field.Invalid(field.NewPath("metadata", "name"), j.Name, "will not able to create pod with invalid DNS label: "+host)}
		}
	}
	return nil
}

// validateJobUpdate is upstream's ValidateJobUpdate less the metadata: a
// Job's selector, completion mode and (unless suspended... and even then,
// without mutable pod resources) its template may not change.
func validateJobUpdate(n, p *batchv1.Job) field.ErrorList {
	spec := field.NewPath("spec")
	errs := validateJobSpecWithSelector(&n.Spec, spec)
	if n.Spec.CompletionMode == nil || *n.Spec.CompletionMode != batchv1.IndexedCompletion {
		errs = append(errs, validate.ImmutableField(n.Spec.Completions, p.Spec.Completions, spec.Child("completions"))...)
	} else if n.Spec.Completions != nil && !apiequality.Semantic.DeepEqual(n.Spec.Completions, p.Spec.Completions) &&
		*n.Spec.Completions != deref32(n.Spec.Parallelism) {
		errs = append(errs, field.Invalid(spec.Child("completions"), n.Spec.Completions, "can only be modified in tandem with spec.parallelism"))
	}
	errs = append(errs, validate.ImmutableField(n.Spec.Selector, p.Spec.Selector, spec.Child("selector"))...)
	errs = append(errs, validateJobTemplateUpdate(n, p, spec)...)
	errs = append(errs, validate.ImmutableField(n.Spec.CompletionMode, p.Spec.CompletionMode, spec.Child("completionMode"))...)
	errs = append(errs, validate.ImmutableField(n.Spec.PodFailurePolicy, p.Spec.PodFailurePolicy, spec.Child("podFailurePolicy"))...)
	errs = append(errs, validate.ImmutableField(n.Spec.BackoffLimitPerIndex, p.Spec.BackoffLimitPerIndex, spec.Child("backoffLimitPerIndex"))...)
	errs = append(errs, validate.ImmutableField(n.Spec.ManagedBy, p.Spec.ManagedBy, spec.Child("managedBy"))...)
	errs = append(errs, validate.ImmutableField(n.Spec.SuccessPolicy, p.Spec.SuccessPolicy, spec.Child("successPolicy"))...)
	errs = append(errs, validateNameAllowsCompletions(n)...)
	return errs
}

// validateJobTemplateUpdate is upstream's validatePodTemplateUpdate with
// the options of its Job strategy (MutablePodResourcesForSuspendedJobs and
// MutableSchedulingDirectivesForSuspendedJobs are on in v1.37): the
// template of a Job is immutable, but a suspended Job that has not started
// (or was suspended again) with no active pods may change its scheduling
// directives, labels, annotations and containers' resources.
func validateJobTemplateUpdate(n, p *batchv1.Job, spec *field.Path) field.ErrorList {
	suspended := p.Spec.Suspend != nil && *p.Spec.Suspend
	suspendedCond := false
	for _, c := range p.Status.Conditions {
		suspendedCond = suspendedCond || c.Type == batchv1.JobSuspended && c.Status == corev1.ConditionTrue
	}
	mutable := suspended && (p.Status.StartTime == nil || suspendedCond) && p.Status.Active == 0
	t, old := &n.Spec.Template, &p.Spec.Template
	if mutable {
		old = old.DeepCopy()
		switch {
		case t.Spec.Affinity == nil && old.Spec.Affinity != nil:
			old.Spec.Affinity.NodeAffinity = nil
			if *old.Spec.Affinity == (corev1.Affinity{}) {
				old.Spec.Affinity = nil
			}
		case t.Spec.Affinity != nil && old.Spec.Affinity == nil:
			old.Spec.Affinity = &corev1.Affinity{NodeAffinity: t.Spec.Affinity.NodeAffinity}
		case t.Spec.Affinity != nil && old.Spec.Affinity != nil:
			old.Spec.Affinity.NodeAffinity = t.Spec.Affinity.NodeAffinity
		}
		old.Spec.NodeSelector = t.Spec.NodeSelector
		old.Spec.Tolerations = t.Spec.Tolerations
		old.Annotations = t.Annotations
		old.Labels = t.Labels
		old.Spec.SchedulingGates = t.Spec.SchedulingGates
	}
	if !suspended || !mutable {
		return validate.ImmutableInternal(t, old, spec.Child("template"))
	}
	oldSpec := old.Spec.DeepCopy()
	for _, l := range []struct{ n, o []corev1.Container }{{t.Spec.Containers, oldSpec.Containers}, {t.Spec.InitContainers, oldSpec.InitContainers}} {
		if len(l.n) == len(l.o) {
			for i := range l.n {
				if l.o[i].Name == l.n[i].Name {
					l.o[i].Resources = l.n[i].Resources
				}
			}
		}
	}
	return validate.ImmutableInternal(t.Spec, *oldSpec, spec.Child("template.spec"))
}

// validateCronJob is upstream's ValidateCronJobCreate/Update less the
// metadata (old is nil on create).
func validateCronJob(cj, old *batchv1.CronJob) field.ErrorList {
	spec := field.NewPath("spec")
	s := &cj.Spec
	var errs field.ErrorList
	if s.Schedule != "" {
		allowTZ := old != nil && strings.Contains(old.Spec.Schedule, "TZ")
		errs = append(errs, validateSchedule(s.Schedule, allowTZ, s.TimeZone, spec.Child("schedule"))...)
	}
	if s.StartingDeadlineSeconds != nil {
		errs = append(errs, validate.Nonnegative(*s.StartingDeadlineSeconds, spec.Child("startingDeadlineSeconds"))...)
	}
	if old == nil || !apiequality.Semantic.DeepEqual(old.Spec.TimeZone, s.TimeZone) {
		errs = append(errs, validateTimeZone(s.TimeZone, spec.Child("timeZone"))...)
	}
	errs = append(errs, validate.SupportedValue(spec.Child("concurrencyPolicy"), string(s.ConcurrencyPolicy), "Allow", "Forbid", "Replace")...)
	jt := spec.Child("jobTemplate")
	errs = append(errs, validateJobSpec(&s.JobTemplate.Spec, jt.Child("spec"))...)
	if s.JobTemplate.Spec.Selector != nil {
		errs = append(errs, field.Invalid(jt.Child("spec", "selector"), s.JobTemplate.Spec.Selector, "`selector` will be auto-generated"))
	}
	if m := s.JobTemplate.Spec.ManualSelector; m != nil && *m {
		errs = append(errs, field.NotSupported(jt.Child("spec", "manualSelector"), m, []string{"nil", "false"}))
	}
	if s.SuccessfulJobsHistoryLimit != nil {
		errs = append(errs, validate.Nonnegative(int64(*s.SuccessfulJobsHistoryLimit), spec.Child("successfulJobsHistoryLimit"))...)
	}
	if s.FailedJobsHistoryLimit != nil {
		errs = append(errs, validate.Nonnegative(int64(*s.FailedJobsHistoryLimit), spec.Child("failedJobsHistoryLimit"))...)
	}
	if old == nil && len(cj.Name) > 52 {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), cj.Name, "must be no more than 52 characters"))
	}
	if s.Schedule == "" {
		// Declarative upstream: its error comes last.
		errs = append(errs, field.Required(spec.Child("schedule"), ""))
	}
	return errs
}

// validateSchedule parses a schedule as upstream's cron parser does.
func validateSchedule(schedule string, allowTZ bool, tz *string, fld *field.Path) (errs field.ErrorList) {
	func() {
		defer func() {
			if r := recover(); r != nil {
				errs = append(errs, field.Invalid(fld, schedule, fmt.Sprintf("invalid schedule format: %v", r)))
			}
		}()
		if _, err := cron.ParseStandard(schedule); err != nil {
			errs = append(errs, field.Invalid(fld, schedule, err.Error()))
		}
	}()
	switch {
	case allowTZ && strings.Contains(schedule, "TZ") && tz != nil:
		errs = append(errs, field.Invalid(fld, schedule, "cannot use both timeZone field and TZ or CRON_TZ in schedule"))
	case !allowTZ && strings.Contains(schedule, "TZ"):
		errs = append(errs, field.Invalid(fld, schedule, "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"))
	}
	return errs
}

func validateTimeZone(tz *string, fld *field.Path) field.ErrorList {
	if tz == nil {
		return nil
	}
	if *tz == "" {
		return field.ErrorList{field.Invalid(fld, tz, "timeZone must be nil or non-empty string")}
	}
	for _, part := range strings.Split(*tz, "/") {
		if part == "." || part == ".." || strings.HasPrefix(part, "-") || !validTimeZonePart(part) {
			return field.ErrorList{field.Invalid(fld, tz, "unknown time zone "+*tz)}
		}
	}
	var errs field.ErrorList
	if strings.EqualFold(*tz, "Local") {
		errs = append(errs, field.Invalid(fld, tz, "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones"))
	}
	if _, err := time.LoadLocation(*tz); err != nil {
		errs = append(errs, field.Invalid(fld, tz, err.Error()))
	}
	return errs
}

// validTimeZonePart is upstream's ^[A-Za-z\.\-_0-9+]{1,14}$.
func validTimeZonePart(s string) bool {
	if len(s) < 1 || len(s) > 14 {
		return false
	}
	for _, r := range s {
		if !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || strings.ContainsRune(".-_+", r)) {
			return false
		}
	}
	return true
}
