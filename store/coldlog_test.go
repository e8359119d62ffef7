package store

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// coldOp is one step of a scenario that TestColdReplayMatchesHotReplay runs
// on two stores.
type coldOp struct {
	op            string // "put", "del", "compact" (to the current revision minus key's length), "reopen"
	resource, key string
	value         string
}

// replayAll starts a watch of resource with prefix from rev and returns the
// events it replays (all in its channel when Watch returns), or the error.
func replayAll(t *testing.T, s *Store, resource, prefix string, rev int64) ([]Event, error) {
	t.Helper()
	w, err := s.Watch(context.Background(), resource, WatchOptions{Prefix: prefix, FromRevision: rev})
	if err != nil {
		return nil, err
	}
	defer w.Stop()
	var evs []Event
	for n := len(w.Events()); n > 0; n-- {
		evs = append(evs, <-w.Events())
	}
	return evs, nil
}

// TestColdReplayMatchesHotReplay runs each scenario on a store that keeps
// the bytes of its newest event only and on one that keeps all of them,
// then checks that watches from every revision of the window, with and
// without a prefix, replay exactly the same events from both, and that both
// logs hold the same window.
func TestColdReplayMatchesHotReplay(t *testing.T) {
	many := func(resource, key string, n int) []coldOp {
		var ops []coldOp
		for i := range n {
			ops = append(ops, coldOp{op: "put", resource: resource, key: key, value: fmt.Sprintf("%s-v%d", key, i)})
		}
		return ops
	}
	cat := func(parts ...[]coldOp) []coldOp {
		var ops []coldOp
		for _, p := range parts {
			ops = append(ops, p...)
		}
		return ops
	}
	tests := []struct {
		name     string
		ops      []coldOp
		prefixes []string
		logSize  int
	}{
		{
			name: "creates",
			ops: []coldOp{
				{op: "put", resource: "r", key: "a", value: "a1"},
				{op: "put", resource: "r", key: "b", value: "b1"},
				{op: "put", resource: "r", key: "c", value: "c1"},
			},
		},
		{
			name: "updates",
			ops: []coldOp{
				{op: "put", resource: "r", key: "a", value: "a1"},
				{op: "put", resource: "r", key: "b", value: "b1"},
				{op: "put", resource: "r", key: "a", value: "a2"},
				{op: "put", resource: "r", key: "b", value: "b2"},
				{op: "put", resource: "r", key: "a", value: "a3"},
				{op: "put", resource: "r", key: "c", value: "c1"},
			},
		},
		{
			name: "deletes and recreates",
			ops: []coldOp{
				{op: "put", resource: "r", key: "a", value: "a1"},
				{op: "put", resource: "r", key: "a", value: "a2"},
				{op: "del", resource: "r", key: "a", value: "a-final"},
				{op: "put", resource: "r", key: "a", value: "a3"},
				{op: "put", resource: "r", key: "b", value: "b1"},
				{op: "del", resource: "r", key: "b", value: "b-final"},
				{op: "put", resource: "r", key: "a", value: "a4"},
				{op: "del", resource: "r", key: "a", value: "a-final2"},
			},
		},
		{
			name: "a key written many times, past a history batch",
			ops:  cat(many("r", "k", historyBatch+40), many("r", "j", 3), many("r", "k", 5)),
		},
		{
			name: "prefixes and another resource",
			ops: cat(
				many("r", "ns1/a", 3), many("q", "ns1/a", 2), many("r", "ns2/a", 2),
				[]coldOp{{op: "del", resource: "r", key: "ns1/a", value: "x"}},
				many("r", "ns1/b", 2), many("q", "ns2/z", 2), many("r", "ns1/a", 2),
			),
			prefixes: []string{"", "ns1/", "ns2/", "ns1/a"},
		},
		{
			name:    "a window shorter than the writes",
			ops:     cat(many("r", "a", 10), many("r", "b", 10), many("r", "a", 10)),
			logSize: 12,
		},
		{
			name: "compaction while cold events are held",
			ops: cat(
				many("r", "a", 5), many("r", "b", 5),
				[]coldOp{{op: "compact", key: "xxxx"}},
				many("r", "a", 3),
				[]coldOp{{op: "del", resource: "r", key: "b", value: "b-final"}, {op: "compact"}},
				many("r", "b", 2),
			),
		},
		{
			name: "reopen",
			ops: cat(
				many("r", "a", 5),
				[]coldOp{{op: "reopen"}},
				many("r", "a", 3), many("r", "b", 3), many("r", "a", 2),
			),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			open := func(name string, hot int64) *Store {
				s, err := Open(filepath.Join(dir, name), Options{NoSync: true, CompactionInterval: -1, EventLogSize: tt.logSize, EventLogHotBytes: hot})
				if err != nil {
					t.Fatal(err)
				}
				return s
			}
			cold, hot := open("cold.db", 1), open("hot.db", -1)
			defer func() { cold.Close(); hot.Close() }()
			for i, op := range tt.ops {
				for _, s := range []*Store{cold, hot} {
					var err error
					switch op.op {
					case "put":
						_, _, err = s.Update(op.resource, op.key, set(op.value))
					case "del":
						_, _, err = s.Update(op.resource, op.key, remove(op.value))
					case "compact":
						err = s.Compact(s.CurrentRevision() - int64(len(op.key)))
					case "reopen":
						s.Close()
					}
					if err != nil {
						t.Fatalf("op %d %+v: %v", i, op, err)
					}
				}
				if op.op == "reopen" {
					cold, hot = open("cold.db", 1), open("hot.db", -1)
				}
			}
			if cold.log.cold == 0 || cold.log.cold != cold.log.Len()-1 {
				t.Fatalf("%d of the %d events held are cold, want all but the newest", cold.log.cold, cold.log.Len())
			}
			if hot.log.cold != 0 {
				t.Fatalf("%d cold events with EventLogHotBytes < 0", hot.log.cold)
			}
			if c, h := cold.WatchCompactedRevision(), hot.WatchCompactedRevision(); c != h {
				t.Fatalf("the windows differ: cold store from %d, hot store from %d", c, h)
			}
			prefixes := tt.prefixes
			if prefixes == nil {
				prefixes = []string{""}
			}
			resources := map[string]bool{}
			for _, op := range tt.ops {
				if op.resource != "" {
					resources[op.resource] = true
				}
			}
			replayed := 0
			for rev := cold.WatchCompactedRevision(); rev <= cold.CurrentRevision(); rev++ {
				for resource := range resources {
					for _, prefix := range prefixes {
						got, err := replayAll(t, cold, resource, prefix, rev)
						if err != nil {
							t.Fatalf("watch %s %q from %d on the cold store: %v", resource, prefix, rev, err)
						}
						want, err := replayAll(t, hot, resource, prefix, rev)
						if err != nil {
							t.Fatalf("watch %s %q from %d on the hot store: %v", resource, prefix, rev, err)
						}
						if !reflect.DeepEqual(got, want) {
							t.Fatalf("watch %s %q from %d replayed\n%s\nwant\n%s", resource, prefix, rev, fmtEvents(got), fmtEvents(want))
						}
						replayed += len(got)
					}
				}
			}
			if replayed == 0 {
				t.Fatal("no watch replayed anything")
			}
		})
	}
}

// fmtEvents formats events one a line.
func fmtEvents(evs []Event) string {
	var b strings.Builder
	for _, e := range evs {
		fmt.Fprintf(&b, "  %s %s %s@%d value %q prev %q@%d\n", e.Type, e.Resource, e.Key, e.Revision, e.Value, e.Prev, e.PrevRevision)
	}
	return b.String()
}

// TestColdReplayWithoutItsHistoryFails removes from the file the history
// entries that cold events read their values from: a watch that would
// replay them fails as one whose window has passed, a watch from after
// them still works, and a list below the compacted revision fails as ever.
func TestColdReplayWithoutItsHistoryFails(t *testing.T) {
	tests := []struct {
		name string
		// lose damages the file after: r/a written at 1, 2, 3, r/b
		// created at 4 and r/a deleted at 5.
		lose     func(tx *bolt.Tx) error
		failFrom int64 // watches from before this fail
	}{
		{
			name: "the history entry of an overwrite",
			lose: func(tx *bolt.Tx) error {
				return tx.Bucket(bucketHistory).Delete(appendInt(appendGroup(nil, "r"), 3))
			},
			failFrom: 3, // 3's prev, and 2's value, are the entry's
		},
		{
			name: "the resource's current objects",
			lose: func(tx *bolt.Tx) error {
				return resourceBucket(tx, "r").Delete([]byte("b"))
			},
			failFrom: 4,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := openTest(t, Options{CompactionInterval: -1, EventLogHotBytes: 1})
			mustPut(t, s, "r", "a", "1")
			mustPut(t, s, "r", "a", "2")
			mustPut(t, s, "r", "a", "3")
			mustPut(t, s, "r", "b", "1")
			mustDelete(t, s, "r", "a")
			if err := s.flushHistory(); err != nil {
				t.Fatal(err)
			}
			if err := s.db.Update(tt.lose); err != nil {
				t.Fatal(err)
			}
			for rev := int64(1); rev <= 5; rev++ {
				evs, err := replayAll(t, s, "r", "", rev)
				var ce *CompactedError
				if rev < tt.failFrom {
					if !errors.As(err, &ce) || ce.Requested != rev {
						t.Errorf("watch from %d: %v (replayed %s), want CompactedError", rev, err, fmtEvents(evs))
					}
					continue
				}
				if err != nil || len(evs) != int(5-rev) {
					t.Errorf("watch from %d: %v, %d events, want %d", rev, err, len(evs), 5-rev)
				}
			}
		})
	}
}

// TestCompactKeepsColdEventsHistory compacts past revisions the log holds
// cold events of: lists there fail, watches there still replay every value,
// and a later compaction, once the log has let them go, deletes the entries.
func TestCompactKeepsColdEventsHistory(t *testing.T) {
	s := openTest(t, Options{CompactionInterval: -1, EventLogSize: 20, EventLogHotBytes: 1})
	for i := range 10 {
		mustPut(t, s, "r", "k", fmt.Sprint(i))
	}
	if err := s.Compact(8); err != nil {
		t.Fatal(err)
	}
	var ce *CompactedError
	if _, err := s.List("r", ListOptions{Revision: 7}); !errors.As(err, &ce) {
		t.Fatalf("list below the compacted revision: %v, want CompactedError", err)
	}
	evs, err := replayAll(t, s, "r", "", 1)
	if err != nil || len(evs) != 9 {
		t.Fatalf("watch from 1: %v, %d events", err, len(evs))
	}
	for i, e := range evs {
		if string(e.Prev) != fmt.Sprint(i) || string(e.Value) != fmt.Sprint(i+1) {
			t.Fatalf("event %d: %s", i, fmtEvents(evs[i:i+1]))
		}
	}
	// The log keeps 20 events: 30 more writes let the first 10 go.
	for i := range 30 {
		mustPut(t, s, "r", "k", fmt.Sprint(10+i))
	}
	if err := s.Compact(12); err != nil {
		t.Fatal(err)
	}
	err = s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketHistory).ForEach(func(k, _ []byte) error {
			if rev := entryRevision(k); rev <= 12 {
				t.Errorf("entry at %d left after Compact(12) with the log from %d", rev, s.WatchCompactedRevision())
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestColdReplayWhileWriting starts watches from past revisions while a
// writer keeps writing, so that events turn cold while a replay reads
// them: every watch must then see, without gap or duplicate, each write
// with the value and previous value it wrote.
func TestColdReplayWhileWriting(t *testing.T) {
	s := openTest(t, Options{CompactionInterval: -1, EventLogHotBytes: 64})
	const writes, keys = 600, 7
	values := make([]string, writes+1) // by revision
	var mu sync.Mutex
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range writes {
			v := fmt.Sprintf("value-%d-%s", i, strings.Repeat("x", i%20))
			rev := mustPut(t, s, "r", fmt.Sprint(i%keys), v)
			mu.Lock()
			values[rev] = v
			mu.Unlock()
		}
	}()
	var watchers []Watcher
	var froms []int64
	for s.CurrentRevision() < 2 {
		runtime.Gosched()
	}
	for i := 0; i < 30; i++ {
		from := s.CurrentRevision() / 2
		w, err := s.Watch(context.Background(), "r", WatchOptions{FromRevision: from, Buffer: writes})
		if err != nil {
			t.Fatalf("watch from %d: %v", from, err)
		}
		defer w.Stop()
		watchers, froms = append(watchers, w), append(froms, from)
	}
	<-done
	for i, w := range watchers {
		want := froms[i] + 1
		for want <= writes {
			e := next(t, w)
			if e.Revision != want {
				t.Fatalf("watch from %d: revision %d, want %d", froms[i], e.Revision, want)
			}
			var prev string
			if e.PrevRevision != 0 {
				prev = values[e.PrevRevision]
			}
			if string(e.Value) != values[e.Revision] || string(e.Prev) != prev || (e.PrevRevision != 0 && e.PrevRevision != e.Revision-keys) {
				t.Fatalf("watch from %d: %s", froms[i], fmtEvents([]Event{e}))
			}
			want++
		}
	}
}

// BenchmarkWatchReplay replays 5,000 events (creates, then updates, of
// 700-byte values on 1,000 keys) to a watch, with every event's bytes in
// memory (hot) and with all but the newest read back from the file (cold),
// and receives them. It reports the cost per replayed event.
func BenchmarkWatchReplay(b *testing.B) {
	const events, keys = 5000, 1000
	value := strings.Repeat("v", 700)
	for _, bc := range []struct {
		name string
		hot  int64
	}{{"hot", -1}, {"cold", 1}} {
		b.Run(bc.name, func(b *testing.B) {
			s := openTest(b, Options{CompactionInterval: -1, EventLogHotBytes: bc.hot})
			err := s.Bulk(func() error {
				for i := range events {
					if _, _, err := s.Update("r", fmt.Sprintf("ns/key-%04d", i%keys), set(fmt.Sprint(i, value))); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
			from := s.WatchCompactedRevision()
			if from != 0 {
				b.Fatalf("the log starts at %d", from)
			}
			for b.Loop() {
				w, err := s.Watch(context.Background(), "r", WatchOptions{FromRevision: 1, Buffer: 1})
				if err != nil {
					b.Fatal(err)
				}
				if sent := w.Sent(); sent != events {
					b.Fatalf("replayed up to %d, want %d", sent, events)
				}
				for range events - 1 {
					<-w.Events()
				}
				w.Stop()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(events-1), "ns/event")
		})
	}
}

// TestFillColdReadsWritesAfterTheReplay fills cold events whose keys were
// written again after the replay was collected (as when writes land while
// a watch reads the file): their values come from the first history entry
// after the replay, in the file or still pending.
func TestFillColdReadsWritesAfterTheReplay(t *testing.T) {
	for _, flushed := range []bool{false, true} {
		t.Run(fmt.Sprint("history flushed: ", flushed), func(t *testing.T) {
			s := openTest(t, Options{CompactionInterval: -1, EventLogHotBytes: 1})
			mustPut(t, s, "r", "a", "a1") // 1
			mustPut(t, s, "r", "a", "a2") // 2
			mustPut(t, s, "r", "b", "b1") // 3
			// The replay of (0, 3], every event cold, as Watch copies it.
			var replay []*Event
			var cold []int
			s.mu.Lock()
			s.log.sinceContiguous(s.compacted, 0, 3, func(_ int, e *Event) {
				c := *e
				c.Value, c.Prev = nil, nil
				cold = append(cold, len(replay))
				replay = append(replay, &c)
			})
			s.mu.Unlock()
			mustPut(t, s, "r", "a", "a3") // 4
			mustDelete(t, s, "r", "b")    // 5
			mustPut(t, s, "r", "b", "b2") // 6
			if flushed {
				if err := s.flushHistory(); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := s.fillCold("r", replay, cold, 3); err != nil {
				t.Fatal(err)
			}
			got := make([]Event, len(replay))
			for i, e := range replay {
				got[i] = *e
			}
			want := []Event{
				{Type: Added, Resource: "r", Key: "a", Value: []byte("a1"), Revision: 1},
				{Type: Modified, Resource: "r", Key: "a", Value: []byte("a2"), Prev: []byte("a1"), Revision: 2, PrevRevision: 1},
				{Type: Added, Resource: "r", Key: "b", Value: []byte("b1"), Revision: 3},
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("filled\n%s\nwant\n%s", fmtEvents(got), fmtEvents(want))
			}
		})
	}
}
