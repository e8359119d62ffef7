package store

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestWatcherBufferGrowsOnDemand fills watchers that never read with more
// events than their buffer holds: each keeps exactly its buffer's worth,
// in order, then ends with ErrTooSlow, whatever part of the buffer its
// channel holds; its channel never holds more than chanSlots.
func TestWatcherBufferGrowsOnDemand(t *testing.T) {
	tests := []struct {
		name           string
		replay, buffer int // events before the watch starts (replayed), buffer
		writes         int // events after it starts
		wantEvents     int
		wantErr        error
	}{
		{name: "buffer of one", buffer: 1, writes: 3, wantEvents: 1, wantErr: ErrTooSlow},
		{name: "within the channel", buffer: 3, writes: 5, wantEvents: 3, wantErr: ErrTooSlow},
		{name: "exactly the channel", buffer: chanSlots, writes: chanSlots + 1, wantEvents: chanSlots, wantErr: ErrTooSlow},
		{name: "one beyond the channel", buffer: chanSlots + 1, writes: chanSlots + 2, wantEvents: chanSlots + 1, wantErr: ErrTooSlow},
		{name: "a backlog bigger than the channel", buffer: 200, writes: 300, wantEvents: 200, wantErr: ErrTooSlow},
		{name: "a full buffer is not too slow", buffer: 200, writes: 200, wantEvents: 200},
		{name: "a replay bigger than the channel", replay: 100, buffer: 5, writes: 5, wantEvents: 105},
		{name: "a replay and too many writes", replay: 100, buffer: 5, writes: 6, wantEvents: 105, wantErr: ErrTooSlow},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := openTest(t, Options{})
			// Revision 1, then the replayed ones, then the writes.
			mustPut(t, s, "other", "k", "v")
			for i := range tt.replay {
				mustPut(t, s, "r", fmt.Sprint("old", i), "v")
			}
			w, err := s.Watch(context.Background(), "r", WatchOptions{FromRevision: 1, Buffer: tt.buffer})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			if c := cap(w.Events()); c != min(tt.replay+tt.buffer, chanSlots) {
				t.Errorf("channel capacity %d, want %d", c, min(tt.replay+tt.buffer, chanSlots))
			}
			for i := range tt.writes {
				mustPut(t, s, "r", fmt.Sprint(i%5), fmt.Sprint(i))
			}
			if sent, want := w.Sent(), int64(1+tt.wantEvents); sent != want {
				t.Errorf("last event queued at %d, want %d", sent, want)
			}
			var n int64
			if tt.wantErr == nil {
				for n < int64(tt.wantEvents) {
					if e := next(t, w); e.Revision != n+2 {
						t.Fatalf("revision %d, want %d", e.Revision, n+2)
					}
					n++
				}
				if err := w.Err(); err != nil {
					t.Fatalf("Err %v after a full buffer", err)
				}
				return
			}
			for e := range w.Events() {
				if n++; e.Revision != n+1 {
					t.Fatalf("revision %d, want %d", e.Revision, n+1)
				}
			}
			if n != int64(tt.wantEvents) || !errors.Is(w.Err(), tt.wantErr) {
				t.Fatalf("%d events then %v, want %d then %v", n, w.Err(), tt.wantEvents, tt.wantErr)
			}
		})
	}
}

// TestWatcherEndsWithABacklog ends watchers whose backlog waits for a
// receiver that does not come: each way of ending one closes its channel
// (after what the channel holds) and ends its pump.
func TestWatcherEndsWithABacklog(t *testing.T) {
	tests := []struct {
		name    string
		end     func(s *Store, w Watcher, cancel context.CancelFunc)
		tooSlow bool // fill the buffer first
		noRead  bool // never read the channel
		wantErr error
	}{
		{name: "Stop", end: func(_ *Store, w Watcher, _ context.CancelFunc) { w.Stop() }},
		{name: "context done", end: func(_ *Store, _ Watcher, cancel context.CancelFunc) { cancel() }},
		{name: "store closed", end: func(s *Store, _ Watcher, _ context.CancelFunc) { s.Close() }, wantErr: ErrClosed},
		{name: "Stop after too slow", end: func(_ *Store, w Watcher, _ context.CancelFunc) { w.Stop() }, tooSlow: true, wantErr: ErrTooSlow},
		{name: "context done after too slow", end: func(_ *Store, _ Watcher, cancel context.CancelFunc) { cancel() }, tooSlow: true, noRead: true, wantErr: ErrTooSlow},
		{name: "store closed after too slow", end: func(s *Store, _ Watcher, _ context.CancelFunc) { s.Close() }, tooSlow: true, wantErr: ErrTooSlow},
		{name: "store closed after too slow, never read", end: func(s *Store, _ Watcher, _ context.CancelFunc) { s.Close() }, tooSlow: true, noRead: true, wantErr: ErrTooSlow},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := openTest(t, Options{})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			const buffer = 4 * chanSlots
			w, err := s.Watch(ctx, "r", WatchOptions{Buffer: buffer})
			if err != nil {
				t.Fatal(err)
			}
			writes := 2 * chanSlots
			if tt.tooSlow {
				writes = buffer + 1
			}
			for i := range writes {
				mustPut(t, s, "r", "k", fmt.Sprint(i))
			}
			if !pumpRunning() {
				t.Fatal("no pump runs with a backlog")
			}
			tt.end(s, w, cancel)
			if tt.noRead {
				waitNoPump(t)
			}
			n := 0
			for range w.Events() {
				n++
			}
			if n > writes {
				t.Errorf("%d events after %d writes", n, writes)
			}
			if err := w.Err(); !errors.Is(err, tt.wantErr) {
				t.Errorf("Err %v, want %v", err, tt.wantErr)
			}
			// The pump closes the channel as its last step.
			waitNoPump(t)
		})
	}
}

// waitNoPump waits for every watcher's pump to end, failing after 10s.
func waitNoPump(t *testing.T) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); pumpRunning(); {
		if time.Now().After(deadline) {
			t.Fatal("a watcher's pump still runs")
		}
		runtime.Gosched()
	}
}

// pumpRunning reports whether some watcher's pump goroutine runs, or is
// about to: one not scheduled yet shows in the stacks as a wrapper of
// (*watcher).pump, created by (*watcher).queue like a running one.
func pumpRunning() bool {
	buf := make([]byte, 1<<20)
	return strings.Contains(string(buf[:runtime.Stack(buf, true)]), "created by github.com/fakeplane/fakeplane/store.(*watcher).queue")
}

// TestWatcherDrainsItsBacklogToAReader has a reader keep up with a
// writer through a buffer much bigger than the channel, receiving
// everything in order, and checks Sent against what it received.
func TestWatcherDrainsItsBacklogToAReader(t *testing.T) {
	s := openTest(t, Options{})
	const writes = 1000
	w, err := s.Watch(context.Background(), "r", WatchOptions{Buffer: writes})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range writes {
			mustPut(t, s, "r", fmt.Sprint(i%10), "v")
		}
	}()
	var received int64
	for received < writes {
		e := next(t, w)
		if e.Revision != received+1 {
			t.Fatalf("revision %d after %d", e.Revision, received)
		}
		received = e.Revision
		if sent := w.Sent(); sent < received {
			t.Fatalf("received %d, but the last queued is %d", received, sent)
		}
	}
	<-done
	if sent := w.Sent(); sent != writes {
		t.Fatalf("last queued %d, want %d", sent, writes)
	}
}
