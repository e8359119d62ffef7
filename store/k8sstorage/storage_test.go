package k8sstorage

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/apis/example"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/utils/ptr"
)

// The behaviours below are the adapter's own, which no suite of
// k8s.io/apiserver/pkg/storage/testing covers.

// nextEvent returns the watch's next event, failing the test if none comes
// or the watch ends.
func nextEvent(t *testing.T, w watch.Interface) watch.Event {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			t.Fatal("the watch ended")
		}
		return ev
	case <-t.Context().Done():
		t.Fatal("the test ended before the event")
	case <-waitTimeout():
		t.Fatalf("no event within %v", wait.ForeverTestTimeout)
	}
	return watch.Event{}
}

// waitTimeout bounds a wait for something that must happen, to fail
// instead of hanging.
func waitTimeout() <-chan struct{} {
	ctx, cancel := context.WithTimeout(context.Background(), wait.ForeverTestTimeout)
	context.AfterFunc(ctx, cancel)
	return ctx.Done()
}

// eventRV returns the resourceVersion of an event's object.
func eventRV(t *testing.T, ev watch.Event) uint64 {
	t.Helper()
	rv, err := storage.APIObjectVersioner{}.ObjectResourceVersion(ev.Object)
	if err != nil {
		t.Fatalf("resourceVersion of %v: %v", ev, err)
	}
	return rv
}

// createPod creates a pod in namespace ns and returns it as stored.
func createPod(t *testing.T, a storage.Interface, ns, name string) *example.Pod {
	t.Helper()
	pod := &example.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	out := &example.Pod{}
	if err := a.Create(context.Background(), fmt.Sprintf("/pods/%s/%s", ns, name), pod, out, 0); err != nil {
		t.Fatalf("create %s/%s: %v", ns, name, err)
	}
	return out
}

func TestRequestWatchProgressSendsBookmarkAtCurrentRevision(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.ProgressNotifyInterval = 0 }) // the default: ten minutes
	ctx := context.Background()
	start := createPod(t, f, "ns", "a")
	w, err := f.Watch(ctx, "/pods/ns", storage.ListOptions{
		ResourceVersion: start.ResourceVersion,
		Predicate:       storage.Everything,
		Recursive:       true,
		ProgressNotify:  true,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	// A write elsewhere moves the revision on without an event here.
	other := f.increaseRV(ctx, t)
	if err := f.RequestWatchProgress(ctx); err != nil {
		t.Fatal(err)
	}
	ev := nextEvent(t, w)
	if ev.Type != watch.Bookmark {
		t.Fatalf("got a %s event, want a bookmark", ev.Type)
	}
	if got := eventRV(t, ev); got != uint64(other) {
		t.Errorf("bookmark at %d, want the current revision %d", got, other)
	}
	b := createPod(t, f, "ns", "b")
	ev = nextEvent(t, w)
	if ev.Type != watch.Added || ev.Object.(*example.Pod).Name != "b" {
		t.Fatalf("got %s %v, want b ADDED", ev.Type, ev.Object)
	}
	if got := strconv.FormatUint(eventRV(t, ev), 10); got != b.ResourceVersion {
		t.Errorf("ADDED at %s, want %s", got, b.ResourceVersion)
	}
}

func TestWatchFromFutureRevisionDeliversOnlyLaterChanges(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	cur, err := f.GetCurrentResourceVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	w, err := f.Watch(ctx, "/pods/ns", storage.ListOptions{
		ResourceVersion: strconv.FormatUint(cur+2, 10),
		Predicate:       storage.Everything,
		Recursive:       true,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	createPod(t, f, "ns", "a") // cur+1
	createPod(t, f, "ns", "b") // cur+2
	c := createPod(t, f, "ns", "c")
	ev := nextEvent(t, w)
	if ev.Type != watch.Added || ev.Object.(*example.Pod).Name != "c" {
		t.Fatalf("got %s %v, want c ADDED (the first change after %d)", ev.Type, ev.Object, cur+2)
	}
	if got := strconv.FormatUint(eventRV(t, ev), 10); got != c.ResourceVersion {
		t.Errorf("ADDED at %s, want %s", got, c.ResourceVersion)
	}
}

func TestCloseEndsWatchesAndTTLs(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	pod := &example.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "ttl"}}
	if err := f.Create(ctx, "/pods/ns/ttl", pod, &example.Pod{}, 1); err != nil {
		t.Fatal(err)
	}
	w, err := f.Watch(ctx, "/pods/ns", storage.ListOptions{Predicate: storage.Everything, Recursive: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if ev := nextEvent(t, w); ev.Type != watch.Added {
		t.Fatalf("got a %s event, want the initial ADDED", ev.Type)
	}
	f.Close()
	select {
	case ev, ok := <-w.ResultChan():
		if ok {
			t.Fatalf("got %s %v after Close, want the watch ended", ev.Type, ev.Object)
		}
	case <-waitTimeout():
		t.Fatal("the watch did not end at Close")
	}
	if _, err := f.Watch(ctx, "/pods/ns", storage.ListOptions{Predicate: storage.Everything, Recursive: true}); err == nil {
		t.Error("Watch after Close succeeded, want an error")
	}
	if err := f.ReadinessCheck(); err == nil {
		t.Error("ReadinessCheck after Close succeeded, want an error")
	}
	// Close stopped the TTL's timer: the object is still there (the store
	// is open) however long one waits; its timer no longer exists.
	f.ttl.mu.Lock()
	pending := len(f.ttl.pending)
	f.ttl.mu.Unlock()
	if pending != 0 {
		t.Errorf("%d TTL timers pending after Close, want none", pending)
	}
	if err := f.Get(ctx, "/pods/ns/ttl", storage.GetOptions{}, &example.Pod{}); err != nil {
		t.Errorf("get the object whose TTL Close cancelled: %v", err)
	}
}

func TestWatchOfNeverWrittenStoreSeesFirstWrite(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts storage.ListOptions
	}{
		{"from now", storage.ListOptions{SendInitialEvents: ptr.To(false)}},
		{"legacy, from resourceVersion 0", storage.ListOptions{ResourceVersion: "0"}},
		{"initial events with bookmark", storage.ListOptions{SendInitialEvents: ptr.To(true)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newEmptyFixture(t)
			opts := tc.opts
			opts.Predicate, opts.Recursive = storage.Everything, true
			opts.Predicate.AllowWatchBookmarks = opts.SendInitialEvents != nil && *opts.SendInitialEvents
			w, err := f.Watch(context.Background(), "/pods/ns", opts)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			// Written at once, maybe before the watch's goroutine runs (and
			// then among the initial events).
			a := createPod(t, f, "ns", "a")
			ev := nextEvent(t, w)
			if ev.Type == watch.Bookmark && opts.Predicate.AllowWatchBookmarks {
				ev = nextEvent(t, w)
			}
			if ev.Type != watch.Added || ev.Object.(*example.Pod).Name != "a" {
				t.Fatalf("got %s %v, want a ADDED", ev.Type, ev.Object)
			}
			if got := strconv.FormatUint(eventRV(t, ev), 10); got != a.ResourceVersion {
				t.Errorf("ADDED at %s, want %s", got, a.ResourceVersion)
			}
		})
	}
}

func TestRootKeyIsListedFirstAndContinuesPastIt(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	if err := f.Create(ctx, "/pods/", &example.Pod{ObjectMeta: metav1.ObjectMeta{Name: "root"}}, &example.Pod{}, 0); err != nil {
		t.Fatal(err)
	}
	createPod(t, f, "ns", "a")
	var names []string
	cont := ""
	for {
		out := &example.PodList{}
		pred := storage.Everything
		pred.Limit, pred.Continue = 1, cont
		if err := f.GetList(ctx, "/pods/", storage.ListOptions{Predicate: pred, Recursive: true}, out); err != nil {
			t.Fatal(err)
		}
		for _, p := range out.Items {
			names = append(names, p.Name)
		}
		if cont = out.Continue; cont == "" {
			break
		}
	}
	if want := "[root a]"; fmt.Sprint(names) != want {
		t.Errorf("paged list gave %v, want %s", names, want)
	}
}
