package controllers

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"

	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
)

const cronJobsBucket = "batch/cronjobs"

// cronJobScheduleDelta pads the wait for the next schedule, as upstream's
// does, against clock skew.
const cronJobScheduleDelta = 100 * time.Millisecond

// CronJob creates the Jobs of CronJobs on their schedules, as
// kube-controller-manager's cronjob-controller (v2) does: a Job named
// <cronjob>-<scheduled time in minutes since the epoch> per schedule that
// came, within startingDeadlineSeconds, as concurrencyPolicy allows
// (Allow, Forbid, Replace), none while suspended; it keeps
// status.active, lastScheduleTime and lastSuccessfulTime, and deletes the
// finished Jobs beyond the history limits. Schedules are parsed as
// upstream parses them (robfig/cron's standard parser, spec.timeZone as
// TZ=). It writes as kube-system/cronjob-controller.
type CronJob struct {
	reg  registry.Interface
	log  *slog.Logger
	user user.Info
	rec  *Recorder
	now  func() time.Time

	cronJobs *jobCache[batchv1.CronJob]
	jobs     *jobCache[batchv1.Job]
	// jobsOf has the Job keys by the uid of their controlling CronJob, and
	// cronJobOf the CronJob keys by uid.
	jobsOf    map[types.UID]map[string]bool
	cronJobOf map[types.UID]string
	dirty     map[string]bool
	wake      *jobWakeups
	// retries are the failed syncs' retry times.
	retries *keyRetries
}

// NewCronJob returns the cronjob controller; now is its clock (nil:
// time.Now), which the schedules are read against.
func NewCronJob(reg registry.Interface, now func() time.Time, log *slog.Logger) *CronJob {
	if log == nil {
		log = slog.Default()
	}
	fake := now != nil
	if now == nil {
		now = time.Now
	}
	u := controllerUser("cronjob-controller")
	return &CronJob{
		reg: reg, log: log, user: u, now: now,
		rec:       NewRecorder(reg, CronJobName, u, nil, log),
		cronJobs:  newJobCache[batchv1.CronJob](),
		jobs:      newJobCache[batchv1.Job](),
		jobsOf:    map[types.UID]map[string]bool{},
		cronJobOf: map[types.UID]string{},
		dirty:     map[string]bool{},
		retries:   newKeyRetries(),
		wake:      newJobWakeups(fake),
	}
}

// Name implements Controller.
func (c *CronJob) Name() string { return CronJobName }

// Resources implements Controller.
func (c *CronJob) Resources() []string { return []string{cronJobsBucket, jobsBucket} }

// cronJobControllerOf is the uid of the CronJob controlling j, or "".
func cronJobControllerOf(j *batchv1.Job) types.UID {
	if ref := metav1.GetControllerOf(j); ref != nil && ref.Kind == "CronJob" && ref.APIVersion == batchv1.SchemeGroupVersion.String() {
		return ref.UID
	}
	return ""
}

// Sync implements Controller.
func (c *CronJob) Sync(ctx context.Context, events []store.Event) error {
	for _, ev := range events {
		var err error
		switch ev.Resource {
		case cronJobsBucket:
			var old, cur *batchv1.CronJob
			var ok bool
			old, cur, ok, err = c.cronJobs.apply(ev)
			if ok && old != nil && (cur == nil || cur.UID != old.UID) {
				delete(c.cronJobOf, old.UID)
			}
			if ok && cur != nil {
				c.cronJobOf[cur.UID] = ev.Key
				c.dirty[ev.Key] = true
			}
		case jobsBucket:
			var old, cur *batchv1.Job
			var ok bool
			old, cur, ok, err = c.jobs.apply(ev)
			if ok {
				c.indexJob(ev.Key, old, cur)
			}
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
	var errs []error
	c.retries.due(c.dirty)
	for _, key := range sortedKeys(c.dirty) {
		if ctx.Err() != nil {
			break
		}
		delete(c.dirty, key)
		if err := c.sync(ctx, key, now); err != nil {
			errs = append(errs, fmt.Errorf("cronjob %s: %w", key, err))
			c.retries.failed(c.dirty, key)
			continue
		}
		c.retries.forget(key)
	}
	return c.retries.result(errs, c.wake.requeue(c.now()))
}

// indexJob moves a Job in jobsOf and marks its CronJobs to sync.
func (c *CronJob) indexJob(key string, old, cur *batchv1.Job) {
	var was, is types.UID
	if old != nil {
		was = cronJobControllerOf(old)
	}
	if cur != nil {
		is = cronJobControllerOf(cur)
	}
	if was != "" && was != is {
		delete(c.jobsOf[was], key)
	}
	if is != "" {
		if c.jobsOf[is] == nil {
			c.jobsOf[is] = map[string]bool{}
		}
		c.jobsOf[is][key] = true
	}
	if cur == nil && is == "" && was != "" {
		delete(c.jobsOf[was], key)
	}
	for _, uid := range []types.UID{was, is} {
		if k, ok := c.cronJobOf[uid]; ok {
			c.dirty[k] = true
		}
	}
}

// sync is upstream's sync of one CronJob: clean up the history, then
// create the Job of a schedule that came.
func (c *CronJob) sync(ctx context.Context, key string, now time.Time) error {
	cached := c.cronJobs.get(key)
	if cached == nil {
		return nil
	}
	cj := cached.DeepCopy()
	var jobs []*batchv1.Job
	for _, jk := range sortedKeys(c.jobsOf[cj.UID]) {
		if j := c.jobs.get(jk); j != nil && cronJobControllerOf(j) == cj.UID {
			jobs = append(jobs, j)
		}
	}
	update := c.cleanupFinished(ctx, cj, jobs)
	requeue, updated, syncErr := c.syncCronJob(ctx, cj, jobs, now)
	if update || updated {
		out, err := c.reg.UpdateSubresource(ctx, cronJobsGVR, "status", cj.Namespace, cj.Name, func(runtime.Object) (runtime.Object, error) {
			return cj.DeepCopy(), nil
		})
		if err != nil {
			return fmt.Errorf("update status: %w", err)
		}
		stored := out.(*batchv1.CronJob)
		c.cronJobs.put(key, stored, stored.ResourceVersion)
	}
	if requeue != nil {
		c.wake.after(key, now, *requeue)
		return nil
	}
	return syncErr
}

var cronJobsGVR = jobsGVR.GroupVersion().WithResource("cronjobs")

// syncCronJob is upstream's syncCronJob: it returns when to look again,
// whether the status changed, and an error.
func (c *CronJob) syncCronJob(ctx context.Context, cj *batchv1.CronJob, jobs []*batchv1.Job, now time.Time) (*time.Duration, bool, error) {
	ref := cronJobRef(cj)
	update := false
	children := map[types.UID]bool{}
	for _, j := range jobs {
		children[j.UID] = true
		found := cronJobInActive(cj, j.UID)
		cond, finished := jobFinished(j)
		switch {
		case !found && !finished:
			c.rec.Eventf(ctx, ref, corev1.EventTypeWarning, "UnexpectedJob", "Saw a job that the controller did not create or forgot: %s", j.Name)
		case finished:
			if found {
				cronJobDeleteActive(cj, j.UID)
				c.rec.Eventf(ctx, ref, corev1.EventTypeNormal, "SawCompletedJob", "Saw completed job: %s, condition: %v", j.Name, cond)
				update = true
			}
			if cond == batchv1.JobComplete && j.Status.CompletionTime != nil {
				if cj.Status.LastSuccessfulTime == nil || j.Status.CompletionTime.After(cj.Status.LastSuccessfulTime.Time) {
					cj.Status.LastSuccessfulTime = j.Status.CompletionTime
					update = true
				}
			}
		}
	}
	for _, a := range cj.Status.Active {
		if children[a.UID] {
			continue
		}
		_, err := c.reg.Get(ctx, jobsGVR, a.Namespace, a.Name)
		switch {
		case apierrors.IsNotFound(err):
			c.rec.Eventf(ctx, ref, corev1.EventTypeNormal, "MissingJob", "Active job went missing: %v", a.Name)
			cronJobDeleteActive(cj, a.UID)
			update = true
		case err != nil:
			return nil, update, err
		}
	}
	if cj.DeletionTimestamp != nil {
		return nil, update, nil
	}
	if tz := cj.Spec.TimeZone; tz != nil {
		if _, err := time.LoadLocation(*tz); err != nil {
			c.rec.Eventf(ctx, ref, corev1.EventTypeWarning, "UnknownTimeZone", "invalid timeZone: %q: %s", *tz, err)
			return nil, update, nil
		}
	}
	if cj.Spec.Suspend != nil && *cj.Spec.Suspend {
		return nil, update, nil
	}
	sched, err := cronJobParse(c.scheduleOf(ctx, cj))
	if err != nil {
		c.rec.Eventf(ctx, ref, corev1.EventTypeWarning, "UnparseableSchedule", "unparseable schedule: %q : %s", cj.Spec.Schedule, err)
		return nil, update, nil
	}
	scheduled, many, err := cronJobMostRecent(cj, now, sched, true)
	if err != nil {
		c.rec.Eventf(ctx, ref, corev1.EventTypeWarning, "InvalidSchedule", "invalid schedule: %s : %s", cj.Spec.Schedule, err)
		return nil, update, nil
	}
	if scheduled != nil && many {
		c.rec.Eventf(ctx, ref, corev1.EventTypeWarning, "TooManyMissedTimes", "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew")
	}
	next := cronJobNextDuration(cj, now, sched)
	if scheduled == nil {
		return next, update, nil
	}
	if d := cj.Spec.StartingDeadlineSeconds; d != nil && scheduled.Add(time.Duration(*d)*time.Second).Before(now) {
		c.rec.Eventf(ctx, ref, corev1.EventTypeWarning, "MissSchedule", "Missed scheduled time to start a job: %s", scheduled.UTC().Format(time.RFC1123Z))
		return next, update, nil
	}
	name := cronJobJobName(cj.Name, *scheduled)
	for _, a := range cj.Status.Active {
		if a.Name == name && a.Namespace == cj.Namespace {
			return next, update, nil
		}
	}
	if cj.Status.LastScheduleTime != nil && cj.Status.LastScheduleTime.Time.Equal(*scheduled) {
		return next, update, nil
	}
	if cj.Spec.ConcurrencyPolicy == batchv1.ForbidConcurrent && len(cj.Status.Active) > 0 {
		c.rec.Eventf(ctx, ref, corev1.EventTypeNormal, "JobAlreadyActive", "Not starting job because prior execution is running and concurrency policy is Forbid")
		return next, update, nil
	}
	if cj.Spec.ConcurrencyPolicy == batchv1.ReplaceConcurrent {
		for _, a := range append([]corev1.ObjectReference(nil), cj.Status.Active...) {
			obj, err := c.reg.Get(ctx, jobsGVR, a.Namespace, a.Name)
			if err != nil {
				c.rec.Eventf(ctx, ref, corev1.EventTypeWarning, "FailedGet", "Get job: %v", err)
				return nil, update, err
			}
			if !c.deleteJob(ctx, cj, obj.(*batchv1.Job)) {
				return nil, update, fmt.Errorf("could not replace job %s/%s", a.Namespace, a.Name)
			}
			update = true
		}
	}
	req, err := cronJobNewJob(cj, *scheduled)
	if err != nil {
		return nil, update, err
	}
	out, err := c.reg.Create(ctx, jobsGVR, req)
	var job *batchv1.Job
	switch {
	case apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause):
		return nil, update, err
	case apierrors.IsAlreadyExists(err):
		obj, err := c.reg.Get(ctx, jobsGVR, cj.Namespace, name)
		if err != nil {
			return nil, update, err
		}
		job = obj.(*batchv1.Job)
		if !metav1.IsControlledBy(job, cj) || cronJobInActive(cj, job.UID) {
			return nil, update, nil
		}
	case err != nil:
		c.rec.Eventf(ctx, ref, corev1.EventTypeWarning, "FailedCreate", "Error creating job: %v", err)
		return nil, update, err
	default:
		job = out.(*batchv1.Job)
		key := job.Namespace + "/" + job.Name
		c.jobs.put(key, job, job.ResourceVersion)
		c.indexJob(key, nil, c.jobs.get(key))
		c.rec.Eventf(ctx, ref, corev1.EventTypeNormal, "SuccessfulCreate", "Created job %v", job.Name)
	}
	cj.Status.Active = append(cj.Status.Active, corev1.ObjectReference{
		Kind: "Job", Namespace: job.Namespace, Name: job.Name, UID: job.UID,
		APIVersion: "batch/v1", ResourceVersion: job.ResourceVersion,
	})
	cj.Status.LastScheduleTime = &metav1.Time{Time: *scheduled}
	return cronJobNextDuration(cj, now, sched), true, nil
}

// scheduleOf is the schedule to parse: spec.timeZone as a TZ= prefix, a
// schedule that names its own zone as is (with upstream's warning).
func (c *CronJob) scheduleOf(ctx context.Context, cj *batchv1.CronJob) string {
	if strings.Contains(cj.Spec.Schedule, "TZ") {
		c.rec.Eventf(ctx, cronJobRef(cj), corev1.EventTypeWarning, "UnsupportedSchedule", "CRON_TZ or TZ used in schedule %q is not officially supported, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details", cj.Spec.Schedule)
		return cj.Spec.Schedule
	}
	if tz := cj.Spec.TimeZone; tz != nil {
		if _, err := time.LoadLocation(*tz); err == nil {
			return fmt.Sprintf("TZ=%s %s", *tz, cj.Spec.Schedule)
		}
	}
	return cj.Spec.Schedule
}

// cleanupFinished deletes the oldest finished Jobs beyond the history
// limits, reporting whether the status changed.
func (c *CronJob) cleanupFinished(ctx context.Context, cj *batchv1.CronJob, jobs []*batchv1.Job) bool {
	if cj.Spec.SuccessfulJobsHistoryLimit == nil && cj.Spec.FailedJobsHistoryLimit == nil {
		return false
	}
	var succeeded, failed []*batchv1.Job
	for _, j := range jobs {
		switch cond, _ := jobFinished(j); cond {
		case batchv1.JobComplete:
			succeeded = append(succeeded, j)
		case batchv1.JobFailed:
			failed = append(failed, j)
		}
	}
	update := false
	for _, h := range []struct {
		jobs  []*batchv1.Job
		limit *int32
	}{{succeeded, cj.Spec.SuccessfulJobsHistoryLimit}, {failed, cj.Spec.FailedJobsHistoryLimit}} {
		if h.limit == nil || len(h.jobs) <= int(*h.limit) {
			continue
		}
		cronJobByStartTime(h.jobs)
		for _, j := range h.jobs[:len(h.jobs)-int(*h.limit)] {
			if c.deleteJob(ctx, cj, j) {
				update = true
			}
		}
	}
	return update
}

// deleteJob deletes a Job of the CronJob with background propagation and
// takes it out of status.active, with upstream's events.
func (c *CronJob) deleteJob(ctx context.Context, cj *batchv1.CronJob, j *batchv1.Job) bool {
	bg := metav1.DeletePropagationBackground
	if _, err := c.reg.Delete(ctx, jobsGVR, j.Namespace, j.Name, metav1.DeleteOptions{PropagationPolicy: &bg}); err != nil {
		c.rec.Eventf(ctx, cronJobRef(cj), corev1.EventTypeWarning, "FailedDelete", "Deleted job: %v", err)
		c.log.Error("deleting job of cronjob", "job", j.Namespace+"/"+j.Name, "err", err)
		return false
	}
	cronJobDeleteActive(cj, j.UID)
	c.rec.Eventf(ctx, cronJobRef(cj), corev1.EventTypeNormal, "SuccessfulDelete", "Deleted job %v", j.Name)
	return true
}

// cronJobByStartTime sorts Jobs by status.startTime (none last), then name.
func cronJobByStartTime(js []*batchv1.Job) {
	sort.SliceStable(js, func(a, b int) bool {
		x, y := js[a].Status.StartTime, js[b].Status.StartTime
		switch {
		case x == nil && y != nil:
			return false
		case x != nil && y == nil:
			return true
		case x.Equal(y):
			return js[a].Name < js[b].Name
		}
		return x.Before(y)
	})
}

func cronJobInActive(cj *batchv1.CronJob, uid types.UID) bool {
	for _, a := range cj.Status.Active {
		if a.UID == uid {
			return true
		}
	}
	return false
}

func cronJobDeleteActive(cj *batchv1.CronJob, uid types.UID) {
	var keep []corev1.ObjectReference
	for _, a := range cj.Status.Active {
		if a.UID != uid {
			keep = append(keep, a)
		}
	}
	cj.Status.Active = keep
}

// cronJobRef is the reference events give to a CronJob.
func cronJobRef(cj *batchv1.CronJob) corev1.ObjectReference {
	return EventRef("batch/v1", "CronJob", cj)
}

// cronJobParse parses a schedule as upstream does (cron.ParseStandard,
// whose panics on malformed input become errors).
func cronJobParse(s string) (sched cron.Schedule, err error) {
	defer func() {
		if r := recover(); r != nil {
			sched, err = nil, fmt.Errorf("invalid schedule format: %v", r)
		}
	}()
	return cron.ParseStandard(s)
}

// cronJobJobName is the name of the Job of a scheduled time:
// <cronjob>-<minutes since the epoch>.
func cronJobJobName(cronJob string, scheduled time.Time) string {
	return fmt.Sprintf("%s-%d", cronJob, scheduled.Unix()/60)
}

// cronJobNewJob is the Job of the CronJob for a scheduled time: the job
// template's labels, annotations and spec, the scheduled time annotation,
// the CronJob as controller.
func cronJobNewJob(cj *batchv1.CronJob, scheduled time.Time) (*batchv1.Job, error) {
	loc := time.UTC
	if cj.Spec.TimeZone != nil {
		var err error
		if loc, err = time.LoadLocation(*cj.Spec.TimeZone); err != nil {
			return nil, err
		}
	}
	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{
		Name:            cronJobJobName(cj.Name, scheduled),
		Namespace:       cj.Namespace,
		Labels:          map[string]string{},
		Annotations:     map[string]string{},
		OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(cj, batchv1.SchemeGroupVersion.WithKind("CronJob"))},
	}}
	for k, v := range cj.Spec.JobTemplate.Labels {
		job.Labels[k] = v
	}
	for k, v := range cj.Spec.JobTemplate.Annotations {
		job.Annotations[k] = v
	}
	job.Annotations[batchv1.CronJobScheduledTimestampAnnotation] = scheduled.In(loc).Format(time.RFC3339)
	cj.Spec.JobTemplate.Spec.DeepCopyInto(&job.Spec)
	return job, nil
}

// cronJobMostRecent is upstream's mostRecentScheduleTime as nextScheduleTime
// uses it: the latest schedule at or before now that has not been started
// (nil: none), whether more than 100 were missed, and an error for a
// schedule that never fires twice a second apart.
func cronJobMostRecent(cj *batchv1.CronJob, now time.Time, sched cron.Schedule, withDeadline bool) (*time.Time, bool, error) {
	earliest := cronJobEarliest(cj, now, withDeadline)
	t1 := sched.Next(earliest)
	t2 := sched.Next(t1)
	if now.Before(t1) {
		return nil, false, nil
	}
	if now.Before(t2) {
		return &t1, false, nil
	}
	between := int64(t2.Sub(t1).Round(time.Second).Seconds())
	if between < 1 {
		return nil, false, fmt.Errorf("time difference between two schedules is less than 1 second")
	}
	missed := int64(now.Sub(t1).Seconds())/between + 1
	var recent time.Time
	for t := sched.Next(t1.Add(time.Duration((missed-2)*between) * time.Second)); !t.After(now); t = sched.Next(t) {
		recent = t
	}
	if recent.IsZero() {
		return nil, missed > 100, nil
	}
	return &recent, missed > 100, nil
}

// cronJobEarliest is the time schedules are counted from: the last one
// started, else the creation; no earlier than startingDeadlineSeconds ago
// when withDeadline.
func cronJobEarliest(cj *batchv1.CronJob, now time.Time, withDeadline bool) time.Time {
	earliest := cj.CreationTimestamp.Time
	if cj.Status.LastScheduleTime != nil {
		earliest = cj.Status.LastScheduleTime.Time
	}
	if withDeadline && cj.Spec.StartingDeadlineSeconds != nil {
		if d := now.Add(-time.Duration(*cj.Spec.StartingDeadlineSeconds) * time.Second); d.After(earliest) {
			earliest = d
		}
	}
	return earliest
}

// cronJobNextDuration is how long until the next schedule (padded by
// cronJobScheduleDelta), as upstream's nextScheduleTimeDuration.
func cronJobNextDuration(cj *batchv1.CronJob, now time.Time, sched cron.Schedule) *time.Duration {
	recent, _, err := cronJobMostRecent(cj, now, sched, false)
	var from time.Time
	switch {
	case err != nil:
		from = now
	case recent != nil:
		from = *recent
	default:
		// None came since the earliest time: count from it, unless some
		// were missed (then from now).
		earliest := cronJobEarliest(cj, now, false)
		from = earliest
		if !now.Before(sched.Next(earliest)) {
			from = now
		}
	}
	d := sched.Next(from).Add(cronJobScheduleDelta).Sub(now)
	return &d
}
