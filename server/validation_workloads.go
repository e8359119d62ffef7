package server

import (
	"fmt"
	"github.com/fakeplane/fakeplane/internal/validate"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
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

func derefIntOrString(p *intstr.IntOrString) intstr.IntOrString {
	if p == nil {
		return intstr.IntOrString{}
	}
	return *p
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
