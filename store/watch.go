package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Watch delivers, in revision order, every event of resource whose key has
// opts.Prefix and whose revision is greater than opts.FromRevision: first
// those still in the event log, then live ones, with no gap or duplicate
// between the two. FromRevision 0 means from now. A FromRevision older than
// WatchCompactedRevision gives *CompactedError (as kube-apiserver's watch
// cache answers "too old resource version" once its window has passed), one
// newer than the current revision *FutureRevisionError.
//
// The watcher's buffer holds opts.Buffer (default Options.WatchBuffer)
// events beyond the replayed ones; it grows as events wait in it (see
// Watchers). Queuing never blocks the writer: a watcher whose buffer is full
// is closed with Err() == ErrTooSlow (after the events it holds). The watch
// ends, with Err() == nil, when ctx is done or Stop is called; Close ends it
// with ErrClosed.
//
// Events share their byte slices with the event log and other watchers; do
// not modify them.
//
// Progress: every event up to CurrentRevision() has been queued for the
// watcher when CurrentRevision returns. So a caller that reads R =
// CurrentRevision() and then finds that it has received the event at
// Sent() (or Sent() is 0) has received every event <= R and may send a
// bookmark at R. The order matters: read R first.
func (s *Store) Watch(ctx context.Context, resource string, opts WatchOptions) (Watcher, error) {
	buffer := opts.Buffer
	if buffer <= 0 {
		buffer = s.opts.WatchBuffer
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed.Load() {
		return nil, ErrClosed
	}
	cur := s.rev.Load()
	from := opts.FromRevision
	if from <= 0 {
		from = cur
	}
	if from > cur {
		return nil, &FutureRevisionError{Requested: from, Current: cur}
	}
	if err := s.checkWatch(resource, from); err != nil {
		return nil, err
	}

	// Holding mu, no event can be published between the replay and the
	// registration.
	var replay []*Event
	var cold []int // indexes in replay of cold events
	collect := func(from, to int64) {
		s.log.sinceContiguous(s.compacted, from, to, func(i int, e *Event) {
			if e.Resource == resource && strings.HasPrefix(e.Key, opts.Prefix) {
				if s.log.Cold(i) {
					cold = append(cold, len(replay))
				}
				replay = append(replay, e)
			}
		})
	}
	collect(from, cur)
	// Cold events are read back from the file without mu (a reader
	// holding a read transaction may wait for mu, see begin), after which
	// the events published meanwhile are collected too, until none of them
	// is cold. The log may move on meanwhile: the replay holds copies.
	for len(cold) > 0 {
		copies := make([]Event, len(replay))
		for i, e := range replay {
			copies[i] = *e
			replay[i] = &copies[i]
		}
		s.mu.Unlock()
		failed, err := s.fillCold(resource, replay, cold, cur)
		s.mu.Lock()
		if s.closed.Load() {
			return nil, ErrClosed
		}
		if err := s.checkWatch(resource, from); err != nil {
			return nil, err
		}
		if err != nil && !errors.Is(err, errColdGone) {
			return nil, fmt.Errorf("store: watch %s from revision %d: %w", resource, from, err)
		}
		if err != nil {
			// A value the file no longer has (compacted, or its resource
			// dropped): as for a window the log has let go.
			s.logger.Debug("store: watch replay cannot read cold events", "resource", resource, "from", from, "error", err)
			return nil, &CompactedError{Requested: from, Oldest: failed}
		}
		cold = cold[:0]
		next := s.rev.Load()
		collect(cur, next)
		cur = next
	}
	return s.watchers.Add(ctx, resource, opts.Prefix, replay, buffer), nil
}

// WatchCompactedRevision returns the oldest revision a watch can start
// from: every event with a revision greater than it is still in the event
// log, which Options.EventLogSize and EventLogBytes bound. Watches from
// older revisions get *CompactedError.
func (s *Store) WatchCompactedRevision() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.compacted
}

// checkWatch reports whether the events of resource after rev are all in
// the log. Called with mu held.
func (s *Store) checkWatch(resource string, rev int64) error {
	oldest := s.compacted
	if d, ok := s.dropped[resource]; ok && d > oldest {
		oldest = d
	}
	if rev < oldest {
		return &CompactedError{Requested: rev, Oldest: oldest}
	}
	return nil
}
