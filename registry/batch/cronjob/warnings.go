package cronjob

import (
	"context"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/registry/batch/job"
	"github.com/fakeplane/fakeplane/registry/core/pod"
)

// scheduleTimeZoneWarning is upstream's warning on update for a schedule
// that sets its time zone (validation refuses it on create), with the
// path upstream gives, spec.spec.schedule.
const scheduleTimeZoneWarning = "cannot use TZ or CRON_TZ in spec.spec.schedule, use timeZone instead, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details"

// WarningsOnCreate is upstream's: a name that is not a DNS label, then the
// warnings of the job template's spec.
func (cronJobStrategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	cj := obj.(*batchv1.CronJob)
	warnings := pod.WorkloadNameWarnings(cj.Name)
	return append(warnings, job.WarningsForJobSpec(field.NewPath("spec", "jobTemplate", "spec"), &cj.Spec.JobTemplate.Spec, nil)...)
}

// WarningsOnUpdate is upstream's: the warnings of the job template's spec
// when the update changes the spec (when upstream increments the
// generation), then, whatever changed, that of a schedule containing "TZ".
func (cronJobStrategy) WarningsOnUpdate(_ context.Context, obj, old runtime.Object) []string {
	cj, prev := obj.(*batchv1.CronJob), old.(*batchv1.CronJob)
	var warnings []string
	if !apiequality.Semantic.DeepEqual(cj.Spec, prev.Spec) {
		warnings = job.WarningsForJobSpec(field.NewPath("spec", "jobTemplate", "spec"), &cj.Spec.JobTemplate.Spec, &prev.Spec.JobTemplate.Spec)
	}
	if strings.Contains(cj.Spec.Schedule, "TZ") {
		warnings = append(warnings, scheduleTimeZoneWarning)
	}
	return warnings
}
