package store

import (
	"bytes"
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
// Layout: bucketIndex has a nested bucket per resource holding, for each of
// its keys' terms, term + "\x00" + key (empty value), in term then key
// order. A key's terms are also in its record in the resource bucket (see
// encodeValue), so that a write removes those it no longer has.
var (
	bucketIndex = []byte("index")
	// keyIndexed (in bucketMeta) marks a file whose index covers all its
	// objects; a file without it (from a store opened without
	// Options.IndexTerms, or from before the index) is indexed at Open.
	keyIndexed = []byte("indexed")
)

// openIndex makes the index of the file complete, rebuilding it, and the
// terms in the records, with terms when the file lacks keyIndexed; with
// terms nil it drops the index (no write will keep it), so that a later
// Open with terms rebuilds it.
func openIndex(tx *bolt.Tx, terms func(resource string, value []byte) []string) error {
	meta := tx.Bucket(bucketMeta)
	if terms == nil {
		if err := tx.DeleteBucket(bucketIndex); err != nil && !errors.Is(err, bolt.ErrBucketNotFound) {
			return err
		}
		return meta.Delete(keyIndexed)
	}
	if meta.Get(keyIndexed) != nil {
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
	return tx.Bucket(bucketMeta).Put(keyIndexed, []byte{1})
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
			if err := idx.Delete(indexKey(t, key)); err != nil {
				return err
			}
		}
	}
	for _, t := range terms {
		if !slices.Contains(old, t) {
			if err := idx.Put(indexKey(t, key), nil); err != nil {
				return err
			}
		}
	}
	return nil
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
	c     *bolt.Cursor // on the resource's index bucket
	objs  *bolt.Bucket
	oc    *bolt.Cursor // on objs, reused for every value read (a Get makes a cursor each)
	head  []byte       // term + "\x00" + prefix
	cut   int          // len(term) + 1: where the object key starts
	k     []byte       // the cursor's position; nil once past the range
	steps int64        // index entries walked
}

func newIndexIter(tx *bolt.Tx, resource, term, prefix, after string) *indexIter {
	it := &indexIter{head: indexKey(term, prefix), cut: len(term) + 1}
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
	start := indexKey(term, max(prefix, after))
	it.k, _ = it.c.Seek(start)
	it.check()
	if it.k != nil && after != "" && string(it.k[it.cut:]) == after {
		it.k, _ = it.c.Next()
		it.check()
	}
	return it
}

// check ends the walk at the first entry outside the term and prefix.
func (it *indexIter) check() {
	if it.k != nil && !bytes.HasPrefix(it.k, it.head) {
		it.k = nil
	}
}

// next returns the next key with the term, its value and revision,
// aliasing bbolt memory.
func (it *indexIter) next() (key, val []byte, rev int64, ok bool) {
	for it.k != nil {
		key = it.k[it.cut:]
		it.k, _ = it.c.Next()
		it.check()
		it.steps++
		k, v := it.oc.Seek(key)
		if v == nil || !bytes.Equal(k, key) {
			// Written in the same transactions as the objects, the index
			// cannot name a missing key; were it to, skip it.
			continue
		}
		rev, val = decodeValue(v)
		return key, val, rev, true
	}
	return nil, nil, 0, false
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
