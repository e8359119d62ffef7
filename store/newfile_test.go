package store

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// A new store file is made from the process's memo of an empty one once a
// first store filled it: such a store takes writes, passes bbolt's
// consistency check, and reopens with its objects.
func TestNewStoreFromTheMemoOfAnEmptyFile(t *testing.T) {
	first, err := Open(filepath.Join(t.TempDir(), "first.db"), Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	emptyFile.Lock()
	memo := emptyFile.data
	emptyFile.Unlock()
	if len(memo) != 4*os.Getpagesize() {
		t.Fatalf("after a new store, the memo holds %d bytes, want four pages", len(memo))
	}
	path := filepath.Join(t.TempDir(), "second.db")
	if !createFromEmptyFile(path) {
		t.Fatal("no file made from the memo")
	}
	if createFromEmptyFile(path) {
		t.Fatal("made over an existing file")
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	s, err := Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 200 {
		mustPut(t, s, "r", "k"+strconv.Itoa(i), "v"+strconv.Itoa(i))
	}
	if err := s.db.View(func(tx *bolt.Tx) error {
		for err := range tx.Check() {
			return err
		}
		return nil
	}); err != nil {
		t.Fatalf("consistency check: %v", err)
	}
	s = reopen(t, s, path)
	if o, err := s.Get("r", "k199"); err != nil || string(o.Value) != "v199" {
		t.Fatalf("k199 after reopening: %v %v", o, err)
	}
}
