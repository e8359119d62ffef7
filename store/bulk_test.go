package store

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

func TestBulkWritesGetARevisionAndEventEach(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	s, err := Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	mustPut(t, s, "r", "before", "v0")
	w, err := s.Watch(context.Background(), "r", WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	err = s.Bulk(func() error {
		mustPut(t, s, "r", "a", "v1")
		mustPut(t, s, "q", "b", "v1")
		// Reads inside see the writes before they commit.
		if o, err := s.Get("r", "a"); err != nil || string(o.Value) != "v1" || o.Revision != 2 {
			return fmt.Errorf("Get inside Bulk = %+v, %v; want v1 at 2", o, err)
		}
		if l, err := s.List("r", ListOptions{}); err != nil || keysOf(l.Items) != "a=v1@2 before=v0@1" || l.Revision != 3 {
			return fmt.Errorf("List inside Bulk = %+v, %v", l, err)
		}
		mustPut(t, s, "r", "a", "v2")
		mustDelete(t, s, "r", "before")
		// Watchers hear of nothing until the commit.
		select {
		case ev := <-w.Events():
			return fmt.Errorf("event %+v before Bulk committed", ev)
		default:
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.CurrentRevision(); got != 5 {
		t.Errorf("CurrentRevision = %d, want 5", got)
	}
	want := []string{"ADDED r/a@2", "MODIFIED r/a@4", "DELETED r/before@5"}
	for i, wantEv := range want {
		select {
		case ev := <-w.Events():
			if got := fmt.Sprintf("%s %s/%s@%d", ev.Type, ev.Resource, ev.Key, ev.Revision); got != wantEv {
				t.Errorf("event %d = %s, want %s", i, got, wantEv)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no event %d (%s)", i, wantEv)
		}
	}
	if rev := mustPut(t, s, "r", "c", "v1"); rev != 6 {
		t.Errorf("write after Bulk at %d, want 6", rev)
	}
	if l, err := s.List("r", ListOptions{Revision: 3}); err != nil || keysOf(l.Items) != "a=v1@2 before=v0@1" {
		t.Errorf("list at 3, inside the Bulk's commit: %+v, %v", l, err)
	}
	s = reopen(t, s, path)
	if l, err := s.List("r", ListOptions{}); err != nil || keysOf(l.Items) != "a=v2@4 c=v1@6" {
		t.Errorf("after reopen: %+v, %v; want a=v2@4 c=v1@6", l, err)
	}
}

func TestBulkThatFailsKeepsNothingAndClosesTheStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	s, err := Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	mustPut(t, s, "r", "kept", "v1")
	boom := errors.New("boom")
	err = s.Bulk(func() error {
		mustPut(t, s, "r", "lost", "v1")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Bulk = %v, want %v", err, boom)
	}
	if _, err := s.Get("r", "kept"); !errors.Is(err, ErrClosed) {
		t.Errorf("Get after a failed Bulk = %v, want ErrClosed", err)
	}

	s, err = Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if l, err := s.List("r", ListOptions{}); err != nil || keysOf(l.Items) != "kept=v1@1" {
		t.Errorf("after reopen: %+v, %v; want kept=v1@1 only", l, err)
	}
	if got := s.CurrentRevision(); got != 1 {
		t.Errorf("CurrentRevision = %d, want 1", got)
	}
}
