package store

import (
	"errors"
	"path/filepath"
	"testing"
)

// listOnly hides a store's Visit, so that Visit falls back to List.
type listOnly struct{ Interface }

// visitAll lists through Visit, copying the items it is handed.
func visitAll(t *testing.T, st Interface, resource string, opts ListOptions) *ListResult {
	t.Helper()
	var items []Object
	res, err := Visit(st, resource, opts, func(o Object) error {
		o.Value = append([]byte(nil), o.Value...)
		items = append(items, o)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Items != nil {
		t.Fatalf("Visit returned %d items in its result", len(res.Items))
	}
	res.Items = items
	return res
}

// TestVisitListsWhatListReturns checks that a list through Visit hands its
// callback the items List returns, in order, with the same revision, More
// and Remaining, walking every key, through the index and at a past
// revision, and so does the fallback for a backend without Visit.
func TestVisitListsWhatListReturns(t *testing.T) {
	s := openIndexed(t, filepath.Join(t.TempDir(), "db"), labelTerms)
	defer s.Close()
	for _, kv := range [][2]string{{"b/1", "x"}, {"a/2", "y"}, {"c", "x"}, {"a/1", "x,y"}, {"b/2", "y"}, {"a/3", "x"}} {
		put(t, s, "r", kv[0], kv[1], nil)
	}
	del(t, s, "r", "b/1")
	put(t, s, "r", "a/2", "x", nil)

	tests := []struct {
		name string
		opts ListOptions
	}{
		{name: "all"},
		{name: "prefix", opts: ListOptions{Prefix: "a/"}},
		{name: "limit", opts: ListOptions{Limit: 2}},
		{name: "start after and limit", opts: ListOptions{StartAfter: "a/1", Limit: 2}},
		{name: "filter", opts: ListOptions{Filter: hasTerm("x")}},
		{name: "index", opts: ListOptions{Filter: hasTerm("x"), Index: "x"}},
		{name: "index limit", opts: ListOptions{Filter: hasTerm("x"), Index: "x", Limit: 2}},
		{name: "past revision", opts: ListOptions{Revision: 6}},
		{name: "past revision limit", opts: ListOptions{Revision: 6, Limit: 3}},
		{name: "unknown resource"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resource := "r"
			if tt.name == "unknown resource" {
				resource = "none"
			}
			want, err := s.List(resource, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, st := range []Interface{s, listOnly{s}} {
				got := visitAll(t, st, resource, tt.opts)
				if keysOf(got.Items) != keysOf(want.Items) || got.Revision != want.Revision || got.More != want.More || got.Remaining != want.Remaining {
					t.Errorf("%T: Visit gave %q rev %d more %v remaining %d, List %q rev %d more %v remaining %d", st,
						keysOf(got.Items), got.Revision, got.More, got.Remaining, keysOf(want.Items), want.Revision, want.More, want.Remaining)
				}
			}
		})
	}
}

// TestVisitStopsAtItsCallbacksError checks that an error from the callback
// ends the list and is returned as it is, and that the store's own errors
// come back as List's.
func TestVisitStopsAtItsCallbacksError(t *testing.T) {
	s := openTest(t, Options{})
	for _, k := range []string{"a", "b", "c"} {
		mustPut(t, s, "r", k, "v")
	}
	stop := errors.New("stop")
	for _, st := range []Interface{s, listOnly{s}} {
		var seen []string
		_, err := Visit(st, "r", ListOptions{}, func(o Object) error {
			seen = append(seen, o.Key)
			if o.Key == "b" {
				return stop
			}
			return nil
		})
		if err != stop || len(seen) != 2 {
			t.Errorf("%T: error %v after %v, want %v after [a b]", st, err, seen, stop)
		}
		_, err = Visit(st, "r", ListOptions{Revision: s.CurrentRevision() + 1}, func(Object) error { return nil })
		var fe *FutureRevisionError
		if !errors.As(err, &fe) {
			t.Errorf("%T: a future revision gave %v, want a FutureRevisionError", st, err)
		}
	}
}
