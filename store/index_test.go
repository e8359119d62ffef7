package store

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// labelTerms is a test IndexTerms: a value "a,b" has the terms a and b.
func labelTerms(_ string, value []byte) []string {
	if len(value) == 0 {
		return []string{}
	}
	return strings.Split(string(value), ",")
}

func openIndexed(t *testing.T, path string, terms func(string, []byte) []string) *Store {
	t.Helper()
	s, err := Open(path, Options{NoSync: true, IndexTerms: terms, CompactionInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func put(t *testing.T, s *Store, resource, key, value string, index []string) {
	t.Helper()
	_, _, err := s.Update(resource, key, func(*Object) (Write, error) {
		return Write{Value: []byte(value), Index: index}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func del(t *testing.T, s *Store, resource, key string) {
	t.Helper()
	_, _, err := s.Update(resource, key, func(cur *Object) (Write, error) {
		return Write{Value: cur.Value, Delete: true}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// hasTerm is the filter a list through the index pairs with it.
func hasTerm(term string) func(Object) bool {
	return func(o Object) bool { return slices.Contains(labelTerms("", o.Value), term) }
}

// listKeys lists and returns the keys and More.
func listKeys(t *testing.T, s *Store, resource string, opts ListOptions) ([]string, bool) {
	t.Helper()
	res, err := s.List(resource, opts)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, it := range res.Items {
		keys = append(keys, it.Key)
	}
	return keys, res.More
}

// TestIndexedListsMatchFullWalks drives random writes (terms given and
// computed, label changes, deletes) and checks that every list through the
// index returns what the same list walking every key returns: items,
// order, pages and More. With short keys a term's keys fit in one chunk of
// the index; with long ones they take many, which writes split and rename.
func TestIndexedListsMatchFullWalks(t *testing.T) {
	for _, tc := range []struct {
		name string
		pad  int // length of the keys' names past their number
	}{{"keys in one chunk", 0}, {"keys in many chunks", 120}} {
		t.Run(tc.name, func(t *testing.T) {
			s := openIndexed(t, filepath.Join(t.TempDir(), "db"), labelTerms)
			defer s.Close()
			testIndexedListsMatchFullWalks(t, s, strings.Repeat("x", tc.pad))
			if n := indexChunkCount(t, s, "r", "bbb"); (tc.pad == 0) != (n == 1) {
				t.Fatalf("term bbb has %d chunks", n)
			}
		})
	}
}

// indexChunkCount returns how many chunks of the index hold the keys of
// a resource with a term.
func indexChunkCount(t *testing.T, s *Store, resource, term string) int {
	t.Helper()
	n := 0
	err := s.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketIndex).Bucket([]byte(resource)).Cursor()
		head := indexKey(term, "")
		for k, _ := c.Seek(head); k != nil && bytes.HasPrefix(k, head); k, _ = c.Next() {
			n++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func testIndexedListsMatchFullWalks(t *testing.T, s *Store, pad string) {
	rng := rand.New(rand.NewPCG(1, 2))
	termsOf := []string{"", "a", "bbb", "a,bbb", "bbb,c", "c", "l:long=term"}
	keyOf := func() string { return fmt.Sprintf("ns%d/k%02d%s", rng.IntN(3), rng.IntN(30), pad) }
	for i := range 2000 {
		key := keyOf()
		if _, err := s.Get("r", key); err == nil && rng.IntN(4) == 0 {
			del(t, s, "r", key)
		} else {
			v := termsOf[rng.IntN(len(termsOf))]
			var index []string
			if rng.IntN(2) == 0 { // given by the writer, else computed
				index = labelTerms("", []byte(v))
			}
			put(t, s, "r", key, v, index)
		}
		if i%50 != 0 {
			continue
		}
		// Lists at the current revision and at an earlier one (which the
		// index cannot serve: the walk answers).
		for _, term := range []string{"a", "a-term-longer-than-every-key-after-it", "bbb", "bb", "c", "d", "l:long=term", "l:long=terms", "l:lon"} {
			opts := ListOptions{Revision: max(1, s.CurrentRevision()-40), Filter: hasTerm(term)}
			want, _ := listKeys(t, s, "r", opts)
			opts.Index = term
			if got, _ := listKeys(t, s, "r", opts); !slices.Equal(got, want) {
				t.Fatalf("write %d, term %s at revision %d: indexed %v, walked %v", i, term, opts.Revision, got, want)
			}
			// Exact or not, a walk filters.
			opts.IndexExact = true
			if got, _ := listKeys(t, s, "r", opts); !slices.Equal(got, want) {
				t.Fatalf("write %d, term %s at revision %d, exact: indexed %v, walked %v", i, term, opts.Revision, got, want)
			}
		}
		for _, term := range []string{"a", "a-term-longer-than-every-key-after-it", "bbb", "bb", "c", "d", "l:long=term", "l:long=terms", "l:lon"} {
			for _, prefix := range []string{"", "ns1/"} {
				for _, limit := range []int{0, 1, 3} {
					after := ""
					for page := 0; ; page++ {
						opts := ListOptions{Prefix: prefix, StartAfter: after, Limit: limit, Filter: hasTerm(term)}
						want, wantMore := listKeys(t, s, "r", opts)
						opts.Index = term
						got, gotMore := listKeys(t, s, "r", opts)
						if !slices.Equal(got, want) || gotMore != wantMore {
							t.Fatalf("write %d, term %s, prefix %q, limit %d, page %d: indexed %v more=%v, walked %v more=%v", i, term, prefix, limit, page, got, gotMore, want, wantMore)
						}
						// An exact index answers the same without the filter.
						calls := 0
						opts.IndexExact, opts.Filter = true, func(o Object) bool { calls++; return hasTerm(term)(o) }
						got, gotMore = listKeys(t, s, "r", opts)
						if !slices.Equal(got, want) || gotMore != wantMore || calls != 0 {
							t.Fatalf("write %d, term %s, prefix %q, limit %d, page %d, exact: indexed %v more=%v (%d filter calls), walked %v more=%v", i, term, prefix, limit, page, got, gotMore, calls, want, wantMore)
						}
						if !wantMore || len(want) == 0 {
							break
						}
						after = want[len(want)-1]
					}
				}
			}
		}
	}
}

// TestIndexFollowsTheFile checks that a file written without an index (or
// before it existed) is indexed when opened with IndexTerms, and that
// dropping a resource drops its index.
func TestIndexFollowsTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	s := openIndexed(t, path, nil)
	put(t, s, "r", "ns/x", "a", nil)
	put(t, s, "r", "ns/y", "b", nil)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = openIndexed(t, path, labelTerms)
	if got, _ := listKeys(t, s, "r", ListOptions{Index: "a", Filter: hasTerm("a")}); !slices.Equal(got, []string{"ns/x"}) {
		t.Fatalf("after indexing at open: %v, want [ns/x]", got)
	}
	// Read through the index alone (no filter): the steps show it.
	before := s.listSteps.Load()
	if got, _ := listKeys(t, s, "r", ListOptions{Index: "b"}); !slices.Equal(got, []string{"ns/y"}) {
		t.Fatalf("index b: %v, want [ns/y]", got)
	}
	if steps := s.listSteps.Load() - before; steps != 1 {
		t.Fatalf("a list of one indexed key walked %d entries", steps)
	}
	put(t, s, "r", "ns/x", "b", nil)
	if got, _ := listKeys(t, s, "r", ListOptions{Index: "a"}); len(got) != 0 {
		t.Fatalf("after relabelling, index a still has %v", got)
	}
	if err := s.DeleteResource("r"); err != nil {
		t.Fatal(err)
	}
	put(t, s, "r", "ns/z", "c", nil)
	if got, _ := listKeys(t, s, "r", ListOptions{Index: "b"}); len(got) != 0 {
		t.Fatalf("after DeleteResource, index b still has %v", got)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// Opened without IndexTerms, a file loses its index, and is indexed
	// again by the next Open with it, writes in between included.
	s = openIndexed(t, path, nil)
	put(t, s, "r", "ns/w", "c", nil)
	if got, _ := listKeys(t, s, "r", ListOptions{Index: "c", Filter: hasTerm("c")}); !slices.Equal(got, []string{"ns/w", "ns/z"}) {
		t.Fatalf("without an index: %v", got)
	}
	s.Close()
	s = openIndexed(t, path, labelTerms)
	defer s.Close()
	if got, _ := listKeys(t, s, "r", ListOptions{Index: "c"}); !slices.Equal(got, []string{"ns/w", "ns/z"}) {
		t.Fatalf("indexed again: %v, want [ns/w ns/z]", got)
	}
}

// TestIndexWithAnEntryPerKeyIsRebuilt checks that a file indexed by a
// build from before chunks (an entry per key, marked with keyIndexed) is
// indexed anew in chunks at Open, and keeps no mark that such a build would
// trust.
func TestIndexWithAnEntryPerKeyIsRebuilt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	s := openIndexed(t, path, labelTerms)
	put(t, s, "r", "ns/x", "a", nil)
	put(t, s, "r", "ns/y", "a", nil)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// As the earlier build writes it: an entry per key, empty values.
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		if err := tx.DeleteBucket(bucketIndex); err != nil {
			return err
		}
		idx, err := tx.CreateBucket(bucketIndex)
		if err != nil {
			return err
		}
		r, err := idx.CreateBucket([]byte("r"))
		if err != nil {
			return err
		}
		for _, k := range []string{"ns/x", "ns/y"} {
			if err := r.Put(indexKey("a", k), nil); err != nil {
				return err
			}
		}
		return tx.Bucket(bucketMeta).Put(keyIndexed, []byte{1})
	})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()

	s = openIndexed(t, path, labelTerms)
	defer s.Close()
	if got, _ := listKeys(t, s, "r", ListOptions{Index: "a"}); !slices.Equal(got, []string{"ns/x", "ns/y"}) {
		t.Fatalf("index a after Open: %v, want [ns/x ns/y]", got)
	}
	if n := indexChunkCount(t, s, "r", "a"); n != 1 {
		t.Fatalf("term a has %d chunks, want 1", n)
	}
	err = s.db.View(func(tx *bolt.Tx) error {
		if tx.Bucket(bucketMeta).Get(keyIndexed) != nil {
			t.Error("the file still holds the mark of an index with an entry per key")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
