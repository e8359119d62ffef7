// Package k8sstorage puts fakeplane's store (store.Interface, bbolt in
// *store.Store) behind k8s.io/apiserver's storage.Interface, the interface
// kube-apiserver's registry runs on and that its etcd3 backend implements.
//
// The adapter is the conformance surface of the store: the test suites of
// k8s.io/apiserver/pkg/storage/testing, which upstream runs against etcd3 and
// the watch cache, run against it and check that the store's revisions,
// optimistic writes, historical lists, compaction and ordered watches have
// the semantics kube-apiserver expects of etcd. The server's own write path
// does not go through it.
//
// Mapping. Keys are the registry's keys ("/pods/ns/name" under the resource
// prefix "/pods/"); the adapter keeps them in one resource bucket of the
// store, without the resource prefix ("ns/name", the layout the server uses).
// Values are the codec's encoding of the object with an empty
// resourceVersion, passed through an optional value.Transformer (encryption
// at rest). Resource versions are the store's revisions: an object's is the
// revision that wrote it, a list's the revision it is consistent at.
//
// What etcd offers beyond the store is built here: TTLs (etcd leases) are
// timers that delete the key if it is still at the revision that set them
// (until Close; they do not survive a restart), and progress notifications
// are bookmarks sent when a watcher has seen every event up to the store's
// current revision.
package k8sstorage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/conversion"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/features"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/value"
	utilfeature "k8s.io/apiserver/pkg/util/feature"

	"github.com/fakeplane/fakeplane/store"
)

// DefaultProgressNotifyInterval is Config.ProgressNotifyInterval's default,
// etcd's default --experimental-watch-progress-notify-interval.
const DefaultProgressNotifyInterval = 10 * time.Minute

// Config describes the resource an adapter serves.
type Config struct {
	// Resource is the store's resource bucket ("core/pods"). Required.
	Resource string
	// ResourcePrefix is the prefix of every key ("/pods/"). It must start
	// with "/" and be more than "/"; a missing trailing "/" is added.
	ResourcePrefix string
	// GroupResource names the resource in errors.
	GroupResource schema.GroupResource
	// Codec encodes objects for the store and decodes them back. Required.
	Codec runtime.Codec
	// NewFunc returns a new object of the resource (used for bookmarks);
	// NewListFunc a new list. NewFunc is required for progress
	// notifications and initial-events bookmarks.
	NewFunc, NewListFunc func() runtime.Object
	// Transformer transforms values on their way to and from the store
	// (nil: identity), as kube-apiserver's encryption at rest does.
	Transformer value.Transformer
	// ProgressNotifyInterval is how often a watch opened with
	// ListOptions.ProgressNotify gets a bookmark when idle
	// (0: DefaultProgressNotifyInterval).
	ProgressNotifyInterval time.Duration
	// Logger receives diagnostics (nil: discard).
	Logger *slog.Logger
}

// Storage implements storage.Interface over a store.Interface. It is safe
// for concurrent use. Close stops its TTL timers and watches.
type Storage struct {
	s              store.Interface
	resource       string
	resourcePrefix string
	groupResource  schema.GroupResource
	codec          runtime.Codec
	newFunc        func() runtime.Object
	newListFunc    func() runtime.Object
	versioner      storage.APIObjectVersioner
	logger         *slog.Logger
	progressEvery  time.Duration

	// transformer is swapped by tests (UpdatePrefixTransformer) while
	// other goroutines read it.
	transformer atomic.Pointer[value.Transformer]

	sizeEstimation atomic.Bool

	ttl expiries

	// progress is closed and replaced by RequestWatchProgress: watches
	// with ProgressNotify wait on it.
	progressMu sync.Mutex
	progress   chan struct{}

	// base is canceled by Close, which ends the watches; watches counts
	// their goroutines. mu orders Close against new watches.
	mu         sync.Mutex
	base       context.Context
	cancelBase context.CancelFunc
	watches    sync.WaitGroup
}

var _ storage.Interface = (*Storage)(nil)

// New returns an adapter serving cfg.Resource of s through storage.Interface.
func New(s store.Interface, cfg Config) (*Storage, error) {
	if s == nil {
		return nil, errors.New("k8sstorage: store is nil")
	}
	if cfg.Resource == "" {
		return nil, errors.New("k8sstorage: Resource is empty")
	}
	if cfg.Codec == nil {
		return nil, errors.New("k8sstorage: Codec is nil")
	}
	prefix := cfg.ResourcePrefix
	if prefix == "" || prefix == "/" || !strings.HasPrefix(prefix, "/") {
		return nil, fmt.Errorf("k8sstorage: resource prefix %q must start with / and name a resource", prefix)
	}
	if !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	every := cfg.ProgressNotifyInterval
	if every <= 0 {
		every = DefaultProgressNotifyInterval
	}
	a := &Storage{
		s:              s,
		resource:       cfg.Resource,
		resourcePrefix: prefix,
		groupResource:  cfg.GroupResource,
		codec:          cfg.Codec,
		newFunc:        cfg.NewFunc,
		newListFunc:    cfg.NewListFunc,
		logger:         logger,
		progressEvery:  every,
		progress:       make(chan struct{}),
	}
	a.base, a.cancelBase = context.WithCancel(context.Background())
	t := cfg.Transformer
	if t == nil {
		t = identity{}
	}
	a.transformer.Store(&t)
	return a, nil
}

// Close stops the TTL timers (keys not yet expired then never expire) and
// ends the watches, and waits for both. It does not close the store.
func (a *Storage) Close() {
	a.mu.Lock()
	a.cancelBase()
	a.mu.Unlock()
	a.ttl.close()
	a.watches.Wait()
}

// Versioner implements storage.Interface.
func (a *Storage) Versioner() storage.Versioner { return a.versioner }

// ReadinessCheck implements storage.Interface: the store is local, so the
// adapter is ready as long as it is open.
func (a *Storage) ReadinessCheck() error {
	if a.base.Err() != nil {
		return errors.New("k8sstorage: closed")
	}
	return nil
}

// GetCurrentResourceVersion implements storage.Interface: the store's
// current revision.
func (a *Storage) GetCurrentResourceVersion(ctx context.Context) (uint64, error) {
	rev := a.s.CurrentRevision()
	if rev == 0 {
		return 0, errors.New("the current resource version must be greater than 0")
	}
	return uint64(rev), nil
}

// CompactRevision implements storage.Interface: the store's compacted
// revision (lists before it fail), 0 before the first compaction.
func (a *Storage) CompactRevision() int64 { return a.s.CompactedRevision() }

// EnableResourceSizeEstimation implements storage.Interface: Stats then
// reports the average size of the stored values too. The adapter reads the
// sizes from the store and does not need getKeys.
func (a *Storage) EnableResourceSizeEstimation(getKeys storage.KeysFunc) error {
	if getKeys == nil {
		return errors.New("KeysFunc cannot be nil")
	}
	if a.sizeEstimation.Swap(true) {
		return errors.New("resourceSizeEstimator already enabled")
	}
	return nil
}

// Stats implements storage.Interface: the number of objects of the
// resource and, with size estimation enabled, their average stored size.
func (a *Storage) Stats(ctx context.Context) (storage.Stats, error) {
	if !a.sizeEstimation.Load() {
		res, err := a.s.List(a.resource, store.ListOptions{Limit: 1})
		if err != nil {
			return storage.Stats{}, a.storeError(err, a.resourcePrefix)
		}
		return storage.Stats{ObjectCount: int64(len(res.Items)) + res.Remaining}, nil
	}
	var count, size int64
	_, err := a.s.List(a.resource, store.ListOptions{Filter: func(o store.Object) bool {
		count++
		size += int64(len(o.Value))
		return false
	}})
	if err != nil {
		return storage.Stats{}, a.storeError(err, a.resourcePrefix)
	}
	st := storage.Stats{ObjectCount: count}
	if count > 0 {
		st.EstimatedAverageObjectSizeBytes = size / count
	}
	return st, nil
}

// RequestWatchProgress implements storage.Interface: every watch opened
// with ProgressNotify sends a bookmark as soon as it has seen every event up
// to the store's current revision.
func (a *Storage) RequestWatchProgress(ctx context.Context) error {
	a.progressMu.Lock()
	close(a.progress)
	a.progress = make(chan struct{})
	a.progressMu.Unlock()
	return nil
}

// progressRequested returns the channel the next RequestWatchProgress
// closes.
func (a *Storage) progressRequested() <-chan struct{} {
	a.progressMu.Lock()
	defer a.progressMu.Unlock()
	return a.progress
}

// Get implements storage.Interface.
func (a *Storage) Get(ctx context.Context, key string, opts storage.GetOptions, out runtime.Object) error {
	full, skey, err := a.prepareKey(key, false)
	if err != nil {
		return err
	}
	minRV, err := a.parseMinimumResourceVersion(opts.ResourceVersion)
	if err != nil {
		return err
	}
	var obj *store.Object
	for {
		// The read sees at least the revision current before it began.
		rev := a.s.CurrentRevision()
		obj, err = a.s.Get(a.resource, skey)
		if minRV <= uint64(rev) {
			break
		}
		if now := a.s.CurrentRevision(); minRV > uint64(now) {
			return storage.NewTooLargeResourceVersionError(minRV, uint64(now), 0)
		}
	}
	if errors.Is(err, store.ErrNotFound) {
		if opts.IgnoreNotFound {
			return runtime.SetZeroValue(out)
		}
		return storage.NewKeyNotFoundError(full, 0)
	}
	if err != nil {
		return a.storeError(err, full)
	}
	data, _, err := a.transformFromStorage(ctx, obj.Value, full)
	if err != nil {
		if c, ok := asCorrupt(err); ok {
			return storage.NewCorruptObjError(full, c)
		}
		return storage.NewInternalError(err)
	}
	if err := a.decode(data, out, obj.Revision); err != nil {
		if c, ok := asCorrupt(&undecodable{err}); ok {
			return storage.NewCorruptObjError(full, c)
		}
		return err
	}
	return nil
}

// Create implements storage.Interface.
func (a *Storage) Create(ctx context.Context, key string, obj, out runtime.Object, ttl uint64) error {
	full, skey, err := a.prepareKey(key, false)
	if err != nil {
		return err
	}
	if version, err := a.versioner.ObjectResourceVersion(obj); err == nil && version != 0 {
		return storage.ErrResourceVersionSetOnCreate
	}
	if err := a.versioner.PrepareObjectForStorage(obj); err != nil {
		return fmt.Errorf("PrepareObjectForStorage failed: %w", err)
	}
	data, err := runtime.Encode(a.codec, obj)
	if err != nil {
		return err
	}
	stored, err := a.transformToStorage(ctx, data, full)
	if err != nil {
		return storage.NewInternalError(err)
	}
	_, cur, err := a.s.Update(a.resource, skey, func(cur *store.Object) (store.Write, error) {
		if cur != nil {
			return store.Write{}, storage.NewKeyExistsError(full, 0)
		}
		return store.Write{Value: stored}, nil
	})
	if err != nil {
		return a.storeError(err, full)
	}
	if ttl != 0 {
		a.expireAfter(skey, cur.Revision, ttl)
	}
	if out != nil {
		return a.decode(data, out, cur.Revision)
	}
	return nil
}

// Delete implements storage.Interface. The suggestion cachedExistingObject
// is not used: the store hands the delete the current object, with which
// preconditions and validateDeletion are checked, and calls it again if the
// object changes before the delete commits.
func (a *Storage) Delete(ctx context.Context, key string, out runtime.Object, preconditions *storage.Preconditions,
	validateDeletion storage.ValidateObjectFunc, cachedExistingObject runtime.Object, opts storage.DeleteOptions) error {
	full, skey, err := a.prepareKey(key, false)
	if err != nil {
		return err
	}
	v, err := conversion.EnforcePtr(out)
	if err != nil {
		return fmt.Errorf("unable to convert output object to pointer: %w", err)
	}
	expectCorrupt := opts.ExpectTransformOrDecodeError &&
		utilfeature.DefaultFeatureGate.Enabled(features.AllowUnsafeMalformedObjectDeletion)
	var deleted *objState
	_, cur, err := a.s.Update(a.resource, skey, func(cur *store.Object) (store.Write, error) {
		st, err := a.getState(ctx, cur, full, v, false, expectCorrupt)
		if err != nil {
			return store.Write{}, err
		}
		if preconditions != nil {
			if err := preconditions.Check(full, st.obj); err != nil {
				return store.Write{}, err
			}
		}
		if err := validateDeletion(ctx, st.obj); err != nil {
			return store.Write{}, err
		}
		deleted = st
		return store.Write{Value: cur.Value, Delete: true}, nil
	})
	if err != nil {
		return a.storeError(err, full)
	}
	if expectCorrupt {
		return nil
	}
	// The deleted object, at the revision of its deletion.
	return a.decode(deleted.data, out, cur.Revision)
}

// GuaranteedUpdate implements storage.Interface. The store calls tryUpdate
// with the current object and commits its result only if the object is
// still the one tryUpdate saw, calling it again otherwise; the suggestion
// cachedExistingObject is not used. A result that encodes to the stored
// bytes (and that the transformer does not report stale) writes nothing.
func (a *Storage) GuaranteedUpdate(ctx context.Context, key string, destination runtime.Object, ignoreNotFound bool,
	preconditions *storage.Preconditions, tryUpdate storage.UpdateFunc, cachedExistingObject runtime.Object) error {
	full, skey, err := a.prepareKey(key, false)
	if err != nil {
		return err
	}
	v, err := conversion.EnforcePtr(destination)
	if err != nil {
		return fmt.Errorf("unable to convert output object to pointer: %w", err)
	}
	var (
		unchanged *objState // set when the last attempt wrote nothing
		written   []byte    // the encoding of the last attempt's object
		ttl       uint64
	)
	_, cur, err := a.s.Update(a.resource, skey, func(cur *store.Object) (store.Write, error) {
		unchanged = nil
		st, err := a.getState(ctx, cur, full, v, ignoreNotFound, false)
		if err != nil {
			return store.Write{}, err
		}
		if err := preconditions.Check(full, st.obj); err != nil {
			return store.Write{}, err
		}
		ret, ttlPtr, err := tryUpdate(st.obj, *st.meta)
		if err != nil {
			return store.Write{}, err
		}
		if err := a.versioner.PrepareObjectForStorage(ret); err != nil {
			return store.Write{}, fmt.Errorf("PrepareObjectForStorage failed: %w", err)
		}
		ttl = 0
		if ttlPtr != nil {
			ttl = *ttlPtr
		}
		data, err := runtime.Encode(a.codec, ret)
		if err != nil {
			return store.Write{}, err
		}
		if cur != nil && !st.stale && bytes.Equal(data, st.data) {
			unchanged = st
			return store.Write{}, store.ErrUnchanged
		}
		stored, err := a.transformToStorage(ctx, data, full)
		if err != nil {
			return store.Write{}, storage.NewInternalError(err)
		}
		written = data
		return store.Write{Value: stored}, nil
	})
	if err != nil {
		return a.storeError(err, full)
	}
	if unchanged != nil {
		return a.decode(unchanged.data, destination, unchanged.rev)
	}
	if ttl != 0 {
		a.expireAfter(skey, cur.Revision, ttl)
	}
	return a.decode(written, destination, cur.Revision)
}

// objState is an object as read from the store for a write.
type objState struct {
	obj   runtime.Object // nil when expecting a corrupt object
	meta  *storage.ResponseMeta
	rev   int64
	data  []byte // the encoding, after the transformer
	stale bool   // the transformer says the value should be rewritten
}

// getState decodes cur (nil: absent) for a write into a new object of v's
// type. An absent object is a NotFound error, or a zero object with
// ignoreNotFound. With expectCorrupt, the object must fail to transform or
// decode (its obj is then nil), and one that does not is an InvalidObj
// error.
func (a *Storage) getState(ctx context.Context, cur *store.Object, full string, v reflect.Value, ignoreNotFound, expectCorrupt bool) (*objState, error) {
	st := &objState{meta: &storage.ResponseMeta{}}
	if u, ok := v.Addr().Interface().(runtime.Unstructured); ok {
		st.obj = u.NewEmptyInstance()
	} else {
		st.obj = reflect.New(v.Type()).Interface().(runtime.Object)
	}
	if cur == nil {
		if !ignoreNotFound {
			return nil, storage.NewKeyNotFoundError(full, 0)
		}
		if err := runtime.SetZeroValue(st.obj); err != nil {
			return nil, err
		}
		return st, nil
	}
	st.rev = cur.Revision
	st.meta.ResourceVersion = uint64(cur.Revision)
	data, stale, err := a.transformFromStorage(ctx, cur.Value, full)
	if err != nil {
		if !expectCorrupt {
			return nil, storage.NewInternalError(err)
		}
		st.obj, st.stale = nil, true
		return st, nil
	}
	st.data, st.stale = data, stale
	if err := a.decode(data, st.obj, st.rev); err != nil {
		if !expectCorrupt {
			return nil, err
		}
		st.obj = nil
		return st, nil
	}
	if expectCorrupt {
		return nil, storage.NewInvalidObjError(full, "unsafe deletion is not allowed because the object is decodable from storage")
	}
	return st, nil
}

// decode decodes data into objPtr and sets its resourceVersion to rev.
func (a *Storage) decode(data []byte, objPtr runtime.Object, rev int64) error {
	if _, err := conversion.EnforcePtr(objPtr); err != nil {
		return fmt.Errorf("unable to convert output object to pointer: %w", err)
	}
	if _, _, err := a.codec.Decode(data, nil, objPtr); err != nil {
		return err
	}
	if err := a.versioner.UpdateObject(objPtr, uint64(rev)); err != nil {
		a.logger.Error("k8sstorage: failed to set the resource version", "revision", rev, "error", err)
	}
	return nil
}

// decodeNew decodes data into a new object from newItem and sets its
// resourceVersion to rev.
func (a *Storage) decodeNew(data []byte, rev int64, newItem func() runtime.Object) (runtime.Object, error) {
	obj, _, err := a.codec.Decode(data, nil, newItem())
	if err != nil {
		return nil, err
	}
	if err := a.versioner.UpdateObject(obj, uint64(rev)); err != nil {
		a.logger.Error("k8sstorage: failed to set the resource version", "revision", rev, "error", err)
	}
	return obj, nil
}

// authenticatedData is the value.Context of a stored value: its full key,
// so that a value moved to another key does not decrypt.
type authenticatedData string

// AuthenticatedData implements value.Context.
func (d authenticatedData) AuthenticatedData() []byte { return []byte(d) }

// identity is the transformer that leaves values as they are.
type identity struct{}

// TransformFromStorage implements value.Transformer.
func (identity) TransformFromStorage(_ context.Context, data []byte, _ value.Context) ([]byte, bool, error) {
	return data, false, nil
}

// TransformToStorage implements value.Transformer.
func (identity) TransformToStorage(_ context.Context, data []byte, _ value.Context) ([]byte, error) {
	return data, nil
}

// transformFromStorage undoes the transformer on a stored value.
func (a *Storage) transformFromStorage(ctx context.Context, stored []byte, full string) ([]byte, bool, error) {
	return (*a.transformer.Load()).TransformFromStorage(ctx, stored, authenticatedData(full))
}

// transformToStorage applies the transformer to a value to store.
func (a *Storage) transformToStorage(ctx context.Context, data []byte, full string) ([]byte, error) {
	return (*a.transformer.Load()).TransformToStorage(ctx, data, authenticatedData(full))
}

// rootKey is the store key of the object whose key is the resource prefix
// itself ("/pods/"), which no real object has but the storage contract
// allows: the store has no empty key, and no object name contains a NUL, so
// the key cannot collide and sorts before every other.
const rootKey = "\x00"

// prepareKey checks key as storage.PrepareKey does and returns it with its
// store key (the key without the resource prefix; for a recursive key, the
// prefix of the keys under it).
func (a *Storage) prepareKey(key string, recursive bool) (full, skey string, err error) {
	full, err = storage.PrepareKey(a.resourcePrefix, key, recursive)
	if err != nil {
		return "", "", err
	}
	skey = full[len(a.resourcePrefix):]
	if skey == "" && !recursive {
		skey = rootKey
	}
	return full, skey, nil
}

// fullKey returns the key of a store key.
func (a *Storage) fullKey(skey string) string {
	if skey == rootKey {
		return a.resourcePrefix
	}
	return a.resourcePrefix + skey
}

// parseMinimumResourceVersion parses a "not older than" resourceVersion
// ("": 0).
func (a *Storage) parseMinimumResourceVersion(rv string) (uint64, error) {
	if rv == "" {
		return 0, nil
	}
	v, err := a.versioner.ParseResourceVersion(rv)
	if err != nil {
		return 0, apierrors.NewBadRequest(fmt.Sprintf("invalid resource version: %v", err))
	}
	return v, nil
}

// storeError returns err as the storage package's errors: what the
// UpdateFuncs returned (storage and API errors) is returned as is.
func (a *Storage) storeError(err error, full string) error {
	var future *store.FutureRevisionError
	switch {
	case errors.Is(err, store.ErrNotFound):
		return storage.NewKeyNotFoundError(full, 0)
	case errors.As(err, &future):
		return storage.NewTooLargeResourceVersionError(uint64(future.Requested), uint64(future.Current), 0)
	case errors.Is(err, store.ErrClosed):
		return storage.NewUnreachableError(full, 0)
	}
	return err
}
