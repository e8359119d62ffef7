package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// The index maps terms (the server's are its objects' labels, "l:key=value")
// to the keys that have them, so that a list selecting a term reads the
// keys with it instead of every key of the resource. It is kept in the
// file, written in the same transaction as the objects, so it is exactly
// as current as they are; lists at past revisions don't use it.
//
// Layout: bucketIndex has a nested bucket per resource. The keys with a
// term are kept in chunks, in key order: a chunk is one entry, keyed
// term + "\x00" + its first key, whose value is its keys, each a uvarint
// length and the key's bytes (see appendChunkKey). A chunk grows to
// indexChunkBytes and is then split. A key's terms are also in its record
// in the resource bucket (see encodeValue), so that a write removes those it
// no longer has.
//
// Chunks, not an entry per key, because bbolt reads every entry of a page
// that a write changes into memory (and copies them when it inserts): a
// page of entries of one key each holds about a hundred of them, a page of
// chunks three or four, so an index write costs a few entries' work
// instead of a hundred's.
var (
	bucketIndex = []byte("index")
	// keyIndexedChunks (in bucketMeta) marks a file whose index covers all
	// its objects, in chunks. A file without it (from a store opened
	// without Options.IndexTerms, from before the index, or whose index has
	// an entry per key) is indexed at Open.
	keyIndexedChunks = []byte("indexed-chunks")
	// keyIndexed marked a file whose index had an entry per key. Open
	// deletes it when it indexes a file in chunks, so that a build from
	// before chunks, which trusts an index marked with it, indexes the file
	// again in its own layout instead of misreading the chunks; and a file
	// that holds it again was written by such a build, so Open indexes it
	// anew.
	keyIndexed = []byte("indexed")
)

// indexChunkBytes is the length past which a chunk of the index is split:
// about a quarter of a page, so that a page holds three or four chunks and
// no chunk needs a page of its own.
const indexChunkBytes = 1024

// openIndex makes the index of the file complete, rebuilding it, and the
// terms in the records, with terms when the file lacks keyIndexedChunks (or
// holds keyIndexed); with terms nil it drops the index (no write will keep
// it), so that a later Open with terms rebuilds it.
func openIndex(tx *bolt.Tx, terms func(resource string, value []byte) []string) error {
	meta := tx.Bucket(bucketMeta)
	if terms == nil {
		if err := tx.DeleteBucket(bucketIndex); err != nil && !errors.Is(err, bolt.ErrBucketNotFound) {
			return err
		}
		if err := meta.Delete(keyIndexedChunks); err != nil {
			return err
		}
		return meta.Delete(keyIndexed)
	}
	if meta.Get(keyIndexedChunks) != nil && meta.Get(keyIndexed) == nil {
		return nil
	}
	return rebuildIndex(tx, terms)
}

// rebuildIndex indexes every object anew, rewriting its record with its
// terms.
func rebuildIndex(tx *bolt.Tx, terms func(resource string, value []byte) []string) error {
	if err := tx.DeleteBucket(bucketIndex); err != nil && !errors.Is(err, bolt.ErrBucketNotFound) {
		return err
	}
	if _, err := tx.CreateBucket(bucketIndex); err != nil {
		return err
	}
	res := tx.Bucket(bucketResources)
	err := res.ForEachBucket(func(resource []byte) error {
		b := res.Bucket(resource)
		type record struct{ key, value []byte }
		var recs []record
		err := b.ForEach(func(k, v []byte) error {
			rev, _, val := decodeRecord(v)
			t := terms(string(resource), val)
			if err := writeIndex(tx, string(resource), string(k), nil, t); err != nil {
				return err
			}
			recs = append(recs, record{bytes.Clone(k), encodeValue(rev, t, val)})
			return nil
		})
		if err != nil {
			return err
		}
		// (A bucket may not be written while ForEach walks it.)
		for _, r := range recs {
			if err := b.Put(r.key, r.value); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("index: %w", err)
	}
	meta := tx.Bucket(bucketMeta)
	if err := meta.Delete(keyIndexed); err != nil {
		return err
	}
	return meta.Put(keyIndexedChunks, []byte{1})
}

// writeIndex moves key of resource from the terms prev (joined by "\x00",
// as its record held them) to terms.
func writeIndex(tx *bolt.Tx, resource, key string, prev []byte, terms []string) error {
	top := tx.Bucket(bucketIndex)
	idx := top.Bucket([]byte(resource))
	if idx == nil {
		if len(terms) == 0 {
			return nil
		}
		var err error
		if idx, err = top.CreateBucket([]byte(resource)); err != nil {
			return err
		}
	}
	idx.FillPercent = writeFillPercent
	var old []string
	if len(prev) > 0 {
		old = strings.Split(string(prev), "\x00")
	}
	for _, t := range old {
		if !slices.Contains(terms, t) {
			if err := indexRemove(idx, t, key); err != nil {
				return err
			}
		}
	}
	for _, t := range terms {
		if !slices.Contains(old, t) {
			if err := indexAdd(idx, t, key); err != nil {
				return err
			}
		}
	}
	return nil
}

// indexAdd adds key to the chunks of term in the index bucket idx.
func indexAdd(idx *bolt.Bucket, term, key string) error {
	kb := []byte(key)
	ck, cv := seekChunk(idx.Cursor(), indexKey(term, ""), kb)
	if ck == nil {
		return idx.Put(indexKey(term, key), appendChunkKey(nil, kb))
	}
	at, found, i, n := findChunkKey(cv, kb)
	if found {
		return nil
	}
	if i == n && len(cv) >= indexChunkBytes {
		// Added after the last key of a full chunk (keys mostly come in
		// order): the key starts a chunk of its own, and the full one
		// stays as it is.
		return idx.Put(indexKey(term, key), appendChunkKey(nil, kb))
	}
	v := make([]byte, 0, len(cv)+binary.MaxVarintLen64+len(kb))
	v = append(v, cv[:at]...)
	v = appendChunkKey(v, kb)
	v = append(v, cv[at:]...)
	if i == 0 {
		// The key comes before the chunk's first: the chunk is renamed.
		if err := idx.Delete(ck); err != nil {
			return err
		}
		ck = indexKey(term, key)
	}
	if len(v) <= indexChunkBytes {
		return idx.Put(ck, v)
	}
	// Split in halves (the two share v's bytes, which bbolt only reads).
	half := 0
	for range (n + 1) / 2 {
		_, rest := nextChunkKey(v[half:])
		half = len(v) - len(rest)
	}
	if err := idx.Put(ck, v[:half:half]); err != nil {
		return err
	}
	first, _ := nextChunkKey(v[half:])
	return idx.Put(indexKey(term, string(first)), v[half:])
}

// indexRemove removes key from the chunks of term in the index bucket idx.
func indexRemove(idx *bolt.Bucket, term, key string) error {
	kb := []byte(key)
	ck, cv := seekChunk(idx.Cursor(), indexKey(term, ""), kb)
	if ck == nil {
		return nil
	}
	at, found, i, n := findChunkKey(cv, kb)
	if !found {
		return nil
	}
	_, rest := nextChunkKey(cv[at:])
	if n == 1 || i == 0 {
		if err := idx.Delete(ck); err != nil {
			return err
		}
		if n == 1 {
			return nil
		}
	}
	v := make([]byte, 0, at+len(rest))
	v = append(v, cv[:at]...)
	v = append(v, rest...)
	if i == 0 {
		// The chunk's first key went: the chunk is renamed after the next.
		first, _ := nextChunkKey(v)
		ck = indexKey(term, string(first))
	}
	return idx.Put(ck, v)
}

// findChunkKey looks for key in a chunk: the offset where it is or would
// be added, whether it is there, its position among the chunk's keys, and
// how many keys the chunk has.
func findChunkKey(v, key []byte) (at int, found bool, i, n int) {
	at, i = -1, -1
	for off := 0; off < len(v); n++ {
		k, rest := nextChunkKey(v[off:])
		if k == nil {
			break
		}
		if at < 0 {
			if c := bytes.Compare(k, key); c >= 0 {
				at, found, i = off, c == 0, n
			}
		}
		off = len(v) - len(rest)
	}
	if at < 0 {
		at, i = len(v), n
	}
	return at, found, i, n
}

// seekChunk positions c on the chunk of the term whose entries start with
// head (term + "\x00") that holds key, or would hold it: the last chunk
// whose first key is at most key, else the term's first chunk. It returns
// the chunk's entry key (a copy) and value, or nil when the term has no
// chunk.
func seekChunk(c *bolt.Cursor, head, key []byte) (ck, cv []byte) {
	target := append(head[:len(head):len(head)], key...)
	k, v := c.Seek(target)
	if k != nil && bytes.Equal(k, target) {
		return bytes.Clone(k), v
	}
	var pk, pv []byte
	if k == nil {
		pk, pv = c.Last()
	} else {
		pk, pv = c.Prev()
	}
	if pk != nil && bytes.HasPrefix(pk, head) {
		return bytes.Clone(pk), pv
	}
	// No chunk of the term starts at or before key: its first chunk is
	// the first entry after key, if the term has one.
	k, v = c.Seek(target)
	if k != nil && bytes.HasPrefix(k, head) {
		return bytes.Clone(k), v
	}
	return nil, nil
}

// nextChunkKey splits the first key off a chunk's bytes: the key (nil if
// the bytes are malformed) and the rest.
func nextChunkKey(v []byte) (key, rest []byte) {
	n, w := binary.Uvarint(v)
	if w <= 0 || uint64(len(v)-w) < n {
		return nil, nil
	}
	end := w + int(n)
	return v[w:end:end], v[end:]
}

// appendChunkKey appends key to a chunk's bytes.
func appendChunkKey(v, key []byte) []byte {
	v = binary.AppendUvarint(v, uint64(len(key)))
	return append(v, key...)
}

// dropIndex removes a resource's index with its bucket.
func dropIndex(tx *bolt.Tx, resource string) error {
	b := tx.Bucket(bucketIndex)
	if b == nil {
		return nil
	}
	if err := b.DeleteBucket([]byte(resource)); err != nil && !errors.Is(err, bolt.ErrBucketNotFound) {
		return err
	}
	return nil
}

func indexKey(term, key string) []byte {
	b := make([]byte, 0, len(term)+1+len(key))
	b = append(b, term...)
	b = append(b, 0)
	return append(b, key...)
}

// indexIter walks the keys of a resource that have a term, in key order,
// with a prefix and after a start key, reading their values from the
// object bucket: the index's counterpart of listIter for the current state.
type indexIter struct {
	c      *bolt.Cursor // on the resource's index bucket, at the chunk being read
	objs   *bolt.Bucket
	oc     *bolt.Cursor // on objs, reused for every value read (a Get makes a cursor each)
	placed bool         // oc is at the last object read
	head   []byte       // term + "\x00": the start of the term's chunks' entry keys
	prefix []byte
	chunk  []byte // the keys of the current chunk not yet walked; nil once past the range
	// pending is the walk's next key when newIndexIter has read it.
	pending []byte
	steps   int64 // index keys walked
}

func newIndexIter(tx *bolt.Tx, resource, term, prefix, after string) *indexIter {
	it := &indexIter{head: indexKey(term, ""), prefix: []byte(prefix)}
	idx := tx.Bucket(bucketIndex)
	if idx != nil {
		idx = idx.Bucket([]byte(resource))
	}
	it.objs = resourceBucket(tx, resource)
	if idx == nil || it.objs == nil {
		return it
	}
	it.c = idx.Cursor()
	it.oc = it.objs.Cursor()
	start := []byte(max(prefix, after))
	_, it.chunk = seekChunk(it.c, it.head, start)
	// The chunk may start before start: skip its keys before it, and
	// after itself.
	for {
		k := it.nextKey()
		if k == nil {
			return it
		}
		if c := bytes.Compare(k, start); c > 0 || (c == 0 && string(k) != after) {
			it.pending = k
			return it
		}
	}
}

// nextKey returns the next key of the term (nil at the end of its
// chunks), moving to the next chunk when one is done.
func (it *indexIter) nextKey() []byte {
	if k := it.pending; k != nil {
		it.pending = nil
		return k
	}
	for it.chunk != nil {
		if len(it.chunk) > 0 {
			k, rest := nextChunkKey(it.chunk)
			if k != nil {
				it.chunk = rest
				return k
			}
		}
		// This chunk is done: the next entry, if it is the term's.
		k, v := it.c.Next()
		if k == nil || !bytes.HasPrefix(k, it.head) {
			it.chunk = nil
			break
		}
		it.chunk = v
	}
	return nil
}

// next returns the next key with the term and the prefix, its value and
// revision, aliasing bbolt memory.
func (it *indexIter) next() (key, val []byte, rev int64, ok bool) {
	for {
		key = it.nextKey()
		if key == nil || !bytes.HasPrefix(key, it.prefix) {
			// Keys come in order from at least the prefix: the first
			// without it is past every key with it.
			it.chunk = nil
			return nil, nil, 0, false
		}
		it.steps++
		k, v := it.objectAt(key)
		if v == nil || !bytes.Equal(k, key) {
			// Written in the same transactions as the objects, the index
			// cannot name a missing key; were it to, skip it.
			continue
		}
		rev, val = decodeValue(v)
		return key, val, rev, true
	}
}

// nearSteps is how many objects objectAt steps over before it seeks.
const nearSteps = 4

// objectAt moves the object cursor to key (or the first key after it):
// by stepping when key is among the next few objects, as it is when a
// selection takes most of them (a cursor's Next costs a fraction of a
// Seek, which searches the tree from its root), else by seeking.
func (it *indexIter) objectAt(key []byte) ([]byte, []byte) {
	if it.placed {
		for range nearSteps {
			k, v := it.oc.Next()
			if k == nil {
				break
			}
			if c := bytes.Compare(k, key); c >= 0 {
				if c == 0 {
					return k, v
				}
				break
			}
		}
	}
	it.placed = true
	return it.oc.Seek(key)
}

// moreAfter reports whether the resource has any key in the prefix after
// key: a page read through the index has More when it does, as a page read
// by walking every key has.
func moreAfter(objs *bolt.Bucket, prefix, key string) bool {
	if objs == nil {
		return false
	}
	c := objs.Cursor()
	k, _ := c.Seek([]byte(key))
	if k != nil && string(k) == key {
		k, _ = c.Next()
	}
	return k != nil && bytes.HasPrefix(k, []byte(prefix))
}
