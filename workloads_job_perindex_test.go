package fakeplane_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
)

// perIndexJob is an Indexed Job of completions pods, all at once, with
// backoffLimitPerIndex limit.
func perIndexJob(name string, completions, limit int32) *batchv1.Job {
	job := testJob(name, completions, completions)
	job.Spec.CompletionMode = ptr.To(batchv1.IndexedCompletion)
	job.Spec.BackoffLimitPerIndex = ptr.To(limit)
	return job
}

// podIndexAttempt reads a Job pod's completion index and how many pods of
// its index failed before it (counted and ignored failures).
func podIndexAttempt(p *corev1.Pod) (index, attempt int) {
	index, _ = strconv.Atoi(p.Annotations[batchv1.JobCompletionIndexAnnotation])
	counted, _ := strconv.Atoi(p.Annotations[batchv1.JobIndexFailureCountAnnotation])
	ignored, _ := strconv.Atoi(p.Annotations[batchv1.JobIndexIgnoredFailureCountAnnotation])
	return index, counted + ignored
}

// waitJob polls the Job until ok holds and returns it.
func waitJob(t *testing.T, cs kubernetes.Interface, ns, name, what string, ok func(*batchv1.Job) bool) *batchv1.Job {
	t.Helper()
	var job *batchv1.Job
	eventuallyT(t, "job "+name+": "+what, func(ctx context.Context) (bool, error) {
		j, err := cs.BatchV1().Jobs(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		job = j
		return ok(j), nil
	})
	return job
}

// checkJobFailedWith checks the FailureTarget and Failed conditions (in
// that order) and the Warning event of a Job that failed with reason and
// msg.
func checkJobFailedWith(t *testing.T, cs kubernetes.Interface, job *batchv1.Job, reason, msg string) {
	t.Helper()
	var types []batchv1.JobConditionType
	for _, c := range job.Status.Conditions {
		types = append(types, c.Type)
		if c.Status != corev1.ConditionTrue || c.Reason != reason || c.Message != msg {
			t.Errorf("condition %s: %s %s %q, want True %s %q", c.Type, c.Status, c.Reason, c.Message, reason, msg)
		}
	}
	if len(types) != 2 || types[0] != batchv1.JobFailureTarget || types[1] != batchv1.JobFailed {
		t.Errorf("conditions %v, want [FailureTarget Failed]", types)
	}
	if got := waitObjectEvent(t, cs, job.Namespace, "Job", job.Name, reason); got[0] != msg {
		t.Errorf("event %s message %q, want %q", reason, got[0], msg)
	}
}

// An Indexed Job with backoffLimitPerIndex replaces a failed pod of an
// index, after the index's backoff, with one that carries the index's
// failure count; once an index failed more than its limit it is listed in
// failedIndexes and, when the other indexes are done, the Job fails with
// FailedIndexes, as kube-controller-manager's job controller does.
func TestIndexedJobFailsAnIndexPastBackoffLimitPerIndex(t *testing.T) {
	t.Parallel()
	clock := newTestClock()
	cp := fakeplane.Start(t, fakeplane.WithClock(clock.Now))
	cs := clientset(t, cp)
	ctx := ctxT(t)
	ns := newBatchNamespace(t, cs, "job-perindex")
	startBatchKubelet(t, cs, ns, clock.Now, func(p *corev1.Pod) *testPodOutcome {
		if ix, _ := podIndexAttempt(p); ix == 1 {
			return ptr.To(testExit(1))
		}
		return ptr.To(testSucceed())
	})
	if _, err := cs.BatchV1().Jobs(ns).Create(ctx, perIndexJob("per-index", 3, 1), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	job := waitJob(t, cs, ns, "per-index", "indexes 0 and 2 done", func(j *batchv1.Job) bool { return j.Status.CompletedIndexes == "0,2" })
	if job.Status.FailedIndexes == nil || *job.Status.FailedIndexes != "" {
		t.Errorf("failedIndexes %v before any index failed, want set and empty", job.Status.FailedIndexes)
	}
	eventuallyT(t, "the first pod of index 1 failed", func(context.Context) (bool, error) {
		for _, p := range podsOfJob(t, cs, ns, "per-index") {
			if ix, _ := podIndexAttempt(&p); ix == 1 && p.Status.Phase == corev1.PodFailed {
				return true, nil
			}
		}
		return false, nil
	})
	// The replacement waits for the index's backoff, which the clock has
	// not passed; the failed pod keeps its finalizer until then.
	var first corev1.Pod
	for _, p := range podsOfJob(t, cs, ns, "per-index") {
		if ix, attempt := podIndexAttempt(&p); ix == 1 {
			if attempt != 0 || p.Annotations[batchv1.JobIndexFailureCountAnnotation] != "0" {
				t.Errorf("pod %s of index 1 before the backoff passed, annotations %v", p.Name, p.Annotations)
			}
			first = p
		}
	}
	if len(first.Finalizers) != 1 {
		t.Errorf("the failed pod's finalizers %v before its replacement exists, want the tracking one", first.Finalizers)
	}
	clock.Advance(11 * time.Second)
	job = waitJobCondition(t, cs, ns, "per-index", batchv1.JobFailed)
	if got := ptr.Deref(job.Status.FailedIndexes, "<nil>"); got != "1" || job.Status.CompletedIndexes != "0,2" ||
		job.Status.Failed != 2 || job.Status.Succeeded != 2 || job.Status.Active != 0 {
		t.Errorf("failedIndexes %q completedIndexes %q failed %d succeeded %d active %d, want \"1\" \"0,2\" 2 2 0",
			got, job.Status.CompletedIndexes, job.Status.Failed, job.Status.Succeeded, job.Status.Active)
	}
	checkJobFailedWith(t, cs, job, batchv1.JobReasonFailedIndexes, "Job has failed indexes")
	counts := map[string]int{}
	for _, p := range podsOfJob(t, cs, ns, "per-index") {
		ix, _ := podIndexAttempt(&p)
		counts[strconv.Itoa(ix)+"/"+p.Annotations[batchv1.JobIndexFailureCountAnnotation]]++
	}
	if len(counts) != 4 || counts["0/0"] != 1 || counts["1/0"] != 1 || counts["1/1"] != 1 || counts["2/0"] != 1 {
		t.Errorf("pods by index/failure count %v, want one each of 0/0 1/0 1/1 2/0", counts)
	}
}

// Once more indexes failed than maxFailedIndexes (here one by a FailIndex
// rule at its first failure), the Job fails with MaxFailedIndexesExceeded
// and deletes its running pods, which count as failed.
func TestIndexedJobFailsPastMaxFailedIndexes(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	ns := newBatchNamespace(t, cs, "job-maxfailed")
	startBatchKubelet(t, cs, ns, nil, func(p *corev1.Pod) *testPodOutcome {
		switch ix, _ := podIndexAttempt(p); ix {
		case 0:
			return ptr.To(testExit(42))
		case 1:
			return ptr.To(testExit(1))
		}
		return ptr.To(testRunning())
	})
	job := perIndexJob("max-failed", 4, 2)
	job.Spec.MaxFailedIndexes = ptr.To[int32](0)
	job.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{
		Action:      batchv1.PodFailurePolicyActionFailIndex,
		OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{42}},
	}}}
	if _, err := cs.BatchV1().Jobs(ns).Create(ctx, job, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	job = waitJobCondition(t, cs, ns, "max-failed", batchv1.JobFailed)
	if got := ptr.Deref(job.Status.FailedIndexes, "<nil>"); got != "0" || job.Status.CompletedIndexes != "" || job.Status.Active != 0 || job.Status.Failed < 3 {
		t.Errorf("failedIndexes %q completedIndexes %q active %d failed %d, want \"0\" \"\" 0 and at least 3 (index 0 and the two deleted)",
			got, job.Status.CompletedIndexes, job.Status.Active, job.Status.Failed)
	}
	checkJobFailedWith(t, cs, job, batchv1.JobReasonMaxFailedIndexesExceeded, "Job has exceeded the specified maximal number of failed indexes")
	if msgs := eventsAbout(t, cs, ns, "Job", "max-failed")["SuccessfulDelete"]; len(msgs) < 2 {
		t.Errorf("SuccessfulDelete events %v, want the running pods' of indexes 2 and 3", msgs)
	}
}

// A failure that a podFailurePolicy Ignore rule matches does not count
// against the index: the replacement carries it in the ignored failure
// count, and a Job whose indexes all succeed completes with failedIndexes
// set and empty.
func TestIndexedJobPerIndexIgnoredFailure(t *testing.T) {
	t.Parallel()
	clock := newTestClock()
	cp := fakeplane.Start(t, fakeplane.WithClock(clock.Now))
	cs := clientset(t, cp)
	ctx := ctxT(t)
	ns := newBatchNamespace(t, cs, "job-perindex-ignore")
	startBatchKubelet(t, cs, ns, clock.Now, func(p *corev1.Pod) *testPodOutcome {
		if ix, attempt := podIndexAttempt(p); ix == 0 && attempt == 0 {
			return ptr.To(testExit(3))
		}
		return ptr.To(testSucceed())
	})
	job := perIndexJob("ignore", 2, 0)
	job.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{
		Action:      batchv1.PodFailurePolicyActionIgnore,
		OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{3}},
	}}}
	if _, err := cs.BatchV1().Jobs(ns).Create(ctx, job, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitJob(t, cs, ns, "ignore", "index 1 done", func(j *batchv1.Job) bool { return j.Status.CompletedIndexes == "1" })
	eventuallyT(t, "the first pod of index 0 failed", func(context.Context) (bool, error) {
		for _, p := range podsOfJob(t, cs, ns, "ignore") {
			if ix, _ := podIndexAttempt(&p); ix == 0 && p.Status.Phase == corev1.PodFailed {
				return true, nil
			}
		}
		return false, nil
	})
	clock.Advance(11 * time.Second)
	job = waitJobCondition(t, cs, ns, "ignore", batchv1.JobComplete)
	if got := ptr.Deref(job.Status.FailedIndexes, "<nil>"); got != "" || job.Status.CompletedIndexes != "0,1" || job.Status.Failed != 0 || job.Status.Succeeded != 2 {
		t.Errorf("failedIndexes %q completedIndexes %q failed %d succeeded %d, want \"\" \"0,1\" 0 2",
			got, job.Status.CompletedIndexes, job.Status.Failed, job.Status.Succeeded)
	}
	var replacement *corev1.Pod
	for _, p := range podsOfJob(t, cs, ns, "ignore") {
		if ix, attempt := podIndexAttempt(&p); ix == 0 && attempt == 1 {
			replacement = &p
		}
	}
	if replacement == nil || replacement.Annotations[batchv1.JobIndexFailureCountAnnotation] != "0" ||
		replacement.Annotations[batchv1.JobIndexIgnoredFailureCountAnnotation] != "1" {
		t.Errorf("replacement of index 0: %v, want failure count 0 and ignored failure count 1", replacement)
	}
}
