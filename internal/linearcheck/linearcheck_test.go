package linearcheck

import (
	"strings"
	"testing"

	"github.com/anishathalye/porcupine"
)

// op builds an operation of client c over [call, ret].
func op(c int, call, ret int64, in Input, out Output) porcupine.Operation {
	return porcupine.Operation{ClientId: c, Call: call, Return: ret, Input: in, Output: out}
}

func create(c int, call, ret int64, key, value string, rv int64, uid string) porcupine.Operation {
	return op(c, call, ret, Input{Kind: Create, Key: key, Value: value}, Output{Code: OK, RV: rv, UID: uid})
}

func update(c int, call, ret int64, key, value string, pre, rv int64, uid string) porcupine.Operation {
	return op(c, call, ret, Input{Kind: Update, Key: key, Value: value, RV: pre}, Output{Code: OK, RV: rv, UID: uid})
}

func get(c int, call, ret int64, key, value string, rv int64, uid string) porcupine.Operation {
	return op(c, call, ret, Input{Kind: Get, Key: key}, Output{Code: OK, Exists: true, Value: value, RV: rv, UID: uid})
}

func failed(c int, call, ret int64, in Input, code Code) porcupine.Operation {
	return op(c, call, ret, in, Output{Code: code})
}

func TestModelAcceptsAndRejects(t *testing.T) {
	for _, tc := range []struct {
		name    string
		history []porcupine.Operation
		ok      bool
	}{
		{name: "sequential writes and reads", ok: true, history: []porcupine.Operation{
			create(0, 0, 1, "a", "v1", 5, "u1"),
			update(0, 2, 3, "a", "v2", 5, 7, "u1"),
			get(1, 4, 5, "a", "v2", 7, "u1"),
			op(0, 6, 7, Input{Kind: Delete, Key: "a", RV: 7}, Output{Code: OK, RV: 9, UID: "u1"}),
			failed(1, 8, 9, Input{Kind: Get, Key: "a"}, NotFound),
		}},
		{name: "concurrent get may see either value", ok: true, history: []porcupine.Operation{
			create(0, 0, 1, "a", "v1", 5, "u1"),
			update(0, 2, 10, "a", "v2", 5, 7, "u1"),
			get(1, 3, 4, "a", "v1", 5, "u1"),
			get(2, 5, 6, "a", "v2", 7, "u1"),
		}},
		{name: "stale read after an acknowledged update", history: []porcupine.Operation{
			create(0, 0, 1, "a", "v1", 5, "u1"),
			update(0, 2, 3, "a", "v2", 5, 7, "u1"),
			get(1, 4, 5, "a", "v1", 5, "u1"),
		}},
		{name: "lost update: two updates from one resourceVersion both succeed", history: []porcupine.Operation{
			create(0, 0, 1, "a", "v1", 5, "u1"),
			update(0, 2, 5, "a", "v2", 5, 7, "u1"),
			update(1, 2, 5, "a", "v3", 5, 8, "u1"),
		}},
		{name: "stale precondition must conflict", ok: true, history: []porcupine.Operation{
			create(0, 0, 1, "a", "v1", 5, "u1"),
			update(0, 2, 3, "a", "v2", 5, 7, "u1"),
			failed(1, 4, 5, Input{Kind: Update, Key: "a", Value: "v3", RV: 5}, Conflict),
		}},
		{name: "conflict with a current precondition", history: []porcupine.Operation{
			create(0, 0, 1, "a", "v1", 5, "u1"),
			failed(1, 4, 5, Input{Kind: Update, Key: "a", Value: "v3", RV: 5}, Conflict),
		}},
		{name: "create over an existing key", history: []porcupine.Operation{
			create(0, 0, 1, "a", "v1", 5, "u1"),
			create(1, 2, 3, "a", "v2", 6, "u2"),
		}},
		{name: "revision going backwards on one key", history: []porcupine.Operation{
			create(0, 0, 1, "a", "v1", 5, "u1"),
			update(0, 2, 3, "a", "v2", 5, 4, "u1"),
		}},
		{name: "list at a revision sees the writes at or before it", ok: true, history: append([]porcupine.Operation{
			create(0, 0, 1, "a", "v1", 5, "u1"),
			create(0, 2, 3, "b", "w1", 6, "u2"),
		}, SplitList(1, 4, 5, []string{"a", "b"}, 6, map[string]Item{"a": {"v1", 5, "u1"}, "b": {"w1", 6, "u2"}})...)},
		{name: "list at a revision misses a write before it", history: append([]porcupine.Operation{
			create(0, 0, 10, "a", "v1", 5, "u1"),
			create(0, 0, 10, "b", "w1", 6, "u2"),
		}, SplitList(1, 4, 5, []string{"a", "b"}, 6, map[string]Item{"a": {"v1", 5, "u1"}})...)},
		{name: "list at a revision shows a write after it", history: append([]porcupine.Operation{
			create(0, 0, 10, "a", "v1", 5, "u1"),
			create(0, 0, 10, "b", "w1", 7, "u2"),
		}, SplitList(1, 4, 5, []string{"a", "b"}, 6, map[string]Item{"a": {"v1", 5, "u1"}, "b": {"w1", 7, "u2"}})...)},
		{name: "a write after a list that did not see it must be newer", history: append([]porcupine.Operation{
			create(0, 0, 10, "a", "v1", 5, "u1"),
		}, SplitList(1, 1, 2, []string{"a"}, 8, map[string]Item{})...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, _ := porcupine.CheckOperationsVerbose(Model(), tc.history, 0)
			if got := res == porcupine.Ok; got != tc.ok {
				t.Errorf("linearizable = %v (%s), want %v", got, res, tc.ok)
			}
		})
	}
}

func TestCheckRevisionOrder(t *testing.T) {
	none := func(string, int64) int64 { return 0 }
	for _, tc := range []struct {
		name    string
		history []porcupine.Operation
		next    NextRevision
		want    string // a substring of the error; "" for none
	}{
		{name: "writes in real-time order", next: none, history: []porcupine.Operation{
			create(0, 0, 1, "a", "v", 5, "u"), create(1, 2, 3, "b", "w", 6, "u2"),
		}},
		{name: "concurrent writes in any order", next: none, history: []porcupine.Operation{
			create(0, 0, 3, "a", "v", 6, "u"), create(1, 1, 2, "b", "w", 5, "u2"),
		}},
		{name: "a later write with an older revision", next: none, want: "create(b=w) -> rv 5", history: []porcupine.Operation{
			create(0, 0, 1, "a", "v", 6, "u"), create(1, 2, 3, "b", "w", 5, "u2"),
		}},
		{name: "a list older than a write that returned before it", next: none, want: "listRead(b at rv 5)", history: append([]porcupine.Operation{
			create(0, 0, 1, "a", "v", 6, "u"),
		}, SplitList(1, 2, 3, []string{"b"}, 5, nil)...)},
		{name: "a get of a version replaced before a write on another key that returned before it", want: "get(a)",
			next: func(key string, rv int64) int64 {
				if key == "a" && rv == 5 {
					return 6
				}
				return 0
			},
			history: []porcupine.Operation{
				create(0, 0, 1, "a", "v", 5, "u"),
				update(2, 0, 10, "a", "v2", 5, 6, "u"),
				create(1, 2, 3, "b", "w", 7, "u2"),
				get(0, 4, 5, "a", "v", 5, "u"),
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckRevisionOrder(tc.history, tc.next)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("error %v, want none", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v, want one about %q", err, tc.want)
			}
		})
	}
}

func TestCheckStream(t *testing.T) {
	ev := func(typ string, rv int64) Event { return Event{Type: typ, Key: "a", RV: rv} }
	for _, tc := range []struct {
		name   string
		events []Event
		ok     bool
	}{
		{name: "increasing with bookmarks", ok: true, events: []Event{ev(Added, 2), ev(Bookmark, 2), ev(Bookmark, 4), ev(Modified, 5)}},
		{name: "out of order", events: []Event{ev(Added, 3), ev(Modified, 2)}},
		{name: "duplicate", events: []Event{ev(Added, 3), ev(Added, 3)}},
		{name: "bookmark going backwards", events: []Event{ev(Bookmark, 4), ev(Bookmark, 3)}},
		{name: "bookmark behind a delivered event", events: []Event{ev(Added, 5), ev(Bookmark, 4)}},
		{name: "event not newer than a bookmark", events: []Event{ev(Bookmark, 5), ev(Added, 5)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := CheckStream(tc.events); (err == nil) != tc.ok {
				t.Errorf("error %v, want ok=%v", err, tc.ok)
			}
		})
	}
}

func TestFoldAndCheckWrites(t *testing.T) {
	history := []porcupine.Operation{
		create(0, 0, 1, "a", "v1", 5, "u1"),
		update(0, 2, 3, "a", "v2", 5, 7, "u1"),
		op(0, 4, 5, Input{Kind: Delete, Key: "a"}, Output{Code: OK, UID: "u1"}),
		create(1, 6, 7, "a", "v3", 9, "u2"),
	}
	events := []Event{
		{Added, "a", "v1", 5, "u1"}, {Modified, "a", "v2", 7, "u1"}, {Deleted, "a", "v2", 8, "u1"}, {Added, "a", "v3", 9, "u2"},
	}
	if err := ResolveDeletes(history, events); err != nil {
		t.Fatal(err)
	}
	if rv := history[2].Output.(Output).RV; rv != 8 {
		t.Errorf("delete resolved to revision %d, want 8", rv)
	}
	if err := CheckWrites(history, events); err != nil {
		t.Errorf("CheckWrites: %v", err)
	}
	if err := CheckWrites(history, events[:3]); err == nil {
		t.Errorf("CheckWrites with a missing event: no error")
	}
	if err := CheckWrites(history[:3], events); err == nil {
		t.Errorf("CheckWrites with an event no write made: no error")
	}
	got, err := Fold(nil, events)
	if err != nil {
		t.Fatal(err)
	}
	if err := SameState(got, map[string]Item{"a": {"v3", 9, "u2"}}); err != nil {
		t.Errorf("Fold: %v", err)
	}
	for name, bad := range map[string][]Event{
		"added twice":       {events[0], events[0]},
		"modified absent":   {events[1]},
		"deleted old value": {events[0], events[1], {Deleted, "a", "v1", 8, "u1"}},
		"other uid":         {events[0], {Modified, "a", "v2", 7, "u9"}},
	} {
		if _, err := Fold(nil, bad); err == nil {
			t.Errorf("Fold %s: no error", name)
		}
	}
}
