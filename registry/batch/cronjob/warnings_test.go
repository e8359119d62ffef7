package cronjob

import (
	"context"
	"reflect"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func TestCronJobWarnings(t *testing.T) {
	ctx := context.Background()
	const (
		nameWarning  = "metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: [must not contain dots]"
		deprecatedOS = `spec.jobTemplate.spec.template.spec.nodeSelector[beta.kubernetes.io/os]: deprecated since v1.14; use "kubernetes.io/os" instead`
		bigIndexed   = "spec.jobTemplate.spec: In Indexed Jobs with a number of completions higher than 10^5 and a parallelism higher than 10^4, Kubernetes might not be able to track completedIndexes when a big number of indexes fail"
		timeZone     = "cannot use TZ or CRON_TZ in spec.spec.schedule, use timeZone instead, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details"
	)
	obj := func(name string, f func(*batchv1.CronJob)) *batchv1.CronJob {
		cj := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: name}}
		cj.Spec.Schedule = "*/5 * * * *"
		cj.Spec.JobTemplate.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyOnFailure
		cj.Spec.JobTemplate.Spec.Template.Spec.Containers = []corev1.Container{{Name: "c", Image: "busybox"}}
		cj.Spec.JobTemplate.Spec.Template.Spec.NodeSelector = map[string]string{"beta.kubernetes.io/os": "linux"}
		Strategy.Default(cj)
		f(cj)
		return cj
	}
	same := func(*batchv1.CronJob) {}
	withTZ := func(cj *batchv1.CronJob) { cj.Spec.Schedule = "TZ=UTC */5 * * * *" }
	for _, tc := range []struct {
		name     string
		obj, old *batchv1.CronJob
		want     []string
	}{
		{name: "create: a plain one has none", obj: obj("hello", func(cj *batchv1.CronJob) { cj.Spec.JobTemplate.Spec.Template.Spec.NodeSelector = nil })},
		{name: "create: name that is not a DNS label, then the job template's", obj: obj("hello.v1", func(cj *batchv1.CronJob) {
			cj.Spec.JobTemplate.Spec.CompletionMode = ptr.To(batchv1.IndexedCompletion)
			cj.Spec.JobTemplate.Spec.Completions, cj.Spec.JobTemplate.Spec.Parallelism = ptr.To[int32](100_001), ptr.To[int32](10_001)
		}), want: []string{nameWarning, bigIndexed, deprecatedOS}},
		{name: "create: no time zone warning", obj: obj("hello", withTZ), want: []string{deprecatedOS}},
		{name: "update changing the spec", old: obj("hello", same), obj: obj("hello", func(cj *batchv1.CronJob) { cj.Spec.Suspend = ptr.To(true) }), want: []string{deprecatedOS}},
		{name: "update changing the schedule to one with TZ", old: obj("hello", same), obj: obj("hello", withTZ), want: []string{deprecatedOS, timeZone}},
		{name: "update leaving a schedule with TZ alone: its warning only", old: obj("hello", withTZ), obj: obj("hello", func(cj *batchv1.CronJob) {
			withTZ(cj)
			cj.Labels = map[string]string{"a": "b"}
		}), want: []string{timeZone}},
		{name: "update leaving the spec alone has none", old: obj("hello", same), obj: obj("hello", func(cj *batchv1.CronJob) { cj.Labels = map[string]string{"a": "b"} })},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			if tc.old == nil {
				got = Strategy.WarningsOnCreate(ctx, tc.obj)
			} else {
				got = Strategy.WarningsOnUpdate(ctx, tc.obj, tc.old)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("warnings %q, want %q", got, tc.want)
			}
		})
	}
}
