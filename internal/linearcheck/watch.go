package linearcheck

import (
	"errors"
	"fmt"
	"sort"

	"github.com/anishathalye/porcupine"
)

// Event types of a watch, as the API names them.
const (
	Added    = "ADDED"
	Modified = "MODIFIED"
	Deleted  = "DELETED"
	Bookmark = "BOOKMARK"
)

// Event is one event a watch delivered: for a BOOKMARK, only RV is set.
// For a DELETED event, RV is the revision of the delete and Value and UID
// are those of the object deleted.
type Event struct {
	Type  string
	Key   string
	Value string
	RV    int64
	UID   string
}

// String describes e.
func (e Event) String() string {
	if e.Type == Bookmark {
		return fmt.Sprintf("BOOKMARK@%d", e.RV)
	}
	return fmt.Sprintf("%s %s=%s@%d", e.Type, e.Key, e.Value, e.RV)
}

// CheckStream checks one watch's events for etcd's ordering guarantees:
// the revisions of its events are strictly increasing (ordered, and no
// event twice), bookmarks never go backwards, a bookmark is at least the
// revision of every event before it and every event after it is newer
// than the bookmark.
func CheckStream(events []Event) error {
	var errs []error
	var lastEvent, lastBookmark int64
	var lastEventDesc string
	for i, e := range events {
		if len(errs) >= 10 {
			break
		}
		if e.Type == Bookmark {
			if e.RV < lastBookmark {
				errs = append(errs, fmt.Errorf("event %d: bookmark at %d after a bookmark at %d", i, e.RV, lastBookmark))
			}
			if e.RV < lastEvent {
				errs = append(errs, fmt.Errorf("event %d: bookmark at %d after %s", i, e.RV, lastEventDesc))
			}
			lastBookmark = max(lastBookmark, e.RV)
			continue
		}
		if e.RV <= lastEvent {
			errs = append(errs, fmt.Errorf("event %d: %s after %s", i, e, lastEventDesc))
		}
		if e.RV <= lastBookmark {
			errs = append(errs, fmt.Errorf("event %d: %s after a bookmark at %d", i, e, lastBookmark))
		}
		lastEvent, lastEventDesc = max(lastEvent, e.RV), e.String()
	}
	return errors.Join(errs...)
}

// Changes returns the events of events that are not bookmarks, and only
// those with a revision greater than after.
func Changes(events []Event, after int64) []Event {
	var out []Event
	for _, e := range events {
		if e.Type != Bookmark && e.RV > after {
			out = append(out, e)
		}
	}
	return out
}

// SameChanges reports where two watches' changes (bookmarks aside)
// differ: which one is missing an event, or has another in its place.
func SameChanges(got, want []Event) error {
	got, want = Changes(got, 0), Changes(want, 0)
	for i := 0; i < len(got) || i < len(want); i++ {
		switch {
		case i >= len(got):
			return fmt.Errorf("%d events, want %d: missing %s", len(got), len(want), want[i])
		case i >= len(want):
			return fmt.Errorf("%d events, want %d: extra %s", len(got), len(want), got[i])
		case got[i] != want[i]:
			return fmt.Errorf("event %d is %s, want %s", i, got[i], want[i])
		}
	}
	return nil
}

// Fold applies events (bookmarks aside) to the objects in state, checking
// that each makes sense there: an ADDED key was absent, a MODIFIED or
// DELETED key was present with the same uid, and a DELETED event carries
// the object's last value. It returns the new state; state is not changed.
func Fold(state map[string]Item, events []Event) (map[string]Item, error) {
	out := make(map[string]Item, len(state))
	for k, v := range state {
		out[k] = v
	}
	for _, e := range events {
		cur, ok := out[e.Key]
		switch e.Type {
		case Bookmark:
			continue
		case Added:
			if ok {
				return nil, fmt.Errorf("%s: the key holds %s@%d", e, cur.Value, cur.RV)
			}
		case Modified, Deleted:
			if !ok {
				return nil, fmt.Errorf("%s: the key is absent", e)
			}
			if cur.UID != e.UID {
				return nil, fmt.Errorf("%s: uid %s, the key holds uid %s", e, e.UID, cur.UID)
			}
			if e.Type == Deleted && cur.Value != e.Value {
				return nil, fmt.Errorf("%s: the key holds %s@%d, the deleted object has %s", e, cur.Value, cur.RV, e.Value)
			}
		default:
			return nil, fmt.Errorf("%s: unknown event type", e)
		}
		if e.RV <= cur.RV {
			return nil, fmt.Errorf("%s: the key is at revision %d already", e, cur.RV)
		}
		if e.Type == Deleted {
			delete(out, e.Key)
			continue
		}
		out[e.Key] = Item{Value: e.Value, RV: e.RV, UID: e.UID}
	}
	return out, nil
}

// SameState reports how two sets of objects differ.
func SameState(got, want map[string]Item) error {
	var errs []error
	keys := map[string]bool{}
	for k := range got {
		keys[k] = true
	}
	for k := range want {
		keys[k] = true
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	for _, k := range sorted {
		g, gok := got[k]
		w, wok := want[k]
		switch {
		case !gok:
			errs = append(errs, fmt.Errorf("%s: missing, want %s@%d", k, w.Value, w.RV))
		case !wok:
			errs = append(errs, fmt.Errorf("%s: %s@%d, want absent", k, g.Value, g.RV))
		case g != w:
			errs = append(errs, fmt.Errorf("%s: %s@%d (uid %s), want %s@%d (uid %s)", k, g.Value, g.RV, g.UID, w.Value, w.RV, w.UID))
		}
	}
	return errors.Join(errs...)
}

// ResolveDeletes fills in the revision of every successful delete in
// history from the DELETED event of the object it deleted (same key and
// uid) in events, a watch that saw every write. A delete whose event is
// missing is an error.
func ResolveDeletes(history []porcupine.Operation, events []Event) error {
	type obj struct{ key, uid string }
	deleted := map[obj]int64{}
	for _, e := range events {
		if e.Type == Deleted {
			deleted[obj{e.Key, e.UID}] = e.RV
		}
	}
	var errs []error
	for i, op := range history {
		in, out := op.Input.(Input), op.Output.(Output)
		if in.Kind != Delete || out.Code != OK {
			continue
		}
		rv, ok := deleted[obj{in.Key, out.UID}]
		if !ok {
			errs = append(errs, fmt.Errorf("the delete of %s (uid %s) has no DELETED event", in.Key, out.UID))
			continue
		}
		out.RV = rv
		history[i].Output = out
	}
	return errors.Join(errs...)
}

// CheckWrites checks that the changes of a watch that saw every write are
// exactly the successful writes of history, one event each (a watch
// delivers each committed write atomically, whole and once): a create's
// ADDED, an update's MODIFIED, a delete's DELETED, at the write's revision
// with its value and uid, and no event that no write made.
func CheckWrites(history []porcupine.Operation, events []Event) error {
	type write struct {
		typ, value, uid string
	}
	writes := map[int64]write{}
	keys := map[int64]string{}
	for _, op := range history {
		in, out := op.Input.(Input), op.Output.(Output)
		if out.Code != OK {
			continue
		}
		var w write
		switch in.Kind {
		case Create:
			w = write{Added, in.Value, out.UID}
		case Update, UpdateAny:
			w = write{Modified, in.Value, out.UID}
		case Delete:
			w = write{typ: Deleted, uid: out.UID}
		default:
			continue
		}
		if _, dup := writes[out.RV]; dup {
			return fmt.Errorf("two writes answered revision %d", out.RV)
		}
		writes[out.RV], keys[out.RV] = w, in.Key
	}
	var errs []error
	for _, e := range Changes(events, 0) {
		w, ok := writes[e.RV]
		switch {
		case !ok:
			errs = append(errs, fmt.Errorf("%s: no write answered that revision", e))
		case keys[e.RV] != e.Key || w.typ != e.Type || w.uid != e.UID || (w.typ != Deleted && w.value != e.Value):
			errs = append(errs, fmt.Errorf("%s (uid %s): the write at that revision was a %s of %s=%s (uid %s)", e, e.UID, w.typ, keys[e.RV], w.value, w.uid))
		}
		delete(writes, e.RV)
		if len(errs) >= 10 {
			break
		}
	}
	for rv, w := range writes {
		if len(errs) >= 10 {
			break
		}
		errs = append(errs, fmt.Errorf("the %s of %s=%s at revision %d has no event", w.typ, keys[rv], w.value, rv))
	}
	return errors.Join(errs...)
}

// Versions returns, from a watch that saw every write, the revision of the
// write that followed each version of a key, for CheckRevisionOrder.
func Versions(events []Event) NextRevision {
	byKey := map[string][]int64{}
	for _, e := range Changes(events, 0) {
		byKey[e.Key] = append(byKey[e.Key], e.RV)
	}
	return func(key string, rv int64) int64 {
		revs := byKey[key]
		i := sort.Search(len(revs), func(i int) bool { return revs[i] > rv })
		if i == len(revs) {
			return 0
		}
		return revs[i]
	}
}
