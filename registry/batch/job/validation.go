package job

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane/internal/validate"
	"github.com/fakeplane/fakeplane/registry/core/pod"
)

// ValidateJobSpec is upstream's validateJobSpec: counts, the manager,
// completion mode, the pod failure, success and replacement policies
// (policies.go), the pod template and its restart policy.
func ValidateJobSpec(ctx context.Context, s *batchv1.JobSpec, fld *field.Path) field.ErrorList {
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
	if m := s.ManagedBy; m != nil {
		errs = append(errs, validation.IsDomainPrefixedPath(fld.Child("managedBy"), *m)...)
		if len(*m) > maxManagedByLength {
			errs = append(errs, field.TooLong(fld.Child("managedBy"), "", maxManagedByLength))
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
	if s.PodFailurePolicy != nil {
		errs = append(errs, validatePodFailurePolicy(s, fld.Child("podFailurePolicy"))...)
	}
	if s.SuccessPolicy != nil {
		if !indexed {
			errs = append(errs, field.Invalid(fld.Child("successPolicy"), validate.InternalValue(*s.SuccessPolicy), "requires indexed completion mode"))
		} else {
			errs = append(errs, validateSuccessPolicy(s, fld.Child("successPolicy"))...)
		}
	}
	errs = append(errs, validatePodReplacementPolicy(s, fld.Child("podReplacementPolicy"))...)
	tf := fld.Child("template")
	errs = append(errs, pod.ValidatePodTemplateSpec(ctx, &s.Template, tf)...)
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
func validateJob(ctx context.Context, j *batchv1.Job) field.ErrorList {
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
	errs = append(errs, validateJobSpecWithSelector(ctx, &j.Spec, field.NewPath("spec"))...)
	errs = append(errs, validateNameAllowsCompletions(j)...)
	return errs
}

func validateJobSpecWithSelector(ctx context.Context, s *batchv1.JobSpec, spec *field.Path) field.ErrorList {
	errs := ValidateJobSpec(ctx, s, spec)
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
func validateJobUpdate(ctx context.Context, n, p *batchv1.Job) field.ErrorList {
	spec := field.NewPath("spec")
	errs := validateJobSpecWithSelector(ctx, &n.Spec, spec)
	if n.Spec.CompletionMode == nil || *n.Spec.CompletionMode != batchv1.IndexedCompletion {
		errs = append(errs, validate.ImmutableField(n.Spec.Completions, p.Spec.Completions, spec.Child("completions"))...)
	} else if n.Spec.Completions != nil && !apiequality.Semantic.DeepEqual(n.Spec.Completions, p.Spec.Completions) &&
		*n.Spec.Completions != ptr.Deref(n.Spec.Parallelism, 0) {
		errs = append(errs, field.Invalid(spec.Child("completions"), n.Spec.Completions, "can only be modified in tandem with spec.parallelism"))
	}
	errs = append(errs, validate.ImmutableField(n.Spec.Selector, p.Spec.Selector, spec.Child("selector"))...)
	errs = append(errs, validateJobTemplateUpdate(n, p, spec)...)
	errs = append(errs, validate.ImmutableField(n.Spec.CompletionMode, p.Spec.CompletionMode, spec.Child("completionMode"))...)
	errs = append(errs, validate.ImmutableInternal(n.Spec.PodFailurePolicy, p.Spec.PodFailurePolicy, spec.Child("podFailurePolicy"))...)
	errs = append(errs, validate.ImmutableField(n.Spec.BackoffLimitPerIndex, p.Spec.BackoffLimitPerIndex, spec.Child("backoffLimitPerIndex"))...)
	errs = append(errs, validate.ImmutableField(n.Spec.ManagedBy, p.Spec.ManagedBy, spec.Child("managedBy"))...)
	errs = append(errs, validate.ImmutableInternal(n.Spec.SuccessPolicy, p.Spec.SuccessPolicy, spec.Child("successPolicy"))...)
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

func jobCondition(j *batchv1.Job, t batchv1.JobConditionType, s corev1.ConditionStatus) bool {
	for _, c := range j.Status.Conditions {
		if c.Type == t && c.Status == s {
			return true
		}
	}
	return false
}

// validateJobStatusUpdate is upstream's ValidateJobStatusUpdate with the
// options its Job status strategy sets (JobManagedBy is on): a rule about
// fields of the status applies when the update changes them.
func validateJobStatusUpdate(n, p *batchv1.Job) field.ErrorList {
	st := field.NewPath("status")
	s, o := &n.Status, &p.Status
	is := func(j *batchv1.Job, t batchv1.JobConditionType) bool { return jobCondition(j, t, corev1.ConditionTrue) }
	finished := func(j *batchv1.Job) bool { return is(j, batchv1.JobComplete) || is(j, batchv1.JobFailed) }
	complete, failed := is(n, batchv1.JobComplete), is(n, batchv1.JobFailed)
	successMet, failureTarget := is(n, batchv1.JobSuccessCriteriaMet), is(n, batchv1.JobFailureTarget)
	indexed := n.Spec.CompletionMode != nil && *n.Spec.CompletionMode == batchv1.IndexedCompletion
	finishedChanged := finished(p) != finished(n)
	completeChanged := is(p, batchv1.JobComplete) != complete
	failedChanged := is(p, batchv1.JobFailed) != failed
	failureTargetChanged := is(p, batchv1.JobFailureTarget) != failureTarget
	successMetChanged := is(p, batchv1.JobSuccessCriteriaMet) != successMet
	completedIdxChanged := o.CompletedIndexes != s.CompletedIndexes
	failedIdxChanged := !apiequality.Semantic.DeepEqual(o.FailedIndexes, s.FailedIndexes)
	activeChanged := o.Active != s.Active
	startChanged := !apiequality.Semantic.DeepEqual(o.StartTime, s.StartTime)
	completionChanged := !apiequality.Semantic.DeepEqual(o.CompletionTime, s.CompletionTime)
	uncountedChanged := !apiequality.Semantic.DeepEqual(o.UncountedTerminatedPods, s.UncountedTerminatedPods)
	readyChanged := !apiequality.Semantic.DeepEqual(o.Ready, s.Ready)
	terminatingChanged := !apiequality.Semantic.DeepEqual(o.Terminating, s.Terminating)
	suspended := n.Spec.Suspend != nil && *n.Spec.Suspend
	suspendedZero := suspended && n.Spec.Completions != nil && *n.Spec.Completions == 0
	resuming := is(p, batchv1.JobSuspended) && jobCondition(n, batchv1.JobSuspended, corev1.ConditionFalse)
	conds := st.Child("conditions")
	omit := field.OmitValueType{}

	errs := validate.StatusCounts(st, validate.Count("active", int64(s.Active)), validate.Count("succeeded", int64(s.Succeeded)), validate.Count("failed", int64(s.Failed)))
	if s.Ready != nil {
		errs = append(errs, validate.Nonnegative(int64(*s.Ready), st.Child("ready"))...)
	}
	if s.Terminating != nil {
		errs = append(errs, validate.Nonnegative(int64(*s.Terminating), st.Child("terminating"))...)
	}
	if u := s.UncountedTerminatedPods; u != nil {
		seen := map[string]bool{}
		for _, l := range []struct {
			uids []types.UID
			name string
		}{{u.Succeeded, "succeeded"}, {u.Failed, "failed"}} {
			for i, k := range l.uids {
				f := st.Child("uncountedTerminatedPods").Child(l.name).Index(i)
				switch {
				case k == "":
					errs = append(errs, field.Invalid(f, k, "must not be empty"))
				case seen[string(k)]:
					errs = append(errs, field.Duplicate(f, k))
				default:
					seen[string(k)] = true
				}
			}
		}
	}
	if (completeChanged || failedChanged) && complete && failed {
		errs = append(errs, field.Invalid(conds, omit, "cannot set Complete=True and Failed=true conditions"))
	}
	if (completeChanged || failureTargetChanged) && complete && failureTarget {
		errs = append(errs, field.Invalid(conds, omit, "cannot set Complete=True and FailureTarget=true conditions"))
	}
	if (completeChanged || completionChanged) && s.CompletionTime != nil && !complete {
		errs = append(errs, field.Invalid(st.Child("completionTime"), s.CompletionTime, "cannot set completionTime when there is no Complete=True condition"))
	}
	if (completeChanged || completionChanged) && s.CompletionTime == nil && complete {
		errs = append(errs, field.Required(st.Child("completionTime"), "completionTime is required for Complete jobs"))
	}
	if (startChanged || completionChanged) && s.StartTime != nil && s.CompletionTime != nil && s.CompletionTime.Before(s.StartTime) {
		errs = append(errs, field.Invalid(st.Child("completionTime"), s.CompletionTime, "must be equal to or after `startTime`"))
	}
	if (failedChanged || failedIdxChanged) && failed && !failureTarget {
		errs = append(errs, field.Invalid(conds, omit, "cannot set Failed=True condition without the FailureTarget=true condition"))
	}
	if (completeChanged || successMetChanged) && complete && !successMet {
		errs = append(errs, field.Invalid(conds, omit, "cannot set Complete=True condition without the SuccessCriteriaMet=true condition"))
	}
	if (finishedChanged || activeChanged) && s.Active > 0 && finished(n) {
		errs = append(errs, field.Invalid(st.Child("active"), s.Active, "active>0 is invalid for finished job"))
	}
	if (finishedChanged || startChanged) && !suspendedZero && s.StartTime == nil && finished(n) {
		errs = append(errs, field.Required(st.Child("startTime"), "startTime is required for finished job"))
	}
	if (finishedChanged || uncountedChanged) && finished(n) && s.UncountedTerminatedPods != nil &&
		len(s.UncountedTerminatedPods.Failed)+len(s.UncountedTerminatedPods.Succeeded) > 0 {
		errs = append(errs, field.Invalid(st.Child("uncountedTerminatedPods"), s.UncountedTerminatedPods, "must be empty for finished job"))
	}
	if completedIdxChanged && n.Spec.Completions != nil {
		if _, err := indexesFormat(s.CompletedIndexes, *n.Spec.Completions); err != nil {
			errs = append(errs, field.Invalid(st.Child("completedIndexes"), s.CompletedIndexes, "error parsing completedIndexes: "+err.Error()))
		}
	}
	if failedIdxChanged && n.Spec.Completions != nil && n.Spec.BackoffLimitPerIndex != nil && s.FailedIndexes != nil {
		if _, err := indexesFormat(*s.FailedIndexes, *n.Spec.Completions); err != nil {
			errs = append(errs, field.Invalid(st.Child("failedIndexes"), s.FailedIndexes, "error parsing failedIndexes: "+err.Error()))
		}
	}
	if completedIdxChanged && s.CompletedIndexes != "" && !indexed {
		errs = append(errs, field.Invalid(st.Child("completedIndexes"), s.CompletedIndexes, "cannot set non-empty completedIndexes when non-indexed completion mode"))
	}
	if failedIdxChanged && n.Spec.BackoffLimitPerIndex == nil && s.FailedIndexes != nil {
		errs = append(errs, field.Invalid(st.Child("failedIndexes"), *s.FailedIndexes, "cannot set non-null failedIndexes when backoffLimitPerIndex is null"))
	}
	if (failedIdxChanged || completedIdxChanged) && n.Spec.Completions != nil && s.FailedIndexes != nil {
		if err := indexesOverlap(s.CompletedIndexes, *s.FailedIndexes, *n.Spec.Completions); err != nil {
			errs = append(errs, field.Invalid(st.Child("failedIndexes"), *s.FailedIndexes, err.Error()))
		}
	}
	if (finishedChanged || terminatingChanged) && s.Terminating != nil && *s.Terminating > 0 && finished(n) {
		errs = append(errs, field.Invalid(st.Child("terminating"), s.Terminating, "terminating>0 is invalid for finished job"))
	}
	if (readyChanged || activeChanged) && s.Ready != nil && *s.Ready > s.Active {
		errs = append(errs, field.Invalid(st.Child("ready"), *s.Ready, "cannot set more ready pods than active"))
	}
	if successMet && failed {
		errs = append(errs, field.Invalid(conds, omit, "cannot set SuccessCriteriaMet=True and Failed=true conditions"))
	}
	if successMet && failureTarget {
		errs = append(errs, field.Invalid(conds, omit, "cannot set SuccessCriteriaMet=True and FailureTarget=true conditions"))
	}
	if n.Spec.SuccessPolicy != nil && !successMet && complete {
		errs = append(errs, field.Invalid(conds, omit, "cannot set Complete=True for Job with SuccessPolicy unless SuccessCriteriaMet=True"))
	}
	// The transitions.
	for _, t := range []batchv1.JobConditionType{batchv1.JobFailed, batchv1.JobComplete, batchv1.JobFailureTarget} {
		if is(p, t) && !is(n, t) {
			errs = append(errs, field.Invalid(conds, omit, "cannot disable the terminal "+string(t)+"=True condition"))
		}
	}
	if s.Failed < o.Failed {
		errs = append(errs, field.Invalid(st.Child("failed"), s.Failed, "cannot decrease the failed counter"))
	}
	if (!indexed || !apiequality.Semantic.DeepEqual(n.Spec.Completions, n.Spec.Parallelism)) && s.Succeeded < o.Succeeded {
		errs = append(errs, field.Invalid(st.Child("succeeded"), s.Succeeded, "cannot decrease the succeeded counter"))
	}
	if s.CompletionTime != nil && o.CompletionTime != nil && !s.CompletionTime.Equal(o.CompletionTime) {
		errs = append(errs, field.Invalid(st.Child("completionTime"), s.CompletionTime, "field is immutable"))
	}
	if startChanged && !resuming && o.StartTime != nil && !suspended {
		errs = append(errs, field.Invalid(st.Child("startTime"), s.StartTime, "field is immutable for unsuspended job once set"))
	}
	if is(p, batchv1.JobSuccessCriteriaMet) && !successMet {
		errs = append(errs, field.Invalid(conds, omit, "cannot disable the SuccessCriteriaMet=True condition"))
	}
	if is(p, batchv1.JobComplete) && !is(p, batchv1.JobSuccessCriteriaMet) && successMet {
		errs = append(errs, field.Invalid(conds, omit, "cannot set SuccessCriteriaMet=True for Job already has Complete=true conditions"))
	}
	return errs
}

// indexesFormat is upstream's validateIndexesFormat: increasing intervals
// "x" or "x-y" of indexes below completions; it returns how many indexes
// they name.
func indexesFormat(s string, completions int32) (int32, error) {
	if s == "" {
		return 0, nil
	}
	var last *int32
	var total int32
	for _, iv := range strings.Split(s, ",") {
		x, y, err := indexInterval(iv, completions)
		if err != nil {
			return 0, err
		}
		if last != nil && *last >= x {
			return 0, fmt.Errorf("non-increasing order, previous: %d, current: %d", *last, x)
		}
		total += y - x + 1
		last = &y
	}
	return total, nil
}

func indexInterval(s string, completions int32) (int32, int32, error) {
	parts := strings.Split(s, "-")
	if len(parts) > 2 {
		return 0, 0, fmt.Errorf("the fragment %q violates the requirement that an index interval can have at most two parts separated by '-'", s)
	}
	x, err := strconv.Atoi(parts[0])
	if err != nil {
		return 0, 0, fmt.Errorf("cannot convert string to integer for index: %q", parts[0])
	}
	if x >= int(completions) {
		return 0, 0, fmt.Errorf("too large index: %q", parts[0])
	}
	if len(parts) == 1 {
		return int32(x), int32(x), nil
	}
	y, err := strconv.Atoi(parts[1])
	if err != nil {
		return 0, 0, fmt.Errorf("cannot convert string to integer for index: %q", parts[1])
	}
	if y >= int(completions) {
		return 0, 0, fmt.Errorf("too large index: %q", parts[1])
	}
	if x >= y {
		return 0, 0, fmt.Errorf("non-increasing order, previous: %d, current: %d", x, y)
	}
	return int32(x), int32(y), nil
}

// indexesOverlap is upstream's validateFailedIndexesNotOverlapCompleted.
func indexesOverlap(completed, failed string, completions int32) error {
	if completed == "" || failed == "" {
		return nil
	}
	cs, fs := strings.Split(completed, ","), strings.Split(failed, ",")
	ci, fi := 0, 0
	cx, cy, cerr := indexInterval(cs[0], completions)
	fx, fy, ferr := indexInterval(fs[0], completions)
	for ci < len(cs) && fi < len(fs) {
		switch {
		case cerr != nil:
			if ci++; ci < len(cs) {
				cx, cy, cerr = indexInterval(cs[ci], completions)
			}
		case ferr != nil:
			if fi++; fi < len(fs) {
				fx, fy, ferr = indexInterval(fs[fi], completions)
			}
		case cx <= fy && fx <= cy:
			return fmt.Errorf("failedIndexes and completedIndexes overlap at index: %d", max(cx, fx))
		case cx <= fx:
			if ci++; ci < len(cs) {
				cx, cy, cerr = indexInterval(cs[ci], completions)
			}
		default:
			if fi++; fi < len(fs) {
				fx, fy, ferr = indexInterval(fs[fi], completions)
			}
		}
	}
	return nil
}

// defaultJob is upstream's SetDefaults_Job (the selector and its labels
// come at create, see generateSelector).
func defaultJob(o *batchv1.Job) {
	sp := &o.Spec
	if sp.Completions == nil && sp.Parallelism == nil {
		sp.Completions = ptr.To[int32](1)
		sp.Parallelism = ptr.To[int32](1)
	}
	if sp.Parallelism == nil {
		sp.Parallelism = ptr.To[int32](1)
	}
	if sp.BackoffLimit == nil {
		if sp.BackoffLimitPerIndex != nil {
			sp.BackoffLimit = ptr.To[int32](math.MaxInt32)
		} else {
			sp.BackoffLimit = ptr.To[int32](6)
		}
	}
	if sp.Template.Labels != nil && len(o.Labels) == 0 {
		o.Labels = sp.Template.Labels
	}
	if sp.CompletionMode == nil {
		m := batchv1.NonIndexedCompletion
		sp.CompletionMode = &m
	}
	if sp.Suspend == nil {
		f := false
		sp.Suspend = &f
	}
	if sp.PodReplacementPolicy == nil {
		p := batchv1.TerminatingOrFailed
		if sp.PodFailurePolicy != nil {
			p = batchv1.Failed
		}
		sp.PodReplacementPolicy = &p
	}
	if sp.ManualSelector == nil {
		f := false
		sp.ManualSelector = &f
	}
	if sp.PodFailurePolicy != nil {
		for i := range sp.PodFailurePolicy.Rules {
			for j := range sp.PodFailurePolicy.Rules[i].OnPodConditions {
				if c := &sp.PodFailurePolicy.Rules[i].OnPodConditions[j]; c.Status == "" {
					c.Status = corev1.ConditionTrue
				}
			}
		}
	}
}
