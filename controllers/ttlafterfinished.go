package controllers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"

	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
)

// TTLAfterFinished deletes finished Jobs whose ttlSecondsAfterFinished
// passed, as kube-controller-manager's ttl-after-finished-controller does:
// counted from the lastTransitionTime of the Complete or Failed condition,
// with foreground propagation and the Job's uid as precondition. It writes
// as kube-system/ttl-after-finished-controller.
type TTLAfterFinished struct {
	reg   registry.Interface
	log   *slog.Logger
	user  user.Info
	now   func() time.Time
	jobs  *jobCache[batchv1.Job]
	dirty map[string]bool
	wake  *jobWakeups
}

// NewTTLAfterFinished returns the ttl-after-finished controller; now is its
// clock (nil: time.Now).
func NewTTLAfterFinished(reg registry.Interface, now func() time.Time, log *slog.Logger) *TTLAfterFinished {
	if log == nil {
		log = slog.Default()
	}
	fake := now != nil
	if now == nil {
		now = time.Now
	}
	return &TTLAfterFinished{reg: reg, log: log, user: controllerUser("ttl-after-finished-controller"), now: now,
		jobs: newJobCache[batchv1.Job](), dirty: map[string]bool{}, wake: newJobWakeups(fake)}
}

// Name implements Controller.
func (c *TTLAfterFinished) Name() string { return TTLAfterFinishedName }

// Resources implements Controller.
func (c *TTLAfterFinished) Resources() []string { return []string{jobsBucket} }

// Sync implements Controller.
func (c *TTLAfterFinished) Sync(ctx context.Context, events []store.Event) error {
	for _, ev := range events {
		if _, cur, ok, err := c.jobs.apply(ev); err != nil {
			c.log.Warn("skipping undecodable object", "err", err)
		} else if ok && cur != nil {
			c.dirty[ev.Key] = true
		}
	}
	now := c.now()
	for _, k := range c.wake.due(now) {
		c.dirty[k] = true
	}
	ctx = apirequest.WithUser(ctx, c.user)
	var errs []error
	for _, key := range sortedKeys(c.dirty) {
		delete(c.dirty, key)
		if err := c.process(ctx, key, now); err != nil {
			c.dirty[key] = true
			errs = append(errs, fmt.Errorf("job %s: %w", key, err))
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	return c.wake.requeue(c.now())
}

// jobExpiry is when a finished Job with a TTL expires (ok false: the Job
// has no TTL, is not finished or is being deleted).
func jobExpiry(j *batchv1.Job) (time.Time, bool) {
	if j.DeletionTimestamp != nil || j.Spec.TTLSecondsAfterFinished == nil {
		return time.Time{}, false
	}
	for _, c := range j.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue && !c.LastTransitionTime.IsZero() {
			return c.LastTransitionTime.Add(time.Duration(*j.Spec.TTLSecondsAfterFinished) * time.Second), true
		}
	}
	return time.Time{}, false
}

func (c *TTLAfterFinished) process(ctx context.Context, key string, now time.Time) error {
	j := c.jobs.get(key)
	if j == nil {
		return nil
	}
	expire, ok := jobExpiry(j)
	if !ok {
		return nil
	}
	if left := expire.Sub(now); left > 0 {
		c.wake.after(key, now, left)
		return nil
	}
	// A last look at the stored Job: its TTL may have changed.
	obj, err := c.reg.Get(ctx, jobsGVR, j.Namespace, j.Name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	fresh := obj.(*batchv1.Job)
	if expire, ok = jobExpiry(fresh); !ok {
		return nil
	}
	if left := expire.Sub(now); left > 0 {
		c.wake.after(key, now, left)
		return nil
	}
	policy := metav1.DeletePropagationForeground
	_, err = c.reg.Delete(ctx, jobsGVR, fresh.Namespace, fresh.Name, metav1.DeleteOptions{
		PropagationPolicy: &policy, Preconditions: &metav1.Preconditions{UID: &fresh.UID}})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil
	}
	return err
}
