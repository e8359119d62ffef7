package store

import (
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// bulkWrite is the one write transaction that a Bulk call's writes go
// into.
type bulkWrite struct {
	tx *bolt.Tx
	// rev is the revision of the latest write in tx.
	rev int64
	// events are the writes' events, published once tx commits.
	events []Event
}

// Bulk runs fn with every write it makes committed in one transaction when
// fn returns, instead of one transaction per write: each write still gets
// its own revision and event, published in order once the transaction
// commits. Reads made by fn see its writes. It is for start-up (the control
// plane writes its bootstrap objects with it), where one commit for
// hundreds of objects is most of the time saved.
//
// Nothing else may use the store while fn runs: no watch is told of a write
// before the transaction commits, and the transaction is not safe for
// concurrent use. fn must not call DeleteResource or Bulk. If fn fails, or
// the commit does, nothing fn wrote is kept and the store is closed (its
// in-memory state would be ahead of the file); Bulk returns the error.
func (s *Store) Bulk(fn func() error) error {
	s.wmu.Lock()
	if s.closed.Load() {
		s.wmu.Unlock()
		return ErrClosed
	}
	if err := s.flushOpenLocked(); err != nil {
		s.wmu.Unlock()
		return err
	}
	tx, err := s.db.Begin(true)
	if err != nil {
		s.wmu.Unlock()
		return fmt.Errorf("store: begin write: %w", err)
	}
	b := &bulkWrite{tx: tx, rev: s.rev.Load()}
	s.bulk.Store(b)
	err = fn()
	s.bulk.Store(nil)
	if err == nil {
		if err = tx.Commit(); err != nil {
			err = fmt.Errorf("store: commit bulk write: %w", err)
		}
	} else {
		tx.Rollback()
	}
	if err != nil {
		s.wmu.Unlock()
		s.Close()
		return err
	}
	s.mu.Lock()
	for _, ev := range b.events {
		s.publish(ev)
	}
	s.published.Broadcast()
	s.mu.Unlock()
	s.wmu.Unlock()
	return nil
}

// commitBulk is commit inside a Bulk call: the write goes into its
// transaction.
func (s *Store) commitBulk(b *bulkWrite, resource, key string, seenRev int64, w Write) (prev, cur *Object, err error) {
	rev := b.rev + 1
	ev, prev, value, flush, err := s.put(b.tx, resource, key, seenRev, w, rev)
	if err != nil {
		return nil, nil, err
	}
	s.pendingHist.committed(&ev, flush)
	b.rev = rev
	b.events = append(b.events, ev)
	return s.committed(prev, key, value, rev, w)
}

// endRead ends a read transaction from begin: a Bulk call's transaction
// stays open.
func (s *Store) endRead(tx *bolt.Tx) {
	if b := s.bulk.Load(); b != nil && b.tx == tx {
		return
	}
	tx.Rollback()
}
