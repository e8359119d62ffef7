package registry

import (
	"fmt"
	"testing"

	"github.com/fakeplane/fakeplane/store"
)

// encCacheFixture is an encoding cache over a real store holding ConfigMaps.
type encCacheFixture struct {
	t   *testing.T
	st  *store.Store
	ec  *EncCache
	res *Resource
}

func newEncCacheFixture(t *testing.T) *encCacheFixture {
	t.Helper()
	st := newTestStore(t)
	reg, err := newServedResources()
	if err != nil {
		t.Fatal(err)
	}
	res, ok := reg.Lookup("", "v1", "configmaps")
	if !ok {
		t.Fatal("no configmaps")
	}
	return &encCacheFixture{t: t, st: st, ec: newEncCache(st), res: res}
}

// put stores a ConfigMap and returns it as committed.
func (f *encCacheFixture) put(key string) store.Object {
	f.t.Helper()
	return f.putIn(f.res.Bucket, key)
}

// putIn stores a ConfigMap in bucket and returns it as committed.
func (f *encCacheFixture) putIn(bucket, key string) store.Object {
	f.t.Helper()
	_, cur, err := f.st.Update(bucket, key, func(*store.Object) (store.Write, error) {
		return store.Write{
			Value: fmt.Appendf(nil, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q,"labels":{"app":"x"}}}`, key),
			Stamp: func(v []byte, rev int64) ([]byte, error) { return spliceResourceVersion(v, rev, sortedOrder) },
		}, nil
	})
	if err != nil {
		f.t.Fatal(err)
	}
	return *cur
}

// del deletes a ConfigMap as the delete handler does: commit, then forget.
func (f *encCacheFixture) del(key string) {
	f.t.Helper()
	if _, _, err := f.st.Update(f.res.Bucket, key, func(cur *store.Object) (store.Write, error) {
		return store.Write{Value: cur.Value, Delete: true}, nil
	}); err != nil {
		f.t.Fatal(err)
	}
	f.ec.forget(f.res.Bucket, key)
}

// encodeAll does what lists and watchers do with an object they read.
func (f *encCacheFixture) encodeAll(o store.Object) {
	f.t.Helper()
	if l, ok := f.ec.labelsOf(f.res.Bucket, o.Key, o.Revision, o.Value); !ok || l["app"] != "x" {
		f.t.Fatalf("labelsOf(%s@%d) = %v, %v", o.Key, o.Revision, l, ok)
	}
	if p, err := f.ec.ProtoOf(f.res, o.Key, o.Revision, o.Value); err != nil || len(p) == 0 {
		f.t.Fatalf("protoOf(%s@%d) = %d bytes, %v", o.Key, o.Revision, len(p), err)
	}
}

// cachedRev is the revision the cache holds for key, 0 for none.
func (f *encCacheFixture) cachedRev(key string) int64 {
	f.ec.mu.Lock()
	defer f.ec.mu.Unlock()
	if e := f.ec.m[cacheKey(f.res.Bucket, key)]; e != nil {
		return e.rev
	}
	return 0
}

// TestEncCacheHoldsNoDeletedObject: a watcher or list that encodes an
// object after it was deleted does not put its entry back.
func TestEncCacheHoldsNoDeletedObject(t *testing.T) {
	f := newEncCacheFixture(t)
	added := f.put("default/a")
	f.encodeAll(added)
	modified := f.put("default/a")
	f.del("default/a")
	// A lagging watcher now sends ADDED and MODIFIED.
	f.encodeAll(added)
	f.encodeAll(modified)
	if rev := f.cachedRev("default/a"); rev != 0 {
		t.Fatalf("cache holds deleted object at revision %d", rev)
	}
	// The same name created again is cached again.
	again := f.put("default/a")
	f.encodeAll(again)
	if rev := f.cachedRev("default/a"); rev != again.Revision {
		t.Fatalf("cache holds revision %d of the new object, want %d", rev, again.Revision)
	}
	f.encodeAll(modified)
	if rev := f.cachedRev("default/a"); rev != again.Revision {
		t.Fatalf("an older revision replaced the cached one: %d, want %d", rev, again.Revision)
	}
}

// TestEncCacheTombstonesAreBounded: past maxTombstones the tombstones are
// dropped, and the store decides whether an old revision is still live.
func TestEncCacheTombstonesAreBounded(t *testing.T) {
	f := newEncCacheFixture(t)
	live := f.put("default/live")
	gone := f.put("default/gone")
	f.del("default/gone")
	for i := range maxTombstones {
		key := fmt.Sprintf("default/tmp-%d", i)
		f.put(key)
		f.del(key)
	}
	f.ec.mu.Lock()
	n, floor := len(f.ec.deleted), f.ec.floor
	f.ec.mu.Unlock()
	if n > maxTombstones || floor < live.Revision {
		t.Fatalf("%d tombstones, floor %d", n, floor)
	}
	f.encodeAll(gone)
	if rev := f.cachedRev("default/gone"); rev != 0 {
		t.Fatalf("cache holds deleted object at revision %d", rev)
	}
	f.encodeAll(live)
	if rev := f.cachedRev("default/live"); rev != live.Revision {
		t.Fatalf("cache holds revision %d of a live object, want %d", rev, live.Revision)
	}
	f.ec.mu.Lock()
	size := len(f.ec.m)
	f.ec.mu.Unlock()
	if size != 1 {
		t.Fatalf("cache holds %d entries, want 1", size)
	}
}

// TestEncCacheForgetsDroppedBucket: when a bucket is deleted whole (a
// deleted CRD's), its entries go, a lagging reader does not put them back,
// other buckets keep theirs, and objects created in it again are cached.
func TestEncCacheForgetsDroppedBucket(t *testing.T) {
	f := newEncCacheFixture(t)
	a, b := f.put("default/a"), f.put("default/b")
	f.encodeAll(a)
	f.encodeAll(b)
	f.put("default/gone")
	f.del("default/gone") // leaves a tombstone of the bucket's own
	const otherBucket = "crd:example.com/widgets"
	other := f.putIn(otherBucket, "default/a")
	if _, ok := f.ec.labelsOf(otherBucket, other.Key, other.Revision, other.Value); !ok {
		t.Fatal("labelsOf failed")
	}

	if err := f.st.DeleteResource(f.res.Bucket); err != nil {
		t.Fatal(err)
	}
	f.ec.forgetBucket(f.res.Bucket)
	for _, key := range []string{"default/a", "default/b"} {
		if rev := f.cachedRev(key); rev != 0 {
			t.Errorf("cache holds %s of a deleted bucket at revision %d", key, rev)
		}
	}
	f.ec.mu.Lock()
	_, tombstone := f.ec.deleted[cacheKey(f.res.Bucket, "default/gone")]
	_, otherKept := f.ec.m[cacheKey(otherBucket, "default/a")]
	f.ec.mu.Unlock()
	if tombstone {
		t.Error("a key tombstone outlived its bucket's")
	}
	if !otherKept {
		t.Error("another bucket's entry was dropped")
	}

	// A lagging watcher encodes the deleted objects.
	f.encodeAll(a)
	f.encodeAll(b)
	if rev := f.cachedRev("default/a"); rev != 0 {
		t.Fatalf("cache holds an object of a deleted bucket at revision %d", rev)
	}
	// The bucket is created again (the CRD too).
	again := f.put("default/a")
	f.encodeAll(again)
	if rev := f.cachedRev("default/a"); rev != again.Revision {
		t.Fatalf("cache holds revision %d of the new object, want %d", rev, again.Revision)
	}

	// Bucket tombstones are bounded; the store then decides.
	for i := range maxTombstones {
		f.ec.forgetBucket(fmt.Sprintf("crd:example.com/gone%d", i))
	}
	f.ec.mu.Lock()
	n, floor := len(f.ec.dropped), f.ec.floor
	f.ec.mu.Unlock()
	if n > maxTombstones || floor < again.Revision {
		t.Fatalf("%d bucket tombstones, floor %d", n, floor)
	}
	f.encodeAll(b)
	if rev := f.cachedRev("default/b"); rev != 0 {
		t.Fatalf("cache holds an object of a deleted bucket at revision %d", rev)
	}
}

// countingStore counts the reads the encoding cache makes of the store.
type countingStore struct {
	encStore
	gets int
}

// Get implements encStore.
func (c *countingStore) Get(resource, key string) (*store.Object, error) {
	c.gets++
	return c.encStore.Get(resource, key)
}

// TestEncCacheInsideAReadAsksTheStoreAfterIt: an entry that needs the
// store's word (below floor) is not asked for inside a list's read (which a
// second read transaction could deadlock) but handed out detached and kept
// after the read if the object is still live then, not if it was deleted.
func TestEncCacheInsideAReadAsksTheStoreAfterIt(t *testing.T) {
	f := newEncCacheFixture(t)
	cs := &countingStore{encStore: f.st}
	f.ec.st = cs
	live := f.put("default/live")
	gone := f.put("default/gone")
	for i := range maxTombstones + 1 {
		key := fmt.Sprintf("default/tmp-%d", i)
		f.put(key)
		f.del(key)
	}
	if f.ec.floor < gone.Revision {
		t.Fatalf("floor %d, below the objects' revisions", f.ec.floor)
	}
	cs.gets = 0
	var later []pendingEntry
	for _, o := range []store.Object{live, gone} {
		if l, ok := f.ec.labelsOfIn(f.res.Bucket, o.Key, o.Revision, o.Value, &later); !ok || l["app"] != "x" {
			t.Fatalf("labelsOfIn(%s) = %v, %v", o.Key, l, ok)
		}
		if p, err := f.ec.protoOfIn(f.res, o.Key, o.Revision, o.Value, &later); err != nil || len(p) == 0 {
			t.Fatalf("protoOfIn(%s) = %d bytes, %v", o.Key, len(p), err)
		}
	}
	if cs.gets != 0 {
		t.Errorf("the cache read the store %d times inside the read", cs.gets)
	}
	if len(later) != 2 || f.cachedRev(live.Key) != 0 {
		t.Fatalf("%d entries pending, %s cached at %d: want 2 pending (one per object), none cached", len(later), live.Key, f.cachedRev(live.Key))
	}
	f.del(gone.Key)
	f.ec.adopt(later)
	if rev := f.cachedRev(live.Key); rev != live.Revision {
		t.Errorf("after the read the cache holds %s at %d, want %d", live.Key, rev, live.Revision)
	}
	if rev := f.cachedRev(gone.Key); rev != 0 {
		t.Errorf("the cache kept %s, deleted before the read ended, at %d", gone.Key, rev)
	}
	// What was worked out inside the read is what is cached.
	f.ec.mu.Lock()
	e := f.ec.m[cacheKey(f.res.Bucket, live.Key)]
	f.ec.mu.Unlock()
	if e == nil || e.labels["app"] != "x" || e.proto.get(f.res.APIVersion(), 0) == nil {
		t.Errorf("the entry kept after the read lacks the labels or the protobuf read inside it: %+v", e)
	}
}
