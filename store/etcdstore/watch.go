package etcdstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/fakeplane/fakeplane/store"
)

// Watch delivers, in revision order, every event of resource whose key has
// opts.Prefix and whose revision is greater than opts.FromRevision, as
// store.Store.Watch does: first those still in the event log, then live
// ones, with no gap or duplicate between the two. FromRevision 0 means from
// now. A FromRevision older than WatchCompactedRevision, or than a
// DeleteResource of the resource, gives *store.CompactedError; one etcd has
// not reached *store.FutureRevisionError (one etcd has reached but the
// watch has not yet delivered is waited for).
//
// The watcher's buffer holds opts.Buffer (default Config.WatchBuffer)
// events beyond the replayed ones (see store.Watchers); a watcher whose
// buffer is full is closed with store.ErrTooSlow. The watch ends with Err() == nil when ctx is done or
// Stop is called; Close ends it with store.ErrClosed. Events share their
// byte slices with the event log and other watchers: do not modify them.
func (s *Store) Watch(ctx context.Context, resource string, opts store.WatchOptions) (store.Watcher, error) {
	if err := checkResource(resource); err != nil {
		return nil, err
	}
	if s.closed.Load() {
		return nil, store.ErrClosed
	}
	if opts.FromRevision > s.rev.Load() {
		if err := s.sync(opts.FromRevision); err != nil {
			return nil, err
		}
	}
	buffer := opts.Buffer
	if buffer <= 0 {
		buffer = s.cfg.WatchBuffer
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed.Load() {
		return nil, store.ErrClosed
	}
	cur := s.rev.Load()
	from := opts.FromRevision
	if from <= 0 {
		from = cur
	}
	oldest := s.logCompacted
	if d, ok := s.dropped[resource]; ok && d > oldest {
		oldest = d
	}
	if from < oldest {
		return nil, &store.CompactedError{Requested: from, Oldest: oldest}
	}
	// Holding mu, no event is published between the replay and the
	// registration.
	var replay []*store.Event
	s.log.Since(from, cur, func(e *store.Event) {
		if e.Resource == resource && strings.HasPrefix(e.Key, opts.Prefix) {
			replay = append(replay, e)
		}
	})
	return s.watchers.Add(ctx, resource, opts.Prefix, replay, buffer), nil
}

// WatchCompactedRevision returns the oldest revision a watch can start
// from: every event of the prefix after it is in the event log.
func (s *Store) WatchCompactedRevision() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.logCompacted
}

// openAttempts bounds how often startWatch tries again when etcd was
// compacted past the revision it read before the watch was created.
const openAttempts = 5

// startWatch reads etcd's current revision and starts the watch of the
// whole prefix after it, returning once etcd has created it: from then on
// only a watch that falls behind by a whole compaction can lose events.
// A compaction between the read and the creation is no loss (nothing was
// published yet): it starts over.
func (s *Store) startWatch() (clientv3.WatchChan, int64, error) {
	var lastErr error
	for range openAttempts {
		ctx, cancel := context.WithTimeout(s.ctx, s.cfg.DialTimeout)
		resp, err := s.cli.Get(ctx, s.metaKey("watch"), clientv3.WithCountOnly())
		cancel()
		if err != nil {
			return nil, 0, s.etcdError("read the current revision", err)
		}
		rev := resp.Header.Revision
		wctx, wcancel := context.WithCancel(s.ctx)
		// From rev itself, not rev+1: etcd answers progress requests
		// only for a watch whose start it has reached. publish skips
		// the events at rev.
		wch := s.cli.Watch(wctx, s.root, clientv3.WithPrefix(), clientv3.WithRev(rev),
			clientv3.WithPrevKV(), clientv3.WithProgressNotify(), clientv3.WithCreatedNotify())
		select {
		case first, ok := <-wch:
			if ok && first.Created && first.Err() == nil {
				s.mu.Lock()
				if s.watchCancel != nil {
					s.watchCancel()
				}
				s.watchCancel = wcancel
				s.mu.Unlock()
				return wch, rev, nil
			}
			wcancel()
			lastErr = first.Err()
			if !ok || lastErr == nil {
				lastErr = errors.New("the watch ended")
			}
		case <-time.After(s.cfg.DialTimeout):
			wcancel()
			return nil, 0, fmt.Errorf("etcdstore: etcd did not create the watch of %s in %v", s.root, s.cfg.DialTimeout)
		}
	}
	return nil, 0, fmt.Errorf("etcdstore: start the watch of %s: %w", s.root, lastErr)
}

// follow publishes what the etcd watch of the whole prefix delivers, until
// Close. If etcd ends the watch (it was compacted past what the watch had
// delivered), the events in between are lost: the watchers are closed with
// store.ErrTooSlow, as if they had not kept up, and the watch starts again
// from etcd's current revision.
func (s *Store) follow(wch clientv3.WatchChan) {
	defer s.done.Done()
	for {
		var lost error
		for resp := range wch {
			if err := resp.Err(); err != nil {
				lost = err
				continue
			}
			if resp.Created {
				continue
			}
			if resp.IsProgressNotify() {
				s.mu.Lock()
				s.progressN++
				if !s.advance(resp.Header.Revision) {
					s.wake()
				}
				s.mu.Unlock()
				continue
			}
			if len(resp.Events) > 0 {
				s.publish(resp.Events)
			}
		}
		if s.ctx.Err() != nil {
			return
		}
		s.logger.Warn("etcdstore: the watch ended; closing the watchers and starting over", "revision", s.rev.Load(), "error", lost)
		var ok bool
		if wch, ok = s.restart(); !ok {
			return
		}
	}
}

// restart closes the watchers and empties the event log after the watch
// lost events, and starts a new watch from etcd's current revision (ok
// false once the store closes).
func (s *Store) restart() (clientv3.WatchChan, bool) {
	backoff := 10 * time.Millisecond
	for {
		wch, rev, err := s.startWatch()
		if err == nil {
			s.mu.Lock()
			s.watchers.CloseAll(store.ErrTooSlow)
			s.log = store.EventLog{Max: s.cfg.EventLogSize, MaxBytes: s.cfg.EventLogBytes}
			s.logCompacted = rev
			s.advance(rev)
			s.mu.Unlock()
			return wch, true
		}
		s.logger.Warn("etcdstore: restart the watch", "error", err)
		select {
		case <-s.ctx.Done():
			return nil, false
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, time.Second)
	}
}

// publish logs and fans out the events of one watch response, advancing
// the current revision past each revision once all its events are out.
func (s *Store) publish(events []*clientv3.Event) {
	evs := make([]store.Event, len(events))
	keep := make([]bool, len(events))
	for i, e := range events {
		evs[i], keep[i] = s.toEvent(e)
	}
	if s.cfg.Observe != nil {
		s.observe(events, evs, keep)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range evs {
		ev := &evs[i]
		rev := events[i].Kv.ModRevision
		if rev <= s.rev.Load() {
			continue // delivered before (the watch starts at the revision it opened at)
		}
		if keep[i] && !s.dropEvent(ev) {
			if evicted, ok := s.log.Add(*ev); ok {
				s.logCompacted = evicted
			}
			s.watchers.FanOut(*ev)
		}
		if i == len(events)-1 || events[i+1].Kv.ModRevision != rev {
			s.advance(rev)
		}
	}
}

// observe hands Config.Observe the events of one watch response that
// publish will log, in order, before any of their revisions is published.
// Only the watch goroutine advances the revision, so what observe sees as
// not yet published is what publish publishes.
func (s *Store) observe(events []*clientv3.Event, evs []store.Event, keep []bool) {
	cur := s.rev.Load()
	s.mu.Lock()
	deliver := make([]bool, len(evs))
	for i := range evs {
		deliver[i] = keep[i] && events[i].Kv.ModRevision > cur && !s.dropEvent(&evs[i])
	}
	s.mu.Unlock()
	for i := range evs {
		if deliver[i] {
			s.cfg.Observe(evs[i])
		}
	}
}

// dropEvent reports whether ev is a deletion of a DeleteResource of this
// process, which is not an event. Called with mu held.
func (s *Store) dropEvent(ev *store.Event) bool {
	if ev.Type != store.Deleted || !s.dropping[ev.Resource] {
		return false
	}
	d, known := s.dropped[ev.Resource]
	return !known || d == ev.Revision
}

// advance makes rev the current revision, if it is newer, and wakes the
// waiters; it reports whether it did. Called with mu held.
func (s *Store) advance(rev int64) bool {
	if rev <= s.rev.Load() {
		return false
	}
	s.rev.Store(rev)
	s.wake()
	return true
}

// wake wakes the goroutines waiting on advanced. Called with mu held.
func (s *Store) wake() {
	close(s.advanced)
	s.advanced = make(chan struct{})
}

// toEvent turns an etcd event into the store's, stamping its values; ok
// is false for a key outside the layout or a value StampOnRead rejects.
func (s *Store) toEvent(e *clientv3.Event) (ev store.Event, ok bool) {
	resource, key, ok := s.split(string(e.Kv.Key))
	if !ok {
		return ev, false
	}
	rev := e.Kv.ModRevision
	ev = store.Event{Resource: resource, Key: key, Revision: rev}
	var err error
	if p := e.PrevKv; p != nil {
		ev.PrevRevision = p.ModRevision
		if ev.Prev, err = s.stamp(p.Value, p.ModRevision); err != nil {
			s.logger.Error("etcdstore: cannot stamp a watch event's previous value", "resource", resource, "key", key, "revision", p.ModRevision, "error", err)
			return ev, false
		}
	}
	switch {
	case e.Type == mvccpb.DELETE:
		ev.Type = store.Deleted
		// The final state is the last stored one, at the delete's
		// revision, as kube-apiserver's etcd3 watch has it.
		if e.PrevKv != nil {
			ev.Value, err = s.stamp(e.PrevKv.Value, rev)
		}
	default:
		ev.Type = store.Modified
		if e.IsCreate() || e.PrevKv == nil {
			ev.Type = store.Added
			ev.Prev, ev.PrevRevision = nil, 0
		}
		ev.Value, err = s.stamp(e.Kv.Value, rev)
	}
	if err != nil {
		s.logger.Error("etcdstore: cannot stamp a watch event's value", "resource", resource, "key", key, "revision", rev, "error", err)
		return ev, false
	}
	return ev, true
}
