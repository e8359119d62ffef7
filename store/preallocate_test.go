package store

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// A new store file has its first preallocateBytes written (its blocks
// allocated) once the first write returns, an existing file is not written by Open,
// and a store written over the preallocated pages, with and without
// fsync, reopens with its objects.
func TestOpenPreallocatesANewFile(t *testing.T) {
	for _, noSync := range []bool{true, false} {
		t.Run("NoSync="+strconv.FormatBool(noSync), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "store.db")
			s, err := Open(path, Options{NoSync: noSync})
			if err != nil {
				t.Fatal(err)
			}
			mustPut(t, s, "r", "first", "v")
			if got := allocatedBytes(t, path); got < preallocateBytes {
				t.Errorf("after its first write, a new store file has %d bytes allocated, want at least %d", got, preallocateBytes)
			}
			for i := range 300 {
				mustPut(t, s, "r", "k"+strconv.Itoa(i), strings.Repeat("v", 1000+i))
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			before, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			s, err = Open(path, Options{NoSync: noSync})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			for i := range 300 {
				o, err := s.Get("r", "k"+strconv.Itoa(i))
				if err != nil || string(o.Value) != strings.Repeat("v", 1000+i) {
					t.Fatalf("k%d after reopening: %v, %d bytes", i, err, len(o.Value))
				}
			}
			after, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(after) != len(before) {
				t.Errorf("reopening changed the file's size from %d to %d bytes", len(before), len(after))
			}
		})
	}
}

// allocatedBytes is how much of the file at path has blocks on disk.
func allocatedBytes(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		t.Skip("no block count on this system")
	}
	return st.Blocks * 512
}
