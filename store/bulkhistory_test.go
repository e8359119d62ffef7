package store

import (
	"fmt"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// TestBulkWritesEveryHistoryBatchIntact overwrites keys in one Bulk call,
// for several history batches, and checks every history entry: bbolt
// holds the values of a transaction's Puts until it commits, so each batch
// needs bytes of its own.
func TestBulkWritesEveryHistoryBatchIntact(t *testing.T) {
	for _, batches := range []int{1, 3} {
		t.Run(fmt.Sprint(batches, " batches"), func(t *testing.T) {
			const keys = 7
			s := openTest(t, Options{CompactionInterval: -1})
			writes := keys + batches*historyBatch
			err := s.Bulk(func() error {
				for i := range writes {
					if _, _, err := s.Update("r", fmt.Sprint("k", i%keys), set(fmt.Sprint("v", i))); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.flushHistory(); err != nil {
				t.Fatal(err)
			}
			n := 0
			err = s.db.View(func(tx *bolt.Tx) error {
				return tx.Bucket(bucketHistory).ForEach(func(k, v []byte) error {
					rev := entryRevision(k)
					prevRev, key, prev, ok := decodeEntry(v)
					i := rev - 1 // the write at rev
					if !ok || prevRev != rev-keys || string(key) != fmt.Sprint("k", i%keys) || string(prev) != fmt.Sprint("v", i-keys) {
						t.Errorf("entry at %d: %s=%s@%d", rev, key, prev, prevRev)
					}
					n++
					return nil
				})
			})
			if err != nil || n != writes-keys {
				t.Fatalf("%d entries (%v), want %d", n, err, writes-keys)
			}
		})
	}
}
