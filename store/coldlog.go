package store

import (
	"bytes"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// Cold events.
//
// The event log keeps the values of its newest events only (see
// EventLog.HotBytes): a watch whose replay reaches older, cold events reads
// their bytes back from the file, in one read transaction, and from the
// history entries not yet written to the file (pendingHistory):
//
//   - the Prev of an overwrite or delete at revision r is the previous value
//     kept by the history entry written at r (see history.go);
//   - the Value of a write at r on key k is the Prev of the next event on k,
//     which the replay holds if it came before the end of the replay, or
//     else k's current value if its revision is r, or else the previous
//     value of k's first history entry after the end of the replay;
//   - a Deleted event's Value (the final state its writer passed) is not
//     in the file: the log keeps it even when the event is cold.
//
// Every value read is checked against the revisions the event records (the
// history entry's key and previous revision, the current value's
// revision), so a value the file no longer has (its history compacted, its
// resource dropped) makes the watch fail as one whose window has passed,
// never receive wrong bytes. Compaction keeps the history entries of the
// revisions the log holds (see Store.compact).

// errColdGone says the file no longer has a cold event's bytes.
var errColdGone = errors.New("store: the value of a cold event is gone from the file")

// fillCold reads back the bytes of the cold events replay[i], i in cold,
// from the file. replay holds, in revision order, every event of resource
// (with the watch's prefix) up to revision upTo since some revision; the
// events are the caller's copies, and fillCold sets their Value and Prev.
// On failure it returns the revision of the event it could not fill.
func (s *Store) fillCold(resource string, replay []*Event, cold []int, upTo int64) (failed int64, err error) {
	// With wmu held, no commit is under way: the history entries the
	// transaction's revision needs are in the file or pending.
	s.wmu.Lock()
	if s.closed.Load() {
		s.wmu.Unlock()
		return 0, ErrClosed
	}
	tx, _, err := s.beginLocked()
	r := coldReader{
		group:   appendGroup(nil, resource),
		upTo:    upTo,
		pending: make(map[int64]*pendingEntry),
	}
	if err == nil {
		for _, pe := range s.pendingHist.entries {
			if pe.resource == resource {
				r.pendingOrder = append(r.pendingOrder, pe)
			}
		}
	}
	s.wmu.Unlock()
	if err != nil {
		return 0, err
	}
	defer s.endRead(tx)
	r.b, r.hist = resourceBucket(tx, resource), tx.Bucket(bucketHistory)
	for i := range r.pendingOrder {
		r.pending[r.pendingOrder[i].rev] = &r.pendingOrder[i]
	}
	// Walk the replay backwards, so that the next event on each key is
	// known, and already filled, when an event needs it.
	next := make(map[string]*Event, len(cold))
	c := len(cold) - 1
	for i := len(replay) - 1; i >= 0; i-- {
		e := replay[i]
		n := next[e.Key]
		next[e.Key] = e
		if c < 0 || cold[c] != i {
			continue
		}
		c--
		if err := r.fill(e, n); err != nil {
			return e.Revision, fmt.Errorf("%s %q at revision %d: %w", resource, e.Key, e.Revision, err)
		}
	}
	return 0, nil
}

// coldReader reads cold events' bytes in one read transaction.
type coldReader struct {
	b     *bolt.Bucket // the resource's objects; nil if it has none
	hist  *bolt.Bucket
	group []byte // the resource's history keys start with it
	key   []byte // buffer for history keys
	upTo  int64  // the replay holds every event of the resource up to it
	// pendingOrder are the resource's history entries not yet in the file
	// (newer than those that are), oldest first; pending indexes them by
	// revision. Their prev is an event's Prev, which nobody modifies.
	pendingOrder []pendingEntry
	pending      map[int64]*pendingEntry
	// after maps a key to its first history entry after upTo, read on
	// first use.
	after map[string]afterEntry
}

// afterEntry is the first history entry of a key after coldReader.upTo.
type afterEntry struct {
	prevRev int64
	prev    []byte
}

// fill sets e's Prev (if it replaced a value) and Value (unless it is
// Deleted, whose Value the log kept). n is the next event of the replay on
// e's key, nil if none, with its Prev set.
func (r *coldReader) fill(e, n *Event) error {
	if e.PrevRevision != 0 {
		prev, err := r.prevAt(e)
		if err != nil {
			return err
		}
		e.Prev = prev
	}
	if e.Type == Deleted {
		return nil
	}
	if n != nil {
		if n.PrevRevision != e.Revision {
			return fmt.Errorf("%w: the next event on the key replaced revision %d", errColdGone, n.PrevRevision)
		}
		e.Value = n.Prev
		return nil
	}
	if r.b != nil {
		if v := r.b.Get([]byte(e.Key)); v != nil {
			if rev, val := decodeValue(v); rev == e.Revision {
				e.Value = bytes.Clone(val)
				return nil
			}
		}
	}
	a, ok := r.firstAfter(e.Key)
	if !ok || a.prevRev != e.Revision {
		return fmt.Errorf("%w: no later write of the key kept it", errColdGone)
	}
	e.Value = a.prev
	return nil
}

// prevAt returns the previous value kept by the history entry of e's
// write.
func (r *coldReader) prevAt(e *Event) ([]byte, error) {
	if pe := r.pending[e.Revision]; pe != nil {
		if pe.prevRev != e.PrevRevision || pe.key != e.Key {
			return nil, fmt.Errorf("%w: the pending history entry at its revision is another write's", errColdGone)
		}
		return pe.prev, nil
	}
	r.key = appendInt(append(r.key[:0], r.group...), e.Revision)
	v := r.hist.Get(r.key)
	prevRev, key, prev, ok := decodeEntry(v)
	if !ok || prevRev != e.PrevRevision || string(key) != e.Key {
		return nil, fmt.Errorf("%w: no history entry at its revision", errColdGone)
	}
	return bytes.Clone(prev), nil
}

// firstAfter returns the first history entry of key after upTo, from the
// file or pending. The entries after upTo are those of the writes since
// the replay was collected: few.
func (r *coldReader) firstAfter(key string) (afterEntry, bool) {
	if r.after == nil {
		r.after = make(map[string]afterEntry)
		c := r.hist.Cursor()
		for k, v := c.Seek(appendInt(bytes.Clone(r.group), r.upTo+1)); k != nil && bytes.HasPrefix(k, r.group) && len(k) == len(r.group)+8; k, v = c.Next() {
			prevRev, key, prev, ok := decodeEntry(v)
			if !ok {
				continue
			}
			if _, seen := r.after[string(key)]; !seen {
				r.after[string(key)] = afterEntry{prevRev: prevRev, prev: bytes.Clone(prev)}
			}
		}
		// Then the newer entries, not yet in the file.
		for _, pe := range r.pendingOrder {
			if _, seen := r.after[pe.key]; !seen && pe.rev > r.upTo {
				r.after[pe.key] = afterEntry{prevRev: pe.prevRev, prev: pe.prev}
			}
		}
	}
	a, ok := r.after[key]
	return a, ok
}
