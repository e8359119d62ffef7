package controllers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
)

// jobsBucket is the store bucket of Jobs (podsBucket and podsGVR are
// shared with the other workload controllers).
const jobsBucket = "batch/jobs"

var jobsGVR = schema.GroupVersionResource{Group: "batch", Version: "v1", Resource: "jobs"}

// jobControllerManagedBy is spec.managedBy of the Jobs this controller
// runs (an empty one means the same).
const jobControllerManagedBy = "kubernetes.io/job-controller"

// Job runs Jobs as kube-controller-manager's job-controller does: it
// creates their pods (with the batch.kubernetes.io/job-tracking finalizer,
// named <job>-<5 chars>, or <job>-<index>-<5 chars> in Indexed mode),
// counts the pods that finish through status.uncountedTerminatedPods before
// it removes their finalizer, replaces failed ones after a backoff, and
// sets the status counters and the SuccessCriteriaMet/Complete,
// FailureTarget/Failed and Suspended conditions, with the events upstream
// records. It honours parallelism, completions, backoffLimit,
// activeDeadlineSeconds, suspend, podFailurePolicy, successPolicy,
// podReplacementPolicy, and, for Indexed Jobs, backoffLimitPerIndex and
// maxFailedIndexes: it counts the failures of each index in the
// batch.kubernetes.io/job-index-failure-count (and
// job-index-ignored-failure-count) annotations of its pods, replaces a
// failed pod after the index's own backoff, lists the indexes that failed
// once more than allowed (or by a FailIndex rule) in status.failedIndexes,
// and fails the Job with MaxFailedIndexesExceeded or, at the end,
// FailedIndexes. It writes as kube-system/job-controller.
type Job struct {
	reg  registry.Interface
	log  *slog.Logger
	user user.Info
	rec  *Recorder
	now  func() time.Time

	jobs *jobCache[batchv1.Job]
	pods *jobCache[corev1.Pod]
	// podsOf has the pod keys by the uid of their controller.
	podsOf map[types.UID]map[string]bool
	// jobOf has the Job keys by uid.
	jobOf map[types.UID]string
	// orphansIn has the keys of the pods without a controller, by
	// namespace: those a Job's selector matches are adopted.
	orphansIn map[string]map[string]bool
	// dirty are the Jobs to sync, orphans the pods whose finalizer may
	// have to go.
	dirty, orphans map[string]bool
	// retries are the failed syncs' retry times.
	retries *keyRetries
	backoff map[string]jobBackoff
	wake    *jobWakeups
}

// NewJob returns the job controller. now is its clock (nil: time.Now),
// read for start and completion times, deadlines and backoffs.
func NewJob(reg registry.Interface, now func() time.Time, log *slog.Logger) *Job {
	if log == nil {
		log = slog.Default()
	}
	fake := now != nil
	if now == nil {
		now = time.Now
	}
	u := controllerUser("job-controller")
	return &Job{
		reg: reg, log: log, user: u, now: now,
		rec:       NewRecorder(reg, JobName, u, nil, log), // client-go's recorder reads the real clock
		jobs:      newJobCache[batchv1.Job](),
		pods:      newJobCache[corev1.Pod](),
		podsOf:    map[types.UID]map[string]bool{},
		jobOf:     map[types.UID]string{},
		orphansIn: map[string]map[string]bool{},
		dirty:     map[string]bool{},
		retries:   newKeyRetriesWithin(jobKeyRetryBase, jobKeyRetryMax),
		orphans:   map[string]bool{},
		backoff:   map[string]jobBackoff{},
		wake:      newJobWakeups(fake),
	}
}

// Name implements Controller.
func (c *Job) Name() string { return JobName }

// Resources implements Controller.
func (c *Job) Resources() []string { return []string{jobsBucket, podsBucket} }

// Sync implements Controller.
func (c *Job) Sync(ctx context.Context, events []store.Event) error {
	for _, ev := range events {
		var err error
		switch ev.Resource {
		case jobsBucket:
			err = c.observeJob(ev)
		case podsBucket:
			err = c.observePod(ev)
		}
		if err != nil {
			c.log.Warn("skipping undecodable object", "err", err)
		}
	}
	now := c.now()
	for _, k := range c.wake.due(now) {
		c.dirty[k] = true
	}
	ctx = registry.WithFieldManager(apirequest.WithUser(ctx, c.user), "kube-controller-manager")
	// The orphans' failures are retried at the runner's backoff, the Jobs'
	// at their own times.
	var orphanErrs, errs []error
	for _, key := range sortedKeys(c.orphans) {
		if ctx.Err() != nil {
			break
		}
		if err := c.syncOrphan(ctx, key); err != nil {
			orphanErrs = append(orphanErrs, err)
			continue
		}
		delete(c.orphans, key)
	}
	c.retries.due(c.dirty)
	for _, key := range sortedKeys(c.dirty) {
		if ctx.Err() != nil {
			break
		}
		delete(c.dirty, key)
		if err := c.syncJob(ctx, key); err != nil {
			errs = append(errs, fmt.Errorf("job %s: %w", key, err))
			c.retries.failed(c.dirty, key)
			continue
		}
		c.retries.forget(key)
	}
	if len(orphanErrs) > 0 {
		return errors.Join(append(orphanErrs, errs...)...)
	}
	return c.retries.result(errs, c.wake.requeue(c.now()))
}

func (c *Job) observeJob(ev store.Event) error {
	old, cur, ok, err := c.jobs.apply(ev)
	if err != nil || !ok {
		return err
	}
	if old != nil && (cur == nil || old.UID != cur.UID) {
		delete(c.jobOf, old.UID)
		delete(c.backoff, ev.Key)
		for k := range c.podsOf[old.UID] {
			c.orphans[k] = true
		}
	}
	if cur != nil {
		c.jobOf[cur.UID] = ev.Key
		c.dirty[ev.Key] = true
		if _, done := jobFinished(cur); done {
			for k := range c.podsOf[cur.UID] {
				c.orphans[k] = true
			}
		}
	}
	return nil
}

// jobControllerOf is the uid of the Job controlling p, or "".
func jobControllerOf(p *corev1.Pod) types.UID {
	if ref := metav1.GetControllerOf(p); ref != nil && ref.Kind == "Job" && ref.APIVersion == batchv1.SchemeGroupVersion.String() {
		return ref.UID
	}
	return ""
}

func (c *Job) observePod(ev store.Event) error {
	old, cur, ok, err := c.pods.apply(ev)
	if err != nil || !ok {
		return err
	}
	c.indexPod(ev.Key, old, cur)
	return nil
}

// indexPod moves a pod in podsOf from its old controller to its new one
// and marks what it concerns to sync.
func (c *Job) indexPod(key string, old, cur *corev1.Pod) {
	var was, is types.UID
	if old != nil {
		was = jobControllerOf(old)
	}
	if cur != nil {
		is = jobControllerOf(cur)
	}
	if was != "" && was != is {
		delete(c.podsOf[was], key)
		if len(c.podsOf[was]) == 0 {
			delete(c.podsOf, was)
		}
	}
	for _, uid := range []types.UID{was, is} {
		if k, ok := c.jobOf[uid]; ok && uid != "" {
			c.dirty[k] = true
		}
	}
	ns, _ := splitKey(key)
	if cur != nil && metav1.GetControllerOf(cur) == nil && cur.DeletionTimestamp == nil {
		endpointIndex(c.orphansIn, key, true)
		for jk := range c.jobsIn(ns) {
			c.dirty[jk] = true
		}
	} else if c.orphansIn[ns][key] {
		endpointIndex(c.orphansIn, key, false)
	}
	if cur == nil {
		return
	}
	if is != "" {
		if c.podsOf[is] == nil {
			c.podsOf[is] = map[string]bool{}
		}
		c.podsOf[is][key] = true
	}
	if jobHasTrackingFinalizer(cur) {
		c.orphans[key] = true
	}
}

// jobsIn returns the keys of the Jobs of a namespace.
func (c *Job) jobsIn(ns string) map[string]bool {
	out := map[string]bool{}
	for _, k := range c.jobOf {
		if n, _ := splitKey(k); n == ns {
			out[k] = true
		}
	}
	return out
}

// claimPods adopts the pods without a controller that the Job's selector
// matches (giving them the Job as controller and the tracking finalizer)
// and releases those it controls that the selector no longer matches, as
// upstream's ClaimPods does.
func (c *Job) claimPods(ctx context.Context, job *batchv1.Job) error {
	sel, err := metav1.LabelSelectorAsSelector(job.Spec.Selector)
	if err != nil || sel.Empty() {
		return nil
	}
	var errs []error
	for _, pk := range sortedKeys(c.orphansIn[job.Namespace]) {
		p := c.pods.get(pk)
		if p == nil || p.DeletionTimestamp != nil || metav1.GetControllerOf(p) != nil || !sel.Matches(labels.Set(p.Labels)) {
			continue
		}
		errs = append(errs, c.updatePod(ctx, p, func(pod *corev1.Pod) error {
			if metav1.GetControllerOf(pod) != nil {
				return errJobPodTaken
			}
			pod.OwnerReferences = append(pod.OwnerReferences, *metav1.NewControllerRef(job, batchv1.SchemeGroupVersion.WithKind("Job")))
			if !jobHasTrackingFinalizer(pod) {
				pod.Finalizers = append(pod.Finalizers, batchv1.JobTrackingFinalizer)
			}
			return nil
		}))
	}
	for _, pk := range sortedKeys(c.podsOf[job.UID]) {
		p := c.pods.get(pk)
		if p == nil || sel.Matches(labels.Set(p.Labels)) {
			continue
		}
		errs = append(errs, c.updatePod(ctx, p, func(pod *corev1.Pod) error {
			pod.OwnerReferences = slices.DeleteFunc(pod.OwnerReferences, func(r metav1.OwnerReference) bool { return r.UID == job.UID })
			return nil
		}))
	}
	return errors.Join(errs...)
}

// errJobPodTaken stops the adoption of a pod another controller took
// meanwhile.
var errJobPodTaken = errors.New("the pod has a controller already")

// updatePod changes a pod with change and records the result.
func (c *Job) updatePod(ctx context.Context, p *corev1.Pod, change func(*corev1.Pod) error) error {
	out, err := c.reg.Update(ctx, podsGVR, p.Namespace, p.Name, func(cur runtime.Object) (runtime.Object, error) {
		pod := cur.(*corev1.Pod)
		if pod.UID != p.UID {
			return nil, apierrors.NewConflict(podsGVR.GroupResource(), p.Name, fmt.Errorf("the pod was replaced"))
		}
		return pod, change(pod)
	})
	switch {
	case apierrors.IsNotFound(err), errors.Is(err, errJobPodTaken):
		return nil
	case err != nil:
		return fmt.Errorf("pod %s/%s: %w", p.Namespace, p.Name, err)
	}
	pod := out.(*corev1.Pod)
	key := p.Namespace + "/" + p.Name
	old := c.pods.get(key)
	c.pods.put(key, pod, pod.ResourceVersion)
	c.indexPod(key, old, c.pods.get(key))
	return nil
}

// syncOrphan removes the tracking finalizer of a pod whose Job is gone or
// finished (or that a Job no longer controls), as upstream's orphan pod
// handling does.
func (c *Job) syncOrphan(ctx context.Context, key string) error {
	p := c.pods.get(key)
	if p == nil || !jobHasTrackingFinalizer(p) {
		return nil
	}
	if ref := metav1.GetControllerOf(p); ref != nil {
		if ref.Kind != "Job" || ref.APIVersion != batchv1.SchemeGroupVersion.String() {
			return nil
		}
		if jk, ok := c.jobOf[ref.UID]; ok {
			j := c.jobs.get(jk)
			if j == nil {
				return nil
			}
			if _, done := jobFinished(j); !done || !jobManagedHere(j) {
				return nil
			}
		}
	}
	return c.removeFinalizer(ctx, p)
}

// jobManagedHere reports whether spec.managedBy leaves the Job to this
// controller.
func jobManagedHere(j *batchv1.Job) bool {
	return j.Spec.ManagedBy == nil || *j.Spec.ManagedBy == jobControllerManagedBy
}

// removeFinalizer takes the tracking finalizer off a pod.
func (c *Job) removeFinalizer(ctx context.Context, p *corev1.Pod) error {
	out, err := c.reg.Update(ctx, podsGVR, p.Namespace, p.Name, func(cur runtime.Object) (runtime.Object, error) {
		pod := cur.(*corev1.Pod)
		pod.Finalizers = slices.DeleteFunc(pod.Finalizers, func(f string) bool { return f == batchv1.JobTrackingFinalizer })
		return pod, nil
	})
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		return fmt.Errorf("pod %s/%s: remove finalizer %s: %w", p.Namespace, p.Name, batchv1.JobTrackingFinalizer, err)
	}
	pod := out.(*corev1.Pod)
	key := p.Namespace + "/" + p.Name
	old := c.pods.get(key)
	c.pods.put(key, pod, pod.ResourceVersion)
	c.indexPod(key, old, c.pods.get(key))
	delete(c.orphans, key)
	return nil
}

// jobSync is the state one sync of a Job works on (upstream's syncJobCtx).
type jobSync struct {
	job                  *batchv1.Job
	pods, active         []*corev1.Pod
	ready, terminating   int32
	succeeded, failed    int32
	uncountedSucceeded   map[types.UID]bool
	uncountedFailed      map[types.UID]bool
	finished             *batchv1.JobCondition
	prevSucceededIndexes jobIntervals
	succeededIndexes     jobIntervals
	// failedIndexes is status.failedIndexes to be, nil without
	// backoffLimitPerIndex; toReplace has by index the failed pod whose
	// finalizer stays until its replacement exists.
	failedIndexes         *jobIntervals
	toReplace             map[int]*corev1.Pod
	backoff               jobBackoff
	newSucceeded, newFail []*corev1.Pod
}

// syncJob brings one Job's pods and status in line, as upstream's syncJob.
func (c *Job) syncJob(ctx context.Context, key string) error {
	cached := c.jobs.get(key)
	if cached == nil || !jobManagedHere(cached) {
		return nil
	}
	if _, done := jobFinished(cached); done {
		delete(c.backoff, key)
		return nil
	}
	job := cached.DeepCopy()
	if job.DeletionTimestamp == nil {
		if err := c.claimPods(ctx, job); err != nil {
			return err
		}
	}
	now := c.now()
	if job.Status.UncountedTerminatedPods == nil {
		job.Status.UncountedTerminatedPods = &batchv1.UncountedTerminatedPods{}
	}
	s := &jobSync{job: job,
		uncountedSucceeded: map[types.UID]bool{}, uncountedFailed: map[types.UID]bool{}}
	for _, u := range job.Status.UncountedTerminatedPods.Succeeded {
		s.uncountedSucceeded[u] = true
	}
	for _, u := range job.Status.UncountedTerminatedPods.Failed {
		s.uncountedFailed[u] = true
	}
	for _, pk := range sortedKeys(c.podsOf[job.UID]) {
		if p := c.pods.get(pk); p != nil {
			s.pods = append(s.pods, p)
			if jobPodActive(p) {
				s.active = append(s.active, p)
				if isPodReady(p) {
					s.ready++
				}
			}
			if jobPodTerminating(p) {
				s.terminating++
			}
		}
	}
	indexed := job.Spec.CompletionMode != nil && *job.Spec.CompletionMode == batchv1.IndexedCompletion
	completions := 0
	if job.Spec.Completions != nil {
		completions = int(*job.Spec.Completions)
	}
	validIndex := func(p *corev1.Pod) bool {
		ix := jobPodIndex(p)
		return !indexed || (ix != jobUnknownIndex && ix < completions)
	}
	for _, p := range s.pods {
		if !jobHasTrackingFinalizer(p) || !validIndex(p) {
			continue
		}
		if p.Status.Phase == corev1.PodSucceeded && !s.uncountedSucceeded[p.UID] {
			s.newSucceeded = append(s.newSucceeded, p)
		} else if jobPodFailed(p, job) && !s.uncountedFailed[p.UID] {
			s.newFail = append(s.newFail, p)
		}
	}
	nonIgnored := 0
	for _, p := range s.newFail {
		if _, count, _ := jobMatchPodFailurePolicy(job.Spec.PodFailurePolicy, p); count {
			nonIgnored++
		}
	}
	s.succeeded = job.Status.Succeeded + int32(len(s.newSucceeded)) + int32(len(s.uncountedSucceeded))
	s.failed = job.Status.Failed + int32(nonIgnored) + int32(len(s.uncountedFailed))
	suspended := job.Spec.Suspend != nil && *job.Spec.Suspend
	if job.Status.StartTime == nil && !suspended {
		t := metav1.NewTime(now)
		job.Status.StartTime = &t
	}
	s.backoff = c.backoff[key].next(slices.Clone(s.newSucceeded), slices.Clone(s.newFail))

	// The end state, in upstream's order: the conditions of an earlier
	// sync, the failure policy, the backoff limit and deadline, then the
	// success policy.
	if jobConditionTrue(job, batchv1.JobSuccessCriteriaMet) {
		s.finished = jobCondition(job, batchv1.JobSuccessCriteriaMet)
	}
	if s.finished == nil {
		if ft := jobCondition(job, batchv1.JobFailureTarget); ft != nil && ft.Status == corev1.ConditionTrue {
			s.finished = ft
		} else if msg := c.failJobMessage(job, s.pods); msg != nil {
			cond := jobNewCondition(batchv1.JobFailureTarget, corev1.ConditionTrue, batchv1.JobReasonPodFailurePolicy, *msg, now)
			s.finished = &cond
		}
	}
	if s.finished == nil {
		switch {
		case s.failed > *job.Spec.BackoffLimit || jobPastBackoffLimitOnFailure(job, s.pods):
			cond := jobNewCondition(batchv1.JobFailureTarget, corev1.ConditionTrue, batchv1.JobReasonBackoffLimitExceeded, "Job has reached the specified backoff limit", now)
			s.finished = &cond
		case jobPastActiveDeadline(job, now):
			cond := jobNewCondition(batchv1.JobFailureTarget, corev1.ConditionTrue, batchv1.JobReasonDeadlineExceeded, "Job was active longer than specified deadline", now)
			s.finished = &cond
		case job.Spec.ActiveDeadlineSeconds != nil && !suspended:
			c.wake.after(key, now, time.Duration(*job.Spec.ActiveDeadlineSeconds)*time.Second-now.Sub(job.Status.StartTime.Time))
		}
	}
	if indexed {
		s.prevSucceededIndexes = parseJobIntervals(job.Status.CompletedIndexes, completions)
		var ixs []int
		for _, p := range s.pods {
			if ix := jobPodIndex(p); p.Status.Phase == corev1.PodSucceeded && ix != jobUnknownIndex && ix < completions {
				ixs = append(ixs, ix)
			}
		}
		s.succeededIndexes = s.prevSucceededIndexes.with(ixs)
		s.succeeded = int32(s.succeededIndexes.total())
		if jobHasBackoffLimitPerIndex(job) {
			failed := jobFailedIndexes(job, s.pods, completions)
			s.failedIndexes = &failed
			if s.finished == nil {
				switch {
				case job.Spec.MaxFailedIndexes != nil && failed.total() > int(*job.Spec.MaxFailedIndexes):
					cond := jobNewCondition(batchv1.JobFailureTarget, corev1.ConditionTrue, batchv1.JobReasonMaxFailedIndexesExceeded, "Job has exceeded the specified maximal number of failed indexes", now)
					s.finished = &cond
				case failed.total() > 0 && failed.total()+s.succeededIndexes.total() >= completions:
					cond := jobNewCondition(batchv1.JobFailureTarget, corev1.ConditionTrue, batchv1.JobReasonFailedIndexes, "Job has failed indexes", now)
					s.finished = &cond
				}
			}
			s.toReplace = jobPodsToReplace(job, s.pods, s.active, s.succeededIndexes, failed, completions)
		}
		if s.finished == nil {
			if msg, met := jobMatchSuccessPolicy(job.Spec.SuccessPolicy, *job.Spec.Completions, s.succeededIndexes); met {
				cond := jobNewCondition(batchv1.JobSuccessCriteriaMet, corev1.ConditionTrue, batchv1.JobReasonSuccessPolicy, msg, now)
				s.finished = &cond
			}
		}
	}

	active := int32(len(s.active))
	suspendChanged := false
	var manageErr error
	if s.finished != nil {
		deleted, deletedReady, err := c.deletePods(ctx, job, s.active, false)
		if deleted != active {
			s.finished = nil
		}
		active -= deleted
		s.terminating += deleted
		s.ready -= deletedReady
		manageErr = err
	} else {
		managed := false
		if job.DeletionTimestamp == nil {
			active, manageErr = c.manageJob(ctx, key, s, indexed, completions, now)
			managed = true
		}
		var complete bool
		if job.Spec.Completions == nil {
			complete = s.succeeded > 0 && active == 0
		} else {
			complete = s.succeeded >= *job.Spec.Completions && active == 0
		}
		switch {
		case complete:
			cond := jobNewCondition(batchv1.JobSuccessCriteriaMet, corev1.ConditionTrue, batchv1.JobReasonCompletionsReached, "Reached expected number of succeeded pods", now)
			s.finished = &cond
		case managed && suspended:
			if jobEnsureCondition(job, batchv1.JobSuspended, corev1.ConditionTrue, "JobSuspended", "Job suspended", now) {
				suspendChanged = true
				c.rec.Eventf(ctx, jobRef(job), corev1.EventTypeNormal, "Suspended", "Job suspended")
				job.Status.StartTime = nil
			}
		case managed:
			if jobEnsureCondition(job, batchv1.JobSuspended, corev1.ConditionFalse, "JobResumed", "Job resumed", now) {
				suspendChanged = true
				c.rec.Eventf(ctx, jobRef(job), corev1.EventTypeNormal, "Resumed", "Job resumed")
				t := metav1.NewTime(now)
				job.Status.StartTime = &t
			}
		}
	}
	flush := suspendChanged || active != job.Status.Active || job.Status.Ready == nil || *job.Status.Ready != s.ready ||
		job.Status.Terminating == nil || *job.Status.Terminating != s.terminating
	job.Status.Active = active
	ready, terminating := s.ready, s.terminating
	job.Status.Ready = &ready
	job.Status.Terminating = &terminating
	if err := c.trackStatus(ctx, key, s, flush, indexed, completions, now); err != nil {
		return fmt.Errorf("tracking status: %w", err)
	}
	return manageErr
}

// failJobMessage is the message of the first FailJob rule a failed pod
// matches, or nil.
func (c *Job) failJobMessage(job *batchv1.Job, pods []*corev1.Pod) *string {
	if job.Spec.PodFailurePolicy == nil {
		return nil
	}
	for _, p := range pods {
		if jobPodFailed(p, job) {
			if msg, _, _ := jobMatchPodFailurePolicy(job.Spec.PodFailurePolicy, p); msg != nil {
				return msg
			}
		}
	}
	return nil
}

// jobPastBackoffLimitOnFailure reports whether the restarts of a Job with
// restartPolicy OnFailure reached its backoff limit.
func jobPastBackoffLimitOnFailure(job *batchv1.Job, pods []*corev1.Pod) bool {
	if job.Spec.Template.Spec.RestartPolicy != corev1.RestartPolicyOnFailure {
		return false
	}
	var restarts int32
	for _, p := range pods {
		if p.Status.Phase == corev1.PodRunning || p.Status.Phase == corev1.PodPending {
			for _, cs := range p.Status.InitContainerStatuses {
				restarts += cs.RestartCount
			}
			for _, cs := range p.Status.ContainerStatuses {
				restarts += cs.RestartCount
			}
		}
	}
	if *job.Spec.BackoffLimit == 0 {
		return restarts > 0
	}
	return restarts >= *job.Spec.BackoffLimit
}

// jobPastActiveDeadline reports whether a running Job passed its
// activeDeadlineSeconds.
func jobPastActiveDeadline(job *batchv1.Job, now time.Time) bool {
	if job.Spec.ActiveDeadlineSeconds == nil || job.Status.StartTime == nil || (job.Spec.Suspend != nil && *job.Spec.Suspend) {
		return false
	}
	return now.Sub(job.Status.StartTime.Time) >= time.Duration(*job.Spec.ActiveDeadlineSeconds)*time.Second
}

// manageJob creates or deletes pods so that as many run as parallelism and
// the remaining completions allow, and returns the number active.
func (c *Job) manageJob(ctx context.Context, key string, s *jobSync, indexed bool, completions int, now time.Time) (int32, error) {
	job := s.job
	active := int32(len(s.active))
	if job.Spec.Suspend != nil && *job.Spec.Suspend {
		deleted, deletedReady, err := c.deletePods(ctx, job, s.active, true)
		s.terminating += deleted
		s.ready -= deletedReady
		return active - deleted, err
	}
	parallelism := *job.Spec.Parallelism
	var want int32
	if job.Spec.Completions == nil {
		want = parallelism
		if s.succeeded > 0 {
			want = active
		}
	} else {
		want = max(min(*job.Spec.Completions-s.succeeded, parallelism), 0)
	}
	var rm []*corev1.Pod
	if indexed {
		rm = jobDuplicateIndexPods(s.active, completions)
	}
	if need := int(active - want); len(rm) < need {
		left := slices.DeleteFunc(slices.Clone(s.active), func(p *corev1.Pod) bool { return slices.Contains(rm, p) })
		jobPodsForRemoval(left)
		rm = append(rm, left[:need-len(rm)]...)
	}
	if len(rm) > jobMaxPodsPerSync {
		rm = rm[:jobMaxPodsPerSync]
	}
	if len(rm) > 0 {
		deleted, deletedReady, err := c.deletePods(ctx, job, rm, true)
		s.terminating += deleted
		s.ready -= deletedReady
		return active - deleted, err
	}
	var terminating int32
	if jobOnlyReplaceFailed(job) {
		terminating = s.terminating
	}
	diff := want - terminating - active
	if diff <= 0 {
		return active, nil
	}
	perIndex := indexed && jobHasBackoffLimitPerIndex(job)
	if rem := s.backoff.remaining(now); rem > 0 && !perIndex {
		c.wake.after(key, now, rem)
		return active, nil
	}
	diff = min(diff, jobMaxPodsPerSync)
	indexes := make([]int, diff)
	for i := range indexes {
		indexes[i] = jobUnknownIndex
	}
	if indexed {
		var taken []int
		for _, p := range s.active {
			if ix := jobPodIndex(p); ix != jobUnknownIndex {
				taken = append(taken, ix)
			}
		}
		if jobOnlyReplaceFailed(job) {
			for _, p := range s.pods {
				if ix := jobPodIndex(p); jobPodTerminating(p) && ix != jobUnknownIndex {
					taken = append(taken, ix)
				}
			}
		}
		if s.failedIndexes != nil {
			taken = append(taken, s.failedIndexes.indexes()...)
		}
		indexes = jobFirstPendingIndexes(s.succeededIndexes.with(taken), int(diff), completions)
		if perIndex {
			var wait time.Duration
			if indexes, wait = jobIndexesPastBackoff(indexes, s.toReplace, now); wait > 0 {
				c.wake.after(key, now, wait)
				return active, nil
			}
		}
	}
	for _, ix := range indexes {
		pod := jobPodFromTemplate(job, ix)
		if perIndex {
			jobSetIndexFailureCounts(pod, job, s.toReplace[ix])
		}
		if err := c.createPod(ctx, job, pod); err != nil {
			return active, err
		}
		active++
	}
	return active, nil
}

// jobIndexesPastBackoff keeps the indexes whose own backoff (that of the
// failed pod they replace, in toReplace) passed. When none did, it returns
// the shortest wait instead, as upstream's
// getPodCreationInfoForIndependentIndexes.
func jobIndexesPastBackoff(indexes []int, toReplace map[int]*corev1.Pod, now time.Time) ([]int, time.Duration) {
	var ready []int
	var wait time.Duration
	for _, ix := range indexes {
		switch d := jobIndexBackoff(toReplace[ix], now); {
		case d == 0:
			ready = append(ready, ix)
		case wait == 0 || d < wait:
			wait = d
		}
	}
	if len(ready) > 0 {
		return ready, 0
	}
	return nil, wait
}

// jobDuplicateIndexPods are the active pods of an Indexed Job to delete:
// those without a valid index, and all but one of those sharing one.
func jobDuplicateIndexPods(active []*corev1.Pod, completions int) []*corev1.Pod {
	var rm []*corev1.Pod
	byIndex := map[int][]*corev1.Pod{}
	for _, p := range active {
		ix := jobPodIndex(p)
		if ix == jobUnknownIndex || ix >= completions {
			rm = append(rm, p)
			continue
		}
		byIndex[ix] = append(byIndex[ix], p)
	}
	for _, ix := range sortedInts(byIndex) {
		ps := byIndex[ix]
		if len(ps) > 1 {
			jobPodsForRemoval(ps)
			rm = append(rm, ps[:len(ps)-1]...)
		}
	}
	return rm
}

func sortedInts[V any](m map[int]V) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// createPod creates pod, a pod of the Job, recording upstream's events.
func (c *Job) createPod(ctx context.Context, job *batchv1.Job, pod *corev1.Pod) error {
	out, err := c.reg.Create(ctx, podsGVR, pod)
	if err != nil {
		if apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause) {
			return nil
		}
		c.rec.Eventf(ctx, jobRef(job), corev1.EventTypeWarning, "FailedCreate", "Error creating: %v", err)
		return fmt.Errorf("create pod: %w", err)
	}
	pod = out.(*corev1.Pod)
	key := pod.Namespace + "/" + pod.Name
	c.pods.put(key, pod, pod.ResourceVersion)
	c.indexPod(key, nil, pod)
	c.rec.Eventf(ctx, jobRef(job), corev1.EventTypeNormal, "SuccessfulCreate", "Created pod: %v", pod.Name)
	return nil
}

// deletePods deletes pods of the Job (first taking their finalizer off when
// rmFinalizer, as upstream's deleteJobPods does) and returns how many, and
// how many of them were ready, it deleted.
func (c *Job) deletePods(ctx context.Context, job *batchv1.Job, pods []*corev1.Pod, rmFinalizer bool) (deleted, deletedReady int32, err error) {
	var errs []error
	for _, p := range pods {
		if rmFinalizer && jobHasTrackingFinalizer(p) {
			if err := c.removeFinalizer(ctx, p); err != nil {
				errs = append(errs, err)
				continue
			}
		}
		out, err := c.reg.Delete(ctx, podsGVR, p.Namespace, p.Name, metav1.DeleteOptions{})
		key := p.Namespace + "/" + p.Name
		switch {
		case apierrors.IsNotFound(err):
		case err != nil:
			c.rec.Eventf(ctx, jobRef(job), corev1.EventTypeWarning, "FailedDelete", "Error deleting: %v", err)
			errs = append(errs, fmt.Errorf("delete pod %s: %w", key, err))
			continue
		default:
			pod := out.(*corev1.Pod)
			old := c.pods.get(key)
			if pod.DeletionTimestamp != nil {
				c.pods.put(key, pod, pod.ResourceVersion)
				c.indexPod(key, old, pod)
			} else {
				c.pods.drop(key, pod.ResourceVersion)
				c.indexPod(key, old, nil)
			}
			c.rec.Eventf(ctx, jobRef(job), corev1.EventTypeNormal, "SuccessfulDelete", "Deleted pod: %v", p.Name)
		}
		deleted++
		if isPodReady(p) {
			deletedReady++
		}
	}
	return deleted, deletedReady, errors.Join(errs...)
}

// trackStatus is upstream's trackJobStatusAndRemoveFinalizers: finished
// pods go to status.uncountedTerminatedPods, their finalizers come off,
// then they move to the counters; the Job is marked finished once nothing
// is left uncounted or terminating.
func (c *Job) trackStatus(ctx context.Context, key string, s *jobSync, flush bool, indexed bool, completions int, now time.Time) error {
	job := s.job
	uncounted := job.Status.UncountedTerminatedPods
	withFinalizer := map[types.UID]bool{}
	for _, p := range s.pods {
		if jobHasTrackingFinalizer(p) {
			withFinalizer[p.UID] = true
		}
	}
	if jobCountUncounted(&job.Status, withFinalizer) {
		flush = true
	}
	var rmFinalizer []*corev1.Pod
	var newIndexes []int
	reachedMax := false
	for _, p := range s.pods {
		if !jobHasTrackingFinalizer(p) {
			continue
		}
		failed := jobPodFailed(p, job)
		if !(job.DeletionTimestamp != nil || s.finished != nil || p.Status.Phase == corev1.PodSucceeded || failed) {
			continue
		}
		if job.DeletionTimestamp == nil && s.finished == nil && p.Status.Phase != corev1.PodSucceeded && s.awaitsReplacement(p) {
			continue
		}
		rmFinalizer = append(rmFinalizer, p)
		ix := jobPodIndex(p)
		switch {
		case p.Status.Phase == corev1.PodSucceeded && !s.uncountedFailed[p.UID]:
			if indexed {
				if ix != jobUnknownIndex && ix < completions && !s.prevSucceededIndexes.has(ix) {
					newIndexes = append(newIndexes, ix)
					flush = true
				}
			} else if !s.uncountedSucceeded[p.UID] {
				flush = true
				uncounted.Succeeded = append(uncounted.Succeeded, p.UID)
			}
		case failed || (s.finished != nil && s.finished.Type != batchv1.JobSuccessCriteriaMet):
			if !s.uncountedFailed[p.UID] && (!indexed || (ix != jobUnknownIndex && ix < completions)) {
				if _, count, _ := jobMatchPodFailurePolicy(job.Spec.PodFailurePolicy, p); count {
					flush = true
					uncounted.Failed = append(uncounted.Failed, p.UID)
				}
			}
		}
		if len(newIndexes)+len(uncounted.Succeeded)+len(uncounted.Failed) >= jobMaxUncountedPods {
			reachedMax = true
			break
		}
	}
	if indexed {
		s.succeededIndexes = s.succeededIndexes.with(newIndexes)
		if str := s.succeededIndexes.String(); str != job.Status.CompletedIndexes {
			flush = true
			job.Status.CompletedIndexes = str
		}
		job.Status.Succeeded = int32(s.succeededIndexes.total())
		var failedIndexes *string
		if s.failedIndexes != nil {
			failedIndexes = ptr.To(s.failedIndexes.String())
		}
		if !ptr.Equal(job.Status.FailedIndexes, failedIndexes) {
			flush = true
			job.Status.FailedIndexes = failedIndexes
		}
	}
	// The interim conditions go first; the final ones once the finalizers
	// are off.
	var final *batchv1.JobCondition
	if f := s.finished; f != nil {
		switch f.Type {
		case batchv1.JobFailureTarget:
			if !jobConditionTrue(job, batchv1.JobFailureTarget) {
				job.Status.Conditions = append(job.Status.Conditions, *f)
				flush = true
			}
			cond := jobNewCondition(batchv1.JobFailed, corev1.ConditionTrue, f.Reason, f.Message, now)
			final = &cond
		case batchv1.JobSuccessCriteriaMet:
			if !jobConditionTrue(job, batchv1.JobSuccessCriteriaMet) {
				job.Status.Conditions = append(job.Status.Conditions, *f)
				flush = true
			}
			cond := jobNewCondition(batchv1.JobComplete, corev1.ConditionTrue, f.Reason, f.Message, now)
			final = &cond
		}
	}
	if flush {
		if err := c.updateStatus(ctx, key, job); err != nil {
			return fmt.Errorf("adding uncounted pods to status: %w", err)
		}
		c.backoff[key] = s.backoff
		flush = false
	}
	var rmErrs []error
	for _, p := range rmFinalizer {
		if err := c.removeFinalizer(ctx, p); err != nil {
			rmErrs = append(rmErrs, err)
			continue
		}
		delete(withFinalizer, p.UID)
	}
	if jobCountUncounted(&job.Status, withFinalizer) {
		flush = true
	}
	if len(rmErrs) > 0 {
		if flush {
			if err := c.updateStatus(ctx, key, job); err != nil {
				return fmt.Errorf("removing uncounted pods from status: %w", err)
			}
		}
		return errors.Join(rmErrs...)
	}
	finishedNow := false
	if !reachedMax && final != nil && len(uncounted.Succeeded)+len(uncounted.Failed) == 0 && *job.Status.Terminating == 0 {
		jobEnsureCondition(job, final.Type, final.Status, final.Reason, final.Message, now)
		if final.Type == batchv1.JobComplete {
			t := final.LastTransitionTime
			job.Status.CompletionTime = &t
		}
		finishedNow, flush = true, true
	}
	if flush {
		if err := c.updateStatus(ctx, key, job); err != nil {
			return fmt.Errorf("removing uncounted pods from status: %w", err)
		}
	}
	if finishedNow {
		if final.Type == batchv1.JobComplete {
			if job.Spec.Completions != nil && job.Status.Succeeded > *job.Spec.Completions {
				c.rec.Eventf(ctx, jobRef(job), corev1.EventTypeWarning, "TooManySucceededPods", "Too many succeeded pods running after completion count reached")
			}
			c.rec.Eventf(ctx, jobRef(job), corev1.EventTypeNormal, "Completed", "Job completed")
		} else {
			c.rec.Eventf(ctx, jobRef(job), corev1.EventTypeWarning, final.Reason, "%s", final.Message)
		}
		delete(c.backoff, key)
	}
	return nil
}

// awaitsReplacement reports whether p is the failed pod whose finalizer
// stays until its index has a replacement pod.
func (s *jobSync) awaitsReplacement(p *corev1.Pod) bool {
	ix := jobPodIndex(p)
	if ix == jobUnknownIndex {
		return false
	}
	r, ok := s.toReplace[ix]
	return ok && r.UID == p.UID
}

// jobCountUncounted moves the uncounted pods whose finalizer is off to
// the counters, reporting whether the status changed.
func jobCountUncounted(st *batchv1.JobStatus, withFinalizer map[types.UID]bool) bool {
	u := st.UncountedTerminatedPods
	keep := func(uids []types.UID) []types.UID {
		var out []types.UID
		for _, uid := range uids {
			if withFinalizer[uid] {
				out = append(out, uid)
			}
		}
		return out
	}
	changed := false
	if left := keep(u.Succeeded); len(left) != len(u.Succeeded) {
		st.Succeeded += int32(len(u.Succeeded) - len(left))
		u.Succeeded, changed = left, true
	}
	if left := keep(u.Failed); len(left) != len(u.Failed) {
		st.Failed += int32(len(u.Failed) - len(left))
		u.Failed, changed = left, true
	}
	return changed
}

// updateStatus writes the Job's status through /status, from the state the
// cache holds (a Conflict when the Job changed meanwhile), and keeps the
// result in job and the cache.
func (c *Job) updateStatus(ctx context.Context, key string, job *batchv1.Job) error {
	want := job.DeepCopy()
	out, err := c.reg.UpdateSubresource(ctx, jobsGVR, "status", job.Namespace, job.Name, func(runtime.Object) (runtime.Object, error) {
		return want.DeepCopy(), nil
	})
	if err != nil {
		return err
	}
	stored := out.(*batchv1.Job)
	c.jobs.put(key, stored, stored.ResourceVersion)
	job.ObjectMeta = *stored.ObjectMeta.DeepCopy()
	return nil
}

// jobRef is the reference events give to a Job.
func jobRef(j *batchv1.Job) corev1.ObjectReference {
	return EventRef("batch/v1", "Job", j)
}
