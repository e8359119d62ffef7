package store

import (
	"io"
	"os"
	"sync"

	bolt "go.etcd.io/bbolt"
)

// emptyFile memoizes, for the whole process, a new store file as bbolt
// writes it when it creates one (its first pages: two meta pages, the
// freelist and the root), for the page size of the database that made it.
// bbolt syncs that write to disk, a fifth of a millisecond at every start;
// a later store that needs no sync (Options.NoSync) is created from the
// memo's bytes instead, which bbolt then opens as it would its own. It is
// written once and read after.
var emptyFile struct {
	sync.Mutex
	pageSize int
	data     []byte
}

// createFromEmptyFile creates the file at path (which must not exist) from
// the memo, if it holds a file; it reports whether it did.
func createFromEmptyFile(path string) bool {
	emptyFile.Lock()
	data, pageSize := emptyFile.data, emptyFile.pageSize
	emptyFile.Unlock()
	if data == nil || pageSize != os.Getpagesize() {
		return false
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return false
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(path)
		return false
	}
	return true
}

// rememberEmptyFile fills the memo, if it is empty, from the file of db,
// which bbolt has just created: its first four pages.
func rememberEmptyFile(db *bolt.DB) {
	emptyFile.Lock()
	defer emptyFile.Unlock()
	if emptyFile.data != nil {
		return
	}
	f, err := os.Open(db.Path())
	if err != nil {
		return
	}
	defer f.Close()
	pageSize := db.Info().PageSize
	data := make([]byte, 4*pageSize)
	if _, err := io.ReadFull(f, data); err != nil {
		return
	}
	emptyFile.pageSize, emptyFile.data = pageSize, data
}
