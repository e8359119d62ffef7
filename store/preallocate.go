package store

import (
	"os"

	bolt "go.etcd.io/bbolt"
)

// preallocateBytes is how much of a new store file preallocate fills: more
// than the bootstrap transaction writes (about 400 KB).
const preallocateBytes = 512 << 10

// preallocate writes zeros over the pages after the high-water mark of a
// new store file, up to preallocateBytes, on another goroutine. bbolt
// writes a transaction page by page; into a new file's holes, each of
// those writes makes the file system allocate blocks, which takes two to
// three times as long as writing over blocks already there. The bytes after
// the high-water mark are free pages, which bbolt never reads before it has
// written them.
//
// It holds bbolt's writer lock (an empty write transaction, rolled back)
// until it is done, so every write waits for it; reads do not. The channel
// it returns is closed once its goroutine is done. A failure leaves the
// file as it was and is no error: this only saves time.
func preallocate(db *bolt.DB) <-chan struct{} {
	done := make(chan struct{})
	tx, err := db.Begin(true)
	if err != nil {
		close(done)
		return done
	}
	go func() {
		defer close(done)
		defer func() { _ = tx.Rollback() }()
		highWater := tx.Size()
		if highWater >= preallocateBytes {
			return
		}
		f, err := os.OpenFile(db.Path(), os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer f.Close()
		// From one small buffer: a new one of the whole size would be
		// half a megabyte of garbage at every start.
		zeros := make([]byte, 64<<10)
		for off := highWater; off < preallocateBytes; off += int64(len(zeros)) {
			if _, err := f.WriteAt(zeros[:min(int64(len(zeros)), preallocateBytes-off)], off); err != nil {
				return
			}
		}
	}()
	return done
}
