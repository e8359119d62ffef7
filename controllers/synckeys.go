package controllers

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Per-key retry bounds of most of kube-controller-manager's workqueues
// (workqueue.DefaultTypedControllerRateLimiter): a key's n-th failure in a
// row is retried 5 ms·2^(n-1) later, at most 1000 s. The job controller's
// start at 1 s and stop at 1 min (DefaultJobApiBackOff, MaxJobApiBackOff).
const (
	keyRetryBase    = 5 * time.Millisecond
	keyRetryMax     = 1000 * time.Second
	jobKeyRetryBase = time.Second
	jobKeyRetryMax  = time.Minute
)

// keyRetries is a controller's per-key retry schedule, as upstream's rate
// limited workqueue keeps it: a key whose sync failed leaves the dirty set
// and comes back at its retry time, or sooner when its own objects change
// (the controller marks it dirty again); each failure in a row doubles the
// delay, a success forgets it. Changes to other keys' objects do not retry
// it, so a workload refused by admission retries as often on a busy
// cluster as on an idle one.
//
// Its clock is the wall clock even under a test's fake one: a retry is
// the controller's machinery, not a time its objects speak of.
type keyRetries struct {
	now       func() time.Time
	base, max time.Duration
	// limit, when positive, is the number of failures in a row after
	// which a key is no longer retried until its own objects change (the
	// deployment controller's maxRetries).
	limit    int
	failures map[string]int
	at       map[string]time.Time
}

// newKeyRetries returns the retry schedule of most controllers.
func newKeyRetries() *keyRetries { return newKeyRetriesWithin(keyRetryBase, keyRetryMax) }

// newKeyRetriesWithin returns a retry schedule from base to max.
func newKeyRetriesWithin(base, max time.Duration) *keyRetries {
	return &keyRetries{now: time.Now, base: base, max: max, failures: map[string]int{}, at: map[string]time.Time{}}
}

// due marks dirty the keys whose retry time has come.
func (r *keyRetries) due(dirty map[string]bool) {
	now := r.now()
	for key, at := range r.at {
		if !at.After(now) {
			delete(r.at, key)
			dirty[key] = true
		}
	}
}

// failed records that key's sync failed: it leaves dirty until its retry
// time (an earlier one already set stays, as a workqueue's waiting item
// keeps its earliest time), or, past the limit, until its objects change.
func (r *keyRetries) failed(dirty map[string]bool, key string) {
	delete(dirty, key)
	n := r.failures[key]
	if r.limit > 0 && n >= r.limit {
		r.forget(key)
		return
	}
	r.failures[key] = n + 1
	d := r.base
	for i := 0; i < n && d < r.max; i++ {
		d *= 2
	}
	at := r.now().Add(min(d, r.max))
	if cur, ok := r.at[key]; ok && cur.Before(at) {
		return
	}
	r.at[key] = at
}

// forget drops key's failures and retry: its sync succeeded, or its object
// is gone.
func (r *keyRetries) forget(key string) {
	delete(r.failures, key)
	delete(r.at, key)
}

// result is what a Sync returns after its keys' syncs: a Requeue at the
// earliest retry time or next's (a Requeue or nil), whichever comes first,
// with their failures.
func (r *keyRetries) result(errs []error, next error) error {
	err := errors.Join(errs...)
	if len(r.at) == 0 {
		if err != nil {
			// Failures not of a key: the runner's backoff retries them.
			return err
		}
		return next
	}
	retry := requeueAt(r.at, r.now()).(*Requeue)
	var rq *Requeue
	if errors.As(next, &rq) && rq.After < retry.After {
		retry.After = rq.After
	}
	retry.Failed = err
	return retry
}

// syncKeys syncs the objects whose keys are in dirty, in key order, with
// sync: a key whose object is gone (objects has none) or whose sync
// succeeds leaves dirty; one whose sync fails leaves it until its retry
// time (retries), and one whose sync asks for another after a delay stays.
// It returns the failures, each named by kind and key, with the Requeue of
// the earliest retry, or a Requeue for the soonest asked-for sync.
func syncKeys[T any](ctx context.Context, kind string, dirty map[string]bool, retries *keyRetries, objects map[string]T, sync func(context.Context, T) (time.Duration, error)) error {
	retries.due(dirty)
	var errs []error
	var wait time.Duration
	for _, key := range sortedKeys(dirty) {
		obj, ok := objects[key]
		if !ok {
			delete(dirty, key)
			retries.forget(key)
			continue
		}
		after, err := sync(ctx, obj)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s %s: %w", kind, key, err))
			retries.failed(dirty, key)
			continue
		}
		retries.forget(key)
		delete(dirty, key)
		if after > 0 {
			dirty[key] = true
			if wait == 0 || after < wait {
				wait = after
			}
		}
	}
	var next error
	if wait > 0 {
		next = &Requeue{After: wait}
	}
	return retries.result(errs, next)
}
