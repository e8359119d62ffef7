package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// The layout of a bbolt file's two meta pages (go.etcd.io/bbolt's
// internal/common): a 16-byte page header, then magic, version, page size
// and flags (4 bytes each), the root bucket (16), the freelist page (8),
// the high-water page id (8) and the transaction id (8).
const (
	boltMagic        = 0xED0CDAED
	boltMetaOffset   = 16
	boltPageSizeOff  = boltMetaOffset + 8
	boltHighWaterOff = boltMetaOffset + 16 + 16 + 8
	boltTxidOff      = boltHighWaterOff + 8
)

// checkFile refuses a store file that bbolt would open as an empty store
// (a file cut to nothing) or would map beyond its end and crash on (a file
// cut short): its newest valid meta page says how many pages it has. A
// file whose meta pages are not bbolt's is left to bbolt, which refuses it.
// It reports whether the file exists.
func checkFile(path string) (exists bool, err error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return true, err
	}
	if st.Size() == 0 {
		return true, fmt.Errorf("%s is empty: the file was truncated (move it away to start with an empty store)", path)
	}
	var best struct{ txid, highWater, pageSize uint64 }
	found := false
	pageSize := int64(0)
	for i := 0; i < 2; i++ {
		buf := make([]byte, boltTxidOff+8)
		if _, err := f.ReadAt(buf, int64(i)*pageSize); err != nil && !errors.Is(err, io.EOF) {
			return true, err
		}
		le := binary.LittleEndian
		if le.Uint32(buf[boltMetaOffset:]) != boltMagic {
			if i == 0 {
				// The second meta page is a page size further; without the
				// first one's page size, leave the file to bbolt.
				return true, nil
			}
			continue
		}
		ps := uint64(le.Uint32(buf[boltPageSizeOff:]))
		if i == 0 {
			pageSize = int64(ps)
			if pageSize <= 0 {
				return true, nil
			}
		}
		txid, hw := le.Uint64(buf[boltTxidOff:]), le.Uint64(buf[boltHighWaterOff:])
		if !found || txid > best.txid {
			best.txid, best.highWater, best.pageSize, found = txid, hw, ps, true
		}
	}
	if found && uint64(st.Size()) < best.highWater*best.pageSize {
		return true, fmt.Errorf("%s is truncated: %d bytes, its last transaction needs %d (restore it from a copy, or move it away to start with an empty store)",
			path, st.Size(), best.highWater*best.pageSize)
	}
	return true, nil
}
