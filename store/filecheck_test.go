package store

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A store file that was cut short or damaged is refused at Open with an
// error naming the file, never opened as an empty store or mapped beyond
// its end (which crashed the process with SIGBUS before).
func TestOpenRefusesADamagedFile(t *testing.T) {
	good := filepath.Join(t.TempDir(), "store.db")
	s, err := Open(good, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2000 {
		if _, _, err := s.Update("r", "k"+strconv.Itoa(i), set(strings.Repeat("v", 2000))); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		damage func([]byte) []byte
		want   string
	}{
		{"cut to nothing", func([]byte) []byte { return nil }, "is empty: the file was truncated"},
		{"cut after its meta pages", func(b []byte) []byte { return b[:8192] }, "is truncated"},
		{"cut in the middle", func(b []byte) []byte { return b[:len(b)/2] }, "is truncated"},
		{"not a bbolt file", func([]byte) []byte { return []byte(strings.Repeat("garbage ", 8192)) }, "invalid database"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "store.db")
			if err := os.WriteFile(path, tc.damage(append([]byte(nil), data...)), 0o600); err != nil {
				t.Fatal(err)
			}
			s, err := Open(path, Options{NoSync: true})
			if err == nil {
				s.Close()
				t.Fatal("opened")
			}
			if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error naming %s that says %q", err, path, tc.want)
			}
		})
	}
	// The undamaged file still opens, with its objects.
	s, err = Open(good, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Get("r", "k1999"); err != nil {
		t.Fatalf("object of the intact file: %v", err)
	}
}

// A second Open of a file another store holds fails with an error that
// says so, after lockTimeout.
func TestOpenRefusesALockedFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	s, err := Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = Open(path, Options{NoSync: true})
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "locked by another process") {
		t.Fatalf("got %v, want the file named as locked", err)
	}
}
