package store

import (
	"bytes"
	"slices"
	"strings"

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
// revision R, plus O(log n) per key changed since, and, once for all the
// pages at R, the history entries of the resource's writes since: see
// changeCache). With More it also needs Remaining, the exact number of keys
// after its last item: a page that starts where a recent page ended (as a
// continue token makes it) derives it from that page's count, any other
// page counts the rest of the range. Paging through n keys thus walks O(n) keys in all, not one count per page
// (see remainingCache).
func (s *Store) List(resource string, opts ListOptions) (*ListResult, error) {
	var items []Object
	res, err := s.list(resource, opts, func(obj Object) error {
		obj.Value = bytes.Clone(obj.Value)
		items = append(items, obj)
		return nil
	})
	if err != nil {
		return nil, err
	}
	res.Items = items
	return res, nil
}

// list is List handing each item to visit inside the read transaction, its
// Value aliasing bbolt memory (see Visit). The result has no Items.
func (s *Store) list(resource string, opts ListOptions, visit func(Object) error) (*ListResult, error) {
	// How far the file's history goes is read before the transaction
	// begins: a batch written after it began (and the mark moved past its
	// revision) is not in its snapshot. Read after, it let a list at a past
	// revision miss the changes of that batch, rarely (a list racing the
	// commit that writes a batch: TestListAtRevisionWhileCompacting).
	through := s.pendingHist.through.Load()
	tx, rev, err := s.begin()
	if err == nil && opts.Revision > 0 && opts.Revision < rev && through < rev {
		// A list at a past revision reads the history bucket, which must
		// hold the entries of every commit this transaction sees. (One at
		// the transaction's own revision does not: inside a Bulk write,
		// whose lock beginWithHistory would wait for, that is every list.)
		s.endRead(tx)
		tx, rev, err = s.beginWithHistory()
	}
	if err != nil {
		return nil, err
	}
	defer s.endRead(tx)

	res := &ListResult{Revision: rev}
	var changes *changeIndex
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
			if changes, err = s.changesSince(tx, resource, opts.Revision, rev); err != nil {
				return nil, err
			}
			hist = tx.Bucket(bucketHistory)
		}
	}
	if opts.Index != "" && s.opts.IndexTerms != nil && changes == nil {
		if err := s.listIndexed(tx, resource, opts, res, visit); err != nil {
			return nil, err
		}
		return res, nil
	}
	// Remaining (the count of keys after the page) is taken from the page
	// before when it ended where this one starts; see remainingCache.
	pos := pagePos{resource: resource, prefix: opts.Prefix, rev: res.Revision, after: opts.StartAfter}
	known, cached := int64(0), false
	if opts.Limit > 0 && opts.StartAfter != "" {
		known, cached = s.remaining.get(pos)
	}
	it := newListIter(resourceBucket(tx, resource), hist, changes, rev, res.Revision, opts.Prefix, opts.StartAfter)
	defer func() { s.listSteps.Add(it.steps) }()
	n, last := 0, ""
	for {
		key, val, r, ok := it.next()
		if !ok {
			break
		}
		if opts.Limit > 0 && n == opts.Limit {
			res.More = true
			if cached {
				// it.steps-1 keys up to the last item were passed.
				res.Remaining = known - (it.steps - 1)
			} else {
				res.Remaining = 1 + it.count()
			}
			pos.after = last
			s.remaining.put(pos, res.Remaining)
			break
		}
		obj := Object{Key: string(key), Value: val, Revision: r}
		if opts.Filter != nil && !opts.Filter(obj) {
			continue
		}
		if err := visit(obj); err != nil {
			return nil, err
		}
		n, last = n+1, obj.Key
	}
	return res, nil
}

// listIter walks, in key order, the keys of a resource with a prefix after
// a start key, as of a revision: it merges the object bucket with the keys
// changed since (nil for the current state), see history.go.
type listIter struct {
	at      int64 // the list revision
	prefix  []byte
	c       *bolt.Cursor // objects; nil without a bucket
	ck, cv  []byte       // c's position; ck is nil once past the range
	h       *bolt.Cursor // on the history bucket
	hprefix string       // prefix, for the changed keys
	txRev   int64        // the revision of the read transaction
	ch      []change     // the changed keys from the current one on
	hkey    string       // the key of ch[0]
	inH     bool         // whether ch[0] is in the range
	group   []byte       // the start of the resource's history keys
	buf     []byte       // group, then the history key to seek
	steps   int64        // keys returned by next or counted by count
}

func newListIter(b, hist *bolt.Bucket, changes *changeIndex, txRev, at int64, prefix, after string) *listIter {
	it := &listIter{at: at, prefix: []byte(prefix), hprefix: prefix, txRev: txRev}
	start := max(prefix, after)
	if b != nil {
		it.c = b.Cursor()
		it.ck, it.cv = it.c.Seek([]byte(start))
		if it.ck != nil && string(it.ck) == after {
			it.ck, it.cv = it.c.Next()
		}
		it.checkC()
	}
	if changes != nil {
		i, found := slices.BinarySearchFunc(changes.changes, start, compareChange)
		if found && changes.changes[i].key == after {
			i++
		}
		it.ch = changes.changes[i:]
		it.h = hist.Cursor()
		it.group = appendGroup(nil, changes.resource)
		it.buf = bytes.Clone(it.group)
		it.checkH()
	}
	return it
}

// checkC ends the object cursor at the first key outside the prefix.
func (it *listIter) checkC() {
	if it.ck != nil && !bytes.HasPrefix(it.ck, it.prefix) {
		it.ck = nil
	}
}

// checkH skips the changes the read transaction does not see (a key whose
// first entry after the list revision is after the transaction's has not
// changed for it), and sets hkey to the key of the next and inH to whether
// there is one in the range.
func (it *listIter) checkH() {
	for len(it.ch) > 0 && it.ch[0].rev > it.txRev {
		it.ch = it.ch[1:]
	}
	it.inH = len(it.ch) > 0 && strings.HasPrefix(it.ch[0].key, it.hprefix)
	if it.inH {
		it.hkey = it.ch[0].key
	}
}

// before returns the key of the current change and the value it had at the
// list revision, from its first history entry after it, aliasing bbolt
// memory. ok is false if the key did not exist then.
func (it *listIter) before() (key, val []byte, rev int64, ok bool) {
	ch := &it.ch[0]
	if ch.prev > it.at {
		return nil, nil, 0, false
	}
	it.buf = appendInt(it.buf[:len(it.group)], ch.rev)
	k, v := it.h.Seek(it.buf)
	if !bytes.Equal(k, it.buf) {
		return nil, nil, 0, false
	}
	_, key, val, ok = decodeEntry(v)
	return key, val, ch.prev, ok
}

// next returns the next key with its value and revision, aliasing bbolt
// memory.
func (it *listIter) next() (key, val []byte, rev int64, ok bool) {
	for it.ck != nil || it.inH {
		inC, inH := it.ck != nil, it.inH
		if inC && inH {
			// (Comparisons of a converted []byte do not copy it.)
			if string(it.ck) < it.hkey {
				inH = false
			} else if string(it.ck) > it.hkey {
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
			if !found {
				// Changed since the list revision: its value then is in
				// its first history entry after it.
				key, val, rev, found = it.before()
			}
			it.ch = it.ch[1:]
			it.checkH()
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

// listIndexed is List of the current state through the index: it walks the
// keys with opts.Index only, so its cost follows what they are, not the
// size of the resource.
func (s *Store) listIndexed(tx *bolt.Tx, resource string, opts ListOptions, res *ListResult, visit func(Object) error) error {
	it := newIndexIter(tx, resource, opts.Index, opts.Prefix, opts.StartAfter)
	defer func() { s.listSteps.Add(it.steps) }()
	n, last := 0, ""
	for opts.Limit <= 0 || n < opts.Limit {
		key, val, r, ok := it.next()
		if !ok {
			return nil
		}
		obj := Object{Key: string(key), Value: val, Revision: r}
		if opts.Filter != nil && !opts.IndexExact && !opts.Filter(obj) {
			continue
		}
		if err := visit(obj); err != nil {
			return err
		}
		n, last = n+1, obj.Key
	}
	// A full page has More when any key follows it, as a walk of every
	// key finds.
	res.More = moreAfter(it.objs, opts.Prefix, last)
	return nil
}
