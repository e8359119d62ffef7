package store

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"sync"

	bolt "go.etcd.io/bbolt"
)

// change is the first history entry of a key after a list revision: the
// first commit after it that overwrote or deleted the key.
type change struct {
	key  string
	rev  int64 // the entry's revision
	prev int64 // the revision of the value it replaced
}

// changeIndex is what a list of one resource at revision at reads from the
// history: the keys that commits after at, up to through, overwrote or
// deleted, in key order, each with its first such entry. It never changes
// once built; a list at a later revision extends a copy.
//
// It serves any read transaction at a revision >= at: an entry after the
// transaction's revision means the key had none in between (entries come in
// revision order), so the key's value at at is in the object bucket.
type changeIndex struct {
	resource string
	at       int64
	through  int64
	changes  []change
}

// changeCacheSize is how many change indexes a Store keeps: the lists
// being paged through at past revisions at a time.
const changeCacheSize = 8

// changeCache keeps the change indexes of recent lists at past revisions,
// so that the pages of one list (continue tokens at one revision) read the
// history after it once in all.
type changeCache struct {
	mu  sync.Mutex
	idx []*changeIndex // the most recently used last
}

// get returns the index of resource at at, if kept.
func (c *changeCache) get(resource string, at int64) *changeIndex {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, x := range c.idx {
		if x.resource == resource && x.at == at {
			c.idx = append(append(c.idx[:i], c.idx[i+1:]...), x)
			return x
		}
	}
	return nil
}

// put keeps x, in place of an older index of the same list, evicting the
// least recently used index when full.
func (c *changeCache) put(x *changeIndex) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, y := range c.idx {
		if y.resource == x.resource && y.at == x.at {
			if y.through > x.through {
				return
			}
			c.idx = append(c.idx[:i], c.idx[i+1:]...)
			break
		}
	}
	if len(c.idx) == changeCacheSize {
		c.idx[0] = nil
		c.idx = c.idx[1:]
	}
	c.idx = append(c.idx, x)
}

// changesSince returns the change index of resource at revision at for the
// read transaction tx at revision rev > at, whose history bucket holds
// every entry up to rev: the cached one, extended with the entries after
// it if it is behind rev, or one built from the entries after at.
func (s *Store) changesSince(tx *bolt.Tx, resource string, at, rev int64) (*changeIndex, error) {
	x := s.changes.get(resource, at)
	if x != nil && x.through >= rev {
		return x, nil
	}
	from, old := at, []change(nil)
	if x != nil {
		from, old = x.through, x.changes
	}
	var added []change
	seen := make(map[string]bool)
	group := appendGroup(nil, resource)
	c := tx.Bucket(bucketHistory).Cursor()
	for k, v := c.Seek(appendInt(group, from+1)); len(k) == len(group)+8 && bytes.HasPrefix(k, group); k, v = c.Next() {
		r := entryRevision(k)
		if r > rev {
			break
		}
		prev, key, _, ok := decodeEntry(v)
		if !ok {
			return nil, fmt.Errorf("store: history entry %d of %s is corrupt", r, resource)
		}
		if seen[string(key)] {
			continue
		}
		k := string(key)
		seen[k] = true
		if _, found := slices.BinarySearchFunc(old, k, compareChange); found {
			continue
		}
		added = append(added, change{key: k, rev: r, prev: prev})
	}
	x = &changeIndex{resource: resource, at: at, through: rev, changes: old}
	if len(added) > 0 {
		slices.SortFunc(added, func(a, b change) int { return strings.Compare(a.key, b.key) })
		x.changes = mergeChanges(old, added)
	}
	s.changes.put(x)
	return x, nil
}

// compareChange orders a change against a key.
func compareChange(c change, key string) int { return strings.Compare(c.key, key) }

// mergeChanges merges two key-ordered lists of changes of distinct keys
// into a new one.
func mergeChanges(a, b []change) []change {
	out := make([]change, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if a[0].key < b[0].key {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return append(append(out, a...), b...)
}
