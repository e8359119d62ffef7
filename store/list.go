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
// event log; a revision older than CompactedRevision gives *CompactedError,
// one newer than the current revision *FutureRevisionError.
//
// An unknown resource is an empty list.
//
// Cost: a page walks its items and the keys its Filter rejects. With More
// it also needs Remaining, the exact number of keys after its last item: a
// page that starts where a recent page ended (as a continue token makes it)
// derives it from that page's count, any other page counts the rest of the
// range. Paging through n keys thus walks O(n) keys in all, not one count
// per page (see remainingCache).
func (s *Store) List(resource string, opts ListOptions) (*ListResult, error) {
	tx, rev, err := s.begin()
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()

	res := &ListResult{Revision: rev}
	var past map[string]*Object
	if opts.Revision > 0 {
		if past, err = s.history(resource, opts.Revision, rev); err != nil {
			return nil, err
		}
		res.Revision = opts.Revision
	}
	// Remaining (the count of keys after the page) is taken from the page
	// before when it ended where this one starts; see remainingCache.
	pos := pagePos{resource: resource, prefix: opts.Prefix, rev: res.Revision, after: opts.StartAfter}
	known, cached := int64(0), false
	if opts.Limit > 0 && opts.StartAfter != "" {
		known, cached = s.remaining.get(pos)
	}
	it := newListIter(resourceBucket(tx, resource), opts.Prefix, opts.StartAfter, past)
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
		obj := Object{Key: key, Value: val, Revision: r}
		if opts.Filter != nil && !opts.Filter(obj) {
			continue
		}
		obj.Value = bytes.Clone(val)
		res.Items = append(res.Items, obj)
	}
	return res, nil
}

// history returns, for every key of resource changed in (at, current], the
// object it held at revision at (nil if it did not exist then). The value of
// a key at revision at is the Prev of the first event after at.
func (s *Store) history(resource string, at, current int64) (map[string]*Object, error) {
	if at > current {
		return nil, &FutureRevisionError{Requested: at, Current: current}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.checkHistory(resource, at); err != nil {
		return nil, err
	}
	past := make(map[string]*Object)
	s.log.since(s.compacted, at, current, resource, func(e *Event) {
		if _, seen := past[e.Key]; seen {
			return
		}
		var o *Object
		if e.Type != Added {
			o = &Object{Key: e.Key, Value: e.Prev, Revision: e.PrevRevision}
		}
		past[e.Key] = o
	})
	return past, nil
}

// checkHistory reports whether the events of resource after rev are all in
// the log. Called with mu held.
func (s *Store) checkHistory(resource string, rev int64) error {
	oldest := s.compacted
	if d, ok := s.dropped[resource]; ok && d > oldest {
		oldest = d
	}
	if rev < oldest {
		return &CompactedError{Requested: rev, Oldest: oldest}
	}
	return nil
}

// listIter walks the keys of a bucket with a prefix, after a start key, in
// order. For a historical list it skips keys changed since the list revision
// and merges in their old objects instead.
type listIter struct {
	c      *bolt.Cursor
	k, v   []byte // cursor position; k is nil once past the prefix
	prefix []byte
	past   map[string]*Object // keys changed since the list revision
	old    []*Object          // objects of past that existed then and are still to come, sorted
	steps  int64              // keys returned by next or counted by count
}

func newListIter(b *bolt.Bucket, prefix, after string, past map[string]*Object) *listIter {
	it := &listIter{prefix: []byte(prefix), past: past}
	for k, o := range past {
		if o != nil && strings.HasPrefix(k, prefix) && k > after {
			it.old = append(it.old, o)
		}
	}
	slices.SortFunc(it.old, func(a, b *Object) int { return strings.Compare(a.Key, b.Key) })
	if b == nil {
		return it
	}
	it.c = b.Cursor()
	start := max(prefix, after)
	it.k, it.v = it.c.Seek([]byte(start))
	if it.k != nil && string(it.k) == after {
		it.k, it.v = it.c.Next()
	}
	it.skip()
	return it
}

// skip moves the cursor over keys that changed since the list revision, and
// ends it at the first key outside the prefix.
func (it *listIter) skip() {
	for it.k != nil {
		if !bytes.HasPrefix(it.k, it.prefix) {
			it.k = nil
			return
		}
		if _, changed := it.past[string(it.k)]; !changed {
			return
		}
		it.k, it.v = it.c.Next()
	}
}

// next returns the next key with its value (aliasing bbolt or event log
// memory) and revision.
func (it *listIter) next() (key string, val []byte, rev int64, ok bool) {
	if it.k != nil && (len(it.old) == 0 || string(it.k) < it.old[0].Key) {
		key = string(it.k)
		rev, val = decodeValue(it.v)
		it.k, it.v = it.c.Next()
		it.skip()
		it.steps++
		return key, val, rev, true
	}
	if len(it.old) > 0 {
		o := it.old[0]
		it.old = it.old[1:]
		it.steps++
		return o.Key, o.Value, o.Revision, true
	}
	return "", nil, 0, false
}

// count consumes the rest of the keys and returns how many there were.
func (it *listIter) count() int64 {
	n := int64(len(it.old))
	for it.k != nil {
		n++
		it.k, it.v = it.c.Next()
		it.skip()
	}
	it.steps += n
	return n
}
