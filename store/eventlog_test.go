package store

import (
	"context"
	"errors"
	"fmt"
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
