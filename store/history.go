package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
)

// DefaultCompactionInterval is Options.CompactionInterval's default: that of
// kube-apiserver's --etcd-compaction-interval.
const DefaultCompactionInterval = 5 * time.Minute

// compactBatch bounds the history entries one compaction transaction
// deletes, so that writers never wait long for it.
const compactBatch = 10000

// MVCC history.
//
// A list at a past revision R (continue tokens, resourceVersionMatch=Exact)
// needs the objects as of R, long after the event log (which only feeds
// watches) has let R go: kube-apiserver answers such lists from etcd until
// etcd is compacted, which it does every 5 minutes. So every write that
// overwrites or deletes an object also keeps, in the same transaction, the
// value it replaces, in the history bucket of the bbolt file:
//
//	history/<resource> 0x00 0x00 <key> 0x00 0x00 <revision> <previous revision> = <previous value>
//
// (resource and key escaped with 0x00 -> 0x00 0xff, revisions as 8
// big-endian bytes, so entries sort by resource, key, then revision). A
// write that creates a key keeps nothing, one that overwrites or deletes
// one adds a Put (about three pages) to its commit, whose value is the
// event's Prev, not a copy; it is one flat bucket rather than one per
// resource because every B+tree a commit touches costs it a page per level.
// The value of key k at revision R is then:
//   - if k's first entry with a revision > R has a previous revision <= R,
//     that entry's previous value (the first write after R replaced it);
//   - otherwise (no entry after R, or the first one replaced a value written
//     after R, by a create after R) k's current value if it was written at or
//     before R, and no value if it is absent or was written after R.
//
// A historical list merges the object bucket with the history bucket in key
// order, so it costs O(log n) per key with history, and only keys in the
// requested range are read.
//
// Compact(C) deletes the entries with revisions <= C: lists at revisions >= C
// only read entries after them. The compacted revision is kept in the meta
// bucket, as are the revisions at which DeleteResource dropped a resource:
// lists at revisions before either fail with *CompactedError. (The history
// of a dropped resource stays until compacted: lists at or after the drop
// only read entries after it, and it has none.)
//
// History is in the file, so it survives a restart, as etcd's survives a
// kube-apiserver restart; a file last written by a store that kept no
// history (a meta historyRevision other than its revision, or no history
// bucket at all) opens compacted at its current revision.
var (
	bucketHistory      = []byte("history")
	keyCompacted       = []byte("compacted")
	keyHistoryRevision = []byte("historyRevision")
	keyDroppedPrefix   = []byte("dropped/")
)

// history is the Store's MVCC history state.
type history struct {
	// compacted is the oldest revision lists can be served at. Guarded by
	// Store.mu.
	compacted int64
	// compactMu serialises compactions.
	compactMu sync.Mutex
	// stop is closed by Close to end the compactor; done waits for it.
	stop     chan struct{}
	stopOnce sync.Once
	done     sync.WaitGroup
}

// openHistory prepares the history buckets in Open's transaction, for a
// file at revision rev, and returns the compacted revision and the
// resources dropped after it.
func openHistory(tx *bolt.Tx, rev int64) (compacted int64, dropped map[string]int64, err error) {
	meta := tx.Bucket(bucketMeta)
	dropped = make(map[string]int64)
	if tx.Bucket(bucketHistory) != nil && readInt(meta.Get(keyHistoryRevision)) == rev {
		compacted = readInt(meta.Get(keyCompacted))
		c := meta.Cursor()
		for k, v := c.Seek(keyDroppedPrefix); bytes.HasPrefix(k, keyDroppedPrefix); k, v = c.Next() {
			if d := readInt(v); d > compacted {
				dropped[string(k[len(keyDroppedPrefix):])] = d
			}
		}
		return compacted, dropped, nil
	}
	// No history, or some written without it: none before rev can be used.
	if _, err := tx.CreateBucketIfNotExists(bucketHistory); err != nil {
		return 0, nil, fmt.Errorf("create history bucket: %w", err)
	}
	if err := meta.Put(keyCompacted, appendInt(nil, rev)); err != nil {
		return 0, nil, fmt.Errorf("write compacted revision: %w", err)
	}
	if err := meta.Put(keyHistoryRevision, appendInt(nil, rev)); err != nil {
		return 0, nil, fmt.Errorf("write history revision: %w", err)
	}
	return rev, dropped, nil
}

// recordHistory keeps, in the write transaction tx, what a list at a
// revision before ev needs: the value ev overwrote or deleted. It must be
// called for every committed write, whatever its type, in revision order,
// in the transaction that commits it (the last call also marks the history
// complete up to its revision). bbolt reads ev.Prev at commit, so it must
// not change until then.
func (s *Store) recordHistory(tx *bolt.Tx, ev *Event) error {
	if err := putHistory(tx, ev); err != nil {
		return err
	}
	if err := tx.Bucket(bucketMeta).Put(keyHistoryRevision, appendInt(nil, ev.Revision)); err != nil {
		return fmt.Errorf("store: write history revision: %w", err)
	}
	return nil
}

// putHistory puts ev's history entry, if it has one, into tx.
func putHistory(tx *bolt.Tx, ev *Event) error {
	if ev.PrevRevision == 0 {
		return nil
	}
	k := make([]byte, 0, len(ev.Resource)+len(ev.Key)+20)
	k = appendInt(appendInt(appendGroup(appendGroup(k, ev.Resource), ev.Key), ev.Revision), ev.PrevRevision)
	if err := tx.Bucket(bucketHistory).Put(k, ev.Prev); err != nil {
		return fmt.Errorf("store: history of %s %q: %w", ev.Resource, ev.Key, err)
	}
	return nil
}

// recordDrop, in DeleteResource's transaction, records that lists of
// resource before rev cannot be served.
func recordDrop(tx *bolt.Tx, resource string, rev int64) error {
	key := append(bytes.Clone(keyDroppedPrefix), resource...)
	if err := tx.Bucket(bucketMeta).Put(key, appendInt(nil, rev)); err != nil {
		return fmt.Errorf("record drop: %w", err)
	}
	return nil
}

// checkList reports whether resource can be listed at rev: not before the
// compacted revision nor before DeleteResource dropped it. Called with mu
// held.
func (s *Store) checkList(resource string, rev int64) error {
	oldest := s.hist.compacted
	if d, ok := s.dropped[resource]; ok && d > oldest {
		oldest = d
	}
	if rev < oldest {
		return &CompactedError{Requested: rev, Oldest: oldest}
	}
	return nil
}

// Compact discards the history up to rev, as an etcd compaction does: lists
// at revisions before rev then fail with *CompactedError, lists at rev and
// after still work. Compacting to at most CompactedRevision() does nothing;
// to after CurrentRevision() gives *FutureRevisionError. Watches are not
// affected: they are served from the event log.
//
// The history is deleted in transactions of a bounded size, between which
// writers proceed.
func (s *Store) Compact(rev int64) error {
	return s.compact(rev, nil)
}

// compact is Compact; it gives up, with ErrClosed, once stop is closed.
func (s *Store) compact(rev int64, stop <-chan struct{}) error {
	s.hist.compactMu.Lock()
	defer s.hist.compactMu.Unlock()
	if s.closed.Load() {
		return ErrClosed
	}
	if err := s.flushHistory(); err != nil {
		return err
	}
	if cur := s.rev.Load(); rev > cur {
		return &FutureRevisionError{Requested: rev, Current: cur}
	}
	// Advance the compacted revision before deleting anything, so that a
	// list either checked it before (and its read transaction still sees
	// the history) or fails.
	s.mu.Lock()
	if rev <= s.hist.compacted {
		s.mu.Unlock()
		return nil
	}
	s.hist.compacted = rev
	s.mu.Unlock()

	err := s.db.Update(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		if err := meta.Put(keyCompacted, appendInt(nil, rev)); err != nil {
			return err
		}
		// Drops before the compacted revision no longer matter.
		var gone [][]byte
		c := meta.Cursor()
		for k, v := c.Seek(keyDroppedPrefix); bytes.HasPrefix(k, keyDroppedPrefix); k, v = c.Next() {
			if readInt(v) <= rev {
				gone = append(gone, bytes.Clone(k))
			}
		}
		for _, k := range gone {
			if err := meta.Delete(k); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return dbError("compact: write compacted revision", err)
	}
	var from []byte
	for {
		select {
		case <-stop:
			return ErrClosed
		default:
		}
		keys, next, err := s.compactable(from, rev)
		if err != nil {
			return err
		}
		if len(keys) > 0 {
			err := s.db.Update(func(tx *bolt.Tx) error {
				hb := tx.Bucket(bucketHistory)
				for _, k := range keys {
					if err := hb.Delete(k); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				return dbError("compact: delete history", err)
			}
		}
		if next == nil {
			return nil
		}
		from = next
	}
}

// compactable returns up to compactBatch history keys, from key from on,
// with revisions <= rev, and where to continue (nil at the end).
func (s *Store) compactable(from []byte, rev int64) (keys [][]byte, next []byte, err error) {
	err = s.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketHistory).Cursor()
		k, _ := c.First()
		if from != nil {
			k, _ = c.Seek(from)
		}
		for ; k != nil; k, _ = c.Next() {
			if len(keys) == compactBatch {
				next = bytes.Clone(k)
				return nil
			}
			if r, _, ok := entryRevisions(k); ok && r <= rev {
				keys = append(keys, bytes.Clone(k))
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, dbError("compact: read history", err)
	}
	return keys, next, nil
}

// startCompactor starts the goroutine that compacts the history every
// interval, as kube-apiserver's compactor does etcd: at each tick it
// compacts to the revision it saw at the tick before, so history is kept for
// at least one interval. Close stops it and waits for it.
func (s *Store) startCompactor(interval time.Duration) {
	s.hist.stop = make(chan struct{})
	if interval < 0 {
		return
	}
	s.hist.done.Add(1)
	go func() {
		defer s.hist.done.Done()
		t := time.NewTicker(interval)
		defer t.Stop()
		var last int64
		for {
			select {
			case <-s.hist.stop:
				return
			case <-t.C:
			}
			if last > 0 {
				if err := s.compact(last, s.hist.stop); err != nil && !errors.Is(err, ErrClosed) {
					s.logger.Warn("store: compaction failed", "revision", last, "error", err)
				}
			}
			last = s.rev.Load()
		}
	}()
}

// stopCompactor ends the compactor and waits for it. Called once, by Close.
func (s *Store) stopCompactor() {
	s.hist.stopOnce.Do(func() { close(s.hist.stop) })
	s.hist.done.Wait()
}

// dbError wraps a bbolt error, reporting a closed database as ErrClosed.
func dbError(what string, err error) error {
	if errors.Is(err, bolt.ErrDatabaseNotOpen) {
		return ErrClosed
	}
	return fmt.Errorf("store: %s: %w", what, err)
}

// escapeKey appends key with each 0x00 byte doubled as 0x00 0xff, an
// encoding that keeps the order of keys and of key tuples.
func escapeKey[K string | []byte](b []byte, key K) []byte {
	for i := 0; i < len(key); i++ {
		b = append(b, key[i])
		if key[i] == 0 {
			b = append(b, 0xff)
		}
	}
	return b
}

// appendGroup appends the escaped key and the 0x00 0x00 that end it. The
// history entries of key k of resource r start with appendGroup(appendGroup(nil, r), k).
func appendGroup[K string | []byte](b []byte, key K) []byte {
	return append(escapeKey(b, key), 0, 0)
}

// entryRevisions decodes the revision and previous revision of a history
// key.
func entryRevisions(k []byte) (rev, prev int64, ok bool) {
	if len(k) < 18 {
		return 0, 0, false
	}
	n := len(k) - 16
	return readInt(k[n : n+8]), readInt(k[n+8:]), true
}

// entryKey decodes the object key of a history key from which the resource
// group has been cut; it aliases k unless the key holds 0x00 bytes.
func entryKey(k []byte) ([]byte, bool) {
	n := len(k) - 18
	if n < 0 || k[n] != 0 || k[n+1] != 0 {
		return nil, false
	}
	esc := k[:n]
	if bytes.IndexByte(esc, 0) < 0 {
		return esc, true
	}
	key := make([]byte, 0, n)
	for i := 0; i < n; i++ {
		key = append(key, esc[i])
		if esc[i] == 0 {
			i++ // skip the 0xff
		}
	}
	return key, true
}

func appendInt(b []byte, v int64) []byte {
	return binary.BigEndian.AppendUint64(b, uint64(v))
}

func readInt(b []byte) int64 {
	if len(b) != 8 {
		return 0
	}
	return int64(binary.BigEndian.Uint64(b))
}

// History batches: writing each commit's history entry in its own
// transaction adds a B+tree leaf and its branch pages to every commit, which
// made an overwrite about 75% slower. So the entries of the latest commits
// wait in memory (their values are the events' Prev, shared with the event
// log, not copies) and are written together: by the commit that fills the
// batch, or before anything reads the history bucket (a list at a past
// revision, a compaction) and at Close. The meta historyRevision is written
// only with a batch, so a file whose process died with entries pending
// opens as compacted at its current revision (see openHistory): lists at
// revisions before the crash then answer 410 instead of a wrong state.
const (
	historyBatch      = 256
	historyBatchBytes = 4 << 20
)

// pendingHistory is the history not yet in the file. Guarded by Store.wmu,
// except through, which readers check without it.
type pendingHistory struct {
	events []Event
	bytes  int
	// last is the revision of this store's last commit (at Open, the
	// file's revision).
	last int64
	// through is the revision up to which every commit's history entry is
	// in the file.
	through atomic.Int64
}

// committed records a commit at rev: its entry is in the file (the commit
// wrote the batch) or pending.
func (p *pendingHistory) committed(ev Event, wroteBatch bool) {
	p.last = ev.Revision
	if wroteBatch {
		p.clear(ev.Revision)
		return
	}
	p.add(ev)
}

// full reports whether the next commit should write the batch.
func (p *pendingHistory) full() bool {
	return len(p.events)+1 >= historyBatch || p.bytes >= historyBatchBytes
}

// add records a committed event's history entry, if it has one.
func (p *pendingHistory) add(ev Event) {
	if ev.PrevRevision == 0 {
		if len(p.events) == 0 {
			p.through.Store(ev.Revision)
		}
		return
	}
	p.events = append(p.events, ev)
	p.bytes += len(ev.Prev) + len(ev.Key)
}

// clear forgets the entries once they are in the file, complete up to rev.
func (p *pendingHistory) clear(rev int64) {
	clear(p.events)
	p.events, p.bytes = p.events[:0], 0
	p.through.Store(rev)
}

// write puts the pending entries into tx.
func (p *pendingHistory) write(tx *bolt.Tx) error {
	for i := range p.events {
		if err := putHistory(tx, &p.events[i]); err != nil {
			return err
		}
	}
	return nil
}

// flushHistory writes the pending history to the file, for a reader of the
// history bucket.
func (s *Store) flushHistory() error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.closed.Load() {
		return ErrClosed
	}
	return s.flushHistoryLocked()
}

// flushHistoryLocked is flushHistory with wmu held: the history in the
// file is then complete up to the current revision, and says so.
func (s *Store) flushHistoryLocked() error {
	err := s.db.Update(func(tx *bolt.Tx) error {
		if err := s.pendingHist.write(tx); err != nil {
			return err
		}
		return tx.Bucket(bucketMeta).Put(keyHistoryRevision, appendInt(nil, s.pendingHist.last))
	})
	if err != nil {
		return fmt.Errorf("store: write history: %w", err)
	}
	s.pendingHist.clear(s.pendingHist.last)
	return nil
}

// beginWithHistory starts a read transaction whose revision's history is all
// in the file, for a list at a past revision.
func (s *Store) beginWithHistory() (*bolt.Tx, int64, error) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.closed.Load() {
		return nil, 0, ErrClosed
	}
	if err := s.flushHistoryLocked(); err != nil {
		return nil, 0, err
	}
	return s.begin()
}

// historyBehind reports whether the file's history lacks entries of commits
// a read transaction at rev sees.
func (s *Store) historyBehind(rev int64) bool { return s.pendingHist.through.Load() < rev }
