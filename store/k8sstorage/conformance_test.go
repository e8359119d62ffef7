package k8sstorage

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/apitesting"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apiserver/pkg/apis/example"
	examplev1 "k8s.io/apiserver/pkg/apis/example/v1"
	"k8s.io/apiserver/pkg/features"
	storagetesting "k8s.io/apiserver/pkg/storage/testing"
	"k8s.io/apiserver/pkg/storage/value"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"

	"github.com/fakeplane/fakeplane/store"
)

// The suites store example.Pods (k8s.io/apiserver's test API group) under
// the resource prefix "/pods/", as upstream's etcd3 tests do.
const (
	testResource       = "example/pods"
	testResourcePrefix = "/pods/"
	// testPrefix is what the suites' PrefixTransformer puts before every
	// stored value.
	testPrefix = "test!"
	// otherResource is a bucket outside the suites' resource, written to
	// move the store's revision on (as the etcd tests put a key
	// "increaseRV").
	otherResource = "test/increaserv"
	// progressInterval is the adapter's ProgressNotifyInterval in the
	// tests (etcd's test server uses 1s).
	progressInterval = 100 * time.Millisecond
)

// scheme and codecs hold the example API group. They are filled once, in
// init, and only read after.
var (
	scheme = runtime.NewScheme()
	codecs = serializer.NewCodecFactory(scheme)
)

func init() {
	metav1.AddToGroupVersion(scheme, metav1.SchemeGroupVersion)
	utilruntime.Must(example.AddToScheme(scheme))
	utilruntime.Must(examplev1.AddToScheme(scheme))
}

// fixture is an adapter over a store: a bbolt store in a temporary
// directory, or another backend's (see openStore).
type fixture struct {
	*Storage
	st              fixtureStore
	codec           runtime.Codec
	baseTransformer value.Transformer // the one the adapter was made with
}

// fixtureOption changes the configuration of a fixture's adapter.
type fixtureOption func(*Config)

// withCodec makes the adapter use codec.
func withCodec(codec runtime.Codec) fixtureOption {
	return func(c *Config) { c.Codec = codec }
}

// withTransformer makes the adapter use transformer.
func withTransformer(t value.Transformer) fixtureOption {
	return func(c *Config) { c.Transformer = t }
}

// fixtureStore is what a fixture needs of its store: *store.Store and
// *etcdstore.Store have it.
type fixtureStore interface {
	store.Interface
	Compact(rev int64) error
}

// openStore opens the store of a new fixture, closed at the end of the
// test.
type openStore func(t testing.TB) fixtureStore

// openBolt opens a bbolt store in t.TempDir().
func openBolt(t testing.TB) fixtureStore {
	st, err := store.Open(filepath.Join(t.TempDir(), "store.db"), store.Options{NoSync: true, CompactionInterval: -1})
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() {
		if err := st.Close(); err != nil {
			t.Errorf("close store: %v", err)
		}
	})
	return st
}

// newFixture opens a store in t.TempDir() and an adapter for example.Pods
// over it, with the suites' PrefixTransformer, both closed at the end of
// the test. Like a new etcd, the store is at revision 1: the suites take
// the revision of an empty list as one they can list at.
func newFixture(t testing.TB, opts ...fixtureOption) *fixture {
	t.Helper()
	return newFixtureOn(t, openBolt, opts...)
}

// newFixtureOn is newFixture on a store from open.
func newFixtureOn(t testing.TB, open openStore, opts ...fixtureOption) *fixture {
	t.Helper()
	f := newEmptyFixtureOn(t, open, opts...)
	f.bumpRevision(t)
	return f
}

// newEmptyFixture is newFixture with the store left at revision 0, never
// written.
func newEmptyFixture(t testing.TB, opts ...fixtureOption) *fixture {
	t.Helper()
	return newEmptyFixtureOn(t, openBolt, opts...)
}

// newEmptyFixtureOn is newEmptyFixture on a store from open.
func newEmptyFixtureOn(t testing.TB, open openStore, opts ...fixtureOption) *fixture {
	t.Helper()
	st := open(t)
	cfg := Config{
		Resource:               testResource,
		ResourcePrefix:         testResourcePrefix,
		GroupResource:          schema.GroupResource{Resource: "pods"},
		Codec:                  apitesting.TestCodec(codecs, examplev1.SchemeGroupVersion),
		NewFunc:                func() runtime.Object { return &example.Pod{} },
		NewListFunc:            func() runtime.Object { return &example.PodList{} },
		Transformer:            storagetesting.NewPrefixTransformer([]byte(testPrefix), false),
		ProgressNotifyInterval: progressInterval,
	}
	for _, o := range opts {
		o(&cfg)
	}
	a, err := New(st, cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(a.Close)
	return &fixture{Storage: a, st: st, codec: cfg.Codec, baseTransformer: cfg.Transformer}
}

// increaseRV is the suites' IncreaseRVFunc: it writes a key outside the
// suites' resource and returns the revision of the write.
func (f *fixture) increaseRV(_ context.Context, t *testing.T) int64 {
	return f.bumpRevision(t)
}

// bumpRevision is increaseRV.
func (f *fixture) bumpRevision(t testing.TB) int64 {
	t.Helper()
	_, cur, err := f.st.Update(otherResource, "increaseRV", func(*store.Object) (store.Write, error) {
		return store.Write{Value: []byte("ok")}, nil
	})
	if err != nil {
		t.Fatalf("increase the revision: %v", err)
	}
	return cur.Revision
}

// compact is the suites' Compaction: it compacts the store's history to
// the revision and then, as a compaction of etcd does (it writes the
// compacted revision to a key), moves the revision on by one.
func (f *fixture) compact(ctx context.Context, t *testing.T, resourceVersion string) {
	rv, err := f.Versioner().ParseResourceVersion(resourceVersion)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.st.Compact(int64(rv)); err != nil {
		t.Fatalf("compact to %d: %v", rv, err)
	}
	f.increaseRV(ctx, t)
}

// checkStoredObject is the suites' KeyValidation: the key holds the
// object in the store as etcd3 holds it, transformed, with neither a
// resourceVersion nor a selfLink.
func (f *fixture) checkStoredObject(_ context.Context, t *testing.T, key string) {
	_, skey, err := f.prepareKey(key, false)
	if err != nil {
		t.Fatal(err)
	}
	obj, err := f.st.Get(testResource, skey)
	if err != nil {
		t.Fatalf("read %s from the store: %v", key, err)
	}
	if !bytes.HasPrefix(obj.Value, []byte(testPrefix)) {
		t.Fatalf("stored value of %s lacks the transformer's prefix: %q", key, obj.Value)
	}
	decoded, err := runtime.Decode(f.codec, obj.Value[len(testPrefix):])
	if err != nil {
		t.Fatalf("decode the stored value of %s: %v", key, err)
	}
	pod := decoded.(*example.Pod)
	if pod.ResourceVersion != "" {
		t.Errorf("stored object has resourceVersion %q, want none", pod.ResourceVersion)
	}
	if pod.SelfLink != "" {
		t.Errorf("stored object has selfLink %q, want none", pod.SelfLink)
	}
}

// checkTransformerReads is the suites' CallsValidation: a list transforms
// (reads) exactly the objects it has to evaluate. (The etcd3 variant also
// counts etcd range requests, which a store read does not have.)
func (f *fixture) checkTransformerReads(t *testing.T, pageSize, estimatedProcessedObjects uint64) {
	t.Helper()
	pt := f.baseTransformer.(*storagetesting.PrefixTransformer)
	if reads := pt.GetReadsAndReset(); reads != estimatedProcessedObjects {
		t.Errorf("the list (page size %d) read %d objects, want %d", pageSize, reads, estimatedProcessedObjects)
	}
}

// UpdatePrefixTransformer makes the fixture an
// storagetesting.InterfaceWithPrefixTransformer: it replaces the adapter's
// PrefixTransformer with modifier's result on a copy of it.
func (f *fixture) UpdatePrefixTransformer(modifier storagetesting.PrefixTransformerModifier) func() {
	orig := f.transformer.Load()
	pt := *(*orig).(*storagetesting.PrefixTransformer)
	next := modifier(&pt)
	f.transformer.Store(&next)
	return func() { f.transformer.Store(orig) }
}

// UpdateTransformer makes the fixture an
// storagetesting.InterfaceWithTransformerOverride.
func (f *fixture) UpdateTransformer(modifier storagetesting.TransformerModifier) func() {
	orig := f.transformer.Load()
	next := modifier(*orig)
	f.transformer.Store(&next)
	return func() { f.transformer.Store(orig) }
}

// failingCodec fails every Decode while set, as etcd3's tests' testCodec.
type failingCodec struct {
	runtime.Codec
	fail atomic.Bool
}

// setFailing makes Decode fail (or not).
func (c *failingCodec) setFailing(fail bool) { c.fail.Store(fail) }

// Decode implements runtime.Decoder.
func (c *failingCodec) Decode(data []byte, defaults *schema.GroupVersionKind, into runtime.Object) (runtime.Object, *schema.GroupVersionKind, error) {
	if c.fail.Load() {
		return nil, nil, errors.New("synthetic decode error")
	}
	return c.Codec.Decode(data, defaults, into)
}

// failingTransformer fails every TransformFromStorage while set, as
// etcd3's tests' testTransformer.
type failingTransformer struct {
	value.Transformer
	fail atomic.Bool
}

// setFailing makes TransformFromStorage fail (or not).
func (t *failingTransformer) setFailing(fail bool) { t.fail.Store(fail) }

// TransformFromStorage implements value.Transformer.
func (t *failingTransformer) TransformFromStorage(ctx context.Context, data []byte, dataCtx value.Context) ([]byte, bool, error) {
	if t.fail.Load() {
		return nil, false, errors.New("synthetic transform error")
	}
	return t.Transformer.TransformFromStorage(ctx, data, dataCtx)
}

// suite is one suite of k8s.io/apiserver/pkg/storage/testing, run against
// a new fixture.
type suite struct {
	name string
	run  func(ctx context.Context, t *testing.T, f *fixture)
}

// storeSuites are the suites of store_tests.go that set no feature gate:
// they run in parallel, each on its own store.
var storeSuites = []suite{
	{"Create", func(ctx context.Context, t *testing.T, f *fixture) {
		storagetesting.RunTestCreate(ctx, t, f, f.checkStoredObject)
	}},
	{"CreateWithTTL", func(ctx context.Context, t *testing.T, f *fixture) { storagetesting.RunTestCreateWithTTL(ctx, t, f) }},
	{"CreateWithKeyExist", func(ctx context.Context, t *testing.T, f *fixture) {
		storagetesting.RunTestCreateWithKeyExist(ctx, t, f)
	}},
	{"UnconditionalDelete", func(ctx context.Context, t *testing.T, f *fixture) {
		storagetesting.RunTestUnconditionalDelete(ctx, t, f)
	}},
	{"ConditionalDelete", func(ctx context.Context, t *testing.T, f *fixture) {
		storagetesting.RunTestConditionalDelete(ctx, t, f)
	}},
	{"DeleteWithSuggestion", func(ctx context.Context, t *testing.T, f *fixture) {
		storagetesting.RunTestDeleteWithSuggestion(ctx, t, f)
	}},
	{"DeleteWithSuggestionAndConflict", func(ctx context.Context, t *testing.T, f *fixture) {
		storagetesting.RunTestDeleteWithSuggestionAndConflict(ctx, t, f)
	}},
	{"DeleteWithSuggestionOfDeletedObject", func(ctx context.Context, t *testing.T, f *fixture) {
		storagetesting.RunTestDeleteWithSuggestionOfDeletedObject(ctx, t, f)
	}},
	{"ValidateDeletionWithSuggestion", func(ctx context.Context, t *testing.T, f *fixture) {
		storagetesting.RunTestValidateDeletionWithSuggestion(ctx, t, f)
	}},
	{"ValidateDeletionWithOnlySuggestionValid", func(ctx context.Context, t *testing.T, f *fixture) {
		storagetesting.RunTestValidateDeletionWithOnlySuggestionValid(ctx, t, f)
	}},
	{"DeleteWithConflict", func(ctx context.Context, t *testing.T, f *fixture) {
		storagetesting.RunTestDeleteWithConflict(ctx, t, f)
	}},
	{"PreconditionalDeleteWithSuggestion", func(ctx context.Context, t *testing.T, f *fixture) {
		storagetesting.RunTestPreconditionalDeleteWithSuggestion(ctx, t, f)
	}},
	{"PreconditionalDeleteWithOnlySuggestionPass", func(ctx context.Context, t *testing.T, f *fixture) {
		storagetesting.RunTestPreconditionalDeleteWithOnlySuggestionPass(ctx, t, f)
	}},
	{"ListPaging", func(ctx context.Context, t *testing.T, f *fixture) { storagetesting.RunTestListPaging(ctx, t, f) }},
	{"GetListNonRecursive", func(ctx context.Context, t *testing.T, f *fixture) {
		storagetesting.RunTestGetListNonRecursive(ctx, t, f.increaseRV, f)
	}},
	{"GetListRecursivePrefix", func(ctx context.Context, t *testing.T, f *fixture) {
		storagetesting.RunTestGetListRecursivePrefix(ctx, t, f)
	}},
	{"KeySchema", func(ctx context.Context, t *testing.T, f *fixture) { storagetesting.RunTestKeySchema(ctx, t, f) }},
	{"GuaranteedUpdate", func(ctx context.Context, t *testing.T, f *fixture) {
		storagetesting.RunTestGuaranteedUpdate(ctx, t, f, f.checkStoredObject)
	}},
	{"GuaranteedUpdateWithTTL", func(ctx context.Context, t *testing.T, f *fixture) {
		storagetesting.RunTestGuaranteedUpdateWithTTL(ctx, t, f)
	}},
	{"GuaranteedUpdateChecksStoredData", func(ctx context.Context, t *testing.T, f *fixture) {
		storagetesting.RunTestGuaranteedUpdateChecksStoredData(ctx, t, f)
	}},
	{"GuaranteedUpdateWithConflict", func(ctx context.Context, t *testing.T, f *fixture) {
		storagetesting.RunTestGuaranteedUpdateWithConflict(ctx, t, f)
	}},
	{"GuaranteedUpdateWithSuggestionAndConflict", func(ctx context.Context, t *testing.T, f *fixture) {
		storagetesting.RunTestGuaranteedUpdateWithSuggestionAndConflict(ctx, t, f)
	}},
	{"TransformationFailure", func(ctx context.Context, t *testing.T, f *fixture) {
		storagetesting.RunTestTransformationFailure(ctx, t, f)
	}},
	{"List", func(ctx context.Context, t *testing.T, f *fixture) {
		// The recorder is only read for the watch cache.
		storagetesting.RunTestList(ctx, t, f, f.compact, false, nil)
	}},
	{"ConsistentList", func(ctx context.Context, t *testing.T, f *fixture) {
		storagetesting.RunTestConsistentList(ctx, t, f, f.increaseRV, false, true, false)
	}},
	{"CompactRevision", func(ctx context.Context, t *testing.T, f *fixture) {
		storagetesting.RunTestCompactRevision(ctx, t, f, f.increaseRV, f.compact)
	}},
	{"ListContinuation", func(ctx context.Context, t *testing.T, f *fixture) {
		storagetesting.RunTestListContinuation(ctx, t, f, f.checkTransformerReads)
	}},
	{"ListPaginationRareObject", func(ctx context.Context, t *testing.T, f *fixture) {
		storagetesting.RunTestListPaginationRareObject(ctx, t, f, f.checkTransformerReads)
	}},
	{"ListContinuationWithFilter", func(ctx context.Context, t *testing.T, f *fixture) {
		storagetesting.RunTestListContinuationWithFilter(ctx, t, f, f.checkTransformerReads)
	}},
	{"NamespaceScopedList", func(ctx context.Context, t *testing.T, f *fixture) {
		storagetesting.RunTestNamespaceScopedList(ctx, t, f)
	}},
	{"ListInconsistentContinuation", func(ctx context.Context, t *testing.T, f *fixture) {
		storagetesting.RunTestListInconsistentContinuation(ctx, t, f, f.compact)
	}},
	{"ListResourceVersionMatch", func(ctx context.Context, t *testing.T, f *fixture) {
		storagetesting.RunTestListResourceVersionMatch(ctx, t, f)
	}},
	{"Stats", func(ctx context.Context, t *testing.T, f *fixture) {
		storagetesting.RunTestStats(ctx, t, f, f.codec, f.baseTransformer, false)
	}},
	{"StatsWithSizeEstimation", func(ctx context.Context, t *testing.T, f *fixture) {
		if err := f.EnableResourceSizeEstimation(func(context.Context) ([]string, error) { return nil, nil }); err != nil {
			t.Fatal(err)
		}
		storagetesting.RunTestStats(ctx, t, f, f.codec, f.baseTransformer, true)
	}},
}

// watchSuites are the suites of watcher_tests.go that set no feature gate.
var watchSuites = []suite{
	{"Watch", func(ctx context.Context, t *testing.T, f *fixture) { storagetesting.RunTestWatch(ctx, t, f) }},
	{"ClusterScopedWatch", func(ctx context.Context, t *testing.T, f *fixture) {
		storagetesting.RunTestClusterScopedWatch(ctx, t, f)
	}},
	{"NamespaceScopedWatch", func(ctx context.Context, t *testing.T, f *fixture) {
		storagetesting.RunTestNamespaceScopedWatch(ctx, t, f)
	}},
	{"DeleteTriggerWatch", func(ctx context.Context, t *testing.T, f *fixture) {
		storagetesting.RunTestDeleteTriggerWatch(ctx, t, f)
	}},
	{"WatchFromZero", func(ctx context.Context, t *testing.T, f *fixture) {
		storagetesting.RunTestWatchFromZero(ctx, t, f, f.compact)
	}},
	{"WatchFromNonZero", func(ctx context.Context, t *testing.T, f *fixture) { storagetesting.RunTestWatchFromNonZero(ctx, t, f) }},
	{"DelayedWatchDelivery", func(ctx context.Context, t *testing.T, f *fixture) {
		storagetesting.RunTestDelayedWatchDelivery(ctx, t, f)
	}},
	{"WatchError", func(ctx context.Context, t *testing.T, f *fixture) { storagetesting.RunTestWatchError(ctx, t, f) }},
	{"WatchContextCancel", func(ctx context.Context, t *testing.T, f *fixture) {
		storagetesting.RunTestWatchContextCancel(ctx, t, f)
	}},
	{"WatcherTimeout", func(ctx context.Context, t *testing.T, f *fixture) { storagetesting.RunTestWatcherTimeout(ctx, t, f) }},
	{"WatchDeleteEventObjectHaveLatestRV", func(ctx context.Context, t *testing.T, f *fixture) {
		storagetesting.RunTestWatchDeleteEventObjectHaveLatestRV(ctx, t, f)
	}},
	{"WatchInitializationSignal", func(ctx context.Context, t *testing.T, f *fixture) {
		storagetesting.RunTestWatchInitializationSignal(ctx, t, f)
	}},
	{"ProgressNotify", func(ctx context.Context, t *testing.T, f *fixture) {
		storagetesting.RunOptionalTestProgressNotify(ctx, t, f, f.increaseRV)
	}},
	{"WatchDispatchBookmarkEvents", func(ctx context.Context, t *testing.T, f *fixture) {
		// As etcd3, the storage sends no bookmarks for allowWatchBookmarks:
		// they are the watch cache's.
		storagetesting.RunTestWatchDispatchBookmarkEvents(ctx, t, f, false)
	}},
	{"SendInitialEventsBackwardCompatibility", func(ctx context.Context, t *testing.T, f *fixture) {
		storagetesting.RunSendInitialEventsBackwardCompatibility(ctx, t, f)
	}},
	{"WatchErrorIsBlockingFurtherEvents", func(ctx context.Context, t *testing.T, f *fixture) {
		storagetesting.RunWatchErrorIsBlockingFurtherEvents(ctx, t, f)
	}},
}

// runParallel runs each suite in a parallel subtest on a new fixture.
func runParallel(t *testing.T, suites []suite) {
	runParallelOn(t, openBolt, suites)
}

// runParallelOn is runParallel on stores from open.
func runParallelOn(t *testing.T, open openStore, suites []suite) {
	for _, s := range suites {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			s.run(context.Background(), t, newFixtureOn(t, open))
		})
	}
}

// TestStoreConformance runs the storage suites of store_tests.go against the
// adapter over a bbolt store.
func TestStoreConformance(t *testing.T) {
	runParallel(t, storeSuites)
}

// TestGetConformance runs RunTestGet on its own: it gives its object a TTL
// of one second and then reads it from parallel subtests, which must not
// wait behind the other suites for longer than that.
func TestGetConformance(t *testing.T) {
	storagetesting.RunTestGet(context.Background(), t, newFixture(t))
}

// TestWatchConformance runs the watch suites of watcher_tests.go against
// the adapter over a bbolt store.
func TestWatchConformance(t *testing.T) {
	runParallel(t, watchSuites)
}

// TestWatchListConformance runs the suites that enable the WatchList
// feature gate (sendInitialEvents) themselves; a feature gate cannot be set
// from parallel tests, so these run one after the other.
func TestWatchListConformance(t *testing.T) {
	for _, s := range []suite{
		{"WatchSemantics", func(ctx context.Context, t *testing.T, f *fixture) { storagetesting.RunWatchSemantics(ctx, t, f) }},
		{"WatchSemanticInitialEventsExtended", func(ctx context.Context, t *testing.T, f *fixture) {
			storagetesting.RunWatchSemanticInitialEventsExtended(ctx, t, f)
		}},
		{"WatchListMatchSingle", func(ctx context.Context, t *testing.T, f *fixture) { storagetesting.RunWatchListMatchSingle(ctx, t, f) }},
	} {
		t.Run(s.name, func(t *testing.T) { s.run(context.Background(), t, newFixture(t)) })
	}
}

// TestCorruptObjectConformance runs the suites about objects that cannot
// be read from storage (the AllowUnsafeMalformedObjectDeletion feature),
// one after the other since they set the feature gate.
func TestCorruptObjectConformance(t *testing.T) {
	ctx := context.Background()
	// corruptErr is what the suites inject to make an object corrupt.
	corruptErr := &CorruptObjectError{Err: errors.New("bits flipped")}
	setUnsafeDeletion := func(t *testing.T, on bool) {
		featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.AllowUnsafeMalformedObjectDeletion, on)
	}
	newFailingCodec := func() *failingCodec {
		return &failingCodec{Codec: apitesting.TestCodec(codecs, examplev1.SchemeGroupVersion)}
	}
	t.Run("DeleteWithConflictAndMissingExpectedTransformOrDecodeError", func(t *testing.T) {
		setUnsafeDeletion(t, true)
		codec := newFailingCodec()
		storagetesting.RunTestDeleteWithConflictAndMissingExpectedTransformOrDecodeError(ctx, t, newFixture(t, withCodec(codec)), codec.setFailing)
	})
	t.Run("DeleteWithConflictAndExpectedTransformError", func(t *testing.T) {
		setUnsafeDeletion(t, true)
		transformer := &failingTransformer{Transformer: storagetesting.NewPrefixTransformer([]byte(testPrefix), false)}
		storagetesting.RunTestDeleteExpectedTransformOrDecodeError(ctx, t, newFixture(t, withTransformer(transformer)), transformer.setFailing)
	})
	t.Run("DeleteWithConflictAndExpectedDecodeError", func(t *testing.T) {
		setUnsafeDeletion(t, true)
		codec := newFailingCodec()
		storagetesting.RunTestDeleteExpectedTransformOrDecodeError(ctx, t, newFixture(t, withCodec(codec)), codec.setFailing)
	})
	t.Run("DeleteWithSuggestionAndMissingExpectedTransformOrDecodeError", func(t *testing.T) {
		setUnsafeDeletion(t, true)
		storagetesting.RunTestDeleteWithSuggestionAndMissingExpectedTransformOrDecodeError(ctx, t, newFixture(t))
	})
	t.Run("GetListWithErrorAggregation", func(t *testing.T) {
		setUnsafeDeletion(t, true)
		storagetesting.RunTestGetListWithErrorAggregation(ctx, t, newFixture(t), corruptErr)
	})
	t.Run("GetListWithoutErrorAggregation", func(t *testing.T) {
		setUnsafeDeletion(t, false)
		storagetesting.RunTestGetListWithoutErrorAggregation(ctx, t, newFixture(t), corruptErr)
	})
	t.Run("WatchWithUnsafeDelete", func(t *testing.T) {
		setUnsafeDeletion(t, true)
		storagetesting.RunTestWatchWithUnsafeDelete(ctx, t, newFixture(t), corruptErr)
	})
}

// TestNotApplicableSuites records the suites of the package that do not
// apply to a storage.Interface over the store, and why.
func TestNotApplicableSuites(t *testing.T) {
	for _, c := range []struct{ name, why string }{
		{"OptionalWatchBookmarksWithCorrectResourceVersion", "bookmarks for allowWatchBookmarks are sent by the watch cache (cacher), " +
			"not by the storage: etcd3 does not run this suite, and WatchDispatchBookmarkEvents checks that the adapter, like etcd3, sends none"},
	} {
		t.Run(c.name, func(t *testing.T) { t.Skip(c.why) })
	}
}
