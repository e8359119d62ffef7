package store

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// keysOf renders items as "key=value@rev" for comparison.
func keysOf(items []Object) string {
	var b strings.Builder
	for i, o := range items {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s=%s@%d", o.Key, o.Value, o.Revision)
	}
	return b.String()
}

func TestList(t *testing.T) {
	s := openTest(t, Options{})
	// Inserted out of order; revisions 1..6.
	for _, kv := range [][2]string{{"b/1", "x"}, {"a/2", "y"}, {"c", "x"}, {"a/1", "x"}, {"b/2", "y"}, {"a/3", "x"}} {
		mustPut(t, s, "r", kv[0], kv[1])
	}
	onlyX := func(o Object) bool { return string(o.Value) == "x" }

	tests := []struct {
		name      string
		opts      ListOptions
		want      string
		more      bool
		remaining int64
	}{
		{name: "all", want: "a/1=x@4 a/2=y@2 a/3=x@6 b/1=x@1 b/2=y@5 c=x@3"},
		{name: "prefix", opts: ListOptions{Prefix: "a/"}, want: "a/1=x@4 a/2=y@2 a/3=x@6"},
		{name: "prefix none", opts: ListOptions{Prefix: "z/"}},
		{name: "limit", opts: ListOptions{Limit: 2}, want: "a/1=x@4 a/2=y@2", more: true, remaining: 4},
		{name: "limit exact", opts: ListOptions{Limit: 6}, want: "a/1=x@4 a/2=y@2 a/3=x@6 b/1=x@1 b/2=y@5 c=x@3"},
		{name: "prefix limit", opts: ListOptions{Prefix: "a/", Limit: 2}, want: "a/1=x@4 a/2=y@2", more: true, remaining: 1},
		{name: "start after", opts: ListOptions{StartAfter: "a/3"}, want: "b/1=x@1 b/2=y@5 c=x@3"},
		{name: "start after absent key", opts: ListOptions{StartAfter: "a/25"}, want: "a/3=x@6 b/1=x@1 b/2=y@5 c=x@3"},
		{name: "start after with prefix", opts: ListOptions{Prefix: "b/", StartAfter: "b/1"}, want: "b/2=y@5"},
		{name: "start after before prefix", opts: ListOptions{Prefix: "b/", StartAfter: "a/9"}, want: "b/1=x@1 b/2=y@5"},
		{name: "start after past prefix", opts: ListOptions{Prefix: "a/", StartAfter: "b"}},
		{name: "start after and limit", opts: ListOptions{StartAfter: "a/1", Limit: 3}, want: "a/2=y@2 a/3=x@6 b/1=x@1", more: true, remaining: 2},
		{name: "filter", opts: ListOptions{Filter: onlyX}, want: "a/1=x@4 a/3=x@6 b/1=x@1 c=x@3"},
		{name: "filter limit", opts: ListOptions{Filter: onlyX, Limit: 2}, want: "a/1=x@4 a/3=x@6", more: true, remaining: 3},
		{name: "filter limit last", opts: ListOptions{Filter: onlyX, Limit: 4}, want: "a/1=x@4 a/3=x@6 b/1=x@1 c=x@3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.List("r", tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if keysOf(got.Items) != tt.want || got.More != tt.more || got.Remaining != tt.remaining || got.Revision != 6 {
				t.Errorf("got %q more=%v remaining=%d rev=%d\nwant %q more=%v remaining=%d rev=6",
					keysOf(got.Items), got.More, got.Remaining, got.Revision, tt.want, tt.more, tt.remaining)
			}
		})
	}

	got, err := s.List("no/such", ListOptions{})
	if err != nil || len(got.Items) != 0 || got.Revision != 6 {
		t.Errorf("unknown resource: %+v, %v", got, err)
	}
}

func TestListValuesAreCopies(t *testing.T) {
	s := openTest(t, Options{})
	mustPut(t, s, "r", "a", "abc")
	l, _ := s.List("r", ListOptions{})
	l.Items[0].Value[0] = 'X'
	o, _ := s.Get("r", "a")
	o.Value[1] = 'X'
	if o, _ := s.Get("r", "a"); string(o.Value) != "abc" {
		t.Errorf("stored value changed to %q", o.Value)
	}
}

// TestListHistorical records the current state after every write, then checks
// that a list at each past revision returns exactly that state, including
// when paged.
func TestListHistorical(t *testing.T) {
	s := openTest(t, Options{})
	mustPut(t, s, "other", "a", "noise")
	snapshots := map[int64][]Object{}
	record := func() {
		l, err := s.List("r", ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		snapshots[l.Revision] = l.Items
	}
	record()
	ops := []struct {
		key, value string // value "" deletes
	}{
		{"ns1/a", "a1"}, {"ns1/b", "b1"}, {"ns2/a", "c1"}, {"ns1/a", "a2"},
		{"ns1/b", ""}, {"ns2/b", "d1"}, {"ns1/a", ""}, {"ns1/b", "b2"},
		{"ns2/a", "c2"}, {"ns1/a", "a3"}, {"ns2/b", ""}, {"ns1/c", "e1"},
	}
	for i, op := range ops {
		if op.value == "" {
			mustDelete(t, s, "r", op.key)
		} else {
			mustPut(t, s, "r", op.key, op.value)
		}
		if i%3 == 0 {
			mustPut(t, s, "other", "a", "noise")
		}
		record()
	}

	for rev, want := range snapshots {
		for _, prefix := range []string{"", "ns1/", "ns2/"} {
			var wantP []Object
			for _, o := range want {
				if strings.HasPrefix(o.Key, prefix) {
					wantP = append(wantP, o)
				}
			}
			got, err := s.List("r", ListOptions{Revision: rev, Prefix: prefix})
			if err != nil {
				t.Fatalf("rev %d: %v", rev, err)
			}
			if got.Revision != rev || keysOf(got.Items) != keysOf(wantP) {
				t.Errorf("rev %d prefix %q: got %q at %d, want %q", rev, prefix, keysOf(got.Items), got.Revision, keysOf(wantP))
			}

			// Page through the same revision one item at a time.
			var paged []Object
			after := ""
			for {
				page, err := s.List("r", ListOptions{Revision: rev, Prefix: prefix, StartAfter: after, Limit: 1})
				if err != nil {
					t.Fatal(err)
				}
				paged = append(paged, page.Items...)
				if wantRem := int64(len(wantP) - len(paged)); page.More && page.Remaining != wantRem {
					t.Errorf("rev %d prefix %q: Remaining %d, want %d", rev, prefix, page.Remaining, wantRem)
				}
				if !page.More {
					break
				}
				after = page.Items[len(page.Items)-1].Key
			}
			if !reflect.DeepEqual(keysOf(paged), keysOf(wantP)) {
				t.Errorf("rev %d prefix %q paged: got %q, want %q", rev, prefix, keysOf(paged), keysOf(wantP))
			}
		}
	}
}

func TestListRevisionErrors(t *testing.T) {
	s := openTest(t, Options{EventLogSize: 3})
	for i := range 10 {
		mustPut(t, s, "r", fmt.Sprintf("k%d", i%4), "v")
	}
	// The event log's window limits watches, not lists.
	if got := s.WatchCompactedRevision(); got != 7 {
		t.Errorf("WatchCompactedRevision = %d, want 7", got)
	}
	if l, err := s.List("r", ListOptions{Revision: 1}); err != nil || keysOf(l.Items) != "k0=v@1" {
		t.Errorf("list at 1: %+v, %v", l, err)
	}

	if err := s.Compact(7); err != nil {
		t.Fatal(err)
	}
	if got := s.CompactedRevision(); got != 7 {
		t.Fatalf("CompactedRevision = %d, want 7", got)
	}
	var ce *CompactedError
	if _, err := s.List("r", ListOptions{Revision: 6}); !errors.As(err, &ce) || ce.Requested != 6 || ce.Oldest != 7 {
		t.Errorf("compacted: %v (%+v)", err, ce)
	}
	var fe *FutureRevisionError
	if _, err := s.List("r", ListOptions{Revision: 11}); !errors.As(err, &fe) || fe.Requested != 11 || fe.Current != 10 {
		t.Errorf("future: %v (%+v)", err, fe)
	}
	for _, rev := range []int64{7, 10} {
		if _, err := s.List("r", ListOptions{Revision: rev}); err != nil {
			t.Errorf("list at %d: %v", rev, err)
		}
	}
	if err := s.Compact(11); !errors.As(err, &fe) || fe.Requested != 11 {
		t.Errorf("Compact(11): %v, want FutureRevisionError", err)
	}
	if err := s.Compact(5); err != nil || s.CompactedRevision() != 7 {
		t.Errorf("Compact(5): %v, CompactedRevision %d; want nil, 7", err, s.CompactedRevision())
	}
}

// TestListPagingWalksEachKeyAboutOnce pages through lists and checks that
// every page's Remaining is exact while the whole paging walks each key of
// the range about twice (the first page counts the rest once), not once per
// page.
func TestListPagingWalksEachKeyAboutOnce(t *testing.T) {
	const n = 1000
	some := func(o Object) bool { return o.Value[0] >= '1' && o.Value[0] <= '4' }
	tests := []struct {
		name   string
		opts   ListOptions
		writes bool // write between pages: pages keep the first page's state
	}{
		{name: "all keys", opts: ListOptions{Limit: 10}},
		{name: "prefix", opts: ListOptions{Prefix: "ns1/", Limit: 7}},
		{name: "filter", opts: ListOptions{Limit: 10, Filter: some}},
		{name: "writes between pages", opts: ListOptions{Limit: 10}, writes: true},
		{name: "prefix, filter and writes", opts: ListOptions{Prefix: "ns0/", Limit: 3, Filter: some}, writes: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := openTest(t, Options{})
			for i := range n {
				mustPut(t, s, "r", fmt.Sprintf("ns%d/%04d", i%2, i), fmt.Sprint(i))
			}
			// The keys in range at the first page's revision, in order.
			first, err := s.List("r", ListOptions{Prefix: tt.opts.Prefix})
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, o := range first.Items {
				if tt.opts.Filter == nil || tt.opts.Filter(o) {
					want = append(want, o.Key)
				}
			}
			keys := len(first.Items)
			pos := map[string]int{} // key -> index in the unfiltered range
			for i, o := range first.Items {
				pos[o.Key] = i
			}

			before := s.listSteps.Load()
			opts := tt.opts
			var got []string
			for page := 0; ; page++ {
				l, err := s.List("r", opts)
				if err != nil {
					t.Fatal(err)
				}
				if l.Revision != first.Revision {
					t.Fatalf("page %d at revision %d, want %d", page, l.Revision, first.Revision)
				}
				for _, o := range l.Items {
					got = append(got, o.Key)
				}
				if !l.More {
					break
				}
				last := l.Items[len(l.Items)-1].Key
				if wantRem := int64(keys - 1 - pos[last]); l.Remaining != wantRem {
					t.Fatalf("page %d ending at %s: Remaining %d, want %d", page, last, l.Remaining, wantRem)
				}
				if tt.writes {
					// Change keys to come and already listed, and add some.
					mustPut(t, s, "r", fmt.Sprintf("ns0/%04d", (page*4+500)%n&^1), "changed")
					mustDelete(t, s, "r", fmt.Sprintf("ns1/%04d", (page*6+1)%n|1))
					mustPut(t, s, "r", fmt.Sprintf("ns%d/%04d+", page%2, page*2), "new")
				}
				opts.Revision, opts.StartAfter = l.Revision, last
			}
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Fatalf("paged %d keys, want %d:\n got %v\nwant %v", len(got), len(want), got, want)
			}
			if steps := s.listSteps.Load() - before; steps > int64(3*keys) {
				t.Errorf("paging through %d keys walked %d keys, want at most %d", keys, steps, 3*keys)
			}
		})
	}
}
