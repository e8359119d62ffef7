package server

import (
	"fmt"
	"strconv"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate"
)

// Workload status updates as upstream's status strategies validate them:
// counts are not negative, and no count of replicas exceeds status.replicas.

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
		if err := indexesFormat(s.CompletedIndexes, *n.Spec.Completions); err != nil {
			errs = append(errs, field.Invalid(st.Child("completedIndexes"), s.CompletedIndexes, "error parsing completedIndexes: "+err.Error()))
		}
	}
	if failedIdxChanged && n.Spec.Completions != nil && n.Spec.BackoffLimitPerIndex != nil && s.FailedIndexes != nil {
		if err := indexesFormat(*s.FailedIndexes, *n.Spec.Completions); err != nil {
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
// "x" or "x-y" of indexes below completions.
func indexesFormat(s string, completions int32) error {
	if s == "" {
		return nil
	}
	var last *int32
	for _, iv := range strings.Split(s, ",") {
		x, y, err := indexInterval(iv, completions)
		if err != nil {
			return err
		}
		if last != nil && *last >= x {
			return fmt.Errorf("non-increasing order, previous: %d, current: %d", *last, x)
		}
		last = &y
	}
	return nil
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
