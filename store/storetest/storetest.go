// Package storetest is a conformance suite of store.Interface: the
// semantics the control plane relies on (optimistic updates and their
// retries, Stamp and Committed, deletes, consistent and historical lists
// with paging, ordered watches with their previous values, compaction,
// dropped resources, Close), checked the same way against every backend.
// The bbolt store (package store) and the etcd store (store/etcdstore) run
// it.
package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/fakeplane/fakeplane/store"
)

// OpenFunc opens a new, empty store for t; the store is closed at t's
// cleanup (a test may close it earlier).
type OpenFunc func(t *testing.T) store.Interface

// Compacter is implemented by the stores whose history can be compacted
// by hand (both backends); the compaction cases need it.
type Compacter interface {
	Compact(rev int64) error
}

// stampMark separates a value from the revision StampRevision appends.
const stampMark = "#rv="

// StampRevision is the Write.Stamp of the suite: it appends "#rv=" and the
// revision to the value, as the registry splices in metadata.resourceVersion.
func StampRevision(value []byte, rev int64) ([]byte, error) {
	out := slices.Clip(bytes.Clone(value))
	return append(append(out, stampMark...), strconv.FormatInt(rev, 10)...), nil
}

// RestampRevision rewrites the revision StampRevision appended to rev, and
// returns a value without one unchanged: the suite's StampOnRead for a
// store that stamps on read (store/etcdstore).
func RestampRevision(value []byte, rev int64) ([]byte, error) {
	i := bytes.LastIndex(value, []byte(stampMark))
	if i < 0 {
		return value, nil
	}
	return StampRevision(value[:i], rev)
}

// Resources the suite writes to: "group/resource" names.
const (
	things = "test/things"
	others = "test/others"
)

// eventWait bounds how long the suite waits for an event that must come.
const eventWait = 20 * time.Second

// Run runs the suite, one subtest per behaviour, each on a store of its
// own from open.
func Run(t *testing.T, open OpenFunc) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// A case that compacts runs alone, before the others (which
			// wait for Run to return): compaction may reach past the
			// store's own keys, as etcd's compacts every prefix of the
			// server, and so the revisions other cases list at.
			if !compacting[c.name] {
				t.Parallel()
			}
			c.run(t, open(t))
		})
	}
}

// compacting names the cases that call Compact.
var compacting = map[string]bool{"ListCompactedAndFutureRevisions": true}

// cases are the suite's behaviours.
var cases = []struct {
	name string
	run  func(t *testing.T, st store.Interface)
}{
	{"GetMissingIsNotFound", testGetMissing},
	{"CreateThenUpdate", testCreateThenUpdate},
	{"StampAndCommittedSeeTheCommitRevision", testStamp},
	{"CommittedRunsInRevisionOrder", testCommittedOrder},
	{"ConflictCallsFnAgainWithTheNewValue", testConflictRetry},
	{"UnchangedWritesNothing", testUnchanged},
	{"FnErrorWritesNothing", testFnError},
	{"Delete", testDelete},
	{"ListPagingMoreRemaining", testListPaging},
	{"ListFilterCountsAcceptedItems", testListFilter},
	{"ListAtPastRevision", testListAtRevision},
	{"ListCompactedAndFutureRevisions", testListCompacted},
	{"WatchOrderAndPrev", testWatchOrder},
	{"WatchFromRevisionReplays", testWatchReplay},
	{"WatchPrefix", testWatchPrefix},
	{"WatchFutureRevision", testWatchFuture},
	{"WatchProgressAfterUpdate", testWatchProgress},
	{"WatchTooSlow", testWatchTooSlow},
	{"WatchStopAndContext", testWatchStop},
	{"DeleteResource", testDeleteResource},
	{"Resources", testResources},
	{"Close", testClose},
}

// Put writes value to key and returns the revision of the write.
func Put(t *testing.T, st store.Interface, resource, key, value string) int64 {
	t.Helper()
	_, cur, err := st.Update(resource, key, func(*store.Object) (store.Write, error) {
		return store.Write{Value: []byte(value)}, nil
	})
	if err != nil {
		t.Fatalf("put %s %s: %v", resource, key, err)
	}
	return cur.Revision
}

// del deletes key and returns the revision of the delete.
func del(t *testing.T, st store.Interface, resource, key string) int64 {
	t.Helper()
	_, cur, err := st.Update(resource, key, func(cur *store.Object) (store.Write, error) {
		if cur == nil {
			return store.Write{}, store.ErrNotFound
		}
		return store.Write{Value: cur.Value, Delete: true}, nil
	})
	if err != nil {
		t.Fatalf("delete %s %s: %v", resource, key, err)
	}
	return cur.Revision
}

// Next returns the next event of w, failing if the watch ends or none
// comes.
func Next(t *testing.T, w store.Watcher) store.Event {
	t.Helper()
	select {
	case ev, ok := <-w.Events():
		if !ok {
			t.Fatalf("watch ended (err %v), want an event", w.Err())
		}
		return ev
	case <-time.After(eventWait):
		t.Fatalf("no event in %v", eventWait)
	}
	return store.Event{}
}

// wantEvent checks an event's fields.
func wantEvent(t *testing.T, got store.Event, typ store.EventType, key, value string, rev int64, prev string, prevRev int64) {
	t.Helper()
	if got.Type != typ || got.Key != key || string(got.Value) != value || got.Revision != rev || string(got.Prev) != prev || got.PrevRevision != prevRev {
		t.Fatalf("event = %s %q %q@%d prev %q@%d, want %s %q %q@%d prev %q@%d",
			got.Type, got.Key, got.Value, got.Revision, got.Prev, got.PrevRevision, typ, key, value, rev, prev, prevRev)
	}
	if got.Resource == "" {
		t.Fatalf("event of %q has no resource", got.Key)
	}
}

// keys returns the keys of a list's items.
func keys(items []store.Object) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.Key)
	}
	return out
}

func testGetMissing(t *testing.T, st store.Interface) {
	if _, err := st.Get(things, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Get of a missing key: %v, want ErrNotFound", err)
	}
	Put(t, st, things, "a", "1")
	if _, err := st.Get(things, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Get of a missing key in a resource with keys: %v, want ErrNotFound", err)
	}
}

func testCreateThenUpdate(t *testing.T, st store.Interface) {
	var seen []*store.Object
	prev, cur, err := st.Update(things, "ns/a", func(c *store.Object) (store.Write, error) {
		seen = append(seen, c)
		return store.Write{Value: []byte("v1")}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 1 || seen[0] != nil {
		t.Fatalf("fn saw %v, want one call with nil", seen)
	}
	if prev != nil || cur == nil || cur.Key != "ns/a" || string(cur.Value) != "v1" || cur.Revision <= 0 {
		t.Fatalf("create: prev %+v cur %+v", prev, cur)
	}
	if got := st.CurrentRevision(); got < cur.Revision {
		t.Fatalf("CurrentRevision %d after a write at %d", got, cur.Revision)
	}
	got, err := st.Get(things, "ns/a")
	if err != nil || string(got.Value) != "v1" || got.Revision != cur.Revision || got.Key != "ns/a" {
		t.Fatalf("Get = %+v, %v; want v1 at %d", got, err, cur.Revision)
	}
	first := cur.Revision
	prev, cur, err = st.Update(things, "ns/a", func(c *store.Object) (store.Write, error) {
		if c == nil || string(c.Value) != "v1" || c.Revision != first {
			t.Errorf("fn saw %+v, want v1 at %d", c, first)
		}
		return store.Write{Value: []byte("v2")}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if prev == nil || string(prev.Value) != "v1" || prev.Revision != first || string(cur.Value) != "v2" || cur.Revision <= first {
		t.Fatalf("update: prev %+v cur %+v", prev, cur)
	}
}

func testStamp(t *testing.T, st store.Interface) {
	w, err := st.Watch(context.Background(), things, store.WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	var committed []store.Object
	write := func(value string, del bool) *store.Object {
		t.Helper()
		_, cur, err := st.Update(things, "k", func(*store.Object) (store.Write, error) {
			return store.Write{Value: []byte(value), Delete: del, Stamp: StampRevision, Committed: func(cur *store.Object) {
				committed = append(committed, store.Object{Key: cur.Key, Value: bytes.Clone(cur.Value), Revision: cur.Revision})
			}}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return cur
	}
	stamped := func(v string, rev int64) string { return v + stampMark + strconv.FormatInt(rev, 10) }
	c1 := write("one", false)
	if want := stamped("one", c1.Revision); string(c1.Value) != want {
		t.Fatalf("Update's cur = %q, want %q", c1.Value, want)
	}
	c2 := write("two", false)
	got, err := st.Get(things, "k")
	if err != nil || string(got.Value) != stamped("two", c2.Revision) {
		t.Fatalf("Get = %+v, %v; want %q", got, err, stamped("two", c2.Revision))
	}
	lst, err := st.List(things, store.ListOptions{})
	if err != nil || len(lst.Items) != 1 || string(lst.Items[0].Value) != stamped("two", c2.Revision) {
		t.Fatalf("List = %+v, %v; want one item %q", lst, err, stamped("two", c2.Revision))
	}
	old, err := st.List(things, store.ListOptions{Revision: c1.Revision})
	if err != nil || len(old.Items) != 1 || string(old.Items[0].Value) != stamped("one", c1.Revision) {
		t.Fatalf("List at %d = %+v, %v; want one item %q", c1.Revision, old, err, stamped("one", c1.Revision))
	}
	// The registry's delete passes the final value without its stamp.
	c3 := write("two", true)
	wantEvent(t, Next(t, w), store.Added, "k", stamped("one", c1.Revision), c1.Revision, "", 0)
	wantEvent(t, Next(t, w), store.Modified, "k", stamped("two", c2.Revision), c2.Revision, stamped("one", c1.Revision), c1.Revision)
	// The final value of a delete is the last stored one here (the suite
	// passes it as Write.Value), at the delete's revision.
	wantEvent(t, Next(t, w), store.Deleted, "k", stamped("two", c3.Revision), c3.Revision, stamped("two", c2.Revision), c2.Revision)
	want := []store.Object{
		{Key: "k", Value: []byte(stamped("one", c1.Revision)), Revision: c1.Revision},
		{Key: "k", Value: []byte(stamped("two", c2.Revision)), Revision: c2.Revision},
		{Key: "k", Value: []byte(stamped("two", c3.Revision)), Revision: c3.Revision},
	}
	show := func(objs []store.Object) string {
		var out []string
		for _, o := range objs {
			out = append(out, fmt.Sprintf("%s=%s@%d", o.Key, o.Value, o.Revision))
		}
		return fmt.Sprint(out)
	}
	if show(committed) != show(want) {
		t.Fatalf("Committed saw %s, want %s", show(committed), show(want))
	}
}

func testCommittedOrder(t *testing.T, st store.Interface) {
	const writers, each = 4, 10
	var mu sync.Mutex
	var revs []int64
	var wg sync.WaitGroup
	for i := range writers {
		wg.Go(func() {
			for j := range each {
				key := fmt.Sprintf("k%d", (i+j)%3) // writers meet on keys: conflicts and retries
				_, _, err := st.Update(things, key, func(cur *store.Object) (store.Write, error) {
					n := 0
					if cur != nil {
						n, _ = strconv.Atoi(string(cur.Value))
					}
					return store.Write{Value: []byte(strconv.Itoa(n + 1)), Committed: func(cur *store.Object) {
						mu.Lock()
						revs = append(revs, cur.Revision)
						mu.Unlock()
					}}, nil
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if len(revs) != writers*each {
		t.Fatalf("Committed ran %d times, want %d", len(revs), writers*each)
	}
	if !slices.IsSorted(revs) {
		t.Fatalf("Committed saw revisions out of order: %v", revs)
	}
	total := 0
	lst, err := st.List(things, store.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range lst.Items {
		n, _ := strconv.Atoi(string(it.Value))
		total += n
	}
	if total != writers*each {
		t.Fatalf("the counters add up to %d, want %d: an update was lost", total, writers*each)
	}
}

func testConflictRetry(t *testing.T, st store.Interface) {
	first := Put(t, st, things, "k", "base")
	var calls []string
	var other int64
	prev, cur, err := st.Update(things, "k", func(c *store.Object) (store.Write, error) {
		calls = append(calls, string(c.Value))
		if len(calls) == 1 {
			// Another writer changes the key between this read and the
			// commit.
			other = Put(t, st, things, "k", "other")
		}
		return store.Write{Value: append(bytes.Clone(c.Value), "+mine"...)}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(calls, []string{"base", "other"}) {
		t.Fatalf("fn saw %q, want base then other", calls)
	}
	if string(prev.Value) != "other" || prev.Revision != other || string(cur.Value) != "other+mine" || cur.Revision <= other || other <= first {
		t.Fatalf("prev %+v cur %+v (other at %d)", prev, cur, other)
	}
	// A create races the same way: fn sees nil, then the created value.
	calls = nil
	_, cur, err = st.Update(things, "new", func(c *store.Object) (store.Write, error) {
		if c == nil {
			calls = append(calls, "<nil>")
			Put(t, st, things, "new", "theirs")
			return store.Write{Value: []byte("mine")}, nil
		}
		calls = append(calls, string(c.Value))
		return store.Write{}, store.ErrUnchanged
	})
	if err != nil || !slices.Equal(calls, []string{"<nil>", "theirs"}) || string(cur.Value) != "theirs" {
		t.Fatalf("racing create: calls %q, cur %+v, err %v", calls, cur, err)
	}
}

func testUnchanged(t *testing.T, st store.Interface) {
	rev := Put(t, st, things, "k", "v")
	before := st.CurrentRevision()
	prev, cur, err := st.Update(things, "k", func(*store.Object) (store.Write, error) {
		return store.Write{}, store.ErrUnchanged
	})
	if err != nil || prev == nil || cur == nil || string(prev.Value) != "v" || string(cur.Value) != "v" || prev.Revision != rev || cur.Revision != rev {
		t.Fatalf("ErrUnchanged: prev %+v cur %+v err %v; want v at %d twice", prev, cur, err, rev)
	}
	if got := st.CurrentRevision(); got != before {
		t.Fatalf("CurrentRevision %d after an unchanged update, want %d", got, before)
	}
	prev, cur, err = st.Update(things, "absent", func(*store.Object) (store.Write, error) {
		return store.Write{}, store.ErrUnchanged
	})
	if err != nil || prev != nil || cur != nil {
		t.Fatalf("ErrUnchanged on an absent key: prev %+v cur %+v err %v", prev, cur, err)
	}
}

func testFnError(t *testing.T, st store.Interface) {
	Put(t, st, things, "k", "v")
	before := st.CurrentRevision()
	boom := errors.New("boom")
	if _, _, err := st.Update(things, "k", func(*store.Object) (store.Write, error) {
		return store.Write{Value: []byte("no")}, boom
	}); !errors.Is(err, boom) {
		t.Fatalf("Update = %v, want fn's error", err)
	}
	if _, _, err := st.Update(things, "k", func(*store.Object) (store.Write, error) {
		return store.Write{Value: []byte("no"), Stamp: func([]byte, int64) ([]byte, error) { return nil, boom }}, nil
	}); !errors.Is(err, boom) {
		t.Fatalf("Update = %v, want Stamp's error", err)
	}
	got, err := st.Get(things, "k")
	if err != nil || string(got.Value) != "v" {
		t.Fatalf("Get = %+v, %v; want v unchanged", got, err)
	}
	if cur := st.CurrentRevision(); cur != before {
		t.Fatalf("CurrentRevision %d after failed updates, want %d", cur, before)
	}
}

func testDelete(t *testing.T, st store.Interface) {
	created := Put(t, st, things, "k", "v")
	prev, cur, err := st.Update(things, "k", func(c *store.Object) (store.Write, error) {
		return store.Write{Value: []byte("final"), Delete: true}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if string(prev.Value) != "v" || prev.Revision != created || string(cur.Value) != "final" || cur.Revision <= created {
		t.Fatalf("delete: prev %+v cur %+v", prev, cur)
	}
	if _, err := st.Get(things, "k"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Get after delete: %v, want ErrNotFound", err)
	}
	if _, _, err := st.Update(things, "k", func(*store.Object) (store.Write, error) {
		return store.Write{Delete: true}, nil
	}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("deleting an absent key: %v, want ErrNotFound", err)
	}
	again := Put(t, st, things, "k", "reborn")
	if again <= cur.Revision {
		t.Fatalf("re-create at %d, after the delete at %d", again, cur.Revision)
	}
}

func testListPaging(t *testing.T, st store.Interface) {
	for _, k := range []string{"a/1", "a/2", "a/3", "a/4", "a/5", "b/1", "b/2"} {
		Put(t, st, things, k, "v-"+k)
	}
	Put(t, st, others, "a/9", "elsewhere")
	all, err := st.List(things, store.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := keys(all.Items); !slices.Equal(got, []string{"a/1", "a/2", "a/3", "a/4", "a/5", "b/1", "b/2"}) || all.More || all.Remaining != 0 {
		t.Fatalf("list all: %q more %v remaining %d", got, all.More, all.Remaining)
	}
	if all.Revision < st.CurrentRevision() && all.Revision <= 0 {
		t.Fatalf("list revision %d", all.Revision)
	}
	for _, it := range all.Items {
		if string(it.Value) != "v-"+it.Key || it.Revision <= 0 {
			t.Fatalf("item %+v", it)
		}
	}
	// Pages of the "a/" prefix at the first page's revision, while the
	// resource changes in between.
	var got []string
	opts := store.ListOptions{Prefix: "a/", Limit: 2}
	wantRemaining := []int64{3, 1, 0}
	for page := 0; ; page++ {
		res, err := st.List(things, opts)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, keys(res.Items)...)
		if page == 0 {
			opts.Revision = res.Revision
			Put(t, st, things, "a/22", "added after the first page")
			del(t, st, things, "a/5")
		} else if res.Revision != opts.Revision {
			t.Fatalf("page %d at revision %d, want %d", page, res.Revision, opts.Revision)
		}
		if page >= len(wantRemaining) {
			t.Fatalf("too many pages: %q", got)
		}
		if res.Remaining != wantRemaining[page] || res.More != (wantRemaining[page] > 0) {
			t.Fatalf("page %d: more %v remaining %d, want remaining %d", page, res.More, res.Remaining, wantRemaining[page])
		}
		if !res.More {
			break
		}
		opts.StartAfter = res.Items[len(res.Items)-1].Key
	}
	if !slices.Equal(got, []string{"a/1", "a/2", "a/3", "a/4", "a/5"}) {
		t.Fatalf("pages at one revision: %q", got)
	}
	now, err := st.List(things, store.ListOptions{Prefix: "a/"})
	if err != nil {
		t.Fatal(err)
	}
	if got := keys(now.Items); !slices.Equal(got, []string{"a/1", "a/2", "a/22", "a/3", "a/4"}) {
		t.Fatalf("current list: %q", got)
	}
	// A page that ends on the last key has no More.
	exact, err := st.List(things, store.ListOptions{Prefix: "b/", Limit: 2})
	if err != nil || exact.More || exact.Remaining != 0 || len(exact.Items) != 2 {
		t.Fatalf("exact page: %+v, %v", exact, err)
	}
	empty, err := st.List("test/unknown", store.ListOptions{})
	if err != nil || len(empty.Items) != 0 || empty.More {
		t.Fatalf("unknown resource: %+v, %v", empty, err)
	}
}

func testListFilter(t *testing.T, st store.Interface) {
	for i := range 10 {
		Put(t, st, things, fmt.Sprintf("k%02d", i), strconv.Itoa(i%2))
	}
	odd := func(o store.Object) bool { return string(o.Value) == "1" }
	res, err := st.List(things, store.ListOptions{Limit: 2, Filter: odd})
	if err != nil {
		t.Fatal(err)
	}
	// Items k01, k03; more keys follow k03: k04..k09 (6, unfiltered).
	if got := keys(res.Items); !slices.Equal(got, []string{"k01", "k03"}) || !res.More || res.Remaining != 6 {
		t.Fatalf("filtered page: %q more %v remaining %d", got, res.More, res.Remaining)
	}
	res, err = st.List(things, store.ListOptions{Limit: 2, Filter: odd, StartAfter: "k07", Revision: res.Revision})
	if err != nil {
		t.Fatal(err)
	}
	if got := keys(res.Items); !slices.Equal(got, []string{"k09"}) || res.More {
		t.Fatalf("last filtered page: %q more %v", got, res.More)
	}
}

func testListAtRevision(t *testing.T, st store.Interface) {
	r1 := Put(t, st, things, "a", "1")
	Put(t, st, things, "b", "1")
	r2 := Put(t, st, things, "a", "2")
	r3 := del(t, st, things, "b")
	Put(t, st, things, "c", "1")
	for _, c := range []struct {
		rev  int64
		want []string
	}{
		{r1, []string{"a=1"}},
		{r2, []string{"a=2", "b=1"}},
		{r3, []string{"a=2"}},
	} {
		res, err := st.List(things, store.ListOptions{Revision: c.rev})
		if err != nil {
			t.Fatalf("list at %d: %v", c.rev, err)
		}
		var got []string
		for _, it := range res.Items {
			got = append(got, it.Key+"="+string(it.Value))
			if it.Revision > c.rev {
				t.Fatalf("list at %d has %s written at %d", c.rev, it.Key, it.Revision)
			}
		}
		if !slices.Equal(got, c.want) || res.Revision != c.rev {
			t.Fatalf("list at %d: %q at %d, want %q", c.rev, got, res.Revision, c.want)
		}
	}
}

func testListCompacted(t *testing.T, st store.Interface) {
	cp, ok := st.(Compacter)
	if !ok {
		t.Skipf("%T has no Compact", st)
	}
	r1 := Put(t, st, things, "a", "1")
	r2 := Put(t, st, things, "a", "2")
	Put(t, st, things, "a", "3")
	if err := cp.Compact(r2); err != nil {
		t.Fatal(err)
	}
	if got := st.CompactedRevision(); got != r2 {
		t.Fatalf("CompactedRevision %d after compacting to %d", got, r2)
	}
	_, err := st.List(things, store.ListOptions{Revision: r1})
	var ce *store.CompactedError
	if !errors.As(err, &ce) || ce.Requested != r1 || ce.Oldest != r2 {
		t.Fatalf("list at compacted %d: %v (%+v), want CompactedError oldest %d", r1, err, ce, r2)
	}
	res, err := st.List(things, store.ListOptions{Revision: r2})
	if err != nil || len(res.Items) != 1 || string(res.Items[0].Value) != "2" {
		t.Fatalf("list at the compacted revision %d: %+v, %v", r2, res, err)
	}
	future := st.CurrentRevision() + 1000
	_, err = st.List(things, store.ListOptions{Revision: future})
	var fe *store.FutureRevisionError
	if !errors.As(err, &fe) || fe.Requested != future {
		t.Fatalf("list at future %d: %v, want FutureRevisionError", future, err)
	}
}

func testWatchOrder(t *testing.T, st store.Interface) {
	w, err := st.Watch(context.Background(), things, store.WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	r1 := Put(t, st, things, "a", "1")
	Put(t, st, others, "a", "elsewhere")
	r2 := Put(t, st, things, "b", "1")
	r3 := Put(t, st, things, "a", "2")
	r4 := del(t, st, things, "b")
	wantEvent(t, Next(t, w), store.Added, "a", "1", r1, "", 0)
	wantEvent(t, Next(t, w), store.Added, "b", "1", r2, "", 0)
	wantEvent(t, Next(t, w), store.Modified, "a", "2", r3, "1", r1)
	wantEvent(t, Next(t, w), store.Deleted, "b", "1", r4, "1", r2)
	select {
	case ev := <-w.Events():
		t.Fatalf("unexpected event %+v", ev)
	default:
	}
}

func testWatchReplay(t *testing.T, st store.Interface) {
	Put(t, st, things, "a", "0")
	from := st.CurrentRevision()
	r1 := Put(t, st, things, "a", "1")
	r2 := Put(t, st, things, "b", "1")
	w, err := st.Watch(context.Background(), things, store.WatchOptions{FromRevision: from})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	r3 := Put(t, st, things, "a", "2")
	wantEvent(t, Next(t, w), store.Modified, "a", "1", r1, "0", from)
	wantEvent(t, Next(t, w), store.Added, "b", "1", r2, "", 0)
	wantEvent(t, Next(t, w), store.Modified, "a", "2", r3, "1", r1)
	// From the revision of the last event: nothing replayed.
	w2, err := st.Watch(context.Background(), things, store.WatchOptions{FromRevision: r3})
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Stop()
	r4 := Put(t, st, things, "c", "1")
	wantEvent(t, Next(t, w2), store.Added, "c", "1", r4, "", 0)
}

func testWatchPrefix(t *testing.T, st store.Interface) {
	w, err := st.Watch(context.Background(), things, store.WatchOptions{Prefix: "ns1/"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	Put(t, st, things, "ns2/a", "x")
	r := Put(t, st, things, "ns1/a", "y")
	Put(t, st, things, "ns10/a", "z")
	wantEvent(t, Next(t, w), store.Added, "ns1/a", "y", r, "", 0)
	r = Put(t, st, things, "ns1/b", "w")
	wantEvent(t, Next(t, w), store.Added, "ns1/b", "w", r, "", 0)
}

func testWatchFuture(t *testing.T, st store.Interface) {
	Put(t, st, things, "a", "1")
	future := st.CurrentRevision() + 1000
	_, err := st.Watch(context.Background(), things, store.WatchOptions{FromRevision: future})
	var fe *store.FutureRevisionError
	if !errors.As(err, &fe) || fe.Requested != future {
		t.Fatalf("watch from %d: %v, want FutureRevisionError", future, err)
	}
}

func testWatchProgress(t *testing.T, st store.Interface) {
	w, err := st.Watch(context.Background(), things, store.WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	for i := range 5 {
		rev := Put(t, st, things, "k", strconv.Itoa(i))
		// Once Update returned, the event is queued and CurrentRevision
		// covers it: a watcher that received the event at Sent() has
		// seen everything up to CurrentRevision.
		if sent := w.Sent(); sent != rev {
			t.Fatalf("after the write at %d the last event queued is at %d", rev, sent)
		}
		if cur := st.CurrentRevision(); cur < rev {
			t.Fatalf("CurrentRevision %d after the write at %d", cur, rev)
		}
		if ev := <-w.Events(); ev.Revision != rev {
			t.Fatalf("event at %d, want %d", ev.Revision, rev)
		}
	}
}

func testWatchTooSlow(t *testing.T, st store.Interface) {
	w, err := st.Watch(context.Background(), things, store.WatchOptions{Buffer: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	var last int64
	for i := range 4 {
		last = Put(t, st, things, "k", strconv.Itoa(i))
	}
	var n int
	for range w.Events() {
		n++
	}
	if n != 2 || !errors.Is(w.Err(), store.ErrTooSlow) {
		t.Fatalf("a full watcher got %d events and err %v, want 2 and ErrTooSlow", n, w.Err())
	}
	// Writers were not held up, and other watchers go on.
	w2, err := st.Watch(context.Background(), things, store.WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Stop()
	r := Put(t, st, things, "k", "after")
	wantEvent(t, Next(t, w2), store.Modified, "k", "after", r, "3", last)
}

func testWatchStop(t *testing.T, st store.Interface) {
	w, err := st.Watch(context.Background(), things, store.WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.Stop()
	w.Stop()
	if _, ok := <-w.Events(); ok {
		t.Fatal("event after Stop")
	}
	if w.Err() != nil {
		t.Fatalf("Err after Stop = %v, want nil", w.Err())
	}
	ctx, cancel := context.WithCancel(context.Background())
	w, err = st.Watch(ctx, things, store.WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case _, ok := <-w.Events():
		if ok {
			t.Fatal("event after the context ended")
		}
	case <-time.After(eventWait):
		t.Fatal("the watch did not end with its context")
	}
	if w.Err() != nil {
		t.Fatalf("Err after the context ended = %v, want nil", w.Err())
	}
}

func testDeleteResource(t *testing.T, st store.Interface) {
	before := Put(t, st, things, "a", "1")
	Put(t, st, things, "b", "1")
	Put(t, st, others, "a", "1")
	w, err := st.Watch(context.Background(), things, store.WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if err := st.DeleteResource(things); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Get(things, "a"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Get after DeleteResource: %v", err)
	}
	res, err := st.List(things, store.ListOptions{})
	if err != nil || len(res.Items) != 0 {
		t.Fatalf("list after DeleteResource: %+v, %v", res, err)
	}
	if got, err := st.Get(others, "a"); err != nil || string(got.Value) != "1" {
		t.Fatalf("the other resource: %+v, %v", got, err)
	}
	_, err = st.Watch(context.Background(), things, store.WatchOptions{FromRevision: before})
	var ce *store.CompactedError
	if !errors.As(err, &ce) {
		t.Fatalf("watch from before DeleteResource: %v, want CompactedError", err)
	}
	// The open watcher got no events for the drop and goes on.
	r := Put(t, st, things, "c", "1")
	wantEvent(t, Next(t, w), store.Added, "c", "1", r, "", 0)
	if err := st.DeleteResource("test/never"); err != nil {
		t.Fatalf("dropping an unknown resource: %v", err)
	}
}

func testResources(t *testing.T, st store.Interface) {
	Put(t, st, others, "x", "1")
	Put(t, st, things, "ns/a", "1")
	Put(t, st, things, "ns/b", "1")
	got, err := st.Resources()
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{others, things}; !slices.Equal(got, want) {
		t.Fatalf("Resources = %q, want %q", got, want)
	}
	if err := st.DeleteResource(others); err != nil {
		t.Fatal(err)
	}
	if got, err = st.Resources(); err != nil || !slices.Equal(got, []string{things}) {
		t.Fatalf("Resources after a drop = %q, %v", got, err)
	}
}

func testClose(t *testing.T, st store.Interface) {
	Put(t, st, things, "a", "1")
	w, err := st.Watch(context.Background(), things, store.WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if _, ok := <-w.Events(); ok {
		t.Fatal("event after Close")
	}
	if !errors.Is(w.Err(), store.ErrClosed) {
		t.Fatalf("watcher Err after Close = %v, want ErrClosed", w.Err())
	}
	if _, err := st.Get(things, "a"); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("Get after Close: %v", err)
	}
	if _, _, err := st.Update(things, "a", func(*store.Object) (store.Write, error) {
		return store.Write{Value: []byte("2")}, nil
	}); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("Update after Close: %v", err)
	}
	if _, err := st.Watch(context.Background(), things, store.WatchOptions{}); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("Watch after Close: %v", err)
	}
	if err := st.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}
