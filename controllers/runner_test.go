package controllers

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/fakeplane/fakeplane/store"
)

// TestMain fails the package when a goroutine outlives its test.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func openStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(filepath.Join(t.TempDir(), "store.db"), store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

func put(t *testing.T, st store.Interface, resource, key, value string) int64 {
	t.Helper()
	_, cur, err := st.Update(resource, key, func(*store.Object) (store.Write, error) {
		return store.Write{Value: []byte(value)}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return cur.Revision
}

func del(t *testing.T, st store.Interface, resource, key string) {
	t.Helper()
	if _, _, err := st.Update(resource, key, func(cur *store.Object) (store.Write, error) {
		return store.Write{Value: cur.Value, Delete: true}, nil
	}); err != nil {
		t.Fatal(err)
	}
}

// recorder is a controller that records what it is fed.
type recorder struct {
	resources []string
	// fail makes the first fail calls of Sync fail; with keyed, as a
	// controller with per-key retries fails (a Requeue with Failed).
	fail  int
	keyed bool
	// requeue makes the first requeue calls of Sync (after the failing
	// ones) ask for a Requeue.
	requeue int
	// block, when set, holds the first Sync until it is closed.
	block chan struct{}

	mu      sync.Mutex
	calls   [][]store.Event
	changed chan struct{}
}

func newRecorder(resources ...string) *recorder {
	return &recorder{resources: resources, changed: make(chan struct{}, 1)}
}

func (r *recorder) Name() string        { return "recorder" }
func (r *recorder) Resources() []string { return r.resources }

func (r *recorder) Sync(ctx context.Context, events []store.Event) error {
	if r.block != nil {
		<-r.block
		r.block = nil
	}
	r.mu.Lock()
	r.calls = append(r.calls, events)
	fail := len(r.calls) <= r.fail
	requeue := !fail && len(r.calls) <= r.fail+r.requeue
	r.mu.Unlock()
	select {
	case r.changed <- struct{}{}:
	default:
	}
	if fail && r.keyed {
		return &Requeue{After: time.Millisecond, Failed: errors.New("failing on purpose")}
	}
	if fail {
		return errors.New("failing on purpose")
	}
	if requeue {
		return &Requeue{After: time.Millisecond}
	}
	return nil
}

// waitUntil waits until cond holds of the calls so far.
func (r *recorder) waitUntil(t *testing.T, cond func(calls [][]store.Event) bool) [][]store.Event {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		r.mu.Lock()
		calls := slices.Clone(r.calls)
		r.mu.Unlock()
		if cond(calls) {
			return calls
		}
		select {
		case <-r.changed:
		case <-deadline:
			t.Fatalf("condition not met; calls: %v", calls)
		}
	}
}

// state replays the calls into the state they describe: resource/key -> value.
func state(calls [][]store.Event) map[string]string {
	m := map[string]string{}
	for _, evs := range calls {
		for _, ev := range evs {
			if ev.Type == store.Deleted {
				delete(m, ev.Resource+"/"+ev.Key)
			} else {
				m[ev.Resource+"/"+ev.Key] = string(ev.Value)
			}
		}
	}
	return m
}

// TestRunnerFeedsInRevisionOrder checks that a controller first gets the
// objects present at start as Added events, then every change of its
// resources, and nothing else, in revision order across resources.
func TestRunnerFeedsInRevisionOrder(t *testing.T) {
	st := openStore(t)
	put(t, st, "b", "b1", "1")
	put(t, st, "a", "a1", "1")
	put(t, st, "other", "o1", "1")
	rec := newRecorder("a", "b")
	r := Start(context.Background(), st, nil, rec)
	defer r.Stop()

	calls := rec.waitUntil(t, func(c [][]store.Event) bool { return len(c) >= 1 })
	first := calls[0]
	if len(first) != 2 || first[0].Key != "b1" || first[1].Key != "a1" || first[0].Type != store.Added || first[1].Type != store.Added {
		t.Fatalf("first sync: %+v", first)
	}

	var wg sync.WaitGroup
	for _, res := range []string{"a", "b", "other"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				v := []byte(fmt.Sprint(i))
				if _, _, err := st.Update(res, fmt.Sprintf("%s%d", res, i%7), func(*store.Object) (store.Write, error) {
					return store.Write{Value: v}, nil
				}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	del(t, st, "a", "a1")
	want := map[string]string{}
	for _, res := range []string{"a", "b"} {
		lst, err := st.List(res, store.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range lst.Items {
			want[res+"/"+it.Key] = string(it.Value)
		}
	}
	calls = rec.waitUntil(t, func(c [][]store.Event) bool {
		return len(state(c)) == len(want) && fmt.Sprint(state(c)) == fmt.Sprint(want)
	})
	var last int64
	for _, evs := range calls {
		for _, ev := range evs {
			if ev.Resource == "other" {
				t.Errorf("fed an event of another resource: %+v", ev)
			}
			if ev.Revision <= last {
				t.Errorf("revision %d after %d", ev.Revision, last)
			}
			last = max(last, ev.Revision)
		}
	}
}

// TestRunnerRetriesFailedSync checks that a failed Sync is called again,
// with no events when none came.
func TestRunnerRetriesFailedSync(t *testing.T) {
	st := openStore(t)
	put(t, st, "a", "a1", "1")
	rec := newRecorder("a")
	rec.fail = 2
	r := Start(context.Background(), st, nil, rec)
	defer r.Stop()
	calls := rec.waitUntil(t, func(c [][]store.Event) bool { return len(c) >= 3 })
	if len(calls[0]) != 1 || len(calls[1]) != 0 || len(calls[2]) != 0 {
		t.Errorf("calls: %v", calls)
	}
}

// TestRunnerRequeues checks that a Sync asking for a Requeue is called
// again, with no events when none came, and that a Sync after a Requeue
// still gets the changes that come.
func TestRunnerRequeues(t *testing.T) {
	st := openStore(t)
	put(t, st, "a", "a1", "1")
	rec := newRecorder("a")
	rec.requeue = 3
	r := Start(context.Background(), st, nil, rec)
	defer r.Stop()
	calls := rec.waitUntil(t, func(c [][]store.Event) bool { return len(c) >= 4 })
	if len(calls[0]) != 1 || len(calls[1]) != 0 || len(calls[2]) != 0 || len(calls[3]) != 0 {
		t.Errorf("calls: %v", calls)
	}
	put(t, st, "a", "a2", "2")
	calls = rec.waitUntil(t, func(c [][]store.Event) bool { return state(c)["a/a2"] == "2" })
	if len(calls[len(calls)-1]) != 1 {
		t.Errorf("calls: %v", calls)
	}
}

// wakingRecorder is a recorder woken by a channel too.
type wakingRecorder struct {
	*recorder
	wake chan struct{}
}

func (w wakingRecorder) Wake() <-chan struct{} { return w.wake }

// TestRunnerWakes checks that a Waker's Sync is called, with no events, for
// each wake-up, and still gets the store's changes.
func TestRunnerWakes(t *testing.T) {
	st := openStore(t)
	rec := wakingRecorder{newRecorder("a"), make(chan struct{}, 1)}
	r := Start(context.Background(), st, nil, rec)
	defer r.Stop()
	rec.waitUntil(t, func(c [][]store.Event) bool { return len(c) >= 1 })
	rec.wake <- struct{}{}
	calls := rec.waitUntil(t, func(c [][]store.Event) bool { return len(c) >= 2 })
	if len(calls[1]) != 0 {
		t.Errorf("calls: %v", calls)
	}
	put(t, st, "a", "a1", "1")
	rec.waitUntil(t, func(c [][]store.Event) bool { return state(c)["a/a1"] == "1" })
}

// TestRunnerRelistsAfterLosingWatch checks that a controller too slow for
// its watch gets, once it lists again, the changes it missed.
func TestRunnerRelistsAfterLosingWatch(t *testing.T) {
	st := openStore(t)
	for i := range 10 {
		put(t, st, "a", fmt.Sprint(i), "old")
	}
	rec := newRecorder("a")
	rec.block = make(chan struct{})
	r := Start(context.Background(), st, nil, rec)
	defer r.Stop()
	// While the first Sync is held, more changes come than the watch
	// holds: the store closes it.
	for i := range watchBuffer + 100 {
		put(t, st, "a", fmt.Sprint(i%50), fmt.Sprint(i))
	}
	for i := range 5 {
		del(t, st, "a", fmt.Sprint(i))
	}
	close(rec.block)
	want := map[string]string{}
	lst, err := st.List("a", store.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range lst.Items {
		want["a/"+it.Key] = string(it.Value)
	}
	rec.waitUntil(t, func(c [][]store.Event) bool { return fmt.Sprint(state(c)) == fmt.Sprint(want) })
}

// TestFeedRestartDiffs checks the events a new list makes of what changed
// since the last delivered state.
func TestFeedRestartDiffs(t *testing.T) {
	st := openStore(t)
	ctx := context.Background()
	put(t, st, "a", "keep", "1")
	put(t, st, "a", "change", "1")
	put(t, st, "a", "gone", "1")
	f := newFeed(st, []string{"a"})
	defer f.close()
	evs, err := f.start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 3 {
		t.Fatalf("first start: %+v", evs)
	}
	f.close()
	put(t, st, "a", "change", "2")
	del(t, st, "a", "gone")
	put(t, st, "a", "new", "1")
	evs, err = f.start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, ev := range evs {
		got[ev.Key] = fmt.Sprintf("%s %s<-%s", ev.Type, ev.Value, ev.Prev)
	}
	want := map[string]string{"change": "MODIFIED 2<-1", "gone": "DELETED 1<-1", "new": "ADDED 1<-"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("restart events: %v, want %v", got, want)
	}
}

// TestStopEndsControllers checks that Stop returns once every controller
// goroutine has, even with a Sync in progress and a retry pending.
func TestStopEndsControllers(t *testing.T) {
	st := openStore(t)
	slow := newRecorder("a")
	slow.block = make(chan struct{})
	failing := newRecorder("b")
	failing.fail = 1000
	r := Start(context.Background(), st, nil, slow, failing)
	failing.waitUntil(t, func(c [][]store.Event) bool { return len(c) >= 2 })
	go func() {
		time.Sleep(20 * time.Millisecond)
		close(slow.block)
	}()
	r.Stop()
	r.Stop()
}

// TestWaitForFirstSync checks that WaitForFirstSync returns once the first
// Sync returned, failed or not, fails when its context ends first, and
// ignores names the runner does not run.
func TestWaitForFirstSync(t *testing.T) {
	tests := []struct {
		name    string
		fail    int
		release bool
		wantErr bool
	}{
		{name: "returns after a successful first sync", release: true},
		{name: "returns after a failed first sync", fail: 1, release: true},
		{name: "fails when the context ends first", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := openStore(t)
			put(t, st, "a", "a1", "1")
			rec := newRecorder("a")
			rec.fail = tt.fail
			rec.block = make(chan struct{})
			r := Start(context.Background(), st, nil, rec)
			defer r.Stop()
			if tt.release {
				close(rec.block)
			} else {
				defer close(rec.block)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			if tt.release {
				ctx, cancel = context.WithTimeout(context.Background(), 10*time.Second)
			}
			defer cancel()
			err := r.WaitForFirstSync(ctx, "recorder", "not-run")
			if (err != nil) != tt.wantErr {
				t.Fatalf("WaitForFirstSync: %v, want error %v", err, tt.wantErr)
			}
			if err == nil {
				rec.mu.Lock()
				n := len(rec.calls)
				rec.mu.Unlock()
				if n == 0 {
					t.Error("returned before the first Sync")
				}
			}
		})
	}
}

// filtered is a recorder fed only the keys that start with "w".
type filtered struct{ *recorder }

func (f filtered) Wants(_, key string) bool { return key != "" && key[0] == 'w' }

// TestRunnerFeedsAFilterOnlyWhatItWants checks that a Filter is neither
// listed nor fed the objects it does not want, and is not woken by them.
func TestRunnerFeedsAFilterOnlyWhatItWants(t *testing.T) {
	st := openStore(t)
	put(t, st, "a", "w1", "1")
	put(t, st, "a", "x1", "1")
	rec := newRecorder("a")
	r := Start(context.Background(), st, nil, filtered{rec})
	defer r.Stop()
	rec.waitUntil(t, func(calls [][]store.Event) bool { return len(calls) == 1 })
	put(t, st, "a", "x2", "1")
	put(t, st, "a", "x1", "2")
	del(t, st, "a", "x1")
	put(t, st, "a", "w2", "1")
	calls := rec.waitUntil(t, func(calls [][]store.Event) bool { return state(calls)["a/w2"] == "1" })
	want := map[string]string{"a/w1": "1", "a/w2": "1"}
	if got := state(calls); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("fed %v, want %v", got, want)
	}
	for _, evs := range calls {
		if len(evs) == 0 {
			t.Errorf("a Sync without events: %v", calls)
		}
		for _, ev := range evs {
			if ev.Key[0] != 'w' {
				t.Errorf("fed %s", ev.Key)
			}
		}
	}
}

// TestRunnerAdd checks that controllers added to a running runner are run,
// fed and waited for like the first ones, and that Add after Stop runs
// nothing.
func TestRunnerAdd(t *testing.T) {
	st := openStore(t)
	put(t, st, "a", "a1", "1")
	r := Start(context.Background(), st, nil)
	rec := newRecorder("a")
	r.Add(rec)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := r.WaitForFirstSync(ctx, "recorder"); err != nil {
		t.Fatalf("WaitForFirstSync of an added controller: %v", err)
	}
	rec.mu.Lock()
	n := len(rec.calls)
	rec.mu.Unlock()
	if n == 0 {
		t.Fatal("the added controller was not synced")
	}
	r.Stop()
	late := newRecorder("a")
	r.Add(late)
	r.Stop()
	late.mu.Lock()
	defer late.mu.Unlock()
	if len(late.calls) != 0 {
		t.Errorf("a controller added after Stop was synced %d times", len(late.calls))
	}
}

// turnTaker is a controller whose first Sync reports when it begins and
// waits for release (nil: does not wait).
type turnTaker struct {
	name    string
	began   chan struct{}
	release chan struct{}
	once    sync.Once
}

func newTurnTaker(name string, release chan struct{}) *turnTaker {
	return &turnTaker{name: name, began: make(chan struct{}), release: release}
}

func (c *turnTaker) Name() string        { return c.name }
func (c *turnTaker) Resources() []string { return []string{"a"} }

func (c *turnTaker) Sync(ctx context.Context, _ []store.Event) error {
	first := false
	c.once.Do(func() { first = true; close(c.began) })
	if first && c.release != nil {
		select {
		case <-c.release:
		case <-ctx.Done():
		}
	}
	return nil
}

// TestControllersTakeTurnsAtTheirFirstSync checks that the controllers of a
// runner list and run their first Sync one after another, and that one
// whose first Sync does not return holds the others back for turnHold
// alone.
func TestControllersTakeTurnsAtTheirFirstSync(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// runner starts an empty runner over a store with one object, whose
	// turns are held for hold at most.
	runner := func(t *testing.T, hold time.Duration) *Runner {
		st := openStore(t)
		put(t, st, "a", "a1", "1")
		r := Start(context.Background(), st, nil)
		t.Cleanup(r.Stop)
		r.turnHold = hold
		return r
	}
	t.Run("one after another", func(t *testing.T) {
		r := runner(t, time.Hour)
		release := make(chan struct{})
		first, second := newTurnTaker("first", release), newTurnTaker("second", nil)
		r.Add(first)
		<-first.began
		r.Add(second)
		// While the first one's Sync runs, the second does not begin
		// its own.
		select {
		case <-second.began:
			t.Fatal("the second controller's first Sync began during the first one's")
		case <-time.After(50 * time.Millisecond):
		}
		close(release)
		if err := r.WaitForFirstSync(ctx, "first", "second"); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("a first Sync that does not return holds the others back for a while", func(t *testing.T) {
		r := runner(t, time.Millisecond)
		stuck := newTurnTaker("stuck", make(chan struct{})) // released by Stop
		r.Add(stuck)
		<-stuck.began
		next := newTurnTaker("next", nil)
		r.Add(next)
		if err := r.WaitForFirstSync(ctx, "next"); err != nil {
			t.Fatalf("the next controller waited for a first Sync that does not return: %v", err)
		}
	})
}
