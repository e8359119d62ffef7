package store

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// openDeferred opens a store with deferred commits whose flusher waits
// delay (an hour: only a full transaction, a read or Close commits).
func openDeferred(t *testing.T, path string, delay time.Duration) *Store {
	t.Helper()
	s, err := Open(path, Options{NoSync: true, DeferCommits: true, CompactionInterval: -1, deferDelay: delay})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// committedTxID returns the id of the file's last committed transaction,
// read past the store (without committing what is open).
func committedTxID(t *testing.T, s *Store) int {
	t.Helper()
	var id int
	if err := s.db.View(func(tx *bolt.Tx) error { id = tx.ID(); return nil }); err != nil {
		t.Fatal(err)
	}
	return id
}

// inFile reports whether the file's last committed transaction holds key,
// read past the store.
func inFile(t *testing.T, s *Store, resource, key string) bool {
	t.Helper()
	found := false
	err := s.db.View(func(tx *bolt.Tx) error {
		if b := resourceBucket(tx, resource); b != nil {
			found = b.Get([]byte(key)) != nil
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// TestDeferredWritesArePublishedThenCommittedTogether checks what a write
// with deferred commits is before its commit (current, read by Get, sent to
// watchers, not yet in the file), that the writes of a burst share one
// commit, made by the first read that needs the file (a list), and that the
// list sees them all.
func TestDeferredWritesArePublishedThenCommittedTogether(t *testing.T) {
	s := openDeferred(t, filepath.Join(t.TempDir(), "db"), time.Hour)
	defer s.Close()
	w, err := s.Watch(context.Background(), "r", WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	before := committedTxID(t, s)
	const n = 20
	for i := range n {
		mustPut(t, s, "r", fmt.Sprintf("ns/k%02d", i), "v")
	}
	if got := committedTxID(t, s); got != before {
		t.Fatalf("%d commits after %d deferred writes, want none yet", got-before, n)
	}
	if inFile(t, s, "r", "ns/k00") {
		t.Fatal("a deferred write is in the file before its commit")
	}
	if got := s.CurrentRevision(); got != n {
		t.Fatalf("current revision %d, want %d", got, n)
	}
	if o, err := s.Get("r", "ns/k07"); err != nil || string(o.Value) != "v" || o.Revision != 8 {
		t.Fatalf("Get of a deferred write: %+v, %v", o, err)
	}
	for i := range n {
		select {
		case ev := <-w.Events():
			if ev.Revision != int64(i+1) || ev.Type != Added {
				t.Fatalf("event %d: %+v", i, ev)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no event %d of a deferred write", i)
		}
	}
	res, err := s.List("r", ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) != n || res.Revision != n {
		t.Fatalf("list after deferred writes: %d items at revision %d, want %d at %d", len(res.Items), res.Revision, n, n)
	}
	if got := committedTxID(t, s); got != before+1 {
		t.Fatalf("the list made %d commits, want one for the %d writes", got-before, n)
	}
}

// TestDeferredCommitTriggers checks what commits the open transaction: the
// flusher, with no read to ask for it; a transaction reaching
// deferredCommitWrites writes; the calls that write the file themselves
// (Bulk, DeleteResource); and Close, whose file holds every write when it
// is opened again.
func TestDeferredCommitTriggers(t *testing.T) {
	t.Run("flusher", func(t *testing.T) {
		s := openDeferred(t, filepath.Join(t.TempDir(), "db"), time.Millisecond)
		defer s.Close()
		mustPut(t, s, "r", "ns/a", "v")
		deadline := time.Now().Add(20 * time.Second)
		for !inFile(t, s, "r", "ns/a") {
			if time.Now().After(deadline) {
				t.Fatal("the flusher did not commit the write")
			}
			time.Sleep(time.Millisecond)
		}
	})
	t.Run("full transaction", func(t *testing.T) {
		s := openDeferred(t, filepath.Join(t.TempDir(), "db"), time.Hour)
		defer s.Close()
		before := committedTxID(t, s)
		for i := range deferredCommitWrites + 1 {
			mustPut(t, s, "r", fmt.Sprintf("ns/k%04d", i), "v")
		}
		if got := committedTxID(t, s); got != before+1 {
			t.Fatalf("%d commits after %d writes, want 1", got-before, deferredCommitWrites+1)
		}
		if !inFile(t, s, "r", fmt.Sprintf("ns/k%04d", deferredCommitWrites-1)) || inFile(t, s, "r", fmt.Sprintf("ns/k%04d", deferredCommitWrites)) {
			t.Fatal("the full transaction's commit holds other writes than its own")
		}
	})
	t.Run("full transaction by bytes", func(t *testing.T) {
		s := openDeferred(t, filepath.Join(t.TempDir(), "db"), time.Hour)
		defer s.Close()
		before := committedTxID(t, s)
		big := string(make([]byte, deferredCommitBytes/2))
		mustPut(t, s, "r", "ns/a", big)
		if got := committedTxID(t, s); got != before {
			t.Fatalf("%d commits after half the bytes of a transaction, want none", got-before)
		}
		mustPut(t, s, "r", "ns/b", big)
		if got := committedTxID(t, s); got != before+1 || !inFile(t, s, "r", "ns/b") {
			t.Fatalf("%d commits after the bytes of a transaction, want 1 with both writes", got-before)
		}
	})
	t.Run("Bulk and DeleteResource", func(t *testing.T) {
		s := openDeferred(t, filepath.Join(t.TempDir(), "db"), time.Hour)
		defer s.Close()
		mustPut(t, s, "r", "ns/a", "v")
		err := s.Bulk(func() error {
			_, _, err := s.Update("r", "ns/b", set("v"))
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if !inFile(t, s, "r", "ns/a") || !inFile(t, s, "r", "ns/b") {
			t.Fatal("Bulk did not commit the write before it and its own")
		}
		mustPut(t, s, "other", "ns/c", "v")
		if err := s.DeleteResource("r"); err != nil {
			t.Fatal(err)
		}
		if !inFile(t, s, "other", "ns/c") {
			t.Fatal("DeleteResource did not commit the write before it")
		}
	})
	t.Run("Close", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "db")
		s := openDeferred(t, path, time.Hour)
		for i := range 5 {
			mustPut(t, s, "r", fmt.Sprintf("ns/k%d", i), "v")
		}
		if _, _, err := s.Update("r", "ns/k0", remove("v")); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		s, err := Open(path, Options{NoSync: true, CompactionInterval: -1})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		res, err := s.List("r", ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Items) != 4 || res.Revision != 6 {
			t.Fatalf("reopened: %d items at revision %d, want 4 at 6", len(res.Items), res.Revision)
		}
	})
}

// TestDeferredRefusedWriteKeepsTheOthers checks that a write refused
// before it changes anything (a stale key, a delete of an absent key, a
// Stamp's error) leaves the open transaction, and the store, as they were.
func TestDeferredRefusedWriteKeepsTheOthers(t *testing.T) {
	s := openDeferred(t, filepath.Join(t.TempDir(), "db"), time.Hour)
	defer s.Close()
	mustPut(t, s, "r", "ns/a", "v")
	stampErr := errors.New("stamp refused")
	if _, _, err := s.Update("r", "ns/b", func(*Object) (Write, error) {
		return Write{Value: []byte("v"), Stamp: func([]byte, int64) ([]byte, error) { return nil, stampErr }}, nil
	}); !errors.Is(err, stampErr) {
		t.Fatalf("write whose Stamp fails: %v", err)
	}
	if _, _, err := s.Update("r", "ns/absent", remove("v")); !errors.Is(err, ErrNotFound) {
		t.Fatalf("delete of an absent key: %v", err)
	}
	mustPut(t, s, "r", "ns/c", "v")
	res, err := s.List("r", ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) != 2 || res.Revision != 2 {
		t.Fatalf("after refused writes: %d items at revision %d, want 2 at 2", len(res.Items), res.Revision)
	}
}
