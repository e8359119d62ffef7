package store

import (
	"bytes"

	bolt "go.etcd.io/bbolt"
)

// List returns objects of resource in key byte order, selected by opts.
//
// With opts.Revision 0 it reads the current state, and ListResult.Revision
// is the revision that state is at. With opts.Revision > 0 it returns the
// state exactly as of that revision, rebuilt from the current state and the
// MVCC history (see history.go), which is kept until Compact discards it: a
// revision older than CompactedRevision gives *CompactedError, one newer
// than the current revision *FutureRevisionError.
//
// An unknown resource is an empty list.
//
// Cost: a page walks its items and the keys its Filter rejects (at a past
// revision, plus O(log n) per key changed since). With More it also needs
// Remaining, the exact number of keys after its last item: a page that
// starts where a recent page ended (as a continue token makes it) derives it
// from that page's count, any other page counts the rest of the range.
// Paging through n keys thus walks O(n) keys in all, not one count per page
// (see remainingCache).
func (s *Store) List(resource string, opts ListOptions) (*ListResult, error) {
	tx, rev, err := s.begin()
	if err == nil && opts.Revision > 0 && s.historyBehind(rev) {
		// A list at a past revision reads the history bucket, which must
		// hold the entries of every commit this transaction sees.
		tx.Rollback()
		tx, rev, err = s.beginWithHistory()
	}
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()

	res := &ListResult{Revision: rev}
	var hist *bolt.Bucket
	if opts.Revision > 0 {
		if opts.Revision > rev {
			return nil, &FutureRevisionError{Requested: opts.Revision, Current: rev}
		}
		// Checked after the read transaction began: Compact and
		// DeleteResource advance what this checks before they delete
		// anything, so a list that passes still sees the history it needs.
		s.mu.Lock()
		err := s.checkList(resource, opts.Revision)
		s.mu.Unlock()
		if err != nil {
			return nil, err
		}
		res.Revision = opts.Revision
		if opts.Revision < rev {
			hist = tx.Bucket(bucketHistory)
		}
	}
	// Remaining (the count of keys after the page) is taken from the page
	// before when it ended where this one starts; see remainingCache.
	pos := pagePos{resource: resource, prefix: opts.Prefix, rev: res.Revision, after: opts.StartAfter}
	known, cached := int64(0), false
	if opts.Limit > 0 && opts.StartAfter != "" {
		known, cached = s.remaining.get(pos)
	}
	it := newListIter(resourceBucket(tx, resource), hist, resource, res.Revision, opts.Prefix, opts.StartAfter)
	defer func() { s.listSteps.Add(it.steps) }()
	for {
		key, val, r, ok := it.next()
		if !ok {
			break
		}
		if opts.Limit > 0 && len(res.Items) == opts.Limit {
			res.More = true
			if cached {
				// it.steps-1 keys up to the last item were passed.
				res.Remaining = known - (it.steps - 1)
			} else {
				res.Remaining = 1 + it.count()
			}
			pos.after = res.Items[len(res.Items)-1].Key
			s.remaining.put(pos, res.Remaining)
			break
		}
		obj := Object{Key: string(key), Value: val, Revision: r}
		if opts.Filter != nil && !opts.Filter(obj) {
			continue
		}
		obj.Value = bytes.Clone(val)
		res.Items = append(res.Items, obj)
	}
	return res, nil
}

// listIter walks, in key order, the keys of a resource with a prefix after
// a start key, as of a revision: it merges the object bucket with the
// resource's entries of the history bucket (nil for the current state), see
// history.go.
type listIter struct {
	at     int64 // the list revision
	prefix []byte
	group  []byte       // the start of the resource's history keys
	c      *bolt.Cursor // objects; nil without a bucket
	ck, cv []byte       // c's position; ck is nil once past the range
	h      *bolt.Cursor // history; nil for the current state
	hk     []byte       // h's position
	hkey   []byte       // the object key of hk; nil once past the range
	buf    []byte       // for the history keys to seek
	steps  int64        // keys returned by next or counted by count
}

func newListIter(b, hist *bolt.Bucket, resource string, at int64, prefix, after string) *listIter {
	it := &listIter{at: at, prefix: []byte(prefix)}
	start := max(prefix, after)
	if b != nil {
		it.c = b.Cursor()
		it.ck, it.cv = it.c.Seek([]byte(start))
		if it.ck != nil && string(it.ck) == after {
			it.ck, it.cv = it.c.Next()
		}
		it.checkC()
	}
	if hist != nil {
		it.h = hist.Cursor()
		it.group = appendGroup(nil, resource)
		it.hk, _ = it.h.Seek(escapeKey(bytes.Clone(it.group), start))
		it.checkH()
		if it.hkey != nil && string(it.hkey) == after {
			it.leaveGroup(it.hkey)
		}
	}
	return it
}

// checkC ends the object cursor at the first key outside the prefix.
func (it *listIter) checkC() {
	if it.ck != nil && !bytes.HasPrefix(it.ck, it.prefix) {
		it.ck = nil
	}
}

// checkH decodes the history cursor's object key, nil at the end or at the
// first key outside the prefix.
func (it *listIter) checkH() {
	it.hkey = nil
	if !bytes.HasPrefix(it.hk, it.group) {
		return
	}
	if key, ok := entryKey(it.hk[len(it.group):]); ok && bytes.HasPrefix(key, it.prefix) {
		it.hkey = key
	}
}

// leaveGroup moves the history cursor, which is at or after the first
// entry of key, past the entries of key: a step or two when few are left, a
// seek otherwise.
func (it *listIter) leaveGroup(key []byte) {
	g := it.keyGroup(key)
	for steps := 0; bytes.HasPrefix(it.hk, g); steps++ {
		if steps == 2 {
			g[len(g)-1] = 1 // key 0x00 0x01 sorts after key 0x00 0x00 ..., before any other key
			it.hk, _ = it.h.Seek(g)
			break
		}
		it.hk, _ = it.h.Next()
	}
	it.checkH()
}

// before returns the value key had at the list revision, from its first
// history entry after it. ok is false if there is no such entry or the key
// did not exist then. It moves the history cursor to that entry, or past
// key's entries if there is none.
func (it *listIter) before(key []byte) (val []byte, rev int64, ok bool) {
	group := it.keyGroup(key)
	k, v := it.h.Seek(appendInt(group, it.at+1))
	it.hk = k
	if !bytes.HasPrefix(k, group) {
		return nil, 0, false
	}
	_, prev, _ := entryRevisions(k)
	if prev > it.at {
		return nil, 0, false
	}
	return v, prev, true
}

// keyGroup returns the start of the history keys of key, in a buffer that
// the next call reuses.
func (it *listIter) keyGroup(key []byte) []byte {
	it.buf = appendGroup(append(it.buf[:0], it.group...), key)
	return it.buf
}

// next returns the next key with its value and revision, aliasing bbolt
// memory.
func (it *listIter) next() (key, val []byte, rev int64, ok bool) {
	for it.ck != nil || it.hkey != nil {
		inC, inH := it.ck != nil, it.hkey != nil
		if inC && inH {
			switch c := bytes.Compare(it.ck, it.hkey); {
			case c < 0:
				inH = false
			case c > 0:
				inC = false
			}
		}
		found := false
		if inC {
			key = it.ck
			rev, val = decodeValue(it.cv)
			found = rev <= it.at
			it.ck, it.cv = it.c.Next()
			it.checkC()
		}
		if inH {
			key = it.hkey
			if !found {
				// Changed since the list revision: its value then is in
				// its first history entry after it.
				val, rev, found = it.before(key)
			}
			it.leaveGroup(key)
		}
		if found {
			it.steps++
			return key, val, rev, true
		}
	}
	return nil, nil, 0, false
}

// count consumes the rest of the keys and returns how many there were.
func (it *listIter) count() int64 {
	n := int64(0)
	for {
		if _, _, _, ok := it.next(); !ok {
			return n
		}
		n++
	}
}
