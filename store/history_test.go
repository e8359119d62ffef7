package store

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// pageAll pages through resource from opts (continuing at opts.Revision,
// after opts.StartAfter) and returns the items, checking every Remaining
// against the number of keys of want after the page.
func pageAll(t *testing.T, s *Store, resource string, opts ListOptions, want []Object) ([]Object, error) {
	t.Helper()
	var got []Object
	for {
		l, err := s.List(resource, opts)
		if err != nil {
			return got, err
		}
		if opts.Revision != 0 && l.Revision != opts.Revision {
			t.Fatalf("page at revision %d, want %d", l.Revision, opts.Revision)
		}
		got = append(got, l.Items...)
		if !l.More {
			return got, nil
		}
		last := l.Items[len(l.Items)-1].Key
		after := int64(0)
		for _, o := range want {
			if o.Key > last {
				after++
			}
		}
		if l.Remaining != after {
			t.Errorf("page ending at %s: Remaining %d, want %d", last, l.Remaining, after)
		}
		opts.Revision, opts.StartAfter = l.Revision, last
	}
}

// TestContinueTokenOutlivesEventLog takes the first page of a list, makes
// many times more writes than the event log holds (changing, deleting and
// re-creating keys before and after the page, and adding new ones), and
// checks that continuing at the first page's revision still returns the
// state of then.
func TestContinueTokenOutlivesEventLog(t *testing.T) {
	tests := []struct {
		name   string
		prefix string
		limit  int
		filter func(Object) bool
	}{
		{name: "all keys", limit: 4},
		{name: "one item per page", limit: 1},
		{name: "prefix", prefix: "ns1/", limit: 3},
		{name: "filter", limit: 2, filter: func(o Object) bool { return strings.HasSuffix(string(o.Value), "0") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := openTest(t, Options{EventLogSize: 50})
			for i := range 30 {
				mustPut(t, s, "r", fmt.Sprintf("ns%d/k%02d", i%3, i), fmt.Sprintf("v%d-0", i))
				mustPut(t, s, "other", fmt.Sprint(i), "noise")
			}
			then, err := s.List("r", ListOptions{Prefix: tt.prefix})
			if err != nil {
				t.Fatal(err)
			}
			var want []Object
			for _, o := range then.Items {
				if tt.filter == nil || tt.filter(o) {
					want = append(want, o)
				}
			}
			first, err := s.List("r", ListOptions{Prefix: tt.prefix, Limit: tt.limit, Filter: tt.filter})
			if err != nil || !first.More || first.Revision != then.Revision {
				t.Fatalf("first page: %+v, %v", first, err)
			}

			for round := 1; round <= 40; round++ {
				for i := range 30 {
					key := fmt.Sprintf("ns%d/k%02d", i%3, i)
					switch (i + round) % 5 {
					case 0:
						mustPut(t, s, "r", key, fmt.Sprintf("v%d-%d", i, round))
					case 1:
						if _, _, err := s.Update("r", key, remove("gone")); err != nil && !errors.Is(err, ErrNotFound) {
							t.Fatal(err)
						}
					case 2:
						mustPut(t, s, "r", key, fmt.Sprintf("back%d-%d", i, round))
					}
				}
				mustPut(t, s, "r", fmt.Sprintf("ns%d/new%02d", round%3, round), "new0")
			}
			if s.CurrentRevision()-first.Revision < 10*50 {
				t.Fatalf("only %d writes since the token", s.CurrentRevision()-first.Revision)
			}
			if got := s.WatchCompactedRevision(); got <= first.Revision {
				t.Fatalf("the event log still holds revision %d (from %d)", first.Revision, got)
			}

			opts := ListOptions{Prefix: tt.prefix, Limit: tt.limit, Filter: tt.filter,
				Revision: first.Revision, StartAfter: first.Items[len(first.Items)-1].Key}
			rest, err := pageAll(t, s, "r", opts, then.Items)
			if err != nil {
				t.Fatal(err)
			}
			if got := keysOf(append(first.Items, rest...)); got != keysOf(want) {
				t.Errorf("paged\n %s\nwant\n %s", got, keysOf(want))
			}

			// After a compaction past the token's revision, the same page
			// fails.
			cur := s.CurrentRevision()
			if err := s.Compact(cur); err != nil {
				t.Fatal(err)
			}
			var ce *CompactedError
			if _, err := s.List("r", opts); !errors.As(err, &ce) || ce.Requested != first.Revision || ce.Oldest != cur {
				t.Errorf("after Compact(%d): %v, want CompactedError{%d, %d}", cur, err, first.Revision, cur)
			}
			if _, err := s.List("r", ListOptions{Revision: cur}); err != nil {
				t.Errorf("list at the compacted revision: %v", err)
			}
		})
	}
}

// TestListAtRevisionOfKeyHistories writes keys through histories of
// creates, updates and deletes around a revision R and checks what a list
// at R shows of each.
func TestListAtRevisionOfKeyHistories(t *testing.T) {
	type op struct{ value string } // "" deletes; in want, "-" is absent
	tests := []struct {
		name   string
		key    string
		before []op // up to R
		after  []op // after R
		want   string
	}{
		{name: "unchanged", key: "a", before: []op{{"1"}}, want: "1"},
		{name: "updated after", key: "b", before: []op{{"1"}}, after: []op{{"2"}, {"3"}}, want: "1"},
		{name: "updated before and after", key: "c", before: []op{{"1"}, {"2"}}, after: []op{{"3"}}, want: "2"},
		{name: "deleted after", key: "d", before: []op{{"1"}}, after: []op{{""}}, want: "1"},
		{name: "deleted and re-created after", key: "e", before: []op{{"1"}}, after: []op{{""}, {"2"}, {"3"}}, want: "1"},
		{name: "deleted before", key: "f", before: []op{{"1"}, {""}}, want: "-"},
		{name: "deleted before, re-created after", key: "g", before: []op{{"1"}, {""}}, after: []op{{"2"}, {"3"}}, want: "-"},
		{name: "re-created before", key: "h", before: []op{{"1"}, {""}, {"2"}}, after: []op{{"3"}}, want: "2"},
		{name: "created after", key: "i", after: []op{{"1"}}, want: "-"},
		{name: "created and updated after", key: "j", after: []op{{"1"}, {"2"}}, want: "-"},
		{name: "created and deleted after", key: "k", after: []op{{"1"}, {""}}, want: "-"},
		{name: "created, deleted, re-created after", key: "l", after: []op{{"1"}, {""}, {"2"}}, want: "-"},
		{name: "zero byte in key", key: "a\x00", before: []op{{"1"}}, after: []op{{"2"}}, want: "1"},
		{name: "zero bytes inside key", key: "a\x00b\x00\x00", before: []op{{"1"}}, after: []op{{""}}, want: "1"},
		{name: "zero bytes inside key, deleted before", key: "a\x00b\x00", before: []op{{"1"}, {""}}, after: []op{{"2"}}, want: "-"},
		{name: "key after zero byte key", key: "a\x01", before: []op{{"1"}}, after: []op{{"2"}}, want: "1"},
		{name: "many updates before and after", key: "m", before: []op{{"1"}, {"2"}, {"3"}, {"4"}}, after: []op{{"5"}, {"6"}, {"7"}, {"8"}}, want: "4"},
		{name: "many updates before", key: "n", before: []op{{"1"}, {"2"}, {"3"}, {"4"}, {"5"}}, want: "5"},
		{name: "many updates and deletes after", key: "o", before: []op{{"1"}}, after: []op{{"2"}, {""}, {"3"}, {""}, {"4"}, {""}}, want: "1"},
		{name: "longer key", key: "ab", before: []op{{"1"}, {"2"}}, after: []op{{"3"}, {""}}, want: "2"},
	}
	s := openTest(t, Options{EventLogSize: 5})
	apply := func(key string, ops []op) {
		for _, o := range ops {
			// The same keys in resources whose names sort next to r's
			// share the history bucket, not the history.
			for _, resource := range []string{"q", "r", "r\x00", "r/x"} {
				v := o.value
				if resource != "r" && v != "" {
					v = "other"
				}
				if v == "" {
					mustDelete(t, s, resource, key)
				} else {
					mustPut(t, s, resource, key, v)
				}
			}
		}
	}
	for _, tt := range tests {
		apply(tt.key, tt.before)
	}
	at := s.CurrentRevision()
	then, err := s.List("r", ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		apply(tt.key, tt.after)
	}

	got, err := s.List("r", ListOptions{Revision: at})
	if err != nil {
		t.Fatal(err)
	}
	if keysOf(got.Items) != keysOf(then.Items) {
		t.Errorf("list at %d:\n %q\nwant\n %q", at, keysOf(got.Items), keysOf(then.Items))
	}
	values := map[string]string{}
	for _, o := range got.Items {
		values[o.Key] = string(o.Value)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, ok := values[tt.key]
			if !ok {
				v = "-"
			}
			if v != tt.want {
				t.Errorf("key %q at %d: %q, want %q", tt.key, at, v, tt.want)
			}
			// The same, one key per page and within a prefix.
			l, err := s.List("r", ListOptions{Revision: at, Prefix: tt.key, Limit: 1})
			if err != nil {
				t.Fatal(err)
			}
			if len(l.Items) > 0 && l.Items[0].Key == tt.key {
				v = string(l.Items[0].Value)
			} else {
				v = "-"
			}
			if v != tt.want {
				t.Errorf("key %q at %d with prefix: %q, want %q", tt.key, at, v, tt.want)
			}
		})
	}

	// Page one key at a time from every key.
	for i, o := range then.Items {
		rest, err := pageAll(t, s, "r", ListOptions{Revision: at, StartAfter: o.Key, Limit: 1}, then.Items)
		if err != nil {
			t.Fatal(err)
		}
		if keysOf(rest) != keysOf(then.Items[i+1:]) {
			t.Errorf("after %q: %q, want %q", o.Key, keysOf(rest), keysOf(then.Items[i+1:]))
		}
	}
}

// TestHistorySurvivesReopen checks that the history, the compacted revision
// and the revision of a DeleteResource are kept in the file.
func TestHistorySurvivesReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	open := func() *Store {
		t.Helper()
		s, err := Open(path, Options{NoSync: true, EventLogSize: 2})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := open()
	mustPut(t, s, "r", "a", "1")
	mustPut(t, s, "r", "b", "1")
	mustPut(t, s, "gone", "x", "1")
	at := s.CurrentRevision()
	mustPut(t, s, "r", "a", "2")
	mustDelete(t, s, "r", "b")
	mustPut(t, s, "r", "c", "1")
	if err := s.DeleteResource("gone"); err != nil {
		t.Fatal(err)
	}
	mustPut(t, s, "gone", "y", "1")
	s.Close()

	s = open()
	if l, err := s.List("r", ListOptions{Revision: at}); err != nil || keysOf(l.Items) != "a=1@1 b=1@2" {
		t.Errorf("list at %d after reopen: %+v, %v", at, l, err)
	}
	var ce *CompactedError
	if _, err := s.List("gone", ListOptions{Revision: at}); !errors.As(err, &ce) || ce.Oldest != 6 {
		t.Errorf("list of a dropped resource before the drop: %v, want CompactedError{Oldest: 6}", err)
	}
	if l, err := s.List("gone", ListOptions{Revision: 6}); err != nil || len(l.Items) != 0 {
		t.Errorf("list of a dropped resource at the drop: %+v, %v", l, err)
	}
	if err := s.Compact(4); err != nil {
		t.Fatal(err)
	}
	s.Close()

	s = open()
	defer s.Close()
	if got := s.CompactedRevision(); got != 4 {
		t.Errorf("CompactedRevision after reopen = %d, want 4", got)
	}
	if _, err := s.List("r", ListOptions{Revision: at}); !errors.As(err, &ce) || ce.Oldest != 4 {
		t.Errorf("list at %d after Compact(4): %v", at, err)
	}
	if l, err := s.List("r", ListOptions{Revision: 4}); err != nil || keysOf(l.Items) != "a=2@4 b=1@2" {
		t.Errorf("list at 4: %+v, %v", l, err)
	}
	// Compacting past the drop forgets it.
	if err := s.Compact(7); err != nil {
		t.Fatal(err)
	}
	err := s.db.View(func(tx *bolt.Tx) error {
		if v := tx.Bucket(bucketMeta).Get([]byte("dropped/gone")); v != nil {
			t.Errorf("drop record still there after compacting past it")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestOpenWithoutHistory opens files last written by a store that kept no
// history: lists before their revision cannot be served, lists after can.
func TestOpenWithoutHistory(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, path string) // leaves a file at revision 3
	}{
		{
			name: "file from before the history bucket",
			setup: func(t *testing.T, path string) {
				db, err := bolt.Open(path, 0o600, nil)
				if err != nil {
					t.Fatal(err)
				}
				defer db.Close()
				err = db.Update(func(tx *bolt.Tx) error {
					meta, _ := tx.CreateBucket(bucketMeta)
					res, _ := tx.CreateBucket(bucketResources)
					b, _ := res.CreateBucket([]byte("r"))
					b.Put([]byte("a"), encodeValue(3, nil, []byte("3")))
					b.Put([]byte("b"), encodeValue(1, nil, []byte("1")))
					return writeRevision(meta, 3)
				})
				if err != nil {
					t.Fatal(err)
				}
			},
		},
		{
			name: "file written on by such a store",
			setup: func(t *testing.T, path string) {
				s, err := Open(path, Options{NoSync: true})
				if err != nil {
					t.Fatal(err)
				}
				mustPut(t, s, "r", "b", "1")
				mustPut(t, s, "r", "a", "1")
				db := s.db
				// Write as a store without history would.
				err = db.Update(func(tx *bolt.Tx) error {
					if err := resourceBucket(tx, "r").Put([]byte("a"), encodeValue(3, nil, []byte("3"))); err != nil {
						return err
					}
					return writeRevision(tx.Bucket(bucketMeta), 3)
				})
				if err != nil {
					t.Fatal(err)
				}
				s.rev.Store(3)
				s.Close()
			},
		},
		{
			name: "file with the key-ordered history of earlier versions",
			setup: func(t *testing.T, path string) {
				db, err := bolt.Open(path, 0o600, nil)
				if err != nil {
					t.Fatal(err)
				}
				defer db.Close()
				err = db.Update(func(tx *bolt.Tx) error {
					meta, _ := tx.CreateBucket(bucketMeta)
					res, _ := tx.CreateBucket(bucketResources)
					b, _ := res.CreateBucket([]byte("r"))
					b.Put([]byte("a"), encodeValue(3, nil, []byte("3")))
					b.Put([]byte("b"), encodeValue(1, nil, []byte("1")))
					// a=2@2, overwritten at 3, in that layout.
					old, _ := tx.CreateBucket(bucketOldHistory)
					old.Put([]byte("r\x00\x00a\x00\x00\x00\x00\x00\x00\x00\x00\x00\x03\x00\x00\x00\x00\x00\x00\x00\x02"), []byte("2"))
					meta.Put(keyCompacted, appendInt(nil, 0))
					meta.Put(keyHistoryRevision, appendInt(nil, 3))
					return writeRevision(meta, 3)
				})
				if err != nil {
					t.Fatal(err)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "store.db")
			tt.setup(t, path)
			s, err := Open(path, Options{NoSync: true})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if got := s.CompactedRevision(); got != 3 {
				t.Errorf("CompactedRevision = %d, want 3", got)
			}
			err = s.db.View(func(tx *bolt.Tx) error {
				if tx.Bucket(bucketOldHistory) != nil {
					t.Errorf("the key-ordered history bucket is still there")
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			var ce *CompactedError
			if _, err := s.List("r", ListOptions{Revision: 2}); !errors.As(err, &ce) || ce.Oldest != 3 {
				t.Errorf("list at 2: %v, want CompactedError{Oldest: 3}", err)
			}
			mustPut(t, s, "r", "a", "4")
			mustDelete(t, s, "r", "b")
			if l, err := s.List("r", ListOptions{Revision: 3}); err != nil || keysOf(l.Items) != "a=3@3 b=1@1" {
				t.Errorf("list at 3: %+v, %v", l, err)
			}
		})
	}
}

// TestCompactionInterval checks that the compactor compacts to the revision
// of its tick before, and that Close stops it.
func TestCompactionInterval(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "store.db"), Options{NoSync: true, CompactionInterval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for s.CompactedRevision() < 20 {
		if time.Now().After(deadline) {
			t.Fatalf("CompactedRevision still %d at revision %d", s.CompactedRevision(), s.CurrentRevision())
		}
		mustPut(t, s, "r", "a", "x")
		time.Sleep(time.Millisecond)
	}
	if c, cur := s.CompactedRevision(), s.CurrentRevision(); c > cur {
		t.Errorf("compacted to %d past the current revision %d", c, cur)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1<<20)
	if stacks := string(buf[:runtime.Stack(buf, true)]); strings.Contains(stacks, "startCompactor") {
		t.Errorf("compactor still running after Close:\n%s", stacks)
	}

	never, err := Open(filepath.Join(t.TempDir(), "store.db"), Options{NoSync: true, CompactionInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer never.Close()
	buf = buf[:cap(buf)]
	if stacks := string(buf[:runtime.Stack(buf, true)]); strings.Contains(stacks, "startCompactor") {
		t.Errorf("compactor running with a negative CompactionInterval")
	}
}

// TestCompactBatches compacts more history than one transaction deletes.
func TestCompactBatches(t *testing.T) {
	// With every event's bytes in memory, compaction deletes every entry
	// up to its revision (see TestCompactKeepsColdEventsHistory).
	s := openTest(t, Options{CompactionInterval: -1, EventLogHotBytes: -1})
	for i := range compactBatch + 500 {
		mustPut(t, s, "r", fmt.Sprint(i%3), fmt.Sprint(i))
	}
	at := s.CurrentRevision() - 10
	want, err := s.List("r", ListOptions{Revision: at})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Compact(at); err != nil {
		t.Fatal(err)
	}
	n := 0
	err = s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketHistory).ForEach(func(k, _ []byte) error {
			if rev := entryRevision(k); rev <= at {
				t.Errorf("entry at %d left after Compact(%d)", rev, at)
			}
			n++
			return nil
		})
	})
	if err != nil || n != 10 {
		t.Errorf("%d entries left, want 10 (%v)", n, err)
	}
	if got, err := s.List("r", ListOptions{Revision: at}); err != nil || keysOf(got.Items) != keysOf(want.Items) {
		t.Errorf("list at the compacted revision: %+v, %v; want %q", got, err, keysOf(want.Items))
	}
}

// TestListAtRevisionWhileCompacting runs writers, compactions and paged
// lists at past revisions at once: a list either fails with
// *CompactedError or returns the state at its revision.
func TestListAtRevisionWhileCompacting(t *testing.T) {
	s := openTest(t, Options{EventLogSize: 10, CompactionInterval: -1})
	for i := range 50 {
		mustPut(t, s, "r", fmt.Sprintf("k%02d", i), "0")
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { // writer
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			key := fmt.Sprintf("k%02d", i*7%60)
			if i%4 == 0 {
				if _, _, err := s.Update("r", key, remove("gone")); err != nil && !errors.Is(err, ErrNotFound) {
					t.Error(err)
					return
				}
			} else {
				mustPut(t, s, "r", key, fmt.Sprint(i))
			}
		}
	}()
	go func() { // compactor
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
			if err := s.Compact(s.CurrentRevision() - 30); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	compacted := 0
	for range 200 {
		then, err := s.List("r", ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := pageAll(t, s, "r", ListOptions{Revision: then.Revision, Limit: 7}, then.Items)
		var ce *CompactedError
		switch {
		case errors.As(err, &ce):
			compacted++
		case err != nil:
			t.Fatal(err)
		case keysOf(got) != keysOf(then.Items):
			t.Fatalf("list at %d:\n %s\nwant\n %s", then.Revision, keysOf(got), keysOf(then.Items))
		}
	}
	close(stop)
	wg.Wait()
	t.Logf("%d of 200 pagings compacted away", compacted)
}

// TestListAtRevisionMatchesSnapshots makes random writes to a few resources
// and checks that a list at every past revision, with random prefixes,
// start keys and limits, returns the snapshot taken at that revision.
func TestListAtRevisionMatchesSnapshots(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	s := openTest(t, Options{EventLogSize: 7, CompactionInterval: -1})
	keys := []string{"a", "a\x00", "a\x00b", "a/1", "a/2", "ab", "b/1", "b/10", "b/2", "c"}
	resources := []string{"r", "r/x", "q"}
	snapshots := map[int64][]Object{}
	for range 400 {
		resource := resources[rnd.IntN(len(resources))]
		key := keys[rnd.IntN(len(keys))]
		if rnd.IntN(3) == 0 {
			if _, _, err := s.Update(resource, key, remove("gone")); err != nil && !errors.Is(err, ErrNotFound) {
				t.Fatal(err)
			}
		} else {
			mustPut(t, s, resource, key, fmt.Sprint(rnd.IntN(1000)))
		}
		l, err := s.List("r", ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		snapshots[l.Revision] = l.Items
	}
	for rev, want := range snapshots {
		prefix := []string{"", "a", "a\x00", "b/", "z"}[rnd.IntN(5)]
		after := []string{"", "a", "a/1", "ab", "b/1"}[rnd.IntN(5)]
		var wantP []Object
		for _, o := range want {
			if strings.HasPrefix(o.Key, prefix) && o.Key > after {
				wantP = append(wantP, o)
			}
		}
		got, err := pageAll(t, s, "r", ListOptions{Revision: rev, Prefix: prefix, StartAfter: after, Limit: 1 + rnd.IntN(3)}, wantP)
		if err != nil {
			t.Fatal(err)
		}
		if keysOf(got) != keysOf(wantP) {
			t.Errorf("rev %d prefix %q after %q:\n %q\nwant\n %q", rev, prefix, after, keysOf(got), keysOf(wantP))
		}
	}
}

// TestHistoryBatchesSurviveReopenAndCrash checks the batched history: the
// entries still pending at Close are written by it, so a clean reopen lists
// at past revisions; a process that dies with entries pending leaves a file
// that opens compacted at its revision (410, never a wrong list).
func TestHistoryBatchesSurviveReopenAndCrash(t *testing.T) {
	for _, crash := range []bool{false, true} {
		t.Run(fmt.Sprintf("crash=%v", crash), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "store.db")
			s, err := Open(path, Options{NoSync: true, CompactionInterval: -1})
			if err != nil {
				t.Fatal(err)
			}
			mustPut(t, s, "r", "a", "1")
			mustPut(t, s, "r", "a", "2") // revision 2: a history entry, pending
			if n := len(s.pendingHist.entries); n != 1 {
				t.Fatalf("%d entries pending, want 1", n)
			}
			if crash {
				// What a killed process leaves: the commits, not the batch.
				s.closed.Store(true)
				s.stopCompactor()
				if err := s.db.Close(); err != nil {
					t.Fatal(err)
				}
			} else if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			s, err = Open(path, Options{NoSync: true, CompactionInterval: -1})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			l, err := s.List("r", ListOptions{Revision: 1})
			var ce *CompactedError
			switch {
			case crash && !errors.As(err, &ce):
				t.Errorf("after a crash, list at 1: %v, want a CompactedError", err)
			case !crash && (err != nil || keysOf(l.Items) != "a=1@1"):
				t.Errorf("after Close, list at 1: %+v %v, want a=1@1", l, err)
			}
		})
	}
}

func TestCloseWhileCompactingDoesNotDeadlock(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "store.db"), Options{NoSync: true, CompactionInterval: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 300 {
		mustPut(t, s, "r", fmt.Sprint(i%7), "v")
	}
	done := make(chan error, 1)
	go func() { done <- s.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second): // a deadlock guard, not a timing
		t.Fatal("Close did not return")
	}
}

// TestChangesSinceServeOlderTransactions builds the change index of a list
// revision in a transaction, then reads it with an older one: a key whose
// first change after the list revision is newer than the older transaction
// comes from the object bucket, the others from the history.
func TestChangesSinceServeOlderTransactions(t *testing.T) {
	s := openTest(t, Options{CompactionInterval: -1})
	mustPut(t, s, "r", "a", "1")
	mustPut(t, s, "r", "b", "1")
	at := s.CurrentRevision()
	mustPut(t, s, "r", "b", "2")
	if err := s.flushHistory(); err != nil {
		t.Fatal(err)
	}
	// Grow the file first: bbolt cannot grow its map while a read
	// transaction is open.
	mustPut(t, s, "pad", "x", strings.Repeat("x", 1<<20))
	if err := s.DeleteResource("pad"); err != nil {
		t.Fatal(err)
	}
	old, oldRev, err := s.begin()
	if err != nil {
		t.Fatal(err)
	}
	defer old.Rollback()
	mustPut(t, s, "r", "a", "2")
	mustDelete(t, s, "r", "b")
	mustPut(t, s, "r", "c", "1")
	mustPut(t, s, "r", "c", "2")
	// Built by this list, at the current revision.
	if l, err := s.List("r", ListOptions{Revision: at}); err != nil || keysOf(l.Items) != "a=1@1 b=1@2" {
		t.Fatalf("list at %d: %+v, %v", at, l, err)
	}
	x, err := s.changesSince(old, "r", at, oldRev)
	if err != nil {
		t.Fatal(err)
	}
	if x.through != s.CurrentRevision() {
		t.Fatalf("index through %d, want the cached one, through %d", x.through, s.CurrentRevision())
	}
	it := newListIter(resourceBucket(old, "r"), old.Bucket(bucketHistory), x, oldRev, at, "", "")
	var got []string
	for {
		key, val, rev, ok := it.next()
		if !ok {
			break
		}
		got = append(got, fmt.Sprintf("%s=%s@%d", key, val, rev))
	}
	if strings.Join(got, " ") != "a=1@1 b=1@2" {
		t.Errorf("older transaction read %q, want %q", got, "a=1@1 b=1@2")
	}
}

// TestHistoryIsAppendedPerResourceInRevisionOrder checks the history
// bucket's layout: one entry per overwrite or delete, keyed by resource and
// revision, holding the value it replaced; and that compaction deletes the
// old entries of every resource.
func TestHistoryIsAppendedPerResourceInRevisionOrder(t *testing.T) {
	s := openTest(t, Options{CompactionInterval: -1, EventLogHotBytes: -1})
	mustPut(t, s, "r", "a", "1")     // 1: a create keeps nothing
	mustPut(t, s, "r", "a", "2")     // 2
	mustPut(t, s, "q\x00", "x", "1") // 3
	mustDelete(t, s, "r", "a")       // 4
	mustPut(t, s, "q\x00", "x", "2") // 5
	mustPut(t, s, "q", "y", "1")     // 6
	mustPut(t, s, "q", "y", "2")     // 7
	history := func() string {
		t.Helper()
		if err := s.flushHistory(); err != nil {
			t.Fatal(err)
		}
		var got []string
		err := s.db.View(func(tx *bolt.Tx) error {
			return tx.Bucket(bucketHistory).ForEach(func(k, v []byte) error {
				prev, key, val, ok := decodeEntry(v)
				if !ok {
					t.Errorf("entry %x does not decode", k)
				}
				got = append(got, fmt.Sprintf("%q@%d:%s=%s@%d", k[:len(k)-8], entryRevision(k), key, val, prev))
				return nil
			})
		})
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(got, " ")
	}
	want := `"q\x00\x00"@7:y=1@6 "q\x00\xff\x00\x00"@5:x=1@3 "r\x00\x00"@2:a=1@1 "r\x00\x00"@4:a=2@2`
	if got := history(); got != want {
		t.Errorf("history:\n got %s\nwant %s", got, want)
	}
	if err := s.Compact(4); err != nil {
		t.Fatal(err)
	}
	want = `"q\x00\x00"@7:y=1@6 "q\x00\xff\x00\x00"@5:x=1@3`
	if got := history(); got != want {
		t.Errorf("history after Compact(4):\n got %s\nwant %s", got, want)
	}
	if l, err := s.List("q\x00", ListOptions{Revision: 4}); err != nil || keysOf(l.Items) != "x=1@3" {
		t.Errorf("list at 4: %+v, %v", l, err)
	}
}
