// Package etcdstore implements store.Interface on etcd (go.etcd.io/etcd/client/v3),
// so that a control plane runs on an existing etcd cluster instead of its
// bbolt file (kube-apiserver's --etcd-servers).
//
// The split follows k3s-io/kine's, turned around: kine serves etcd's client
// API from another backend; this package serves the store's API (the one
// the control plane is written against) from etcd. etcd keeps the objects,
// their revisions and their history; this package keeps what the store's
// semantics add on top, in memory, exactly as the bbolt store does: an
// event log fed by one etcd watch, and the fan-out of its events to the
// store's watchers.
//
// # Layout
//
// An object is the etcd key <prefix>/<resource>/<key> (prefix configurable,
// DefaultPrefix by default): "/registry-fakeplane/apps/deployments/ns/name".
// A resource name is "group/resource" with exactly one slash (the group may
// be empty: "/pods"), as the registry's bucket names are; that is what makes
// a key split back into its resource and key. The value is the object's
// bytes as the control plane wrote them (see Stamping).
//
// # Revisions
//
// Revisions are etcd's: an object's is its ModRevision, a write's is the
// revision of its transaction, a list's is the revision it read at.
// etcd's revisions count the writes of every client and prefix, so this
// store's revisions have gaps; nothing in store.Interface assumes otherwise.
//
// CurrentRevision is the revision up to which the watch has delivered
// every event (the events of this store's prefix, and etcd's progress
// notifications for the rest): as with the bbolt store, every event up to
// CurrentRevision() is in the channels of the live watchers when it
// returns, so a watcher with an empty channel may send a bookmark at it.
// Update returns once the watch has delivered the write, and a list with
// Revision 0 reads at CurrentRevision, so a process sees its own writes at
// once and reads nothing its watchers have not been sent.
//
// CompactedRevision is etcd's compacted revision (lists before it fail with
// *store.CompactedError); Compact compacts etcd, and Config.CompactionInterval
// runs a compactor as kube-apiserver's --etcd-compaction-interval does.
// Watches are served from the in-memory event log, like the bbolt store's:
// WatchCompactedRevision is the oldest revision a watch can start from (the
// revision the store opened at, or the newest evicted event).
//
// # Stamping
//
// etcd assigns a write's revision when it commits, so the bytes stored
// cannot hold it. kube-apiserver stores objects without metadata.resourceVersion
// and sets it from the ModRevision on every read; this store does the same
// with two functions: Write.Stamp runs under this process's writer lock,
// once per commit, with revision 0 (the registry's Stamp writes
// "resourceVersion":"0" at the place the encoder puts it, and checks what
// the write allocates), and the value stored is its output; on every read
// (Get, List items, watch events, the objects Update returns and hands to
// Write.Committed) Config.StampOnRead rewrites that placeholder to the
// object's revision. Without StampOnRead values are returned as stored.
// Write.Committed runs after the commit, under the writer lock, once the
// watch has delivered the write: in revision order for this process's
// writes.
//
// # Differences from the bbolt store
//
//   - A Deleted event carries the object's last stored value (etcd's
//     previous key-value) stamped with the delete's revision, as
//     kube-apiserver's etcd3 watch does, not Write.Value: the two differ
//     only when a delete's final value is not the stored one.
//   - DeleteResource consumes one revision (etcd's range delete); its
//     deletions are not events. Lists at revisions before it are served
//     from etcd's history; watches from before it get *store.CompactedError.
//   - Resources names the resources with at least one key: a resource
//     whose keys were all deleted one by one is not listed.
//   - Bulk runs its function with each write committed on its own: etcd has
//     no transaction that spans reads and writes of many keys the way one
//     bbolt transaction does.
//   - ListOptions.Index is ignored (it is a hint) and a list's Remaining
//     comes from etcd's count of the keys after the page.
//   - A compaction (Compact, the compactor) compacts the whole etcd, every
//     prefix's history, as kube-apiserver's compactor does.
//   - A write costs three etcd round trips (the read that feeds fn, the
//     check before Stamp, the transaction) and the watch's delivery, under
//     this process's writer lock: this process's writes are serialised as
//     the bbolt store's are, but each takes longer.
//
// # Several processes on one etcd
//
// Several stores may share one prefix (several control planes serving one
// cluster): writes are compare-and-swap transactions on ModRevision, and
// every process's watch delivers every process's writes. Config.Observe
// hands them, in revision order, to what a process keeps in memory of the
// objects (the control plane's views), before their revision is published.
// store.Write.Claims keeps a unique thing (a ClusterIP, a node port) to one
// key across processes: each claim is a key outside the objects' range,
// taken and released in the write's own transaction; a write that finds one
// held has its UpdateFunc called again once the watch has delivered the
// holder's write. A Write.Stamp error wrapping store.ErrRetry does the same.
package etcdstore

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/fakeplane/fakeplane/store"
)

// Defaults for Config.
const (
	DefaultPrefix             = "/registry-fakeplane"
	DefaultEventLogSize       = store.DefaultEventLogSize
	DefaultEventLogBytes      = store.DefaultEventLogBytes
	DefaultWatchBuffer        = store.DefaultWatchBuffer
	DefaultCompactionInterval = 5 * time.Minute
	DefaultRequestTimeout     = 30 * time.Second
	DefaultDialTimeout        = 5 * time.Second
)

// progressRetry is how often a reader that waits for the watch to reach a
// revision asks etcd again for a progress notification (etcd ignores the
// request while the watch is catching up).
const progressRetry = 100 * time.Millisecond

// Config configures a Store.
type Config struct {
	// Endpoints are the etcd client URLs (--etcd-servers). Ignored when
	// Client is set.
	Endpoints []string
	// Client, when set, is used instead of a client of Endpoints; Close
	// leaves it open.
	Client *clientv3.Client
	// TLS secures the connections of the client of Endpoints
	// (kube-apiserver's --etcd-cafile, --etcd-certfile and --etcd-keyfile;
	// nil: plain, or the system's roots for an https endpoint).
	TLS *tls.Config
	// Prefix is put before every key, without a trailing slash
	// (--etcd-prefix; "": DefaultPrefix).
	Prefix string
	// StampOnRead turns a value as stored (the output of Write.Stamp at
	// revision 0) into the value at its revision; it runs on every value
	// read, so it must be quick, and must return value unchanged when it
	// holds no placeholder (a value written without a Stamp). nil: values
	// are returned as stored.
	StampOnRead func(value []byte, rev int64) ([]byte, error)
	// EventLogSize and EventLogBytes bound the in-memory event log that
	// watches start from, as store.Options' (0: the defaults).
	EventLogSize  int
	EventLogBytes int64
	// WatchBuffer is the default buffer of a watcher (0:
	// DefaultWatchBuffer).
	WatchBuffer int
	// CompactionInterval is how often etcd is compacted, each time to the
	// revision of the time before, as kube-apiserver's compactor does
	// (0: DefaultCompactionInterval; negative: never).
	CompactionInterval time.Duration
	// RequestTimeout bounds each etcd request (0: DefaultRequestTimeout).
	RequestTimeout time.Duration
	// DialTimeout bounds the first connection (0: DefaultDialTimeout).
	DialTimeout time.Duration
	// Logger receives diagnostics (nil: discard).
	Logger *slog.Logger
	// Observe, when set, is handed every event of the prefix (every
	// process's writes) in revision order, from the watch goroutine,
	// before its revision is published: once CurrentRevision reaches an
	// event's revision, or an Update returns, Observe has returned for
	// it. It must be quick and must not call the store (that waits on the
	// very watch that calls it). The events of a DeleteResource of this
	// process are not events and are not handed to it.
	Observe func(store.Event)
}

// Store is store.Interface on etcd. It is safe for concurrent use.
type Store struct {
	cfg    Config
	cli    *clientv3.Client
	owned  bool // Close closes cli
	root   string
	logger *slog.Logger

	// ctx is canceled by Close: it ends the watch, the compactor and
	// requests under way.
	ctx    context.Context
	cancel context.CancelFunc
	done   sync.WaitGroup // the watch and compactor goroutines

	// wmu serialises this process's writes: Stamp, the commit and
	// Committed run under it.
	wmu sync.Mutex

	// rev is the published revision (CurrentRevision); advanced under mu
	// once every event up to it has been fanned out.
	rev       atomic.Int64
	compacted atomic.Int64 // etcd's compacted revision, as last learned
	closed    atomic.Bool

	mu sync.Mutex
	// advanced is closed and replaced whenever rev advances or the store
	// closes.
	advanced chan struct{}
	log      store.EventLog
	// logCompacted is the oldest revision a watch can start from: every
	// event of this prefix after it is in log.
	logCompacted int64
	dropped      map[string]int64 // resource -> revision DeleteResource dropped it at
	dropping     map[string]bool  // resources whose drop is under way
	watchers     *store.Watchers  // guarded by mu
	// progressN counts the progress notifications the watch received.
	progressN uint64
	// watchCancel ends the etcd watch (a child of ctx) that follow reads.
	watchCancel context.CancelFunc
}

var _ store.Interface = (*Store)(nil)

// Open connects to etcd and starts the watch that feeds the store's
// watchers, from etcd's current revision.
func Open(cfg Config) (*Store, error) { return OpenContext(context.Background(), cfg) }

// OpenContext is Open, given up when ctx is done first (a signal while
// etcd does not answer).
func OpenContext(ctx context.Context, cfg Config) (*Store, error) {
	if cfg.Prefix == "" {
		cfg.Prefix = DefaultPrefix
	}
	cfg.Prefix = strings.TrimSuffix(cfg.Prefix, "/")
	if cfg.EventLogSize <= 0 {
		cfg.EventLogSize = DefaultEventLogSize
	}
	if cfg.EventLogBytes <= 0 {
		cfg.EventLogBytes = DefaultEventLogBytes
	}
	if cfg.WatchBuffer <= 0 {
		cfg.WatchBuffer = DefaultWatchBuffer
	}
	if cfg.CompactionInterval == 0 {
		cfg.CompactionInterval = DefaultCompactionInterval
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = DefaultRequestTimeout
	}
	if cfg.DialTimeout <= 0 {
		cfg.DialTimeout = DefaultDialTimeout
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	s := &Store{
		cfg:      cfg,
		cli:      cfg.Client,
		root:     cfg.Prefix + "/",
		logger:   logger,
		advanced: make(chan struct{}),
		log:      store.EventLog{Max: cfg.EventLogSize, MaxBytes: cfg.EventLogBytes},
		dropped:  make(map[string]int64),
		dropping: make(map[string]bool),
	}
	s.watchers = store.NewWatchers(&s.mu, logger)
	if s.cli == nil {
		if len(cfg.Endpoints) == 0 {
			return nil, errors.New("etcdstore: no etcd endpoints")
		}
		cli, err := clientv3.New(clientv3.Config{
			Endpoints:   cfg.Endpoints,
			DialTimeout: cfg.DialTimeout,
			TLS:         cfg.TLS,
			Logger:      zap.NewNop(),
		})
		if err != nil {
			return nil, fmt.Errorf("etcdstore: connect to %s: %w", strings.Join(cfg.Endpoints, ","), err)
		}
		s.cli, s.owned = cli, true
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	// While it opens, the store's requests end with ctx.
	detach := context.AfterFunc(ctx, s.cancel)
	defer detach()
	if _, err := s.probeCompacted(); err != nil {
		s.abandon()
		if ctx.Err() != nil {
			return nil, fmt.Errorf("etcdstore: connect to %s: %w", strings.Join(cfg.Endpoints, ","), context.Cause(ctx))
		}
		return nil, err
	}
	wch, rev, err := s.startWatch()
	if err != nil {
		s.abandon()
		return nil, err
	}
	s.rev.Store(rev)
	s.logCompacted = rev
	s.done.Add(1)
	go s.follow(wch)
	// Once etcd reports progress, the watch has caught up (etcd answers a
	// progress request only then): from there on only a watch that falls
	// behind by a whole compaction can lose events.
	if err := s.awaitProgress(); err != nil {
		s.Close()
		return nil, fmt.Errorf("etcdstore: catch up with etcd: %w", err)
	}
	s.startCompactor()
	logger.Debug("etcdstore: opened", "endpoints", cfg.Endpoints, "prefix", cfg.Prefix, "revision", rev)
	return s, nil
}

// abandon releases what a failed Open made.
func (s *Store) abandon() {
	s.cancel()
	if s.owned {
		s.cli.Close()
	}
}

// Close stops the watchers (their Err becomes store.ErrClosed), the watch
// and the compactor, and closes the client if Open made it. Calls after
// the first return nil.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed.Swap(true) {
		s.mu.Unlock()
		return nil
	}
	s.watchers.CloseAll(store.ErrClosed)
	s.wake()
	s.mu.Unlock()
	// Ending the context ends the requests under way (a commit waiting
	// for etcd returns store.ErrClosed), the watch and the compactor;
	// then a commit still under the writer lock is waited for.
	s.cancel()
	s.wmu.Lock()
	//nolint:staticcheck // an empty critical section: waiting for the writer is the point
	s.wmu.Unlock()
	s.done.Wait()
	if s.owned {
		if err := s.cli.Close(); err != nil && !errors.Is(err, context.Canceled) {
			return fmt.Errorf("etcdstore: close client: %w", err)
		}
	}
	return nil
}

// Probe reads the key "health" under the prefix, as kube-apiserver's
// checks of etcd do, and returns their error when the read fails ("error
// getting data from etcd: ...").
func (s *Store) Probe(ctx context.Context) error {
	if s.closed.Load() {
		return errors.New("closed")
	}
	if _, err := s.cli.Get(ctx, path.Join("/", s.cfg.Prefix, "health")); err != nil {
		return fmt.Errorf("error getting data from etcd: %w", err)
	}
	return nil
}

// CurrentRevision returns the revision up to which every event has been
// delivered to the live watchers' channels (see the package doc).
func (s *Store) CurrentRevision() int64 { return s.rev.Load() }

// CompactedRevision returns etcd's compacted revision, as last learned
// (at Open, by Compact, or from a list that found it moved): lists at
// older revisions get *store.CompactedError. 0 before any compaction.
func (s *Store) CompactedRevision() int64 { return s.compacted.Load() }

// opCtx returns the context of one etcd request.
func (s *Store) opCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(s.ctx, s.cfg.RequestTimeout)
}

// key returns the etcd key of an object.
func (s *Store) key(resource, key string) string { return s.root + resource + "/" + key }

// resourcePrefix returns the etcd key prefix of a resource's objects.
func (s *Store) resourcePrefix(resource string) string { return s.root + resource + "/" }

// metaKey returns a key outside the objects' range ("<prefix>#name"),
// which the store only reads (for revisions).
func (s *Store) metaKey(name string) string { return s.cfg.Prefix + "#" + name }

// split returns the resource and key of an etcd key under the prefix.
func (s *Store) split(etcdKey string) (resource, key string, ok bool) {
	rest, ok := strings.CutPrefix(etcdKey, s.root)
	if !ok {
		return "", "", false
	}
	slash := strings.IndexByte(rest, '/')
	if slash < 0 {
		return "", "", false
	}
	end := strings.IndexByte(rest[slash+1:], '/')
	if end < 0 {
		return "", "", false
	}
	end += slash + 1
	return rest[:end], rest[end+1:], true
}

// checkResource rejects a resource name the key layout cannot hold.
func checkResource(resource string) error {
	if strings.Count(resource, "/") != 1 {
		return fmt.Errorf("etcdstore: resource %q is not group/resource (one slash)", resource)
	}
	return nil
}

// stamp is Config.StampOnRead, or the identity.
func (s *Store) stamp(value []byte, rev int64) ([]byte, error) {
	if s.cfg.StampOnRead == nil {
		return value, nil
	}
	return s.cfg.StampOnRead(value, rev)
}

// etcdError maps an etcd error: a canceled store context is ErrClosed.
func (s *Store) etcdError(what string, err error) error {
	if s.closed.Load() && (errors.Is(err, context.Canceled) || s.ctx.Err() != nil) {
		return store.ErrClosed
	}
	return fmt.Errorf("etcdstore: %s: %w", what, err)
}

// Get returns the object at key, or store.ErrNotFound. It reads etcd's
// latest state, then waits until the watch has delivered the object's
// revision, so that CurrentRevision() is at least its Revision.
func (s *Store) Get(resource, key string) (*store.Object, error) {
	if s.closed.Load() {
		return nil, store.ErrClosed
	}
	if err := checkResource(resource); err != nil {
		return nil, err
	}
	obj, err := s.get(resource, key)
	if err != nil {
		return nil, err
	}
	if err := s.waitPublished(obj.Revision); err != nil {
		return nil, err
	}
	return obj, nil
}

// get reads one object from etcd.
func (s *Store) get(resource, key string) (*store.Object, error) {
	ctx, cancel := s.opCtx()
	defer cancel()
	resp, err := s.cli.Get(ctx, s.key(resource, key))
	if err != nil {
		return nil, s.etcdError(fmt.Sprintf("get %s %q", resource, key), err)
	}
	if len(resp.Kvs) == 0 {
		return nil, store.ErrNotFound
	}
	kv := resp.Kvs[0]
	v, err := s.stamp(kv.Value, kv.ModRevision)
	if err != nil {
		return nil, fmt.Errorf("etcdstore: %s %q at %d: %w", resource, key, kv.ModRevision, err)
	}
	return &store.Object{Key: key, Value: v, Revision: kv.ModRevision}, nil
}

// Update computes the next value of key with fn and commits it if the key
// is still at the revision fn saw (an etcd transaction comparing its
// ModRevision, or its absence), calling fn again otherwise; see
// store.Interface and store.Store.Update for the contract. Write.Stamp is
// called at revision 0 (see the package doc) under the writer lock, once
// per commit; Write.Committed once the watch has delivered the write.
func (s *Store) Update(resource, key string, fn store.UpdateFunc) (prev, cur *store.Object, err error) {
	if err := checkResource(resource); err != nil {
		return nil, nil, err
	}
	for {
		seen, err := s.Get(resource, key)
		if errors.Is(err, store.ErrNotFound) {
			seen = nil
		} else if err != nil {
			return nil, nil, err
		}
		w, err := fn(seen)
		if errors.Is(err, store.ErrUnchanged) {
			return seen, seen, nil
		}
		if err != nil {
			return nil, nil, err
		}
		prev, cur, err := s.commit(resource, key, seen, w)
		if errors.Is(err, errStale) {
			continue
		}
		return prev, cur, err
	}
}

// errStale says the key changed after the UpdateFunc read it.
var errStale = errors.New("etcdstore: key changed since it was read")

// commit writes w if key is still as seen (nil: absent), under the writer
// lock; errStale otherwise.
func (s *Store) commit(resource, key string, seen *store.Object, w store.Write) (prev, cur *store.Object, err error) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.closed.Load() {
		return nil, nil, store.ErrClosed
	}
	ekey := s.key(resource, key)
	var seenRev int64
	cmp := clientv3.Compare(clientv3.CreateRevision(ekey), "=", 0)
	if seen != nil {
		seenRev = seen.Revision
		cmp = clientv3.Compare(clientv3.ModRevision(ekey), "=", seenRev)
	}
	// Stamp runs only for a write that is about to commit (it may act on
	// the write, as the registry's unserves a deleted CRD): check first
	// that no write has landed since fn's read. Writes of this process
	// wait for wmu, so only another process can still get in between,
	// which the transaction's comparison catches.
	ctx, cancel := s.opCtx()
	defer cancel()
	resp, err := s.cli.Get(ctx, ekey, clientv3.WithKeysOnly())
	if err != nil {
		return nil, nil, s.etcdError(fmt.Sprintf("read %s %q", resource, key), err)
	}
	var nowRev int64
	if len(resp.Kvs) > 0 {
		nowRev = resp.Kvs[0].ModRevision
	}
	if nowRev != seenRev {
		return nil, nil, errStale
	}
	if w.Delete && seen == nil {
		return nil, nil, store.ErrNotFound
	}
	value := w.Value
	if w.Stamp != nil {
		if value, err = w.Stamp(w.Value, 0); err != nil {
			if errors.Is(err, store.ErrRetry) {
				return nil, nil, errStale
			}
			return nil, nil, err
		}
	}
	op := clientv3.OpPut(ekey, string(value))
	if w.Delete {
		op = clientv3.OpDelete(ekey)
	}
	cmps, ops := []clientv3.Cmp{cmp}, []clientv3.Op{op}
	if w.Claims != nil {
		ccmps, cops, err := s.claimOps(ctx, resource, key, w.Claims)
		if err != nil {
			return nil, nil, err
		}
		cmps, ops = append(cmps, ccmps...), append(ops, cops...)
	}
	txn, err := s.cli.Txn(ctx).If(cmps...).Then(ops...).Commit()
	if err != nil {
		return nil, nil, s.etcdError(fmt.Sprintf("commit %s %q", resource, key), err)
	}
	if !txn.Succeeded {
		// The key changed, or another key holds a claim: once the watch
		// has delivered what etcd had then, fn sees the holder's write.
		if err := s.waitPublished(txn.Header.Revision); err != nil {
			return nil, nil, err
		}
		return nil, nil, errStale
	}
	rev := txn.Header.Revision
	if err := s.waitPublished(rev); err != nil {
		return nil, nil, fmt.Errorf("etcdstore: %s %q committed at revision %d: %w", resource, key, rev, err)
	}
	stamped, err := s.stamp(value, rev)
	if err != nil {
		return nil, nil, fmt.Errorf("etcdstore: %s %q at %d: %w", resource, key, rev, err)
	}
	if seen != nil {
		prev = &store.Object{Key: seen.Key, Value: bytes.Clone(seen.Value), Revision: seen.Revision}
	}
	cur = &store.Object{Key: key, Value: stamped, Revision: rev}
	if w.Committed != nil {
		w.Committed(cur)
	}
	return prev, cur, nil
}

// claimOps returns the comparisons and operations that make claims what
// key holds (store.Write.Claims): each claim is the key
// <prefix>#claim/<claim>, whose value names its holder, and the list of a
// key's claims is kept at <prefix>#claims/<resource>/<key>. Both are
// outside the objects' range, so they are not events. The transaction
// fails if the list changed since it was read here (another process wrote
// the key) or if a claim the key did not hold is held.
func (s *Store) claimOps(ctx context.Context, resource, key string, claims []string) ([]clientv3.Cmp, []clientv3.Op, error) {
	listKey := s.metaKey("claims/" + resource + "/" + key)
	resp, err := s.cli.Get(ctx, listKey)
	if err != nil {
		return nil, nil, s.etcdError(fmt.Sprintf("read the claims of %s %q", resource, key), err)
	}
	var held []string
	cmps := []clientv3.Cmp{clientv3.Compare(clientv3.CreateRevision(listKey), "=", 0)}
	if len(resp.Kvs) > 0 {
		held = strings.Split(string(resp.Kvs[0].Value), "\n")
		cmps[0] = clientv3.Compare(clientv3.ModRevision(listKey), "=", resp.Kvs[0].ModRevision)
	}
	holder := resource + "/" + key
	var ops []clientv3.Op
	for _, c := range claims {
		if !slices.Contains(held, c) {
			ck := s.metaKey("claim/" + c)
			cmps = append(cmps, clientv3.Compare(clientv3.CreateRevision(ck), "=", 0))
			ops = append(ops, clientv3.OpPut(ck, holder))
		}
	}
	for _, c := range held {
		if !slices.Contains(claims, c) {
			ops = append(ops, clientv3.OpDelete(s.metaKey("claim/"+c)))
		}
	}
	if len(claims) == 0 {
		if len(held) > 0 {
			ops = append(ops, clientv3.OpDelete(listKey))
		}
	} else {
		ops = append(ops, clientv3.OpPut(listKey, strings.Join(claims, "\n")))
	}
	return cmps, ops, nil
}

// Bulk runs fn. Unlike the bbolt store's, it does not gather fn's writes
// into one transaction: each commits on its own, when fn makes it, and is
// seen by watchers at once. The control plane uses Bulk for its bootstrap
// objects, where it only saves time.
func (s *Store) Bulk(fn func() error) error {
	if s.closed.Load() {
		return store.ErrClosed
	}
	return fn()
}

// DeleteResource deletes every key of a resource in one etcd range delete.
// Its deletions are not events; watches from before it get
// *store.CompactedError. Existing watchers stay open. Deleting a resource
// with no keys is not an error.
func (s *Store) DeleteResource(resource string) error {
	if err := checkResource(resource); err != nil {
		return err
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.closed.Load() {
		return store.ErrClosed
	}
	// The watch skips the range delete's events while the drop is under
	// way: this process's other writes wait for wmu, so the deletions of
	// the resource it sees meanwhile are the drop's.
	s.mu.Lock()
	s.dropping[resource] = true
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.dropping, resource)
		s.mu.Unlock()
	}()
	ctx, cancel := s.opCtx()
	defer cancel()
	resp, err := s.cli.Delete(ctx, s.resourcePrefix(resource), clientv3.WithPrefix())
	if err != nil {
		return s.etcdError("delete resource "+resource, err)
	}
	if resp.Deleted == 0 {
		return nil
	}
	rev := resp.Header.Revision
	s.mu.Lock()
	s.dropped[resource] = rev
	s.mu.Unlock()
	if err := s.waitPublished(rev); err != nil {
		return fmt.Errorf("etcdstore: delete resource %s at revision %d: %w", resource, rev, err)
	}
	return nil
}

// Resources returns the names of the resources that have at least one key,
// sorted. It reads one key per resource.
func (s *Store) Resources() ([]string, error) {
	if s.closed.Load() {
		return nil, store.ErrClosed
	}
	ctx, cancel := s.opCtx()
	defer cancel()
	var names []string
	start, end := s.root, clientv3.GetPrefixRangeEnd(s.root)
	for {
		resp, err := s.cli.Get(ctx, start, clientv3.WithRange(end), clientv3.WithLimit(1), clientv3.WithKeysOnly())
		if err != nil {
			return nil, s.etcdError("resources", err)
		}
		if len(resp.Kvs) == 0 {
			break
		}
		k := string(resp.Kvs[0].Key)
		resource, _, ok := s.split(k)
		if !ok {
			start = k + "\x00"
			continue
		}
		names = append(names, resource)
		// '0' follows '/': the first key after all of the resource's.
		start = s.root + resource + "0"
	}
	slices.Sort(names)
	return names, nil
}

// Compact compacts etcd to rev, as kube-apiserver's compactor does: lists
// at revisions before rev then fail with *store.CompactedError. Compacting
// to at most the compacted revision does nothing; to a revision etcd has
// not reached gives *store.FutureRevisionError. Watches are served from the
// event log and are not affected.
func (s *Store) Compact(rev int64) error {
	if s.closed.Load() {
		return store.ErrClosed
	}
	ctx, cancel := s.opCtx()
	defer cancel()
	_, err := s.cli.Compact(ctx, rev)
	switch {
	case errors.Is(err, rpctypes.ErrCompacted):
		_, err := s.probeCompacted()
		return err
	case errors.Is(err, rpctypes.ErrFutureRev):
		return &store.FutureRevisionError{Requested: rev, Current: s.rev.Load()}
	case err != nil:
		return s.etcdError(fmt.Sprintf("compact to %d", rev), err)
	}
	s.raiseCompacted(rev)
	return nil
}

// raiseCompacted records a compacted revision learned.
func (s *Store) raiseCompacted(rev int64) {
	for {
		old := s.compacted.Load()
		if rev <= old || s.compacted.CompareAndSwap(old, rev) {
			return
		}
	}
}

// probeCompacted learns etcd's compacted revision, which etcd's API does
// not report: it is the oldest revision a read can be served at, found by
// a binary search of reads at revisions (a few dozen tiny requests).
func (s *Store) probeCompacted() (int64, error) {
	ctx, cancel := s.opCtx()
	defer cancel()
	key := s.metaKey("compaction-probe")
	readable := func(rev int64) (bool, int64, error) {
		resp, err := s.cli.Get(ctx, key, clientv3.WithRev(rev), clientv3.WithCountOnly())
		if errors.Is(err, rpctypes.ErrCompacted) {
			return false, 0, nil
		}
		if err != nil {
			return false, 0, s.etcdError("probe the compacted revision", err)
		}
		return true, resp.Header.Revision, nil
	}
	lo := max(s.compacted.Load(), 1)
	ok, _, err := readable(lo)
	if err != nil {
		return 0, err
	}
	if ok {
		if lo == 1 {
			return 0, nil
		}
		return lo, nil
	}
	resp, err := s.cli.Get(ctx, key, clientv3.WithCountOnly())
	if err != nil {
		return 0, s.etcdError("probe the compacted revision", err)
	}
	// lo is compacted away, hi is readable.
	hi := resp.Header.Revision
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		ok, _, err := readable(mid)
		if err != nil {
			return 0, err
		}
		if ok {
			hi = mid
		} else {
			lo = mid
		}
	}
	s.raiseCompacted(hi)
	return hi, nil
}

// startCompactor starts the goroutine that compacts etcd every
// Config.CompactionInterval to the revision it saw the time before.
func (s *Store) startCompactor() {
	if s.cfg.CompactionInterval < 0 {
		return
	}
	s.done.Add(1)
	go func() {
		defer s.done.Done()
		t := time.NewTicker(s.cfg.CompactionInterval)
		defer t.Stop()
		var last int64
		for {
			select {
			case <-s.ctx.Done():
				return
			case <-t.C:
			}
			if last > s.compacted.Load() {
				if err := s.Compact(last); err != nil && !errors.Is(err, store.ErrClosed) {
					s.logger.Warn("etcdstore: compaction failed", "revision", last, "error", err)
				}
			}
			last = s.rev.Load()
		}
	}()
}

// waitPublished waits until the watch has delivered every event up to rev
// (the store's own writes and reads of its prefix: their events are on
// their way), or the request timeout.
func (s *Store) waitPublished(rev int64) error {
	if s.rev.Load() >= rev {
		return nil
	}
	return s.wait(rev, false)
}

// sync waits until CurrentRevision reaches rev, asking etcd for progress
// notifications: rev need not be the revision of an event of this prefix.
// A revision etcd has not reached gives *store.FutureRevisionError.
func (s *Store) sync(rev int64) error {
	if s.rev.Load() >= rev {
		return nil
	}
	ctx, cancel := s.opCtx()
	resp, err := s.cli.Get(ctx, s.metaKey("sync"), clientv3.WithCountOnly())
	cancel()
	if err != nil {
		return s.etcdError("read the current revision", err)
	}
	if rev > resp.Header.Revision {
		return &store.FutureRevisionError{Requested: rev, Current: s.rev.Load()}
	}
	return s.wait(rev, true)
}

// wait is waitPublished, asking for progress notifications meanwhile when
// progress is set.
func (s *Store) wait(rev int64, progress bool) error {
	timeout := time.NewTimer(s.cfg.RequestTimeout)
	defer timeout.Stop()
	var retry <-chan time.Time
	if progress {
		t := time.NewTicker(progressRetry)
		defer t.Stop()
		retry = t.C
		s.requestProgress()
	}
	for {
		s.mu.Lock()
		ch := s.advanced
		s.mu.Unlock()
		if s.closed.Load() {
			return store.ErrClosed
		}
		if s.rev.Load() >= rev {
			return nil
		}
		select {
		case <-ch:
		case <-retry:
			s.requestProgress()
		case <-timeout.C:
			return fmt.Errorf("etcdstore: the watch did not reach revision %d in %v (at %d)", rev, s.cfg.RequestTimeout, s.rev.Load())
		}
	}
}

// awaitProgress waits for a progress notification of the watch, asking
// for one until it comes.
func (s *Store) awaitProgress() error {
	timeout := time.NewTimer(s.cfg.RequestTimeout)
	defer timeout.Stop()
	retry := time.NewTicker(progressRetry)
	defer retry.Stop()
	s.mu.Lock()
	n := s.progressN
	s.mu.Unlock()
	s.requestProgress()
	for {
		s.mu.Lock()
		ch, got := s.advanced, s.progressN != n
		s.mu.Unlock()
		if got {
			return nil
		}
		if s.closed.Load() {
			return store.ErrClosed
		}
		select {
		case <-ch:
		case <-retry.C:
			s.requestProgress()
		case <-timeout.C:
			return fmt.Errorf("etcdstore: no progress notification from etcd in %v", s.cfg.RequestTimeout)
		}
	}
}

// requestProgress asks etcd to tell the store's watch the revision it has
// sent every event up to.
func (s *Store) requestProgress() {
	// The request goes to the watch stream of the store's context, the
	// one its watch runs on.
	if err := s.cli.RequestProgress(s.ctx); err != nil && s.ctx.Err() == nil {
		s.logger.Debug("etcdstore: request progress", "error", err)
	}
}
