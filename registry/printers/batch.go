package printers

import (
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/util/duration"
)

// batch returns the printers of the batch group's resources, by resource.
func batch() map[string]Printer {
	return map[string]Printer{
		"jobs": {
			cells: typed(func(job *batchv1.Job, now time.Time) []any {
				names, images := containerNamesImages(job.Spec.Template.Spec.Containers)
				return []any{job.Name, jobStatus(job), jobCompletions(job), jobDuration(job, now), age(now, job.CreationTimestamp), names, images, jobSelector(job)}
			}),
		},
		"cronjobs": {
			cells: typed(func(cj *batchv1.CronJob, now time.Time) []any {
				tz := "<none>"
				if cj.Spec.TimeZone != nil {
					tz = *cj.Spec.TimeZone
				}
				// spec.suspend defaults to false.
				suspend := "False"
				if cj.Spec.Suspend != nil && *cj.Spec.Suspend {
					suspend = "True"
				}
				last := "<none>"
				if cj.Status.LastScheduleTime != nil {
					last = age(now, *cj.Status.LastScheduleTime)
				}
				tmpl := cj.Spec.JobTemplate.Spec
				names, images := containerNamesImages(tmpl.Template.Spec.Containers)
				return []any{cj.Name, cj.Spec.Schedule, tz, suspend, int64(len(cj.Status.Active)), last, age(now, cj.CreationTimestamp), names, images, labelSelectorString(tmpl.Selector)}
			}),
		},
	}
}

// jobCompletions is "succeeded/completions", with parallelism and
// completions defaulted as upstream does (both 1 when neither is set).
func jobCompletions(job *batchv1.Job) string {
	if job.Spec.Completions != nil {
		return fmt.Sprintf("%d/%d", job.Status.Succeeded, *job.Spec.Completions)
	}
	if job.Spec.Parallelism != nil && *job.Spec.Parallelism > 1 {
		return fmt.Sprintf("%d/1 of %d", job.Status.Succeeded, *job.Spec.Parallelism)
	}
	return fmt.Sprintf("%d/1", job.Status.Succeeded)
}

// jobDuration is how long the job ran: until completion, or until now.
func jobDuration(job *batchv1.Job, now time.Time) string {
	switch {
	case job.Status.StartTime == nil:
		return ""
	case job.Status.CompletionTime == nil:
		return duration.HumanDuration(now.Sub(job.Status.StartTime.Time))
	}
	return duration.HumanDuration(job.Status.CompletionTime.Sub(job.Status.StartTime.Time))
}

// jobStatus names the first of the job's states that holds, in upstream's
// order of precedence.
func jobStatus(job *batchv1.Job) string {
	has := func(t batchv1.JobConditionType) bool {
		for _, c := range job.Status.Conditions {
			if c.Type == t {
				return c.Status == "True"
			}
		}
		return false
	}
	switch {
	case has(batchv1.JobComplete):
		return "Complete"
	case has(batchv1.JobFailed):
		return "Failed"
	case job.DeletionTimestamp != nil:
		return "Terminating"
	case has(batchv1.JobSuspended):
		return "Suspended"
	case has(batchv1.JobFailureTarget):
		return "FailureTarget"
	case has(batchv1.JobSuccessCriteriaMet):
		return "SuccessCriteriaMet"
	}
	return "Running"
}

// jobSelector prints a job's selector. kube-apiserver generates one
// (batch.kubernetes.io/controller-uid=<uid>) for jobs created without
// manualSelector; fakeplane stores none, so it is printed as generated.
func jobSelector(job *batchv1.Job) string {
	if job.Spec.Selector == nil && (job.Spec.ManualSelector == nil || !*job.Spec.ManualSelector) {
		return batchv1.ControllerUidLabel + "=" + string(job.UID)
	}
	return labelSelectorString(job.Spec.Selector)
}
