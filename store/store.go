package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Defaults for Options.
const (
	DefaultEventLogSize  = 10000
	DefaultEventLogBytes = 64 << 20
	// DefaultEventLogHotBytes is Options.EventLogHotBytes's default: about
	// the newest 1,000 events of objects of 1 KiB keep their bytes in
	// memory, and a watch that starts further back reads the older ones
	// from the file.
	DefaultEventLogHotBytes = 1 << 20
	DefaultWatchBuffer      = 1000
)

// initialMmapSize is the size of the file's first memory map: address
// space only, never written to the file.
const initialMmapSize = 32 << 20

// writeFillPercent is how full bbolt fills a page of an object or index
// bucket before it splits it (bbolt's default is half). Objects are mostly
// created in key order (names of a generator, or by a client one after the
// other) and indexes in term-then-key order, so a page fills from its end and
// is left half empty by the default split; etcd fills its key bucket to
// 90% for the same reason. It halves the pages (and mapped memory) 10,000
// ConfigMaps take.
const writeFillPercent = 0.9

// lockTimeout bounds how long Open waits for another process (or another
// Store in this process) to release the file lock.
const lockTimeout = time.Second

// Layout of the bbolt file: a meta bucket holding the revision counter, and a
// resources bucket holding one nested bucket per resource. A value in a
// resource bucket is the 8-byte big-endian revision that wrote it followed by
// the object bytes.
var (
	bucketMeta      = []byte("meta")
	bucketResources = []byte("resources")
	keyRevision     = []byte("revision")
)

// Options configures a Store.
type Options struct {
	// NoSync skips fsync on commit (and the freelist sync). Much faster;
	// a machine crash may lose recent writes. Meant for tests.
	NoSync bool
	// DeferCommits commits writes in batches, a moment after they are
	// published (see deferred.go): a write is current, read by Get and
	// sent to watchers before it is in the file, and every other read
	// commits what is pending first. A process that dies loses the writes
	// of its last moment, and a failed commit closes the store. For a file
	// that no other process reads and none reopens (a control plane's
	// store without a data directory).
	DeferCommits bool
	// EventLogSize is how many events are kept in memory for watches
	// (0: DefaultEventLogSize). Lists at past revisions use the history in
	// the file instead, until compaction.
	EventLogSize int
	// EventLogBytes bounds the event log in bytes as well: the oldest
	// events are evicted while the keys, values and previous values of the
	// events held add up to more than this, so big objects shorten the
	// log's window (0: DefaultEventLogBytes). The newest event is always
	// kept.
	EventLogBytes int64
	// EventLogHotBytes bounds the bytes of values the event log keeps in
	// memory: only the newest events keep their values and previous values
	// while those add up to at most this (the newest always does); older
	// events keep what identifies them, and a watch that replays them reads
	// their values back from the file (see coldlog.go). It changes nothing
	// a watch receives, only what a replay costs (0:
	// DefaultEventLogHotBytes; negative: all events keep their bytes).
	EventLogHotBytes int64
	// CompactionInterval is how often the history that lists at past
	// revisions (continue tokens) need is compacted, as kube-apiserver
	// compacts etcd (--etcd-compaction-interval): each time to the revision
	// of the time before, so that history is kept for at least one
	// interval (0: DefaultCompactionInterval; negative: never, see
	// Compact).
	CompactionInterval time.Duration
	// WatchBuffer is the default buffer of a watcher (see Watchers)
	// (0: DefaultWatchBuffer).
	WatchBuffer int
	// Logger receives diagnostics (nil: discard).
	Logger *slog.Logger
	// deferDelay replaces deferredCommitDelay when set (for tests).
	deferDelay time.Duration
	// IndexTerms, when set, turns on the index (see index.go): it returns
	// the index terms of a stored value, for a write whose Write.Index is
	// nil and to index a file that was written without an index. Without
	// it, ListOptions.Index is ignored.
	IndexTerms func(resource string, value []byte) []string
}

// Store is a revisioned object store backed by one bbolt file. It is safe for
// concurrent use: writes are serialised, reads run concurrently with them.
type Store struct {
	db     *bolt.DB
	opts   Options
	logger *slog.Logger

	// wmu serialises writers: it is held from the start of a write
	// transaction until its event is published.
	wmu sync.Mutex

	// preallocated, for a new file, is closed once its preallocation is
	// done (see preallocate); Close waits for it.
	preallocated <-chan struct{}

	// rev is the last published revision. It is only advanced under mu,
	// after the event has been logged and fanned out.
	rev atomic.Int64
	// inflight is the revision being committed (0 when none), so that a
	// reader whose transaction already sees it knows to wait.
	inflight atomic.Int64
	closed   atomic.Bool

	// remaining remembers the Remaining of recent pages (see
	// remainingCache); listSteps counts the keys lists have walked, which
	// tests read to check what paging costs.
	remaining remainingCache
	listSteps atomic.Int64
	// changes keeps what recent lists at past revisions read from the
	// history (see changeCache).
	changes changeCache

	// mu guards the fields below. Readers hold it briefly to line up their
	// read transaction with the event log.
	mu        sync.Mutex
	published *sync.Cond // signalled (with mu) after each commit attempt
	log       EventLog
	compacted int64            // events with revision > compacted are all in log (for lists, see hist)
	dropped   map[string]int64 // resource -> revision at which DeleteResource dropped it
	watchers  *Watchers        // guarded by mu
	hist      history          // MVCC history for lists at past revisions
	// pendingHist holds the history entries of the latest commits, not yet
	// written to the file. Guarded by wmu.
	pendingHist pendingHistory
	// bulk is the transaction of the Bulk call under way, if any.
	bulk atomic.Pointer[bulkWrite]
	// resourceChanges counts the changes of each resource (string ->
	// *atomic.Int64, see ResourceChanges).
	resourceChanges sync.Map

	// open is the transaction of deferred commits with writes not yet
	// committed (Options.DeferCommits), nil when there is none. It is
	// changed with wmu held, and cleared only once its commit is done, so
	// a reader that loads nil without wmu knows the file holds every
	// published write.
	open atomic.Pointer[openWrite]
	// flushKick wakes the flusher when a transaction opens; flushStop ends
	// it, and flushDone is closed when it has ended (see startFlusher).
	flushKick     chan struct{}
	flushStop     chan struct{}
	flushStopOnce sync.Once
	flushDone     chan struct{}
	// fileClosed is set once Close has run. Guarded by wmu.
	fileClosed bool
}

// Open opens (or creates) the store at path. A file locked by another Store
// makes Open fail after a short timeout instead of hanging.
func Open(path string, opts Options) (*Store, error) {
	if opts.EventLogSize <= 0 {
		opts.EventLogSize = DefaultEventLogSize
	}
	if opts.EventLogBytes <= 0 {
		opts.EventLogBytes = DefaultEventLogBytes
	}
	if opts.EventLogHotBytes == 0 {
		opts.EventLogHotBytes = DefaultEventLogHotBytes
	}
	if opts.CompactionInterval == 0 {
		opts.CompactionInterval = DefaultCompactionInterval
	}
	if opts.WatchBuffer <= 0 {
		opts.WatchBuffer = DefaultWatchBuffer
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	exists, err := checkFile(path)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	copied := !exists && opts.NoSync && createFromEmptyFile(path)
	db, err := bolt.Open(path, 0o600, &bolt.Options{
		Timeout:        lockTimeout,
		NoSync:         opts.NoSync,
		NoGrowSync:     opts.NoSync,
		NoFreelistSync: opts.NoSync,
		FreelistType:   bolt.FreelistMapType,
		// Mapped at this size from the start, the file is not remapped
		// (munmap, mmap, and writers waiting for readers to let go) as
		// the bootstrap objects and the first thousands of objects grow it.
		InitialMmapSize: initialMmapSize,
	})
	if errors.Is(err, bolt.ErrTimeout) {
		return nil, fmt.Errorf("store: open %s: it is locked by another process (another fakeplane on the same data directory?): %w", path, err)
	}
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	if !exists && !copied {
		rememberEmptyFile(db)
	}
	var rev, histCompacted int64
	var dropped map[string]int64
	err = db.Update(func(tx *bolt.Tx) error {
		meta, err := tx.CreateBucketIfNotExists(bucketMeta)
		if err != nil {
			return err
		}
		if _, err := tx.CreateBucketIfNotExists(bucketResources); err != nil {
			return err
		}
		rev = readRevision(meta)
		if histCompacted, dropped, err = openHistory(tx, rev); err != nil {
			return err
		}
		return openIndex(tx, opts.IndexTerms)
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("store: init %s: %w", path, err)
	}
	var preallocated <-chan struct{}
	if !exists {
		preallocated = preallocate(db)
	}
	s := &Store{
		db:        db,
		opts:      opts,
		logger:    logger,
		log:       EventLog{Max: opts.EventLogSize, MaxBytes: opts.EventLogBytes, HotBytes: max(opts.EventLogHotBytes, 0)},
		compacted: rev,
		dropped:   dropped,

		preallocated: preallocated,
	}
	s.published = sync.NewCond(&s.mu)
	s.watchers = NewWatchers(&s.mu, logger)
	s.pendingHist.last = rev
	s.pendingHist.through.Store(rev)
	s.rev.Store(rev)
	s.hist.compacted = histCompacted
	s.startCompactor(opts.CompactionInterval)
	if opts.DeferCommits {
		s.startFlusher()
	}
	logger.Debug("store opened", "path", path, "revision", rev)
	return s, nil
}

// Close stops all watchers (their Err becomes ErrClosed) and the compactor,
// and closes the file. Calls after the first return nil.
func (s *Store) Close() error {
	// The compactor and the flusher may wait for wmu (to write pending
	// history, or commit deferred writes): stop them first.
	s.stopCompactor()
	s.stopFlusher()
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.fileClosed {
		return nil
	}
	s.fileClosed = true
	// A failed commit of deferred writes has closed the store already
	// (see failDeferredLocked), but not its file.
	failed := s.closed.Load()
	openErr := s.flushOpenLocked()
	s.mu.Lock()
	if !s.closed.Swap(true) {
		s.watchers.CloseAll(ErrClosed)
	}
	s.mu.Unlock()
	var flushErr error
	if !failed && openErr == nil {
		flushErr = s.flushHistoryLocked()
	}
	if s.preallocated != nil {
		<-s.preallocated
	}
	if err := s.db.Close(); err != nil {
		return errors.Join(openErr, flushErr, fmt.Errorf("store: close: %w", err))
	}
	return errors.Join(openErr, flushErr)
}

// CurrentRevision returns the revision of the last committed write. Every
// event up to it has been delivered to the channels of live watchers.
func (s *Store) CurrentRevision() int64 {
	return s.rev.Load()
}

// CompactedRevision returns the oldest revision a list can be served at:
// Compact (called by hand or every Options.CompactionInterval) discarded
// the history before it. Lists at older revisions get *CompactedError.
// Watches have their own, usually more recent, limit: WatchCompactedRevision.
func (s *Store) CompactedRevision() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hist.compacted
}

// Get returns the object at key, or ErrNotFound.
func (s *Store) Get(resource, key string) (*Object, error) {
	if obj, ok, err := s.getOpen(resource, key); ok {
		return obj, err
	}
	tx, _, err := s.begin()
	if err != nil {
		return nil, err
	}
	defer s.endRead(tx)
	return getIn(tx, resource, key)
}

// getIn reads key in tx: a copy of its object, or ErrNotFound.
func getIn(tx *bolt.Tx, resource, key string) (*Object, error) {
	b := resourceBucket(tx, resource)
	if b == nil {
		return nil, ErrNotFound
	}
	v := b.Get([]byte(key))
	if v == nil {
		return nil, ErrNotFound
	}
	return decodeObject(key, v), nil
}

// Update computes the next value of key with fn and commits it, retrying
// until the commit lands on the value fn saw.
//
// fn is called outside the writer lock with the key's current value (nil if
// absent). Its write is then committed only if the key is still at the
// revision fn saw; otherwise fn is called again with the newer value. Only
// that check, Write.Stamp and the commit hold the lock, so a slow fn delays
// its own key only.
//
// If fn returns ErrUnchanged, nothing is written and Update returns the
// value fn saw as both prev and cur. Any other error from fn is returned as
// is, with nothing written. Deleting an absent key returns ErrNotFound. On
// success prev is the old object (nil if it was created) and cur the new
// one; for a delete, cur holds the final value from Write.Value.
//
// Each commit consumes one revision and emits one event (Added, Modified or
// Deleted) to the event log and the watchers. fn may read the store and may
// even write other keys.
func (s *Store) Update(resource, key string, fn UpdateFunc) (prev, cur *Object, err error) {
	for {
		seen, err := s.Get(resource, key)
		if errors.Is(err, ErrNotFound) {
			seen = nil
		} else if err != nil {
			return nil, nil, err
		}
		w, err := fn(seen)
		if errors.Is(err, ErrUnchanged) {
			return seen, seen, nil
		}
		if err != nil {
			return nil, nil, err
		}
		var seenRev int64
		if seen != nil {
			seenRev = seen.Revision
		}
		prev, cur, err := s.commit(resource, key, seenRev, w)
		if errors.Is(err, errStale) || errors.Is(err, ErrRetry) {
			continue
		}
		return prev, cur, err
	}
}

// errStale says the key changed after the UpdateFunc read it.
var errStale = errors.New("store: key changed since it was read")

// commit writes w if key is still at revision seenRev (0: absent), holding
// the writer lock. It returns errStale otherwise.
func (s *Store) commit(resource, key string, seenRev int64, w Write) (prev, cur *Object, err error) {
	if b := s.bulk.Load(); b != nil {
		return s.commitBulk(b, resource, key, seenRev, w)
	}
	if s.opts.DeferCommits {
		return s.commitDeferred(resource, key, seenRev, w)
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.closed.Load() {
		return nil, nil, ErrClosed
	}
	tx, err := s.db.Begin(true)
	if err != nil {
		return nil, nil, fmt.Errorf("store: begin write: %w", err)
	}
	defer tx.Rollback()

	rev := s.rev.Load() + 1
	ev, prev, value, flush, err := s.put(tx, resource, key, seenRev, w, rev)
	if err != nil {
		return nil, nil, err
	}
	s.inflight.Store(rev)
	err = tx.Commit()
	if err == nil {
		s.pendingHist.committed(&ev, flush)
	}
	s.mu.Lock()
	s.inflight.Store(0)
	if err == nil {
		s.publish(ev)
	}
	s.published.Broadcast()
	s.mu.Unlock()
	if err != nil {
		return nil, nil, fmt.Errorf("store: commit %s %q: %w", resource, key, noSpace(err))
	}
	return s.committed(prev, key, value, rev, w)
}

// committed finishes a write that landed at rev: it hands cur to
// w.Committed and returns prev and cur as Update does.
func (s *Store) committed(prev *Object, key string, value []byte, rev int64, w Write) (*Object, *Object, error) {
	if prev != nil {
		prev.Value = bytes.Clone(prev.Value) // ev.Prev is shared with watchers
	}
	cur := &Object{Key: key, Value: value, Revision: rev}
	if w.Committed != nil {
		w.Committed(cur)
	}
	return prev, cur, nil
}

// put writes w at rev into the write transaction tx if key is still at
// revision seenRev (errStale otherwise), with the revision counter and the
// history batch when it is full (flush). It returns the event the write
// publishes once tx commits, the previous object and the stored value.
func (s *Store) put(tx *bolt.Tx, resource, key string, seenRev int64, w Write, rev int64) (ev Event, prev *Object, value []byte, flush bool, err error) {
	ev = Event{Resource: resource, Key: key, Revision: rev}
	b := resourceBucket(tx, resource)
	if b != nil {
		b.FillPercent = writeFillPercent
	}
	var prevRev int64
	var prevTerms []byte
	if b != nil {
		if v := b.Get([]byte(key)); v != nil {
			prevRev, prevTerms, _ = decodeRecord(v)
			if prevRev == seenRev {
				prev = decodeObject(key, v)
				ev.Prev = prev.Value
				ev.PrevRevision = prev.Revision
			}
		}
	}
	if prevRev != seenRev {
		return ev, nil, nil, false, errStale
	}

	value = w.Value
	if w.Stamp != nil {
		if value, err = w.Stamp(w.Value, rev); err != nil {
			return ev, nil, nil, false, err
		}
	}
	var terms []string
	if s.opts.IndexTerms != nil && !w.Delete {
		if terms = w.Index; terms == nil {
			terms = s.opts.IndexTerms(resource, value)
		}
	}
	switch {
	case w.Delete:
		if prev == nil {
			return ev, nil, nil, false, ErrNotFound
		}
		ev.Type = Deleted
		ev.Value = bytes.Clone(value)
		err = b.Delete([]byte(key))
	default:
		ev.Type = Modified
		if prev == nil {
			ev.Type = Added
		}
		if b == nil {
			b, err = tx.Bucket(bucketResources).CreateBucketIfNotExists([]byte(resource))
			if err != nil {
				return ev, nil, nil, false, &partialWrite{fmt.Errorf("store: create bucket %s: %w", resource, err)}
			}
			b.FillPercent = writeFillPercent
		}
		rec := encodeValue(rev, terms, value)
		// The event's value is the record's copy of value: bbolt only
		// reads it, and an event's bytes are never modified.
		ev.Value = rec[len(rec)-len(value) : len(rec) : len(rec)]
		err = b.Put([]byte(key), rec)
	}
	if err == nil && s.opts.IndexTerms != nil {
		err = writeIndex(tx, resource, key, prevTerms, terms)
	}
	if err != nil {
		return ev, nil, nil, false, &partialWrite{fmt.Errorf("store: write %s %q: %w", resource, key, err)}
	}
	// History is written in batches (see pendingHistory): this commit
	// writes the pending entries and its own when the batch is full.
	flush = s.pendingHist.full()
	if flush {
		if err := s.pendingHist.write(tx, &ev, rev, s.bulk.Load() != nil); err != nil {
			return ev, nil, nil, false, &partialWrite{err}
		}
	}
	if err := writeRevision(tx.Bucket(bucketMeta), rev); err != nil {
		return ev, nil, nil, false, &partialWrite{fmt.Errorf("store: write revision: %w", err)}
	}
	return ev, prev, value, flush, nil
}

// publish logs ev, fans it out and then makes its revision current, so that
// anyone who reads CurrentRevision() == R finds every event <= R in the
// watchers' channels. Called with mu held.
func (s *Store) publish(ev Event) {
	if evicted, ok := s.log.Add(ev); ok {
		s.compacted = evicted
	}
	s.watchers.FanOut(ev)
	s.resourceChanged(ev.Resource)
	s.rev.Store(ev.Revision)
}

// DeleteResource drops the bucket of a resource with all its objects. It
// emits no events and consumes no revision; lists and watches of that
// resource at revisions before the drop return *CompactedError. Dropping an
// unknown resource is not an error. Existing watchers stay open.
func (s *Store) DeleteResource(resource string) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.closed.Load() {
		return ErrClosed
	}
	if err := s.flushOpenLocked(); err != nil {
		return err
	}
	// Mark history as gone before the bucket is, so no reader rebuilds an
	// old state from an already empty bucket.
	s.mu.Lock()
	drop := s.rev.Load()
	s.dropped[resource] = drop
	s.mu.Unlock()
	err := s.db.Update(func(tx *bolt.Tx) error {
		if err := recordDrop(tx, resource, drop); err != nil {
			return err
		}
		if err := dropIndex(tx, resource); err != nil {
			return err
		}
		err := tx.Bucket(bucketResources).DeleteBucket([]byte(resource))
		if errors.Is(err, bolt.ErrBucketNotFound) {
			return nil
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("store: delete resource %s: %w", resource, err)
	}
	s.resourceChanged(resource)
	return nil
}

// Resources returns the names of the resources that have a bucket, in byte
// order.
func (s *Store) Resources() ([]string, error) {
	tx, _, err := s.begin()
	if err != nil {
		return nil, err
	}
	defer s.endRead(tx)
	var names []string
	err = tx.Bucket(bucketResources).ForEachBucket(func(k []byte) error {
		names = append(names, string(k))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: resources: %w", err)
	}
	return names, nil
}

// begin starts a read transaction and returns it with the revision it sees.
// bbolt makes a commit visible a moment before Update publishes its event;
// begin waits for that, so a reader that sees revision R in the file also
// finds events <= R in the log and CurrentRevision() >= R.
//
// With Options.DeferCommits, it first commits the writes not yet committed
// (see settle); a caller holding wmu calls beginLocked instead.
func (s *Store) begin() (*bolt.Tx, int64, error) {
	return s.beginAfter(s.settle)
}

// beginLocked is begin for a caller that holds wmu.
func (s *Store) beginLocked() (*bolt.Tx, int64, error) {
	return s.beginAfter(s.flushOpenLocked)
}

// beginAfter is begin, committing deferred writes with commitOpen.
func (s *Store) beginAfter(commitOpen func() error) (*bolt.Tx, int64, error) {
	if s.closed.Load() {
		return nil, 0, ErrClosed
	}
	if b := s.bulk.Load(); b != nil {
		return b.tx, b.rev, nil
	}
	if err := commitOpen(); err != nil {
		return nil, 0, err
	}
	return s.beginRead()
}

// beginRead is begin once the file holds every published write.
func (s *Store) beginRead() (*bolt.Tx, int64, error) {
	tx, err := s.db.Begin(false)
	if errors.Is(err, bolt.ErrDatabaseNotOpen) {
		return nil, 0, ErrClosed
	}
	if err != nil {
		return nil, 0, fmt.Errorf("store: begin read: %w", err)
	}
	rev := readRevision(tx.Bucket(bucketMeta))
	if s.rev.Load() >= rev {
		return tx, rev, nil
	}
	s.mu.Lock()
	for s.rev.Load() < rev && s.inflight.Load() == rev {
		s.published.Wait()
	}
	ok := s.rev.Load() >= rev
	s.mu.Unlock()
	if !ok {
		tx.Rollback()
		return nil, 0, fmt.Errorf("store: read saw revision %d, whose commit failed", rev)
	}
	return tx, rev, nil
}

func resourceBucket(tx *bolt.Tx, resource string) *bolt.Bucket {
	return tx.Bucket(bucketResources).Bucket([]byte(resource))
}

func readRevision(meta *bolt.Bucket) int64 {
	v := meta.Get(keyRevision)
	if len(v) != 8 {
		return 0
	}
	return int64(binary.BigEndian.Uint64(v))
}

func writeRevision(meta *bolt.Bucket, rev int64) error {
	return meta.Put(keyRevision, binary.BigEndian.AppendUint64(nil, uint64(rev)))
}

// termsFlag, set in a record's revision, says that the record carries the
// object's index terms (revisions never reach it).
const termsFlag = 1 << 63

// encodeValue makes the record of a value in a resource bucket: the
// revision that writes it, then, with terms (termsFlag set in the
// revision), their length as a uvarint and the terms joined by "\x00",
// then the value.
func encodeValue(rev int64, terms []string, value []byte) []byte {
	if len(terms) == 0 {
		buf := make([]byte, 8, 8+len(value))
		binary.BigEndian.PutUint64(buf, uint64(rev))
		return append(buf, value...)
	}
	n := len(terms) - 1
	for _, t := range terms {
		n += len(t)
	}
	buf := make([]byte, 8, 8+binary.MaxVarintLen64+n+len(value))
	binary.BigEndian.PutUint64(buf, uint64(rev)|termsFlag)
	buf = binary.AppendUvarint(buf, uint64(n))
	for i, t := range terms {
		if i > 0 {
			buf = append(buf, 0)
		}
		buf = append(buf, t...)
	}
	return append(buf, value...)
}

// decodeObject copies a stored value out of bbolt memory.
func decodeObject(key string, v []byte) *Object {
	rev, val := decodeValue(v)
	return &Object{Key: key, Value: bytes.Clone(val), Revision: rev}
}

// decodeValue splits a record; val aliases v.
func decodeValue(v []byte) (rev int64, val []byte) {
	rev, terms, val := decodeRecord(v)
	_ = terms
	return rev, val
}

// decodeRecord splits a record into its revision, its terms (joined by
// "\x00"; nil without) and its value, aliasing v.
func decodeRecord(v []byte) (rev int64, terms, val []byte) {
	if len(v) < 8 {
		return 0, nil, nil
	}
	u := binary.BigEndian.Uint64(v)
	if u&termsFlag == 0 {
		return int64(u), nil, v[8:]
	}
	n, w := binary.Uvarint(v[8:])
	if w <= 0 || uint64(len(v)-8-w) < n {
		return int64(u &^ termsFlag), nil, nil
	}
	at := 8 + w
	return int64(u &^ termsFlag), v[at : at+int(n)], v[at+int(n):]
}
