package store

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// TestEventLogEvictsByCountAndBytes feeds an event log events of given value
// sizes and checks which revisions it keeps.
func TestEventLogEvictsByCountAndBytes(t *testing.T) {
	tests := []struct {
		name      string
		max       int
		maxBytes  int64
		sizes     []int // value size of the events 1, 2, ...; each has a 1-byte key
		wantFirst int64 // oldest revision kept
		wantBytes int64
	}{
		{name: "under both bounds", max: 5, maxBytes: 100, sizes: []int{9, 9, 9}, wantFirst: 1, wantBytes: 30},
		{name: "count bound", max: 3, maxBytes: 1000, sizes: []int{9, 9, 9, 9, 9}, wantFirst: 3, wantBytes: 30},
		{name: "byte bound", max: 100, maxBytes: 30, sizes: []int{9, 9, 9, 9, 9}, wantFirst: 3, wantBytes: 30},
		{name: "one big event evicts several", max: 100, maxBytes: 30, sizes: []int{9, 9, 9, 19}, wantFirst: 3, wantBytes: 30},
		{name: "an event bigger than the bound is kept alone", max: 100, maxBytes: 30, sizes: []int{9, 9, 99}, wantFirst: 3, wantBytes: 100},
		{name: "small events after a big one", max: 100, maxBytes: 30, sizes: []int{99, 9, 9, 9}, wantFirst: 2, wantBytes: 30},
		{name: "wraps around many times", max: 7, maxBytes: 1 << 20, sizes: make([]int, 100), wantFirst: 94, wantBytes: 7},
		{name: "grows past its first ring", max: 1000, maxBytes: 1 << 20, sizes: make([]int, 200), wantFirst: 1, wantBytes: 200},
		{name: "byte bound after wrapping", max: 5, maxBytes: 25, sizes: []int{4, 4, 4, 4, 4, 4, 4, 4, 9, 9, 4}, wantFirst: 9, wantBytes: 25},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := EventLog{Max: tt.max, MaxBytes: tt.maxBytes}
			var compacted int64
			for i, size := range tt.sizes {
				e := Event{Resource: "r", Key: "k", Revision: int64(i + 1), Value: make([]byte, size)}
				if evicted, ok := l.Add(e); ok {
					if evicted <= compacted {
						t.Fatalf("add %d: evicted %d after %d", i+1, evicted, compacted)
					}
					compacted = evicted
				}
			}
			last := int64(len(tt.sizes))
			if compacted != tt.wantFirst-1 || l.Len() != int(last-compacted) || l.bytes != tt.wantBytes {
				t.Fatalf("compacted %d, %d events, %d bytes; want compacted %d, %d events, %d bytes",
					compacted, l.Len(), l.bytes, tt.wantFirst-1, last-tt.wantFirst+1, tt.wantBytes)
			}
			var got []string
			l.sinceContiguous(compacted, compacted, last, func(_ int, e *Event) {
				got = append(got, fmt.Sprint(e.Revision))
			})
			var searched []string
			l.Since(compacted, last, func(e *Event) {
				searched = append(searched, fmt.Sprint(e.Revision))
			})
			if strings.Join(searched, " ") != strings.Join(got, " ") {
				t.Errorf("Since gave %v, sinceContiguous %v", searched, got)
			}
			var want []string
			for r := tt.wantFirst; r <= last; r++ {
				want = append(want, fmt.Sprint(r))
			}
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("logged revisions %v, want %v", got, want)
			}
		})
	}
}

// TestWatchAfterBigObjectsEvictedTheLog checks that big objects shorten the
// watch window: a watch from before the evicted events gets
// *CompactedError, one from the oldest kept revision replays the rest.
func TestWatchAfterBigObjectsEvictedTheLog(t *testing.T) {
	s := openTest(t, Options{EventLogBytes: 10 << 10})
	big := strings.Repeat("x", 1<<10)
	for i := range 30 {
		mustPut(t, s, "r", fmt.Sprint(i), big)
	}
	// Each event counts 1 KiB plus a key of one or two bytes: 9 fit.
	const oldest = 30 - 9
	var ce *CompactedError
	if _, err := s.Watch(context.Background(), "r", WatchOptions{FromRevision: oldest - 1}); !errors.As(err, &ce) || ce.Oldest != oldest {
		t.Fatalf("watch from %d: %v, want CompactedError{Oldest: %d}", oldest-1, err, oldest)
	}
	w, err := s.Watch(context.Background(), "r", WatchOptions{FromRevision: oldest})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	for want := int64(oldest + 1); want <= 30; want++ {
		if e := next(t, w); e.Revision != want {
			t.Fatalf("replayed revision %d, want %d", e.Revision, want)
		}
	}
}

// TestEventLogCoolsTheOldestEvents checks which events keep their bytes
// with EventLog.HotBytes, that a cold Deleted event keeps its Value, and
// that cooling changes neither the byte count nor the window.
func TestEventLogCoolsTheOldestEvents(t *testing.T) {
	type ev struct {
		typ         EventType
		value, prev int
	}
	tests := []struct {
		name      string
		hot       int64
		max       int
		events    []ev
		wantCold  int   // of the events held, the oldest wantCold are cold
		wantFirst int64 // oldest revision held
	}{
		{name: "all fit", hot: 100, max: 10, events: []ev{{Added, 10, 0}, {Modified, 10, 10}}, wantCold: 0, wantFirst: 1},
		{name: "the oldest cool first", hot: 25, max: 10, events: []ev{{Added, 10, 0}, {Modified, 10, 10}, {Modified, 10, 10}}, wantCold: 2, wantFirst: 1},
		{name: "the newest stays hot however big", hot: 5, max: 10, events: []ev{{Added, 10, 0}, {Modified, 50, 10}}, wantCold: 1, wantFirst: 1},
		{name: "a cold delete keeps its value", hot: 1, max: 10, events: []ev{{Added, 3, 0}, {Deleted, 4, 3}, {Added, 3, 0}}, wantCold: 2, wantFirst: 1},
		{name: "eviction of cold events", hot: 1, max: 3, events: []ev{{Added, 3, 0}, {Modified, 3, 3}, {Modified, 3, 3}, {Modified, 3, 3}, {Modified, 3, 3}}, wantCold: 2, wantFirst: 3},
		{name: "grows with cold events", hot: 1, max: 200, events: func() []ev {
			evs := make([]ev, 150)
			for i := range evs {
				evs[i] = ev{Modified, 2, 2}
			}
			return evs
		}(), wantCold: 149, wantFirst: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cold := EventLog{Max: tt.max, MaxBytes: 1 << 20, HotBytes: tt.hot}
			all := EventLog{Max: tt.max, MaxBytes: 1 << 20}
			for i, e := range tt.events {
				ev := Event{Type: e.typ, Key: "k", Revision: int64(i + 1), Value: make([]byte, e.value)}
				if e.prev > 0 {
					ev.Prev, ev.PrevRevision = make([]byte, e.prev), int64(i)
				}
				cold.Add(ev)
				all.Add(ev)
			}
			if cold.Len() != all.Len() || cold.bytes != all.bytes {
				t.Fatalf("%d events, %d bytes; without cooling %d, %d", cold.Len(), cold.bytes, all.Len(), all.bytes)
			}
			if first := cold.At(0).Revision; first != tt.wantFirst || cold.cold != tt.wantCold {
				t.Fatalf("oldest %d, %d cold; want %d, %d", first, cold.cold, tt.wantFirst, tt.wantCold)
			}
			var hot int64
			for i := range cold.Len() {
				e, orig := cold.At(i), all.At(i)
				if cold.Cold(i) {
					wantValue := 0
					if e.Type == Deleted {
						wantValue = len(orig.Value)
					}
					if e.Prev != nil || len(e.Value) != wantValue || e.PrevRevision != orig.PrevRevision || e.Key != orig.Key {
						t.Fatalf("cold event %d: %+v", e.Revision, e)
					}
					continue
				}
				if !reflect.DeepEqual(e, orig) {
					t.Fatalf("hot event %d: %+v, want %+v", e.Revision, e, orig)
				}
				hot += valueSize(e)
			}
			if hot != cold.hot {
				t.Fatalf("hot bytes %d, counted %d", hot, cold.hot)
			}
		})
	}
}
