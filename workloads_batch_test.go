package fakeplane_test

import (
	"context"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
)

// testClock is a clock a test moves forward, for fakeplane.WithClock.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func newTestClock() *testClock { return &testClock{t: time.Now().Truncate(time.Second)} }

// Now is the clock's time.
func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock forward by d.
func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// eventuallyT polls cond every 20ms for up to 30s; it fails the test with
// what when cond never holds. cond may report an error to stop at once.
func eventuallyT(t testing.TB, what string, cond func(ctx context.Context) (bool, error)) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(context.Background(), 20*time.Millisecond, 30*time.Second, true, cond); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// newBatchNamespace creates a namespace for a test and returns its name.
func newBatchNamespace(t testing.TB, cs kubernetes.Interface, name string) string {
	t.Helper()
	if _, err := cs.CoreV1().Namespaces().Create(ctxT(t), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return name
}

// testJob is a Job of one container "main" that never restarts.
func testJob(name string, completions, parallelism int32) *batchv1.Job {
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: batchv1.JobSpec{
			Completions: ptr.To(completions),
			Parallelism: ptr.To(parallelism),
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				Containers:    []corev1.Container{{Name: "main", Image: "busybox"}},
			}},
		},
	}
}

// waitJobCondition waits for the Job to have condition ct True and returns
// it.
func waitJobCondition(t testing.TB, cs kubernetes.Interface, ns, name string, ct batchv1.JobConditionType) *batchv1.Job {
	t.Helper()
	var job *batchv1.Job
	eventuallyT(t, "job "+name+" condition "+string(ct), func(ctx context.Context) (bool, error) {
		j, err := cs.BatchV1().Jobs(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		job = j
		return jobHas(j, ct), nil
	})
	return job
}

func jobHas(j *batchv1.Job, ct batchv1.JobConditionType) bool {
	for _, c := range j.Status.Conditions {
		if c.Type == ct && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

func jobCond(j *batchv1.Job, ct batchv1.JobConditionType) *batchv1.JobCondition {
	for i := range j.Status.Conditions {
		if j.Status.Conditions[i].Type == ct {
			return &j.Status.Conditions[i]
		}
	}
	return nil
}

// podsOfJob lists the pods of a Job by its job-name label.
func podsOfJob(t testing.TB, cs kubernetes.Interface, ns, name string) []corev1.Pod {
	t.Helper()
	l, err := cs.CoreV1().Pods(ns).List(ctxT(t), metav1.ListOptions{LabelSelector: labels.Set{batchv1.JobNameLabel: name}.String()})
	if err != nil {
		t.Fatal(err)
	}
	return l.Items
}

// eventsAbout lists the reasons and messages of the events about an object.
func eventsAbout(t testing.TB, cs kubernetes.Interface, ns, kind, name string) map[string][]string {
	t.Helper()
	l, err := cs.CoreV1().Events(ns).List(ctxT(t), metav1.ListOptions{FieldSelector: fields.Set{"involvedObject.kind": kind, "involvedObject.name": name}.String()})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, e := range l.Items {
		out[e.Reason] = append(out[e.Reason], e.Message)
	}
	return out
}

// waitObjectEvent waits for an event of reason about the object and returns its
// messages.
func waitObjectEvent(t testing.TB, cs kubernetes.Interface, ns, kind, name, reason string) []string {
	t.Helper()
	var msgs []string
	eventuallyT(t, "event "+reason+" about "+name, func(context.Context) (bool, error) {
		msgs = eventsAbout(t, cs, ns, kind, name)[reason]
		return len(msgs) > 0, nil
	})
	return msgs
}

// A Job of 3 completions runs 2 pods at a time, counts them as they
// succeed and ends Complete, as kube-controller-manager's job controller
// runs it.
func TestJobRunsToCompletionTwoAtATime(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	ns := newBatchNamespace(t, cs, "job-complete")
	k := startBatchKubelet(t, cs, ns, nil, func(*corev1.Pod) *testPodOutcome { return ptr.To(testRunning()) })

	job, err := cs.BatchV1().Jobs(ns).Create(ctx, testJob("pi", 3, 2), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	podName := regexp.MustCompile(`^pi-[a-z0-9]{5}$`)
	finished := map[string]bool{}
	for round := 0; round < 3; round++ {
		// As many pods run as parallelism and the remaining completions allow.
		want := int32(min(2, 3-round))
		var running []corev1.Pod
		eventuallyT(t, "running pods", func(ctx context.Context) (bool, error) {
			j, err := cs.BatchV1().Jobs(ns).Get(ctx, "pi", metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			running = running[:0]
			for _, p := range podsOfJob(t, cs, ns, "pi") {
				if p.Status.Phase == corev1.PodRunning {
					running = append(running, p)
				}
			}
			return j.Status.Active == want && ptr.Deref(j.Status.Ready, -1) == want && j.Status.Succeeded == int32(round) && len(running) == int(want), nil
		})
		p := running[0]
		if !podName.MatchString(p.Name) {
			t.Errorf("pod name %q, want pi-<5 chars>", p.Name)
		}
		if ref := metav1.GetControllerOf(&p); ref == nil || ref.UID != job.UID || ref.Kind != "Job" || !ptr.Deref(ref.BlockOwnerDeletion, false) {
			t.Errorf("pod %s controller = %+v, want the Job", p.Name, ref)
		}
		if !slices.Contains(p.Finalizers, batchv1.JobTrackingFinalizer) {
			t.Errorf("running pod %s finalizers = %v, want %s", p.Name, p.Finalizers, batchv1.JobTrackingFinalizer)
		}
		for _, l := range []string{batchv1.JobNameLabel, "job-name"} {
			if p.Labels[l] != "pi" {
				t.Errorf("pod label %s = %q", l, p.Labels[l])
			}
		}
		for _, l := range []string{batchv1.ControllerUidLabel, "controller-uid"} {
			if p.Labels[l] != string(job.UID) {
				t.Errorf("pod label %s = %q", l, p.Labels[l])
			}
		}
		if err := k.apply(ctx, &p, testPodOutcome{exit: ptr.To[int32](0)}, ""); err != nil {
			t.Fatal(err)
		}
		finished[p.Name] = true
	}
	job = waitJobCondition(t, cs, ns, "pi", batchv1.JobComplete)
	if job.Status.Succeeded != 3 || job.Status.Failed != 0 || job.Status.Active != 0 {
		t.Errorf("status succeeded/failed/active = %d/%d/%d, want 3/0/0", job.Status.Succeeded, job.Status.Failed, job.Status.Active)
	}
	if job.Status.StartTime == nil || job.Status.CompletionTime == nil {
		t.Errorf("startTime %v completionTime %v, want both", job.Status.StartTime, job.Status.CompletionTime)
	}
	if u := job.Status.UncountedTerminatedPods; u != nil && len(u.Succeeded)+len(u.Failed) > 0 {
		t.Errorf("uncountedTerminatedPods = %+v, want empty", u)
	}
	for _, ct := range []batchv1.JobConditionType{batchv1.JobSuccessCriteriaMet, batchv1.JobComplete} {
		c := jobCond(job, ct)
		if c == nil || c.Reason != batchv1.JobReasonCompletionsReached || c.Message != "Reached expected number of succeeded pods" {
			t.Errorf("condition %s = %+v", ct, c)
		}
	}
	eventuallyT(t, "finalizers removed", func(context.Context) (bool, error) {
		for _, p := range podsOfJob(t, cs, ns, "pi") {
			if slices.Contains(p.Finalizers, batchv1.JobTrackingFinalizer) {
				return false, nil
			}
		}
		return true, nil
	})
	if got := waitObjectEvent(t, cs, ns, "Job", "pi", "Completed"); got[0] != "Job completed" {
		t.Errorf("Completed event message %q", got[0])
	}
	created := eventsAbout(t, cs, ns, "Job", "pi")["SuccessfulCreate"]
	if len(created) != 3 {
		t.Errorf("SuccessfulCreate events %v, want 3", created)
	}
	for name := range finished {
		if !slices.Contains(created, "Created pod: "+name) {
			t.Errorf("no SuccessfulCreate event for %s in %v", name, created)
		}
	}
}

// A Job whose pods fail is retried after upstream's 10s backoff and fails
// with BackoffLimitExceeded once more pods failed than backoffLimit.
func TestJobFailsWhenBackoffLimitExceeded(t *testing.T) {
	t.Parallel()
	clock := newTestClock()
	cp := fakeplane.Start(t, fakeplane.WithClock(clock.Now))
	cs := clientset(t, cp)
	ctx := ctxT(t)
	ns := newBatchNamespace(t, cs, "job-backoff")
	startBatchKubelet(t, cs, ns, clock.Now, func(*corev1.Pod) *testPodOutcome { return ptr.To(testExit(1)) })

	job := testJob("flaky", 1, 1)
	job.Spec.BackoffLimit = ptr.To[int32](1)
	if _, err := cs.BatchV1().Jobs(ns).Create(ctx, job, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventuallyT(t, "first failure counted", func(ctx context.Context) (bool, error) {
		j, err := cs.BatchV1().Jobs(ns).Get(ctx, "flaky", metav1.GetOptions{})
		return err == nil && j.Status.Failed == 1, err
	})
	// The replacement waits for the backoff, which the clock has not passed.
	if n := len(podsOfJob(t, cs, ns, "flaky")); n != 1 {
		t.Fatalf("%d pods before the backoff passed, want 1", n)
	}
	clock.Advance(11 * time.Second)
	job = waitJobCondition(t, cs, ns, "flaky", batchv1.JobFailed)
	if job.Status.Failed != 2 || job.Status.Succeeded != 0 {
		t.Errorf("failed/succeeded = %d/%d, want 2/0", job.Status.Failed, job.Status.Succeeded)
	}
	for _, ct := range []batchv1.JobConditionType{batchv1.JobFailureTarget, batchv1.JobFailed} {
		c := jobCond(job, ct)
		if c == nil || c.Reason != batchv1.JobReasonBackoffLimitExceeded || c.Message != "Job has reached the specified backoff limit" {
			t.Errorf("condition %s = %+v", ct, c)
		}
	}
	if job.Status.CompletionTime != nil {
		t.Errorf("completionTime %v on a failed Job", job.Status.CompletionTime)
	}
	if got := waitObjectEvent(t, cs, ns, "Job", "flaky", "BackoffLimitExceeded"); got[0] != "Job has reached the specified backoff limit" {
		t.Errorf("event message %q", got[0])
	}
}

// An Indexed Job gives each pod its index: in the name, annotation, label,
// hostname and JOB_COMPLETION_INDEX, and reports completedIndexes.
func TestIndexedJobPodsCarryTheirIndex(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	ns := newBatchNamespace(t, cs, "job-indexed")
	var mu sync.Mutex
	seen := map[string]corev1.Pod{}
	startBatchKubelet(t, cs, ns, nil, func(p *corev1.Pod) *testPodOutcome {
		mu.Lock()
		seen[p.Name] = *p.DeepCopy()
		mu.Unlock()
		return ptr.To(testSucceed())
	})
	job := testJob("idx", 3, 3)
	job.Spec.CompletionMode = ptr.To(batchv1.IndexedCompletion)
	if _, err := cs.BatchV1().Jobs(ns).Create(ctx, job, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	job = waitJobCondition(t, cs, ns, "idx", batchv1.JobComplete)
	if job.Status.CompletedIndexes != "0-2" || job.Status.Succeeded != 3 {
		t.Errorf("completedIndexes %q succeeded %d, want 0-2 and 3", job.Status.CompletedIndexes, job.Status.Succeeded)
	}
	mu.Lock()
	defer mu.Unlock()
	indexes := map[string]bool{}
	for name, p := range seen {
		ix := p.Annotations[batchv1.JobCompletionIndexAnnotation]
		indexes[ix] = true
		if !regexp.MustCompile(`^idx-` + ix + `-[a-z0-9]{5}$`).MatchString(name) {
			t.Errorf("pod %s of index %q: want idx-<index>-<5 chars>", name, ix)
		}
		if p.Labels[batchv1.JobCompletionIndexAnnotation] != ix {
			t.Errorf("pod %s index label %q, annotation %q", name, p.Labels[batchv1.JobCompletionIndexAnnotation], ix)
		}
		if p.Spec.Hostname != "idx-"+ix {
			t.Errorf("pod %s hostname %q, want idx-%s", name, p.Spec.Hostname, ix)
		}
		env := p.Spec.Containers[0].Env
		if len(env) != 1 || env[0].Name != "JOB_COMPLETION_INDEX" || env[0].ValueFrom == nil || env[0].ValueFrom.FieldRef == nil ||
			env[0].ValueFrom.FieldRef.FieldPath != "metadata.labels['batch.kubernetes.io/job-completion-index']" {
			t.Errorf("pod %s env %+v", name, env)
		}
	}
	if len(indexes) != 3 || !indexes["0"] || !indexes["1"] || !indexes["2"] {
		t.Errorf("indexes %v, want 0, 1 and 2", indexes)
	}
}

// A suspended Job runs no pods and says so in its Suspended condition;
// resumed, it runs them; suspended again, it deletes them.
func TestJobSuspendAndResume(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	ns := newBatchNamespace(t, cs, "job-suspend")
	startBatchKubelet(t, cs, ns, nil, func(*corev1.Pod) *testPodOutcome { return ptr.To(testRunning()) })
	job := testJob("sleepy", 4, 2)
	job.Spec.Suspend = ptr.To(true)
	if _, err := cs.BatchV1().Jobs(ns).Create(ctx, job, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	job = waitJobCondition(t, cs, ns, "sleepy", batchv1.JobSuspended)
	if c := jobCond(job, batchv1.JobSuspended); c.Reason != "JobSuspended" || c.Message != "Job suspended" {
		t.Errorf("Suspended condition %+v", c)
	}
	if job.Status.StartTime != nil || job.Status.Active != 0 || len(podsOfJob(t, cs, ns, "sleepy")) != 0 {
		t.Errorf("suspended Job started: startTime %v active %d", job.Status.StartTime, job.Status.Active)
	}
	waitObjectEvent(t, cs, ns, "Job", "sleepy", "Suspended")

	setSuspend := func(v bool) {
		t.Helper()
		j, err := cs.BatchV1().Jobs(ns).Get(ctx, "sleepy", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		j.Spec.Suspend = ptr.To(v)
		if _, err := cs.BatchV1().Jobs(ns).Update(ctx, j, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	setSuspend(false)
	eventuallyT(t, "resumed", func(ctx context.Context) (bool, error) {
		j, err := cs.BatchV1().Jobs(ns).Get(ctx, "sleepy", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		c := jobCond(j, batchv1.JobSuspended)
		return c != nil && c.Status == corev1.ConditionFalse && c.Reason == "JobResumed" && j.Status.StartTime != nil &&
			j.Status.Active == 2 && ptr.Deref(j.Status.Ready, 0) == 2, nil
	})
	waitObjectEvent(t, cs, ns, "Job", "sleepy", "Resumed")

	setSuspend(true)
	eventuallyT(t, "suspended again", func(ctx context.Context) (bool, error) {
		j, err := cs.BatchV1().Jobs(ns).Get(ctx, "sleepy", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return jobHas(j, batchv1.JobSuspended) && j.Status.Active == 0 && len(podsOfJob(t, cs, ns, "sleepy")) == 0, nil
	})
	if len(eventsAbout(t, cs, ns, "Job", "sleepy")["SuccessfulDelete"]) != 2 {
		t.Errorf("want 2 SuccessfulDelete events, got %v", eventsAbout(t, cs, ns, "Job", "sleepy"))
	}
}

// A pod that exits with a code a FailJob rule names fails the Job at once,
// with the PodFailurePolicy reason and upstream's message.
func TestJobPodFailurePolicyFailJob(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	ns := newBatchNamespace(t, cs, "job-pfp")
	startBatchKubelet(t, cs, ns, nil, func(*corev1.Pod) *testPodOutcome { return ptr.To(testExit(42)) })
	job := testJob("strict", 1, 1)
	job.Spec.BackoffLimit = ptr.To[int32](6)
	job.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{
		Action:      batchv1.PodFailurePolicyActionFailJob,
		OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{42}},
	}}}
	if _, err := cs.BatchV1().Jobs(ns).Create(ctx, job, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	job = waitJobCondition(t, cs, ns, "strict", batchv1.JobFailed)
	pods := podsOfJob(t, cs, ns, "strict")
	if len(pods) != 1 {
		t.Fatalf("%d pods, want 1", len(pods))
	}
	want := "Container main for pod " + ns + "/" + pods[0].Name + " failed with exit code 42 matching FailJob rule at index 0"
	c := jobCond(job, batchv1.JobFailed)
	if c.Reason != batchv1.JobReasonPodFailurePolicy || c.Message != want {
		t.Errorf("Failed condition %s %q, want %s %q", c.Reason, c.Message, batchv1.JobReasonPodFailurePolicy, want)
	}
	if job.Status.Failed != 1 {
		t.Errorf("failed = %d, want 1", job.Status.Failed)
	}
}

// A finished Job with ttlSecondsAfterFinished is deleted once that many
// seconds passed on the control plane's clock.
func TestJobTTLAfterFinishedDeletesIt(t *testing.T) {
	t.Parallel()
	clock := newTestClock()
	cp := fakeplane.Start(t, fakeplane.WithClock(clock.Now))
	cs := clientset(t, cp)
	ctx := ctxT(t)
	ns := newBatchNamespace(t, cs, "job-ttl")
	startBatchKubelet(t, cs, ns, clock.Now, func(*corev1.Pod) *testPodOutcome { return ptr.To(testSucceed()) })
	job := testJob("short-lived", 1, 1)
	job.Spec.TTLSecondsAfterFinished = ptr.To[int32](30)
	if _, err := cs.BatchV1().Jobs(ns).Create(ctx, job, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitJobCondition(t, cs, ns, "short-lived", batchv1.JobComplete)
	if _, err := cs.BatchV1().Jobs(ns).Get(ctx, "short-lived", metav1.GetOptions{}); err != nil {
		t.Fatalf("Job gone before its TTL passed: %v", err)
	}
	clock.Advance(31 * time.Second)
	eventuallyT(t, "job and pods deleted", func(ctx context.Context) (bool, error) {
		_, err := cs.BatchV1().Jobs(ns).Get(ctx, "short-lived", metav1.GetOptions{})
		return apierrors.IsNotFound(err) && len(podsOfJob(t, cs, ns, "short-lived")) == 0, nil
	})
}

// Deleting a Job takes its pods with it (background and foreground
// propagation) or leaves them, without owner or tracking finalizer
// (orphan, and a batch/v1 delete that names no policy, as upstream keeps
// for old clients).
func TestJobDeletePropagation(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ns := newBatchNamespace(t, cs, "job-delete")
	startBatchKubelet(t, cs, ns, nil, func(*corev1.Pod) *testPodOutcome { return ptr.To(testRunning()) })
	for _, tc := range []struct {
		policy   metav1.DeletionPropagation
		podsStay bool
		name     string
	}{
		{metav1.DeletePropagationBackground, false, "background"},
		{metav1.DeletePropagationForeground, false, "foreground"},
		{metav1.DeletePropagationOrphan, true, "orphan"},
		{"", true, "no-policy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := ctxT(t)
			if _, err := cs.BatchV1().Jobs(ns).Create(ctx, testJob(tc.name, 2, 2), metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			eventuallyT(t, "pods running", func(ctx context.Context) (bool, error) {
				j, err := cs.BatchV1().Jobs(ns).Get(ctx, tc.name, metav1.GetOptions{})
				return err == nil && ptr.Deref(j.Status.Ready, 0) == 2, err
			})
			opts := metav1.DeleteOptions{PropagationPolicy: &tc.policy}
			if tc.policy == "" {
				opts.PropagationPolicy = nil
			}
			if err := cs.BatchV1().Jobs(ns).Delete(ctx, tc.name, opts); err != nil {
				t.Fatal(err)
			}
			eventuallyT(t, "job gone, pods as the policy says", func(ctx context.Context) (bool, error) {
				if _, err := cs.BatchV1().Jobs(ns).Get(ctx, tc.name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
					return false, nil
				}
				pods := podsOfJob(t, cs, ns, tc.name)
				if !tc.podsStay {
					return len(pods) == 0, nil
				}
				if len(pods) != 2 {
					return false, nil
				}
				for _, p := range pods {
					if len(p.OwnerReferences) > 0 || slices.Contains(p.Finalizers, batchv1.JobTrackingFinalizer) || p.DeletionTimestamp != nil {
						return false, nil
					}
				}
				return true, nil
			})
		})
	}
}

// A CronJob under a clock the test moves creates a Job per schedule named
// as upstream names it, holds back (Forbid) or replaces (Replace) a Job
// still running, and keeps no more finished Jobs than its history limit.
func TestCronJobSchedulesUnderAnAdvancedClock(t *testing.T) {
	t.Parallel()
	clock := newTestClock()
	cp := fakeplane.Start(t, fakeplane.WithClock(clock.Now))
	cs := clientset(t, cp)
	ctx := ctxT(t)
	ns := newBatchNamespace(t, cs, "cron")
	// The pods of "history" succeed; the others keep running.
	startBatchKubelet(t, cs, ns, clock.Now, func(p *corev1.Pod) *testPodOutcome {
		if p.Labels["cron"] == "history" {
			return ptr.To(testSucceed())
		}
		return ptr.To(testRunning())
	})
	newCron := func(name string, policy batchv1.ConcurrencyPolicy) *batchv1.CronJob {
		return &batchv1.CronJob{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: batchv1.CronJobSpec{
				Schedule:                   "* * * * *",
				ConcurrencyPolicy:          policy,
				SuccessfulJobsHistoryLimit: ptr.To[int32](1),
				JobTemplate: batchv1.JobTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"cron": name}},
					Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{
						ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"cron": name}},
						Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
							Containers: []corev1.Container{{Name: "main", Image: "busybox"}}},
					}},
				},
			},
		}
	}
	created := map[string]*batchv1.CronJob{}
	for _, c := range []struct {
		name   string
		policy batchv1.ConcurrencyPolicy
	}{{"forbid", batchv1.ForbidConcurrent}, {"replace", batchv1.ReplaceConcurrent}, {"history", batchv1.AllowConcurrent}} {
		cj, err := cs.BatchV1().CronJobs(ns).Create(ctx, newCron(c.name, c.policy), metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		created[c.name] = cj
	}
	jobsOf := func(cron string) []batchv1.Job {
		l, err := cs.BatchV1().Jobs(ns).List(ctxT(t), metav1.ListOptions{LabelSelector: "cron=" + cron})
		if err != nil {
			t.Fatal(err)
		}
		return l.Items
	}
	// The schedules that come as the clock moves minute by minute.
	start := created["forbid"].CreationTimestamp.Time
	schedule := func(n int) time.Time { return start.Truncate(time.Minute).Add(time.Duration(n) * time.Minute) }
	nameAt := func(cron string, n int) string { return cron + "-" + strconv.FormatInt(schedule(n).Unix()/60, 10) }

	clock.Advance(schedule(1).Sub(clock.Now()) + time.Second)
	for _, cron := range []string{"forbid", "replace", "history"} {
		want := nameAt(cron, 1)
		eventuallyT(t, "first job of "+cron, func(ctx context.Context) (bool, error) {
			cj, err := cs.BatchV1().CronJobs(ns).Get(ctx, cron, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			return cj.Status.LastScheduleTime != nil && len(cj.Status.Active)+len(jobsOf(cron)) > 0, nil
		})
		j, err := cs.BatchV1().Jobs(ns).Get(ctx, want, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("job %s: %v", want, err)
		}
		if ref := metav1.GetControllerOf(j); ref == nil || ref.Kind != "CronJob" || ref.UID != created[cron].UID {
			t.Errorf("job %s controller %+v", want, ref)
		}
		if got, want := j.Annotations[batchv1.CronJobScheduledTimestampAnnotation], schedule(1).UTC().Format(time.RFC3339); got != want {
			t.Errorf("job %s scheduled timestamp %q, want %q", j.Name, got, want)
		}
		waitObjectEvent(t, cs, ns, "CronJob", cron, "SuccessfulCreate")
	}
	cj, err := cs.BatchV1().CronJobs(ns).Get(ctx, "forbid", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !cj.Status.LastScheduleTime.Time.Equal(schedule(1)) || len(cj.Status.Active) != 1 || cj.Status.Active[0].Name != nameAt("forbid", 1) {
		t.Errorf("forbid status %+v", cj.Status)
	}
	eventuallyT(t, "history's first job done", func(ctx context.Context) (bool, error) {
		cj, err := cs.BatchV1().CronJobs(ns).Get(ctx, "history", metav1.GetOptions{})
		return err == nil && cj.Status.LastSuccessfulTime != nil && len(cj.Status.Active) == 0, err
	})

	clock.Advance(time.Minute)
	eventuallyT(t, "second round", func(ctx context.Context) (bool, error) {
		_, errR := cs.BatchV1().Jobs(ns).Get(ctx, nameAt("replace", 2), metav1.GetOptions{})
		_, errH := cs.BatchV1().Jobs(ns).Get(ctx, nameAt("history", 2), metav1.GetOptions{})
		return errR == nil && errH == nil && len(eventsAbout(t, cs, ns, "CronJob", "forbid")["JobAlreadyActive"]) > 0, nil
	})
	// Forbid: the running Job holds the next one back.
	if _, err := cs.BatchV1().Jobs(ns).Get(ctx, nameAt("forbid", 2), metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("forbid started a second job while the first runs: %v", err)
	}
	// Replace: the running Job is deleted for the new one.
	if msgs := waitObjectEvent(t, cs, ns, "CronJob", "replace", "SuccessfulDelete"); msgs[0] != "Deleted job "+nameAt("replace", 1) {
		t.Errorf("replace SuccessfulDelete %q", msgs[0])
	}
	eventuallyT(t, "replaced job gone", func(ctx context.Context) (bool, error) {
		_, err := cs.BatchV1().Jobs(ns).Get(ctx, nameAt("replace", 1), metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	// History: once the second Job completes, the first, beyond the limit
	// of 1, is deleted.
	eventuallyT(t, "history keeps one finished job", func(context.Context) (bool, error) {
		jobs := jobsOf("history")
		return len(jobs) == 1 && jobs[0].Name == nameAt("history", 2) && jobHas(&jobs[0], batchv1.JobComplete), nil
	})
	waitObjectEvent(t, cs, ns, "CronJob", "history", "SawCompletedJob")
}

// A Job still running when activeDeadlineSeconds pass on the control
// plane's clock fails with DeadlineExceeded; its running pods are deleted
// and counted as failed.
func TestJobActiveDeadlineExceeded(t *testing.T) {
	t.Parallel()
	clock := newTestClock()
	cp := fakeplane.Start(t, fakeplane.WithClock(clock.Now))
	cs := clientset(t, cp)
	ctx := ctxT(t)
	ns := newBatchNamespace(t, cs, "job-deadline")
	startBatchKubelet(t, cs, ns, clock.Now, func(*corev1.Pod) *testPodOutcome { return ptr.To(testRunning()) })
	job := testJob("slow", 2, 2)
	job.Spec.ActiveDeadlineSeconds = ptr.To[int64](60)
	if _, err := cs.BatchV1().Jobs(ns).Create(ctx, job, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventuallyT(t, "pods running", func(ctx context.Context) (bool, error) {
		j, err := cs.BatchV1().Jobs(ns).Get(ctx, "slow", metav1.GetOptions{})
		return err == nil && ptr.Deref(j.Status.Ready, 0) == 2, err
	})
	clock.Advance(61 * time.Second)
	job = waitJobCondition(t, cs, ns, "slow", batchv1.JobFailed)
	c := jobCond(job, batchv1.JobFailed)
	if c.Reason != batchv1.JobReasonDeadlineExceeded || c.Message != "Job was active longer than specified deadline" {
		t.Errorf("Failed condition %+v", c)
	}
	if job.Status.Failed != 2 || job.Status.Active != 0 || ptr.Deref(job.Status.Terminating, -1) != 0 {
		t.Errorf("failed/active/terminating = %d/%d/%v, want 2/0/0", job.Status.Failed, job.Status.Active, job.Status.Terminating)
	}
	eventuallyT(t, "pods deleted", func(context.Context) (bool, error) { return len(podsOfJob(t, cs, ns, "slow")) == 0, nil })
	waitObjectEvent(t, cs, ns, "Job", "slow", "DeadlineExceeded")
}

// A Job adopts the pods without a controller its selector matches (here a
// manual one) instead of creating new ones, as upstream's ClaimPods does.
func TestJobAdoptsMatchingOrphanPods(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	ns := newBatchNamespace(t, cs, "job-adopt")
	startBatchKubelet(t, cs, ns, nil, func(*corev1.Pod) *testPodOutcome { return ptr.To(testRunning()) })
	if _, err := cs.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "stray", Labels: map[string]string{"app": "batch"}},
		Spec:       corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "main", Image: "busybox"}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	job := testJob("adopter", 1, 1)
	job.Spec.ManualSelector = ptr.To(true)
	job.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "batch"}}
	job.Spec.Template.Labels = map[string]string{"app": "batch"}
	job, err := cs.BatchV1().Jobs(ns).Create(ctx, job, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	eventuallyT(t, "stray pod adopted", func(ctx context.Context) (bool, error) {
		p, err := cs.CoreV1().Pods(ns).Get(ctx, "stray", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		ref := metav1.GetControllerOf(p)
		j, err := cs.BatchV1().Jobs(ns).Get(ctx, "adopter", metav1.GetOptions{})
		return err == nil && ref != nil && ref.UID == job.UID && slices.Contains(p.Finalizers, batchv1.JobTrackingFinalizer) && j.Status.Active == 1, err
	})
	l, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Items) != 1 {
		t.Errorf("%d pods, want the adopted one alone", len(l.Items))
	}
}
