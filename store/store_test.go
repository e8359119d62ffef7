package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
)

// openTest opens a store in a temporary directory and closes it at the end
// of the test.
func openTest(t testing.TB, opts Options) *Store {
	t.Helper()
	opts.NoSync = true
	s, err := Open(filepath.Join(t.TempDir(), "store.db"), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// set returns an UpdateFunc that stores v.
func set(v string) UpdateFunc {
	return func(*Object) (Write, error) { return Write{Value: []byte(v)}, nil }
}

// remove returns an UpdateFunc that deletes the key with final value v.
func remove(v string) UpdateFunc {
	return func(*Object) (Write, error) { return Write{Value: []byte(v), Delete: true}, nil }
}

func mustPut(t testing.TB, s *Store, resource, key, v string) int64 {
	t.Helper()
	_, cur, err := s.Update(resource, key, set(v))
	if err != nil {
		t.Fatalf("put %s %s: %v", resource, key, err)
	}
	return cur.Revision
}

// reopen closes s and opens the store at path again (without fsync),
// closed when the test ends.
func reopen(t testing.TB, s *Store, path string) *Store {
	t.Helper()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err := Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func mustDelete(t testing.TB, s *Store, resource, key string) int64 {
	t.Helper()
	_, cur, err := s.Update(resource, key, remove("gone"))
	if err != nil {
		t.Fatalf("delete %s %s: %v", resource, key, err)
	}
	return cur.Revision
}

func TestCRUD(t *testing.T) {
	s := openTest(t, Options{})
	const res = "core/pods"

	steps := []struct {
		name     string
		fn       UpdateFunc
		wantPrev string // "" means nil
		wantErr  error
		wantRev  int64 // CurrentRevision after the step
		wantGet  string
	}{
		{name: "create", fn: set("v1"), wantRev: 1, wantGet: "v1"},
		{name: "update", fn: set("v2"), wantPrev: "v1", wantRev: 2, wantGet: "v2"},
		{name: "delete", fn: remove("final"), wantPrev: "v2", wantRev: 3},
		{name: "delete again", fn: remove("final"), wantErr: ErrNotFound, wantRev: 3},
		{name: "recreate", fn: set("v3"), wantRev: 4, wantGet: "v3"},
	}
	for _, st := range steps {
		prev, cur, err := s.Update(res, "ns/a", st.fn)
		if !errors.Is(err, st.wantErr) {
			t.Fatalf("%s: err = %v, want %v", st.name, err, st.wantErr)
		}
		if got := s.CurrentRevision(); got != st.wantRev {
			t.Fatalf("%s: revision = %d, want %d", st.name, got, st.wantRev)
		}
		if err == nil {
			if cur.Revision != st.wantRev {
				t.Errorf("%s: cur.Revision = %d, want %d", st.name, cur.Revision, st.wantRev)
			}
			if st.wantPrev == "" && prev != nil || st.wantPrev != "" && (prev == nil || string(prev.Value) != st.wantPrev) {
				t.Errorf("%s: prev = %+v, want %q", st.name, prev, st.wantPrev)
			}
		}
		got, err := s.Get(res, "ns/a")
		if st.wantGet == "" {
			if !errors.Is(err, ErrNotFound) {
				t.Errorf("%s: Get err = %v, want ErrNotFound", st.name, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: Get: %v", st.name, err)
		}
		if string(got.Value) != st.wantGet || got.Revision != st.wantRev || got.Key != "ns/a" {
			t.Errorf("%s: Get = %+v, want %q at %d", st.name, got, st.wantGet, st.wantRev)
		}
	}
	if _, err := s.Get("no/such", "x"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get unknown resource: %v", err)
	}
}

func TestUpdateStampSeesCommitRevision(t *testing.T) {
	s := openTest(t, Options{})
	mustPut(t, s, "r", "a", "x")
	_, cur, err := s.Update("r", "b", func(o *Object) (Write, error) {
		return Write{Value: []byte("rv="), Stamp: func(v []byte, rev int64) ([]byte, error) {
			return append(bytes.Clone(v), strconv.FormatInt(rev, 10)...), nil
		}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if string(cur.Value) != "rv=2" || cur.Revision != 2 {
		t.Errorf("cur = %+v, want value rv=2 and revision 2", cur)
	}
	if o, _ := s.Get("r", "b"); string(o.Value) != "rv=2" {
		t.Errorf("stored %q, want the stamped value", o.Value)
	}
}

func TestUpdateRetriesWhenKeyChangedMeanwhile(t *testing.T) {
	s := openTest(t, Options{})
	mustPut(t, s, "r", "a", "1")
	var seen []string
	_, cur, err := s.Update("r", "a", func(o *Object) (Write, error) {
		seen = append(seen, string(o.Value))
		if len(seen) == 1 {
			// Another writer commits between this read and the commit.
			mustPut(t, s, "r", "a", "10")
		}
		n, _ := strconv.Atoi(string(o.Value))
		return Write{Value: []byte(strconv.Itoa(n + 1))}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"1", "10"}; !slices.Equal(seen, want) {
		t.Errorf("fn saw %q, want %q", seen, want)
	}
	if string(cur.Value) != "11" || cur.Revision != 3 {
		t.Errorf("cur = %q at %d, want 11 at 3", cur.Value, cur.Revision)
	}
}

func TestUpdateRetriesWhenKeyRecreatedMeanwhile(t *testing.T) {
	s := openTest(t, Options{})
	calls := 0
	_, _, err := s.Update("r", "a", func(o *Object) (Write, error) {
		calls++
		if o != nil {
			return Write{}, errors.New("exists")
		}
		if calls == 1 {
			mustPut(t, s, "r", "a", "other")
		}
		return Write{Value: []byte("mine")}, nil
	})
	if err == nil || err.Error() != "exists" || calls != 2 {
		t.Fatalf("err = %v after %d calls, want the second call to see the other create", err, calls)
	}
	if o, _ := s.Get("r", "a"); string(o.Value) != "other" {
		t.Errorf("value = %q, want the concurrent create's", o.Value)
	}
}

func TestSlowUpdateHoldsUpOnlyItsOwnKey(t *testing.T) {
	s := openTest(t, Options{})
	entered, release := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		_, _, err := s.Update("slow", "a", func(*Object) (Write, error) {
			close(entered)
			<-release
			return Write{Value: []byte("late")}, nil
		})
		done <- err
	}()
	<-entered
	for i := range 20 {
		mustPut(t, s, "fast", fmt.Sprint(i), "v")
	}
	select {
	case err := <-done:
		t.Fatalf("slow update finished before it was released: %v", err)
	default:
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := s.CurrentRevision(); got != 21 {
		t.Errorf("revision = %d, want 21", got)
	}
}

func TestUpdateAbort(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name    string
		err     error
		wantErr error
	}{
		{"unchanged", ErrUnchanged, nil},
		{"wrapped unchanged", fmt.Errorf("no-op: %w", ErrUnchanged), nil},
		{"fn error", boom, boom},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := openTest(t, Options{})
			mustPut(t, s, "r", "a", "v1")
			w, err := s.Watch(context.Background(), "r", WatchOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, key := range []string{"a", "missing"} {
				prev, cur, err := s.Update("r", key, func(*Object) (Write, error) {
					return Write{Value: []byte("v2")}, tt.err
				})
				if !errors.Is(err, tt.wantErr) || (tt.wantErr != nil && err != tt.wantErr) {
					t.Fatalf("%s: err = %v, want %v as is", key, err, tt.wantErr)
				}
				if tt.wantErr == nil && key == "a" && (prev != cur || prev == nil || string(cur.Value) != "v1" || cur.Revision != 1) {
					t.Errorf("%s: got prev=%+v cur=%+v, want the current object twice", key, prev, cur)
				}
				if tt.wantErr == nil && key == "missing" && (prev != nil || cur != nil) {
					t.Errorf("%s: got prev=%+v cur=%+v, want nils", key, prev, cur)
				}
			}
			if got := s.CurrentRevision(); got != 1 {
				t.Errorf("revision = %d, want 1", got)
			}
			if o, _ := s.Get("r", "a"); string(o.Value) != "v1" {
				t.Errorf("value = %q, want v1", o.Value)
			}
			if _, err := s.Get("r", "missing"); !errors.Is(err, ErrNotFound) {
				t.Errorf("missing key was written: %v", err)
			}
			if n := len(w.Events()); n != 0 {
				t.Errorf("%d events delivered, want 0", n)
			}
			if rev := mustPut(t, s, "r", "b", "x"); rev != 2 {
				t.Errorf("next write at %d, want 2", rev)
			}
		})
	}
}

func TestReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	s, err := Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	mustPut(t, s, "r", "a", "v1")
	mustPut(t, s, "r", "b", "v1")
	mustDelete(t, s, "r", "b")
	mustPut(t, s, "r", "a", "v2")
	s = reopen(t, s, path)
	if got := s.CurrentRevision(); got != 4 {
		t.Errorf("CurrentRevision = %d, want 4", got)
	}
	// History is in the file: lists before the reopen still work. The
	// event log is not: watches start at the reopen.
	if got := s.CompactedRevision(); got != 0 {
		t.Errorf("CompactedRevision = %d, want 0", got)
	}
	if got := s.WatchCompactedRevision(); got != 4 {
		t.Errorf("WatchCompactedRevision = %d, want 4", got)
	}
	o, err := s.Get("r", "a")
	if err != nil || string(o.Value) != "v2" || o.Revision != 4 {
		t.Errorf("Get = %+v, %v; want v2 at 4", o, err)
	}
	if _, err := s.Get("r", "b"); !errors.Is(err, ErrNotFound) {
		t.Errorf("deleted key after reopen: %v", err)
	}
	if rev := mustPut(t, s, "r", "c", "v1"); rev != 5 {
		t.Errorf("first write after reopen at %d, want 5", rev)
	}
	if l, err := s.List("r", ListOptions{Revision: 2}); err != nil || keysOf(l.Items) != "a=v1@1 b=v1@2" {
		t.Errorf("list at 2, before reopen: %+v, %v; want a=v1@1 b=v1@2", l, err)
	}
	var ce *CompactedError
	if _, err := s.Watch(context.Background(), "r", WatchOptions{FromRevision: 3}); !errors.As(err, &ce) || ce.Oldest != 4 {
		t.Errorf("watch before reopen: %v, want CompactedError{Oldest: 4}", err)
	}
}

func TestOpenLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	s, err := Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s2, err := Open(path, Options{NoSync: true}); err == nil {
		s2.Close()
		t.Fatal("second Open of a locked file succeeded")
	}
}

func TestClose(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	s, err := Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	mustPut(t, s, "r", "a", "v1")
	w, err := s.Watch(context.Background(), "r", WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, ok := <-w.Events(); ok {
		t.Error("watcher channel still open after Close")
	}
	if !errors.Is(w.Err(), ErrClosed) {
		t.Errorf("watcher Err = %v, want ErrClosed", w.Err())
	}
	w.Stop() // harmless after Close

	calls := map[string]func() error{
		"Get":            func() error { _, err := s.Get("r", "a"); return err },
		"Update":         func() error { _, _, err := s.Update("r", "a", set("x")); return err },
		"List":           func() error { _, err := s.List("r", ListOptions{}); return err },
		"Watch":          func() error { _, err := s.Watch(context.Background(), "r", WatchOptions{}); return err },
		"Resources":      func() error { _, err := s.Resources(); return err },
		"DeleteResource": func() error { return s.DeleteResource("r") },
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, ErrClosed) {
			t.Errorf("%s after Close: %v, want ErrClosed", name, err)
		}
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestConcurrentCounter(t *testing.T) {
	s := openTest(t, Options{})
	const workers, increments = 16, 50
	incr := func(cur *Object) (Write, error) {
		n := 0
		if cur != nil {
			var err error
			if n, err = strconv.Atoi(string(cur.Value)); err != nil {
				return Write{}, err
			}
		}
		return Write{Value: []byte(strconv.Itoa(n + 1))}, nil
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range increments {
				if _, _, err := s.Update("r", "counter", incr); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	o, err := s.Get("r", "counter")
	if err != nil {
		t.Fatal(err)
	}
	if want := strconv.Itoa(workers * increments); string(o.Value) != want {
		t.Errorf("counter = %s, want %s", o.Value, want)
	}
	if got := s.CurrentRevision(); got != workers*increments {
		t.Errorf("revision = %d, want %d", got, workers*increments)
	}
}

// TestReadsNeverAheadOfRevision checks that whatever a reader sees has been
// published: an object's revision is never above CurrentRevision, so a
// watch from it never fails as "future".
func TestReadsNeverAheadOfRevision(t *testing.T) {
	s := openTest(t, Options{})
	mustPut(t, s, "r", "a", "0")
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(done)
		for i := range 500 {
			if _, _, err := s.Update("r", "a", set(strconv.Itoa(i))); err != nil {
				t.Error(err)
				return
			}
		}
	})
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				o, err := s.Get("r", "a")
				if err != nil {
					t.Error(err)
					return
				}
				if cur := s.CurrentRevision(); o.Revision > cur {
					t.Errorf("Get saw revision %d, CurrentRevision %d", o.Revision, cur)
					return
				}
				l, err := s.List("r", ListOptions{})
				if err != nil {
					t.Error(err)
					return
				}
				w, err := s.Watch(context.Background(), "r", WatchOptions{FromRevision: l.Revision})
				if err != nil {
					t.Errorf("watch from listed revision %d: %v", l.Revision, err)
					return
				}
				w.Stop()
			}
		})
	}
	wg.Wait()
}

func TestResources(t *testing.T) {
	s := openTest(t, Options{})
	mustPut(t, s, "core/pods", "ns/a", "x")
	mustPut(t, s, "apps/deployments", "ns/a", "x")
	mustPut(t, s, "example.com/widgets", "ns/a", "x")
	mustPut(t, s, "example.com/widgets", "ns/b", "x")

	got, err := s.Resources()
	if err != nil {
		t.Fatal(err)
	}
	if want := "[apps/deployments core/pods example.com/widgets]"; fmt.Sprint(got) != want {
		t.Errorf("Resources = %v, want %s", got, want)
	}

	dropRev := s.CurrentRevision()
	if err := s.DeleteResource("example.com/widgets"); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteResource("never/existed"); err != nil {
		t.Errorf("DeleteResource unknown: %v", err)
	}
	if s.CurrentRevision() != dropRev {
		t.Errorf("DeleteResource consumed a revision")
	}
	got, _ = s.Resources()
	if want := "[apps/deployments core/pods]"; fmt.Sprint(got) != want {
		t.Errorf("Resources after drop = %v, want %s", got, want)
	}
	if _, err := s.Get("example.com/widgets", "ns/a"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get after drop: %v", err)
	}
	l, err := s.List("example.com/widgets", ListOptions{})
	if err != nil || len(l.Items) != 0 {
		t.Errorf("List after drop = %+v, %v; want empty", l, err)
	}
	var ce *CompactedError
	if _, err := s.List("example.com/widgets", ListOptions{Revision: dropRev - 1}); !errors.As(err, &ce) {
		t.Errorf("historical list before drop: %v, want CompactedError", err)
	}
	if _, err := s.Watch(context.Background(), "example.com/widgets", WatchOptions{FromRevision: 1}); !errors.As(err, &ce) {
		t.Errorf("watch from before drop: %v, want CompactedError", err)
	}
	// Other resources keep their history.
	if _, err := s.List("core/pods", ListOptions{Revision: 1}); err != nil {
		t.Errorf("historical list of another resource: %v", err)
	}
	// The resource can come back.
	if rev := mustPut(t, s, "example.com/widgets", "ns/c", "x"); rev != dropRev+1 {
		t.Errorf("recreate at %d, want %d", rev, dropRev+1)
	}
}

func TestCommittedHooksRunInRevisionOrder(t *testing.T) {
	s := openTest(t, Options{})
	var mu sync.Mutex
	var seen []int64
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			_, _, err := s.Update("r", fmt.Sprint(i%5), func(*Object) (Write, error) {
				return Write{Value: []byte("v"), Committed: func(cur *Object) {
					mu.Lock()
					seen = append(seen, cur.Revision)
					mu.Unlock()
				}}, nil
			})
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if len(seen) != 50 || !slices.IsSorted(seen) {
		t.Errorf("hooks saw revisions %v, want 1..50 in order", seen)
	}
}

func TestCommittedHookNotCalledForFailedWrite(t *testing.T) {
	s := openTest(t, Options{})
	called := false
	_, _, err := s.Update("r", "missing", func(*Object) (Write, error) {
		return Write{Delete: true, Committed: func(*Object) { called = true }}, nil
	})
	if !errors.Is(err, ErrNotFound) || called {
		t.Errorf("err = %v, hook called = %v; want ErrNotFound and no call", err, called)
	}
}
