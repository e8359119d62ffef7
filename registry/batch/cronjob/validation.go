package cronjob

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
	batchv1 "k8s.io/api/batch/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane/internal/validate"
	"github.com/fakeplane/fakeplane/registry/batch/job"
)

// validateCronJob is upstream's ValidateCronJobCreate/Update less the
// metadata (old is nil on create).
func validateCronJob(ctx context.Context, cj, old *batchv1.CronJob) field.ErrorList {
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
	errs = append(errs, job.ValidateJobSpec(ctx, &s.JobTemplate.Spec, jt.Child("spec"))...)
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

// defaultCronJob is upstream's SetDefaults_CronJob.
func defaultCronJob(o *batchv1.CronJob) {
	sp := &o.Spec
	if sp.ConcurrencyPolicy == "" {
		sp.ConcurrencyPolicy = batchv1.AllowConcurrent
	}
	if sp.Suspend == nil {
		f := false
		sp.Suspend = &f
	}
	if sp.SuccessfulJobsHistoryLimit == nil {
		sp.SuccessfulJobsHistoryLimit = ptr.To[int32](3)
	}
	if sp.FailedJobsHistoryLimit == nil {
		sp.FailedJobsHistoryLimit = ptr.To[int32](1)
	}
}
