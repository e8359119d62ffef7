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
// overwrites or deletes an object also keeps the value it replaces, in the
// history bucket of the bbolt file, keyed by resource and the revision of
// the write:
//
//	historyLog/<resource> 0x00 0x00 <revision> = <previous revision> <key> <previous value>
//
// (resource escaped with 0x00 -> 0x00 0xff, revisions as 8 big-endian
// bytes, key preceded by its length as a uvarint). A write that creates a
// key keeps nothing. Each resource's entries are append-only: a batch of
// entries fills the last leaf of each resource it wrote to and fresh pages
// after it (FillPercent 1), so it touches a leaf or so per resource, where a
// bucket ordered by object key took one leaf per entry.
//
// The value of key k at revision R is then:
//   - if k's first entry with a revision > R has a previous revision <= R,
//     that entry's previous value (the first write after R replaced it);
//   - otherwise (no entry after R, or the first one replaced a value written
//     after R, by a create after R) k's current value if it was written at or
//     before R, and no value if it is absent or was written after R.
//
// A historical list reads its resource's entries after R once to find each
// changed key's first entry (a changeIndex, which the pages of one list
// share, see changeCache), then merges those keys with the object bucket in
// key order. So the first page costs O(writes to the resource since R) more
// and every page O(log n) per changed key, and lists at recent revisions
// are cheap.
//
// Compact(C) deletes the entries with revisions <= C, from the start of
// each resource's entries: lists at revisions >= C only read entries after them.
// (It keeps those of the revisions the event log still holds, whose cold
// events read their values from them, see coldlog.go, until a later
// compaction.) The
// compacted revision is kept in the meta bucket, as are the revisions at
// which DeleteResource dropped a resource: lists at revisions before either
// fail with *CompactedError. (The history of a dropped resource stays until
// compacted: lists at or after the drop only read entries after it, and it
// has none.)
//
// History is in the file, so it survives a restart, as etcd's survives a
// kube-apiserver restart; a file last written by a store that kept no
// history (a meta historyRevision other than its revision, no history
// bucket at all, or one in the key-ordered layout of earlier versions,
// bucket "history", which is dropped) opens compacted at its current
// revision.
var (
	bucketHistory      = []byte("historyLog")
	bucketOldHistory   = []byte("history")
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
	if tx.Bucket(bucketOldHistory) != nil {
		// The key-ordered layout of earlier versions: its entries cannot
		// be read, so the file's history starts at rev.
		if err := tx.DeleteBucket(bucketOldHistory); err != nil {
			return 0, nil, fmt.Errorf("drop old history bucket: %w", err)
		}
		if err := meta.Delete(keyHistoryRevision); err != nil {
			return 0, nil, fmt.Errorf("drop old history revision: %w", err)
		}
	}
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

// decodeEntry splits the value of a history entry; the slices alias v.
func decodeEntry(v []byte) (prevRev int64, key, prev []byte, ok bool) {
	if len(v) < 8 {
		return 0, nil, nil, false
	}
	prevRev, v = readInt(v[:8]), v[8:]
	if key, v, ok = readBytes(v); !ok {
		return 0, nil, nil, false
	}
	return prevRev, key, v, true
}

// appendGroup appends resource, with each 0x00 byte doubled as 0x00 0xff,
// and the 0x00 0x00 that ends it: the start of the resource's history keys,
// which no other resource's keys start with.
func appendGroup(b []byte, resource string) []byte {
	for i := 0; i < len(resource); i++ {
		b = append(b, resource[i])
		if resource[i] == 0 {
			b = append(b, 0xff)
		}
	}
	return append(b, 0, 0)
}

// entryRevision decodes the revision of a history key.
func entryRevision(k []byte) int64 {
	if len(k) < 10 {
		return 0
	}
	return readInt(k[len(k)-8:])
}

// readBytes reads a uvarint length and that many bytes.
func readBytes(v []byte) (b, rest []byte, ok bool) {
	n, w := binary.Uvarint(v)
	if w <= 0 || uint64(len(v)-w) < n {
		return nil, nil, false
	}
	return v[w : w+int(n)], v[w+int(n):], true
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
	// The cold events of the log read their values back from the history
	// entries of the revisions it holds (see coldlog.go): those stay in
	// the file until a later compaction, past the log's window, and lists
	// below rev fail all the same (checkList).
	keep := rev
	if s.log.HotBytes > 0 {
		keep = min(rev, s.compacted)
	}
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
	for {
		select {
		case <-stop:
			return ErrClosed
		default:
		}
		more, err := s.compactBatch(keep)
		if err != nil {
			return err
		}
		if !more {
			return nil
		}
	}
}

// compactBatch deletes up to compactBatch history entries with revisions
// <= rev, the oldest first, and reports whether some may be left.
func (s *Store) compactBatch(rev int64) (more bool, err error) {
	err = s.db.Update(func(tx *bolt.Tx) error {
		hb := tx.Bucket(bucketHistory)
		var keys [][]byte
		c := hb.Cursor()
		for k, _ := c.First(); k != nil; {
			if entryRevision(k) > rev {
				// Skip the rest of this resource's entries: key 0x00 0x01
				// sorts after its group, before any other.
				next := bytes.Clone(k[:len(k)-8])
				next[len(next)-1] = 1
				k, _ = c.Seek(next)
				continue
			}
			if len(keys) == compactBatch {
				more = true
				break
			}
			keys = append(keys, bytes.Clone(k))
			k, _ = c.Next()
		}
		for _, k := range keys {
			if err := hb.Delete(k); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return false, dbError("compact: delete history", err)
	}
	return more, nil
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
// transaction adds a leaf and its branch pages to every commit. So the
// entries of the latest commits wait in memory (their values are the
// events' Prev, shared with the event log, not copies; they are encoded
// only when written) and are appended together: by the commit that fills
// the batch, or before anything reads the history bucket (a list at a past
// revision, a compaction) and at Close. The meta historyRevision is written
// only with a batch, so a file whose process died with entries pending
// opens as compacted at its current revision (see openHistory): lists at
// revisions before the crash then answer 410 instead of a wrong state.
const (
	historyBatch      = 256
	historyBatchBytes = 4 << 20
	// maxArena bounds the buffer pendingHistory keeps between batches.
	maxArena = 1 << 20
)

// pendingHistory is the history not yet in the file. Guarded by Store.wmu,
// except through, which readers check without it.
type pendingHistory struct {
	entries []pendingEntry
	bytes   int // encoded size of entries
	// arena holds the encoded entries of the batch being written: bbolt
	// reads the bytes Put is given at commit, so they must stay put until
	// then. Reused by the next batch.
	arena []byte
	// last is the revision of this store's last commit (at Open, the
	// file's revision).
	last int64
	// through is the revision up to which every commit's history entry is
	// in the file.
	through atomic.Int64
}

// pendingEntry is what a history entry is encoded from: the fields of its
// event that it needs.
type pendingEntry struct {
	resource, key string
	prev          []byte
	rev, prevRev  int64
}

// entryOf returns ev's history entry; ok is false if it has none (a create).
func entryOf(ev *Event) (e pendingEntry, ok bool) {
	if ev.PrevRevision == 0 {
		return e, false
	}
	return pendingEntry{resource: ev.Resource, key: ev.Key, prev: ev.Prev, rev: ev.Revision, prevRev: ev.PrevRevision}, true
}

// size bounds the encoded size of e's key and value.
func (e *pendingEntry) size() int {
	return 2*len(e.resource) + 2 + 16 + binary.MaxVarintLen64 + len(e.key) + len(e.prev)
}

// appendTo appends the key of e, then its value, and returns the key's
// length.
func (e *pendingEntry) appendTo(b []byte) ([]byte, int) {
	n := len(b)
	b = appendInt(appendGroup(b, e.resource), e.rev)
	klen := len(b) - n
	b = appendInt(b, e.prevRev)
	b = binary.AppendUvarint(b, uint64(len(e.key)))
	b = append(b, e.key...)
	return append(b, e.prev...), klen
}

// committed records a commit: its entry is in the file (the commit wrote
// the batch) or pending.
func (p *pendingHistory) committed(ev *Event, wroteBatch bool) {
	p.last = ev.Revision
	if wroteBatch {
		p.clear(ev.Revision)
		return
	}
	e, ok := entryOf(ev)
	if !ok {
		if len(p.entries) == 0 {
			p.through.Store(ev.Revision)
		}
		return
	}
	p.entries = append(p.entries, e)
	p.bytes += e.size()
}

// full reports whether the next commit should write the batch.
func (p *pendingHistory) full() bool {
	return len(p.entries)+1 >= historyBatch || p.bytes >= historyBatchBytes
}

// clear forgets the entries once they are in the file, complete up to rev.
func (p *pendingHistory) clear(rev int64) {
	clear(p.entries)
	p.entries, p.bytes = p.entries[:0], 0
	p.through.Store(rev)
}

// write appends the pending entries, then that of ev (the commit in tx) if
// ev is not nil, to the history bucket, and marks the history complete up
// to through. shared says tx will write more batches before it commits (a
// Bulk call's): bbolt keeps the values it is given until the commit, so the
// arena of this batch must not be reused by the next.
func (p *pendingHistory) write(tx *bolt.Tx, ev *Event, through int64, shared bool) error {
	last, hasLast := pendingEntry{}, false
	if ev != nil {
		last, hasLast = entryOf(ev)
	}
	if len(p.entries) > 0 || hasLast {
		size := p.bytes
		if hasLast {
			size += last.size()
		}
		b := p.arena[:0]
		if cap(b) < size || shared {
			b = make([]byte, 0, size)
		}
		// Keep a small arena for the next batch; bbolt is done with it
		// once this transaction ends, whichever way.
		p.arena = nil
		if cap(b) <= maxArena && !shared {
			p.arena = b[:0]
		}
		hb := tx.Bucket(bucketHistory)
		// Keys only grow: fill each page, as a split of the right edge
		// leaves the left page as it is for good.
		hb.FillPercent = 1
		put := func(e *pendingEntry) error {
			n := len(b)
			var klen int
			b, klen = e.appendTo(b)
			if err := hb.Put(b[n:n+klen], b[n+klen:]); err != nil {
				return fmt.Errorf("store: history of %s %q: %w", e.resource, e.key, err)
			}
			return nil
		}
		for i := range p.entries {
			if err := put(&p.entries[i]); err != nil {
				return err
			}
		}
		if hasLast {
			if err := put(&last); err != nil {
				return err
			}
		}
	}
	if err := tx.Bucket(bucketMeta).Put(keyHistoryRevision, appendInt(nil, through)); err != nil {
		return fmt.Errorf("store: write history revision: %w", err)
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
	if err := s.flushOpenLocked(); err != nil {
		return err
	}
	err := s.db.Update(func(tx *bolt.Tx) error {
		return s.pendingHist.write(tx, nil, s.pendingHist.last, false)
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
	return s.beginLocked()
}
