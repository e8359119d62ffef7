package controllers

import (
	"maps"
	"slices"
	"strconv"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
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

// perIndexPod is a pod of index ix of a Job with backoffLimitPerIndex, in
// phase, finished at at, whose annotations carry the failure counts of its
// index (negative: no annotation).
func perIndexPod(uid string, ix int, phase corev1.PodPhase, exit int32, counted, ignored int, at time.Time) *corev1.Pod {
	p := finishedPod(phase, at)
	p.UID = types.UID(uid)
	p.Name = uid
	p.Finalizers = []string{batchv1.JobTrackingFinalizer}
	p.Annotations = map[string]string{batchv1.JobCompletionIndexAnnotation: strconv.Itoa(ix)}
	if counted >= 0 {
		p.Annotations[batchv1.JobIndexFailureCountAnnotation] = strconv.Itoa(counted)
	}
	if ignored >= 0 {
		p.Annotations[batchv1.JobIndexIgnoredFailureCountAnnotation] = strconv.Itoa(ignored)
	}
	p.Status.ContainerStatuses[0].Name = "main"
	p.Status.ContainerStatuses[0].State.Terminated.ExitCode = exit
	if phase != corev1.PodSucceeded && phase != corev1.PodFailed {
		p.Status.ContainerStatuses = nil
	}
	return p
}

// perIndexJob is an Indexed Job of completions with backoffLimitPerIndex
// limit, a FailIndex rule for exit code 42 and an Ignore rule for 3.
func perIndexJob(completions, limit int32, failedIndexes *string) *batchv1.Job {
	return &batchv1.Job{
		Spec: batchv1.JobSpec{
			Completions: ptr.To(completions), CompletionMode: ptr.To(batchv1.IndexedCompletion), BackoffLimitPerIndex: ptr.To(limit),
			PodFailurePolicy: &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{
				{Action: batchv1.PodFailurePolicyActionFailIndex, OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{42}}},
				{Action: batchv1.PodFailurePolicyActionIgnore, OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{3}}},
			}},
		},
		Status: batchv1.JobStatus{FailedIndexes: failedIndexes},
	}
}

func TestJobIndexFailureCountsReadsAnnotations(t *testing.T) {
	tests := []struct {
		name                string
		annotations         map[string]string
		wantCount, wantIgno int32
	}{
		{"none reads 0", nil, 0, 0},
		{"both", map[string]string{batchv1.JobIndexFailureCountAnnotation: "2", batchv1.JobIndexIgnoredFailureCountAnnotation: "5"}, 2, 5},
		{"garbage reads 0", map[string]string{batchv1.JobIndexFailureCountAnnotation: "x"}, 0, 0},
		{"negative reads 0", map[string]string{batchv1.JobIndexFailureCountAnnotation: "-1"}, 0, 0},
		{"beyond int32 reads 0", map[string]string{batchv1.JobIndexIgnoredFailureCountAnnotation: "2147483648"}, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, i := jobIndexFailureCounts(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Annotations: tc.annotations}})
			if c != tc.wantCount || i != tc.wantIgno {
				t.Errorf("got %d/%d, want %d/%d", c, i, tc.wantCount, tc.wantIgno)
			}
		})
	}
}

func TestJobIndexFailedPastItsLimitOrByFailIndex(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		pod  *corev1.Pod
		want bool
	}{
		{"first failure under a limit of 1", perIndexPod("a", 0, corev1.PodFailed, 1, 0, -1, at), false},
		{"failure at the limit", perIndexPod("a", 0, corev1.PodFailed, 1, 1, -1, at), true},
		{"ignored failures do not count", perIndexPod("a", 0, corev1.PodFailed, 3, 1, 4, at), false},
		{"ignored failures alone do not fail", perIndexPod("a", 0, corev1.PodFailed, 1, 0, 9, at), false},
		{"FailIndex fails at once", perIndexPod("a", 0, corev1.PodFailed, 42, 0, -1, at), true},
		{"a running pod", perIndexPod("a", 0, corev1.PodRunning, 0, 5, -1, at), false},
		{"a succeeded pod", perIndexPod("a", 0, corev1.PodSucceeded, 0, 5, -1, at), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := jobIndexFailed(perIndexJob(3, 1, nil), tc.pod); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestJobFailedIndexes(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	counted := func(p *corev1.Pod) *corev1.Pod { p.Finalizers = nil; return p }
	tests := []struct {
		name   string
		status *string
		pods   []*corev1.Pod
		want   string
	}{
		{"nothing failed is empty", nil, []*corev1.Pod{perIndexPod("a", 0, corev1.PodSucceeded, 0, 0, -1, at)}, ""},
		{"keeps the status and adds new ones", ptr.To("0"), []*corev1.Pod{
			perIndexPod("a", 1, corev1.PodFailed, 1, 1, -1, at), perIndexPod("b", 2, corev1.PodFailed, 42, 0, -1, at),
			perIndexPod("c", 3, corev1.PodFailed, 1, 0, -1, at)}, "0-2"},
		{"counted pods are the status's business", nil, []*corev1.Pod{counted(perIndexPod("a", 1, corev1.PodFailed, 42, 0, -1, at))}, ""},
		{"indexes beyond completions are left out", ptr.To("0,9"), []*corev1.Pod{perIndexPod("a", 7, corev1.PodFailed, 42, 0, -1, at)}, "0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := jobFailedIndexes(perIndexJob(5, 1, tc.status), tc.pods, 5); got.String() != tc.want {
				t.Errorf("got %q, want %q", got.String(), tc.want)
			}
		})
	}
}

func TestJobPodsToReplaceKeepsTheLastFailedPodOfEachPendingIndex(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	old := perIndexPod("old", 0, corev1.PodFailed, 1, 0, -1, t0)
	newer := perIndexPod("newer", 0, corev1.PodFailed, 1, 1, -1, t0.Add(time.Second))
	ignoredLater := perIndexPod("ignored", 0, corev1.PodFailed, 3, 0, 2, t0.Add(2*time.Second))
	running := perIndexPod("run", 1, corev1.PodRunning, 0, 1, -1, t0)
	failedOfRunning := perIndexPod("f1", 1, corev1.PodFailed, 1, 0, -1, t0)
	failedOfDone := perIndexPod("f2", 2, corev1.PodFailed, 1, 0, -1, t0)
	failedOfFailed := perIndexPod("f3", 3, corev1.PodFailed, 42, 0, -1, t0)
	alone := perIndexPod("f4", 4, corev1.PodFailed, 1, 0, -1, t0)
	tests := []struct {
		name string
		pods []*corev1.Pod
		want map[int]string
	}{
		{"one failed pod", []*corev1.Pod{alone}, map[int]string{4: "f4"}},
		{"the highest count wins", []*corev1.Pod{newer, old}, map[int]string{0: "newer"}},
		{"ignored failures count, then the latest", []*corev1.Pod{old, newer, ignoredLater}, map[int]string{0: "ignored"}},
		{"not for running, succeeded or failed indexes", []*corev1.Pod{running, failedOfRunning, failedOfDone, failedOfFailed}, map[int]string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var active []*corev1.Pod
			for _, p := range tc.pods {
				if jobPodActive(p) {
					active = append(active, p)
				}
			}
			got := jobPodsToReplace(perIndexJob(5, 3, nil), tc.pods, active, parseJobIntervals("2", 5), parseJobIntervals("3", 5), 5)
			names := map[int]string{}
			for ix, p := range got {
				names[ix] = p.Name
			}
			if !maps.Equal(names, tc.want) {
				t.Errorf("got %v, want %v", names, tc.want)
			}
		})
	}
}

func TestJobSetIndexFailureCountsCarriesTheIndexCounts(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name        string
		replaced    *corev1.Pod
		want        string
		wantIgnored string
	}{
		{"an index's first pod", nil, "0", ""},
		{"after a counted failure", perIndexPod("a", 0, corev1.PodFailed, 1, 1, -1, at), "2", ""},
		{"after an ignored failure", perIndexPod("a", 0, corev1.PodFailed, 3, 1, -1, at), "1", "1"},
		{"keeps the ignored count", perIndexPod("a", 0, corev1.PodFailed, 1, 0, 2, at), "1", "2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			job := perIndexJob(3, 5, nil)
			pod := jobPodFromTemplate(job, 0)
			jobSetIndexFailureCounts(pod, job, tc.replaced)
			got, hasIgnored := pod.Annotations[batchv1.JobIndexIgnoredFailureCountAnnotation]
			if pod.Annotations[batchv1.JobIndexFailureCountAnnotation] != tc.want || got != tc.wantIgnored || hasIgnored != (tc.wantIgnored != "") {
				t.Errorf("annotations %v, want count %q ignored %q", pod.Annotations, tc.want, tc.wantIgnored)
			}
		})
	}
}

func TestJobIndexesPastBackoff(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 1, 0, 0, time.UTC)
	failedAgo := func(ix, counted, ignored int, ago time.Duration) *corev1.Pod {
		return perIndexPod("p", ix, corev1.PodFailed, 1, counted, ignored, now.Add(-ago))
	}
	tests := []struct {
		name      string
		indexes   []int
		toReplace map[int]*corev1.Pod
		want      []int
		wait      time.Duration
	}{
		{"first pods go at once", []int{0, 1}, nil, []int{0, 1}, 0},
		{"a first failure waits 10s", []int{0}, map[int]*corev1.Pod{0: failedAgo(0, 0, -1, 4*time.Second)}, nil, 6 * time.Second},
		{"the wait doubles with the index's failures, ignored ones too", []int{0}, map[int]*corev1.Pod{0: failedAgo(0, 1, 1, 0)}, nil, 40 * time.Second},
		{"the ready ones go, the others wait", []int{0, 1, 2}, map[int]*corev1.Pod{0: failedAgo(0, 0, -1, 0), 2: failedAgo(2, 0, -1, 11*time.Second)}, []int{1, 2}, 0},
		{"the shortest wait", []int{0, 1}, map[int]*corev1.Pod{0: failedAgo(0, 2, -1, 0), 1: failedAgo(1, 0, -1, 0)}, nil, 10 * time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, wait := jobIndexesPastBackoff(tc.indexes, tc.toReplace, now)
			if !slices.Equal(got, tc.want) || wait != tc.wait {
				t.Errorf("got %v %v, want %v %v", got, wait, tc.want, tc.wait)
			}
		})
	}
}
