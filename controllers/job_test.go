package controllers

import (
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func TestJobBackoffRemaining(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name     string
		failures int32
		ago      time.Duration
		want     time.Duration
	}{
		{"no failure, no wait", 0, 0, 0},
		{"first failure waits 10s", 1, 0, 10 * time.Second},
		{"time passed counts", 1, 4 * time.Second, 6 * time.Second},
		{"doubles per failure", 3, 0, 40 * time.Second},
		{"capped at 10 minutes", 20, 0, 10 * time.Minute},
		{"passed backoff, no wait", 2, time.Minute, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := jobBackoff{failures: tc.failures, lastFailure: now.Add(-tc.ago)}
			if got := b.remaining(now); got != tc.want {
				t.Errorf("remaining = %v, want %v", got, tc.want)
			}
		})
	}
}

func finishedPod(phase corev1.PodPhase, at time.Time) *corev1.Pod {
	return &corev1.Pod{Status: corev1.PodStatus{Phase: phase, ContainerStatuses: []corev1.ContainerStatus{{
		State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{FinishedAt: metav1.NewTime(at)}},
	}}}}
}

func TestJobBackoffNextCountsFailuresSinceLastSuccess(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b := jobBackoff{}.next(nil, []*corev1.Pod{finishedPod(corev1.PodFailed, t0), finishedPod(corev1.PodFailed, t0.Add(time.Second))})
	if b.failures != 2 || !b.lastFailure.Equal(t0.Add(time.Second)) {
		t.Fatalf("after two failures: %+v", b)
	}
	b = b.next([]*corev1.Pod{finishedPod(corev1.PodSucceeded, t0.Add(2*time.Second))},
		[]*corev1.Pod{finishedPod(corev1.PodFailed, t0.Add(3*time.Second))})
	if b.failures != 1 || !b.lastFailure.Equal(t0.Add(3*time.Second)) {
		t.Fatalf("a success then a failure: %+v", b)
	}
	if b = b.next([]*corev1.Pod{finishedPod(corev1.PodSucceeded, t0.Add(4*time.Second))}, nil); b.failures != 0 {
		t.Fatalf("a success resets: %+v", b)
	}
}

func TestJobIntervals(t *testing.T) {
	tests := []struct {
		name        string
		in          string
		completions int
		add         []int
		want        string
		total       int
	}{
		{"empty", "", 5, nil, "", 0},
		{"merges adjacent", "1,3-4", 10, []int{2}, "1-4", 4},
		{"keeps below completions", "0-9", 5, nil, "0-4", 5},
		{"adds in order, two in a row written as upstream writes them", "5", 10, []int{0, 9, 1}, "0,1,5,9", 4},
		{"three in a row are a range", "0,1", 10, []int{2}, "0-2", 3},
		{"skips garbage", "x,2,4-3", 10, nil, "2", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := parseJobIntervals(tc.in, tc.completions).with(tc.add)
			if got.String() != tc.want || got.total() != tc.total {
				t.Errorf("got %q (%d), want %q (%d)", got.String(), got.total(), tc.want, tc.total)
			}
		})
	}
	if p := jobFirstPendingIndexes(parseJobIntervals("0,2-3", 6), 2, 6); len(p) != 2 || p[0] != 1 || p[1] != 4 {
		t.Errorf("first pending = %v, want [1 4]", p)
	}
}

func TestJobMatchSuccessPolicy(t *testing.T) {
	done := parseJobIntervals("0-2,5", 10)
	tests := []struct {
		name  string
		rules []batchv1.SuccessPolicyRule
		want  string
	}{
		{"indexes all done", []batchv1.SuccessPolicyRule{{SucceededIndexes: ptr.To("1-2")}}, "Matched rules at index 0"},
		{"indexes not all done", []batchv1.SuccessPolicyRule{{SucceededIndexes: ptr.To("2-3")}}, ""},
		{"enough of the indexes", []batchv1.SuccessPolicyRule{{SucceededIndexes: ptr.To("2-6")}, {SucceededIndexes: ptr.To("4-6"), SucceededCount: ptr.To[int32](1)}}, "Matched rules at index 1"},
		{"count alone", []batchv1.SuccessPolicyRule{{SucceededCount: ptr.To[int32](4)}}, "Matched rules at index 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			msg, ok := jobMatchSuccessPolicy(&batchv1.SuccessPolicy{Rules: tc.rules}, 10, done)
			if msg != tc.want || ok != (tc.want != "") {
				t.Errorf("got %q %v, want %q", msg, ok, tc.want)
			}
		})
	}
}

func TestJobMatchPodFailurePolicy(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"}, Status: corev1.PodStatus{
		Phase:             corev1.PodFailed,
		Conditions:        []corev1.PodCondition{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue}},
		ContainerStatuses: []corev1.ContainerStatus{{Name: "main", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 42}}}},
	}}
	exit := func(op batchv1.PodFailurePolicyOnExitCodesOperator, codes ...int32) *batchv1.PodFailurePolicyOnExitCodesRequirement {
		return &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: op, Values: codes}
	}
	tests := []struct {
		name      string
		rules     []batchv1.PodFailurePolicyRule
		wantMsg   string
		wantCount bool
	}{
		{"FailJob on the exit code", []batchv1.PodFailurePolicyRule{{Action: batchv1.PodFailurePolicyActionFailJob, OnExitCodes: exit(batchv1.PodFailurePolicyOnExitCodesOpIn, 42)}},
			"Container main for pod ns/p failed with exit code 42 matching FailJob rule at index 0", true},
		{"NotIn does not match", []batchv1.PodFailurePolicyRule{{Action: batchv1.PodFailurePolicyActionFailJob, OnExitCodes: exit(batchv1.PodFailurePolicyOnExitCodesOpNotIn, 42)}}, "", true},
		{"Ignore on a condition", []batchv1.PodFailurePolicyRule{{Action: batchv1.PodFailurePolicyActionIgnore,
			OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue}}}}, "", false},
		{"FailJob on a condition, second rule", []batchv1.PodFailurePolicyRule{
			{Action: batchv1.PodFailurePolicyActionIgnore, OnExitCodes: exit(batchv1.PodFailurePolicyOnExitCodesOpIn, 1)},
			{Action: batchv1.PodFailurePolicyActionFailJob, OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue}}}},
			"Pod ns/p has condition DisruptionTarget matching FailJob rule at index 1", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			msg, count, _ := jobMatchPodFailurePolicy(&batchv1.PodFailurePolicy{Rules: tc.rules}, pod)
			if ptr.Deref(msg, "") != tc.wantMsg || count != tc.wantCount {
				t.Errorf("got %q %v, want %q %v", ptr.Deref(msg, ""), count, tc.wantMsg, tc.wantCount)
			}
		})
	}
}

func TestJobPodFromTemplate(t *testing.T) {
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "work", Namespace: "ns", UID: "uid-1"},
		Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"job-name": "work"}, Annotations: map[string]string{"a": "b"}},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}},
		}},
	}
	p := jobPodFromTemplate(job, jobUnknownIndex)
	if p.GenerateName != "work-" || p.Labels["job-name"] != "work" || p.Annotations["a"] != "b" || len(p.Finalizers) != 1 ||
		p.Finalizers[0] != batchv1.JobTrackingFinalizer || len(p.Spec.Containers[0].Env) != 0 {
		t.Errorf("non-indexed pod %+v", p.ObjectMeta)
	}
	if ref := metav1.GetControllerOf(p); ref == nil || ref.UID != "uid-1" || ref.Kind != "Job" || !ptr.Deref(ref.BlockOwnerDeletion, false) {
		t.Errorf("controller %+v", ref)
	}
	p = jobPodFromTemplate(job, 7)
	if p.GenerateName != "work-7-" || p.Annotations[batchv1.JobCompletionIndexAnnotation] != "7" || p.Labels[batchv1.JobCompletionIndexAnnotation] != "7" ||
		p.Spec.Hostname != "work-7" || p.Spec.Containers[0].Env[0].Name != "JOB_COMPLETION_INDEX" {
		t.Errorf("indexed pod %+v %+v", p.ObjectMeta, p.Spec)
	}
	if job.Spec.Template.Annotations[batchv1.JobCompletionIndexAnnotation] != "" {
		t.Error("the template was modified")
	}
	long := "j123456789012345678901234567890123456789012345678901234567"
	if got := jobPodNameWithIndex(long, 12); len(got) != 58 || got[len(got)-4:] != "-12-" {
		t.Errorf("long indexed prefix %q (%d)", got, len(got))
	}
}
