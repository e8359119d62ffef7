package cronjob

import (
	"context"
	"github.com/fakeplane/fakeplane/internal/validate/validatetest"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestCronJobStrategy(t *testing.T) {
	ctx := context.Background()
	valid := func() *batchv1.CronJob {
		cj := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "hello"}}
		cj.Spec.Schedule = "*/5 * * * *"
		cj.Spec.JobTemplate.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyOnFailure
		cj.Spec.JobTemplate.Spec.Template.Spec.Containers = []corev1.Container{{Name: "c", Image: "busybox"}}
		Strategy.Default(cj)
		return cj
	}
	for _, tc := range []struct {
		name     string
		obj      func() *batchv1.CronJob
		update   bool
		wantErrs []string
	}{
		{name: "valid", obj: valid},
		{name: "valid update", obj: valid, update: true},
		{name: "no schedule, bad policy", obj: func() *batchv1.CronJob {
			cj := valid()
			cj.Spec.Schedule, cj.Spec.ConcurrencyPolicy = "", "Sometimes"
			return cj
		}, wantErrs: []string{`spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"`,
			"spec.schedule: Required value"}},
		{name: "TZ in schedule", update: true, obj: func() *batchv1.CronJob {
			cj := valid()
			cj.Spec.Schedule = "TZ=UTC 0 * * * *"
			return cj
		}, wantErrs: []string{`spec.schedule: Invalid value: "TZ=UTC 0 * * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.obj()
			errs := Strategy.Validate(ctx, o)
			if tc.update {
				errs = Strategy.ValidateUpdate(ctx, o, valid())
			}
			validatetest.ExpectErrors(t, errs, tc.wantErrs)
		})
	}
}
