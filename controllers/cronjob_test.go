package controllers

import (
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func TestCronJobJobName(t *testing.T) {
	at := time.Date(2026, 11, 23, 21, 5, 0, 0, time.UTC)
	if got, want := cronJobJobName("hello", at), "hello-29924465"; got != want {
		t.Errorf("name = %q, want %q (minutes since the epoch)", got, want)
	}
}

func TestCronJobMostRecentSchedule(t *testing.T) {
	created := time.Date(2026, 1, 1, 10, 0, 30, 0, time.UTC)
	sched, err := cronJobParse("*/5 * * * *")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		last     *time.Time
		deadline *int64
		now      time.Time
		want     *time.Time
	}{
		{"none yet", nil, nil, created.Add(time.Minute), nil},
		{"the first", nil, nil, time.Date(2026, 1, 1, 10, 6, 0, 0, time.UTC), ptr.To(time.Date(2026, 1, 1, 10, 5, 0, 0, time.UTC))},
		{"the latest of several missed", nil, nil, time.Date(2026, 1, 1, 10, 22, 0, 0, time.UTC), ptr.To(time.Date(2026, 1, 1, 10, 20, 0, 0, time.UTC))},
		{"after the last started", ptr.To(time.Date(2026, 1, 1, 10, 20, 0, 0, time.UTC)), nil, time.Date(2026, 1, 1, 10, 22, 0, 0, time.UTC), nil},
		{"past the starting deadline", nil, ptr.To[int64](30), time.Date(2026, 1, 1, 10, 6, 0, 0, time.UTC), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cj := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(created)}}
			cj.Spec.StartingDeadlineSeconds = tc.deadline
			if tc.last != nil {
				cj.Status.LastScheduleTime = &metav1.Time{Time: *tc.last}
			}
			got, _, err := cronJobMostRecent(cj, tc.now, sched, true)
			if err != nil {
				t.Fatal(err)
			}
			if (got == nil) != (tc.want == nil) || (got != nil && !got.Equal(*tc.want)) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestCronJobNextDuration(t *testing.T) {
	sched, _ := cronJobParse("0 * * * *")
	cj := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(time.Date(2026, 1, 1, 10, 30, 0, 0, time.UTC))}}
	now := time.Date(2026, 1, 1, 10, 45, 0, 0, time.UTC)
	if d := *cronJobNextDuration(cj, now, sched); d != 15*time.Minute+cronJobScheduleDelta {
		t.Errorf("next in %v, want 15m0.1s", d)
	}
}

func TestCronJobParse(t *testing.T) {
	for _, s := range []string{"* * * * *", "@hourly", "TZ=Europe/Paris 0 9 * * 1-5"} {
		if _, err := cronJobParse(s); err != nil {
			t.Errorf("%q: %v", s, err)
		}
	}
	for _, s := range []string{"", "* * *", "TZ=0"} {
		if _, err := cronJobParse(s); err == nil {
			t.Errorf("%q parsed", s)
		}
	}
}

func TestCronJobNewJob(t *testing.T) {
	cj := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "ns", UID: "u"}, Spec: batchv1.CronJobSpec{
		TimeZone: ptr.To("Europe/Paris"),
		JobTemplate: batchv1.JobTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"l": "v"}},
			Spec: batchv1.JobSpec{BackoffLimit: ptr.To[int32](2)}},
	}}
	at := time.Date(2026, 1, 1, 8, 0, 0, 0, time.UTC)
	j, err := cronJobNewJob(cj, at)
	if err != nil {
		t.Fatal(err)
	}
	if j.Name != cronJobJobName("c", at) || j.Labels["l"] != "v" || *j.Spec.BackoffLimit != 2 ||
		j.Annotations[batchv1.CronJobScheduledTimestampAnnotation] != "2026-01-01T09:00:00+01:00" {
		t.Errorf("job %+v", j.ObjectMeta)
	}
	if ref := metav1.GetControllerOf(j); ref == nil || ref.Kind != "CronJob" || ref.UID != "u" {
		t.Errorf("controller %+v", ref)
	}
}
