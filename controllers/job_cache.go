package controllers

import (
	"strconv"
	"time"

	"github.com/fakeplane/fakeplane/store"
)

// jobCache is a controller's copy of the objects of one resource (the Job,
// CronJob and endpoint controllers' informer store), fed by the store's
// events and by the controller's own writes: an object the controller just
// wrote is known at once, before its event comes, so that the next Sync
// does not act on the state before the write (create a second pod, a second
// EndpointSlice, ...), as upstream's expectations and trackers prevent.
// Events older than what the cache holds are ignored.
type jobCache[T any] struct {
	objs map[string]jobCached[T]
	// gone are the objects the controller deleted, with the revision of
	// their last known state: their older events are stale.
	gone map[string]int64
}

// jobCached is one object of a jobCache and the revision it is at.
type jobCached[T any] struct {
	obj *T
	rev int64
}

func newJobCache[T any]() *jobCache[T] {
	return &jobCache[T]{objs: map[string]jobCached[T]{}, gone: map[string]int64{}}
}

// apply records ev and returns the object before and after it (nil when
// absent). ok is false when the event is older than what the cache holds.
func (c *jobCache[T]) apply(ev store.Event) (old, cur *T, ok bool, err error) {
	prev, had := c.objs[ev.Key]
	if had {
		old = prev.obj
	}
	if ev.Type == store.Deleted {
		delete(c.gone, ev.Key)
		if had && prev.rev > ev.Revision {
			return old, old, false, nil
		}
		delete(c.objs, ev.Key)
		return old, nil, had, nil
	}
	if r, ok := c.gone[ev.Key]; ok && r >= ev.Revision {
		return old, old, false, nil
	}
	if had && prev.rev >= ev.Revision {
		return old, old, false, nil
	}
	obj, err := decodeEvent[T](ev)
	if err != nil {
		return old, old, false, err
	}
	c.objs[ev.Key] = jobCached[T]{obj: obj, rev: ev.Revision}
	return old, obj, true, nil
}

// put records obj, as a write returned it at resourceVersion rv, unless the
// cache holds a newer state.
func (c *jobCache[T]) put(key string, obj *T, rv string) {
	rev, _ := strconv.ParseInt(rv, 10, 64)
	if prev, ok := c.objs[key]; ok && prev.rev > rev {
		return
	}
	c.objs[key] = jobCached[T]{obj: obj, rev: rev}
}

// drop forgets the object at key, which a delete removed from its last
// state at resourceVersion rv.
func (c *jobCache[T]) drop(key string, rv string) {
	rev, _ := strconv.ParseInt(rv, 10, 64)
	delete(c.objs, key)
	c.gone[key] = rev
}

// get returns the object at key, or nil.
func (c *jobCache[T]) get(key string) *T {
	return c.objs[key].obj
}

// jobWakeups records when objects are due for a time-driven recheck (a
// deadline, a backoff, a schedule, a TTL) and computes the Requeue that
// brings the controller back then.
type jobWakeups struct {
	at map[string]time.Time
	// poll, when positive, bounds the delay: with a clock a test sets, the
	// time it jumps to is noticed after at most poll.
	poll time.Duration
}

func newJobWakeups(fakeClock bool) *jobWakeups {
	w := &jobWakeups{at: map[string]time.Time{}}
	if fakeClock {
		w.poll = 100 * time.Millisecond
	}
	return w
}

// after asks for key to be rechecked d from now (keeping an earlier wake).
func (w *jobWakeups) after(key string, now time.Time, d time.Duration) {
	t := now.Add(d)
	if cur, ok := w.at[key]; ok && cur.Before(t) {
		return
	}
	w.at[key] = t
}

// due returns the keys whose time has come and forgets them.
func (w *jobWakeups) due(now time.Time) []string {
	var keys []string
	for k, t := range w.at {
		if !t.After(now) {
			keys = append(keys, k)
			delete(w.at, k)
		}
	}
	return keys
}

// requeue is the Requeue for the earliest wake, or nil when none is due.
func (w *jobWakeups) requeue(now time.Time) error {
	if len(w.at) == 0 {
		return nil
	}
	var first time.Time
	for _, t := range w.at {
		if first.IsZero() || t.Before(first) {
			first = t
		}
	}
	d := max(first.Sub(now), time.Millisecond)
	if w.poll > 0 {
		d = min(d, w.poll)
	}
	return &Requeue{After: d}
}
