package store

import (
	"errors"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Deferred commits (Options.DeferCommits): a write goes into a write
// transaction that stays open, is published at once (its revision is
// current, Get returns it, watchers have its event), and is committed with
// the writes that follow it, by the flusher a moment later
// (deferredCommitDelay) or at once when deferredCommitWrites (or
// deferredCommitBytes) are waiting or a reader needs the file to hold them.
// A commit costs about the same for one write as for dozens (bbolt copies
// and writes the pages along each changed key's path, and the ones near the
// root are shared), so writes in a burst share it.
//
// Reads stay consistent: Get reads the open transaction; every other read
// (lists, history, cold events) commits it first, with wmu held, so the
// file holds every published write before the read's transaction begins.
// What is given up is only what a process that dies loses: the writes of
// the last moment, which nobody reads from a store of a process's own.

const (
	// deferredCommitDelay is how long the flusher waits, after the first
	// write of a transaction, before it commits the transaction.
	deferredCommitDelay = 2 * time.Millisecond
	// deferredCommitWrites is how many writes a transaction holds at most:
	// the write that reaches it commits them all.
	deferredCommitWrites = 256
	// deferredCommitBytes bounds the bytes of the values a transaction
	// holds the same way, so that big objects are not held in memory by
	// the hundred.
	deferredCommitBytes = 4 << 20
)

// openWrite is the write transaction of deferred commits that has writes
// not yet committed.
type openWrite struct {
	tx     *bolt.Tx
	writes int
	bytes  int // of the values written
}

// commitDeferred is commit with Options.DeferCommits: the write goes into
// the open transaction and is published before it commits.
func (s *Store) commitDeferred(resource, key string, seenRev int64, w Write) (prev, cur *Object, err error) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.closed.Load() {
		return nil, nil, ErrClosed
	}
	o := s.open.Load()
	if o == nil {
		tx, err := s.db.Begin(true)
		if err != nil {
			return nil, nil, fmt.Errorf("store: begin write: %w", err)
		}
		o = &openWrite{tx: tx}
		s.open.Store(o)
		select {
		case s.flushKick <- struct{}{}:
		default:
		}
	}
	rev := s.rev.Load() + 1
	ev, prev, value, flush, err := s.put(o.tx, resource, key, seenRev, w, rev)
	if err != nil {
		if errors.As(err, new(*partialWrite)) {
			// Written in part: the transaction can only be rolled back,
			// and the writes published before this one with it.
			s.failDeferredLocked(err)
		}
		// Else refused before anything was written (a stale key, a
		// Stamp's error): the transaction is as it was.
		return nil, nil, err
	}
	s.pendingHist.committed(&ev, flush)
	s.mu.Lock()
	s.publish(ev)
	s.published.Broadcast()
	s.mu.Unlock()
	o.writes++
	o.bytes += len(value)
	if o.writes >= deferredCommitWrites || o.bytes >= deferredCommitBytes {
		if err := s.flushOpenLocked(); err != nil {
			return nil, nil, err
		}
	}
	return s.committed(prev, key, value, rev, w)
}

// partialWrite is the error of a put that failed after it changed the
// transaction. It reads as the error it wraps.
type partialWrite struct{ err error }

func (e *partialWrite) Error() string { return e.err.Error() }
func (e *partialWrite) Unwrap() error { return e.err }

// flushOpenLocked commits the open transaction, if any. Called with wmu
// held. A failed commit closes the store (see failDeferredLocked).
func (s *Store) flushOpenLocked() error {
	o := s.open.Load()
	if o == nil {
		return nil
	}
	err := o.tx.Commit()
	s.open.Store(nil)
	if err != nil {
		err = fmt.Errorf("store: commit %d deferred writes: %w", o.writes, noSpace(err))
		s.failDeferredLocked(err)
		return err
	}
	return nil
}

// failDeferredLocked ends a store whose published writes cannot all reach
// the file: it rolls back the open transaction and closes the store as
// Close does, ending its watches with err. Called with wmu held.
func (s *Store) failDeferredLocked(err error) {
	if o := s.open.Load(); o != nil {
		_ = o.tx.Rollback()
		s.open.Store(nil)
	}
	s.logger.Error("store: deferred writes lost, closing the store", "error", err)
	s.mu.Lock()
	if !s.closed.Swap(true) {
		s.watchers.CloseAll(fmt.Errorf("%w: %w", ErrClosed, err))
	}
	s.mu.Unlock()
}

// settle commits the open transaction, if any, so that a read transaction
// begun after it sees every published write. Called without wmu.
func (s *Store) settle() error {
	if s.open.Load() == nil {
		return nil
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	return s.flushOpenLocked()
}

// getOpen reads key from the open transaction, if there is one: ok is
// false when there is none (the file then holds every published write).
func (s *Store) getOpen(resource, key string) (obj *Object, ok bool, err error) {
	if s.open.Load() == nil {
		return nil, false, nil
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	o := s.open.Load()
	if o == nil {
		return nil, false, nil
	}
	obj, err = getIn(o.tx, resource, key)
	return obj, true, err
}

// startFlusher starts the goroutine that commits the open transaction
// deferredCommitDelay after its first write. stopFlusher ends it.
func (s *Store) startFlusher() {
	s.flushKick = make(chan struct{}, 1)
	s.flushStop = make(chan struct{})
	s.flushDone = make(chan struct{})
	delay := deferredCommitDelay
	if s.opts.deferDelay > 0 {
		delay = s.opts.deferDelay
	}
	go func() {
		defer close(s.flushDone)
		t := time.NewTimer(delay)
		t.Stop()
		for {
			select {
			case <-s.flushStop:
				return
			case <-s.flushKick:
			}
			t.Reset(delay)
			select {
			case <-s.flushStop:
				t.Stop()
				return
			case <-t.C:
			}
			s.wmu.Lock()
			if !s.closed.Load() {
				// A failure closes the store and is logged there.
				_ = s.flushOpenLocked()
			}
			s.wmu.Unlock()
		}
	}()
}

// stopFlusher ends the flusher, if started, and waits for it. Close calls
// it, each time, without wmu.
func (s *Store) stopFlusher() {
	if s.flushStop == nil {
		return
	}
	s.flushStopOnce.Do(func() { close(s.flushStop) })
	<-s.flushDone
}
