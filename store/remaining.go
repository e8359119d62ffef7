package store

import "sync"

// remainingCacheSize is how many page ends a Store remembers: enough for
// this many clients paging at once.
const remainingCacheSize = 1024

// pagePos names the end of a served page: the keys of resource with prefix,
// as of revision rev, strictly after key after.
type pagePos struct {
	resource, prefix string
	rev              int64
	after            string
}

// remainingCache makes paging through a list cost O(n) in total instead of
// O(n²/limit).
//
// ListResult.Remaining is exact: the number of keys after the page's last
// item, at the list's revision. Counting them means walking the rest of the
// range, so if every page counted, paging through n keys limit at a time
// would walk n²/(2·limit) keys. But the count after a page's last key is a
// fact about a fixed revision that never changes, and the next page starts
// right there (its continue token holds that revision and key). So each
// page with More records (position of its last key) -> Remaining here, and
// a page that starts at a recorded position computes its own Remaining as
// that count minus the keys it passed (items, filtered-out keys, and keys
// skipped as changed since the revision are not passed: only the keys of
// the state at that revision are). The first page counts the rest of the
// range once; every later page costs O(limit), and the whole paging O(n).
// A page whose start is not here (evicted, or a restart) counts again and
// the chain continues from it.
//
// An entry stays true as long as its revision can be listed: lists before
// the compacted revision fail before the cache is asked, and a resource
// dropped by DeleteResource at revision d keeps no key of revision <= d, so
// a list at d after the drop is empty (it has no page to continue).
//
// Entries are evicted oldest first. Safe for concurrent use.
type remainingCache struct {
	mu    sync.Mutex
	m     map[pagePos]int64
	order []pagePos // ring of the keys of m, oldest at next
	next  int
}

// get returns the count recorded for p.
func (c *remainingCache) get(p pagePos) (int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, ok := c.m[p]
	return n, ok
}

// put records that n keys follow p.
func (c *remainingCache) put(p pagePos, n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[pagePos]int64, remainingCacheSize)
		c.order = make([]pagePos, 0, remainingCacheSize)
	}
	if _, ok := c.m[p]; ok {
		c.m[p] = n
		return
	}
	if len(c.order) < remainingCacheSize {
		c.order = append(c.order, p)
	} else {
		delete(c.m, c.order[c.next])
		c.order[c.next] = p
		c.next = (c.next + 1) % remainingCacheSize
	}
	c.m[p] = n
}
