package store

import "sync/atomic"

// ResourceChanges returns how many times the objects of resource have
// changed since the store was opened: every write to it that this store
// published, and every DeleteResource of it. A caller that reads it, then
// reads the resource, can keep what it found for as long as the count is
// the same: the count moves only once a change is visible to reads (after
// its commit), so a read made after the count was read sees every change
// the count covers, and any later change moves it. It is cheap: one map
// lookup, no transaction.
func (s *Store) ResourceChanges(resource string) int64 {
	if n, ok := s.resourceChanges.Load(resource); ok {
		return n.(*atomic.Int64).Load()
	}
	return 0
}

// resourceChanged counts a change of resource (see ResourceChanges).
func (s *Store) resourceChanged(resource string) {
	n, ok := s.resourceChanges.Load(resource)
	if !ok {
		n, _ = s.resourceChanges.LoadOrStore(resource, new(atomic.Int64))
	}
	n.(*atomic.Int64).Add(1)
}
