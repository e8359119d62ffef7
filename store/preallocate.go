package store

import (
	"os"

	bolt "go.etcd.io/bbolt"
)

// preallocateBytes is how much of a new store file preallocate fills: more
// than the bootstrap transaction writes (about 400 KB).
const preallocateBytes = 512 << 10

// preallocate writes zeros over the pages after the high-water mark of a
// new store file, up to preallocateBytes, in one write. bbolt writes a
// transaction page by page; into a new file's holes, each of those writes
// makes the file system allocate blocks, which takes two to three times as
// long as writing over blocks already there. The bytes after the
// high-water mark are free pages, which bbolt never reads before it has
// written them. A failure leaves the file as it was and is no error: this
// only saves time.
func preallocate(db *bolt.DB) {
	var highWater int64
	if err := db.View(func(tx *bolt.Tx) error {
		highWater = tx.Size()
		return nil
	}); err != nil || highWater >= preallocateBytes {
		return
	}
	f, err := os.OpenFile(db.Path(), os.O_WRONLY, 0)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = f.WriteAt(make([]byte, preallocateBytes-highWater), highWater)
}
