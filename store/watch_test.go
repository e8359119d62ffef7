package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

// next receives one event or fails after a timeout.
func next(t *testing.T, w Watcher) Event {
	t.Helper()
	select {
	case e, ok := <-w.Events():
		if !ok {
			t.Fatalf("watch closed: %v", w.Err())
		}
		return e
	case <-time.After(5 * time.Second):
		t.Fatal("timed out waiting for an event")
	}
	return Event{}
}

// waitClosed drains w until its channel closes and returns how many events
// it had left.
func waitClosed(t *testing.T, w Watcher) int {
	t.Helper()
	n := 0
	timeout := time.After(5 * time.Second)
	for {
		select {
		case _, ok := <-w.Events():
			if !ok {
				return n
			}
			n++
		case <-timeout:
			t.Fatal("watch not closed")
		}
	}
}

func eventString(e Event) string {
	return fmt.Sprintf("%d %s %s %s prev=%s@%d", e.Revision, e.Type, e.Key, e.Value, e.Prev, e.PrevRevision)
}

func TestWatchReplayThenLive(t *testing.T) {
	s := openTest(t, Options{})
	mustPut(t, s, "r", "a", "a1")    // 1
	mustPut(t, s, "r", "b", "b1")    // 2
	mustPut(t, s, "other", "a", "x") // 3
	mustPut(t, s, "r", "a", "a2")    // 4

	w, err := s.Watch(context.Background(), "r", WatchOptions{FromRevision: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	mustDelete(t, s, "r", "b")    // 5
	mustPut(t, s, "r", "c", "c1") // 6

	want := []string{
		"2 ADDED b b1 prev=@0",
		"4 MODIFIED a a2 prev=a1@1",
		"5 DELETED b gone prev=b1@2",
		"6 ADDED c c1 prev=@0",
	}
	for _, w1 := range want {
		if got := eventString(next(t, w)); got != w1 {
			t.Errorf("got %q, want %q", got, w1)
		}
	}
}

func TestWatchFromNowAndPrefix(t *testing.T) {
	s := openTest(t, Options{})
	mustPut(t, s, "r", "ns1/a", "old")
	w, err := s.Watch(context.Background(), "r", WatchOptions{Prefix: "ns1/"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	mustPut(t, s, "r", "ns2/a", "x")
	mustPut(t, s, "r", "ns1/b", "x")
	mustPut(t, s, "r", "ns10/a", "x") // "ns1/" is not a prefix of it
	mustPut(t, s, "r", "ns1/a", "new")
	for _, want := range []string{"3 ADDED ns1/b x prev=@0", "5 MODIFIED ns1/a new prev=old@1"} {
		if got := eventString(next(t, w)); got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
	if n := len(w.Events()); n != 0 {
		t.Errorf("%d unexpected events", n)
	}
}

func TestWatchRevisionErrors(t *testing.T) {
	s := openTest(t, Options{EventLogSize: 2})
	for range 5 {
		mustPut(t, s, "r", "a", "x")
	}
	var ce *CompactedError
	if _, err := s.Watch(context.Background(), "r", WatchOptions{FromRevision: 2}); !errors.As(err, &ce) || ce.Oldest != 3 {
		t.Errorf("compacted: %v", err)
	}
	var fe *FutureRevisionError
	if _, err := s.Watch(context.Background(), "r", WatchOptions{FromRevision: 6}); !errors.As(err, &fe) || fe.Current != 5 {
		t.Errorf("future: %v", err)
	}
	w, err := s.Watch(context.Background(), "r", WatchOptions{FromRevision: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if e := next(t, w); e.Revision != 4 {
		t.Errorf("first replayed revision %d, want 4", e.Revision)
	}
}

// TestWatchNoGap starts watches while writers are running and checks that
// each sees every revision after its start exactly once, in order.
func TestWatchNoGap(t *testing.T) {
	const writers, writes = 8, 200
	const total = writers * writes
	s := openTest(t, Options{EventLogSize: total})

	var wg sync.WaitGroup
	for i := range writers {
		wg.Go(func() {
			for j := range writes {
				if _, _, err := s.Update("r", fmt.Sprintf("w%d/k%d", i, j%10), set("v")); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}

	type result struct {
		from int64
		revs []int64
		err  error
	}
	results := make(chan result, 20)
	var readers sync.WaitGroup
	for i := range cap(results) {
		for s.CurrentRevision() < int64(i*total/cap(results)) {
			time.Sleep(time.Millisecond)
		}
		from := s.CurrentRevision() / 2 // replay half, then live
		if i%2 == 1 {
			from = 0 // from now
		}
		w, err := s.Watch(context.Background(), "r", WatchOptions{FromRevision: from, Buffer: total + 10})
		if err != nil {
			t.Fatal(err)
		}
		readers.Go(func() {
			defer w.Stop()
			r := result{from: from}
			for e := range w.Events() {
				r.revs = append(r.revs, e.Revision)
				if e.Revision == total+1 {
					break
				}
			}
			r.err = w.Err()
			results <- r
		})
	}
	wg.Wait()
	mustPut(t, s, "r", "end", "v") // every watcher sees at least this one
	readers.Wait()
	close(results)
	for r := range results {
		if r.err != nil {
			t.Errorf("watch from %d: %v", r.from, r.err)
			continue
		}
		if len(r.revs) == 0 {
			t.Errorf("watch from %d: no events", r.from)
			continue
		}
		start := r.revs[0]
		if r.from > 0 && start != r.from+1 {
			t.Errorf("watch from %d started at %d", r.from, start)
		}
		for i, rev := range r.revs {
			if rev != start+int64(i) {
				t.Errorf("watch from %d: event %d has revision %d, want %d", r.from, i, rev, start+int64(i))
				break
			}
		}
		if last := r.revs[len(r.revs)-1]; last != total+1 {
			t.Errorf("watch from %d ended at %d, want %d", r.from, last, total+1)
		}
	}
}

func TestWatchTooSlow(t *testing.T) {
	s := openTest(t, Options{WatchBuffer: 3})
	slow, err := s.Watch(context.Background(), "r", WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	small, err := s.Watch(context.Background(), "r", WatchOptions{Buffer: 1})
	if err != nil {
		t.Fatal(err)
	}
	fast, err := s.Watch(context.Background(), "r", WatchOptions{Buffer: 100})
	if err != nil {
		t.Fatal(err)
	}
	defer fast.Stop()

	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 50 {
			if _, _, err := s.Update("r", "a", set(fmt.Sprint(i))); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("writers blocked by a slow watcher")
	}

	for _, tt := range []struct {
		name string
		w    Watcher
		n    int
	}{{"default buffer", slow, 3}, {"buffer 1", small, 1}} {
		if n := waitClosed(t, tt.w); n != tt.n {
			t.Errorf("%s: %d buffered events, want %d", tt.name, n, tt.n)
		}
		if !errors.Is(tt.w.Err(), ErrTooSlow) {
			t.Errorf("%s: Err = %v, want ErrTooSlow", tt.name, tt.w.Err())
		}
		tt.w.Stop()
		if !errors.Is(tt.w.Err(), ErrTooSlow) {
			t.Errorf("%s: Stop changed Err to %v", tt.name, tt.w.Err())
		}
	}
	// The fast watcher's buffer holds all 50, most of them beyond its
	// channel.
	if sent := fast.Sent(); sent != 50 {
		t.Errorf("fast watcher: last event queued at %d, want 50", sent)
	}
	for want := int64(1); want <= 50; want++ {
		if e := next(t, fast); e.Revision != want {
			t.Fatalf("fast watcher: revision %d, want %d", e.Revision, want)
		}
	}
}

func TestWatchReplayLargerThanBuffer(t *testing.T) {
	s := openTest(t, Options{})
	for i := range 20 {
		mustPut(t, s, "r", fmt.Sprint(i), "v")
	}
	w, err := s.Watch(context.Background(), "r", WatchOptions{FromRevision: 1, Buffer: 5})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	mustPut(t, s, "r", "x", "v")
	for want := int64(2); want <= 21; want++ {
		if e := next(t, w); e.Revision != want {
			t.Fatalf("got revision %d, want %d", e.Revision, want)
		}
	}
}

func TestWatchEnd(t *testing.T) {
	tests := []struct {
		name  string
		start func() (context.Context, func())
		end   func(w Watcher, cancel func())
	}{
		{
			name:  "stop",
			start: func() (context.Context, func()) { return context.Background(), func() {} },
			end:   func(w Watcher, _ func()) { w.Stop(); w.Stop() },
		},
		{
			name:  "cancel",
			start: func() (context.Context, func()) { return context.WithCancel(context.Background()) },
			end:   func(_ Watcher, cancel func()) { cancel() },
		},
		{
			name: "already cancelled",
			start: func() (context.Context, func()) {
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				return ctx, cancel
			},
			end: func(Watcher, func()) {},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := openTest(t, Options{})
			ctx, cancel := tt.start()
			w, err := s.Watch(ctx, "r", WatchOptions{})
			if err != nil {
				t.Fatal(err)
			}
			tt.end(w, cancel)
			waitClosed(t, w)
			if w.Err() != nil {
				t.Errorf("Err = %v, want nil", w.Err())
			}
			w.Stop()
			mustPut(t, s, "r", "a", "v") // no send on a closed channel
			s.mu.Lock()
			n := s.watchers.Resources()
			s.mu.Unlock()
			if n != 0 {
				t.Errorf("%d resources still have watchers", n)
			}
		})
	}
}
