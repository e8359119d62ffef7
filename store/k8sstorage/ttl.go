package k8sstorage

import (
	"errors"
	"sync"
	"time"

	"github.com/fakeplane/fakeplane/store"
)

// expiries are the pending TTLs of an adapter: etcd attaches a key written
// with a TTL to a lease and deletes it when the lease expires, unless a
// later write (without the lease) replaced it. Here each TTL is a timer
// that deletes the key if it is still at the revision the TTL was set with.
type expiries struct {
	mu      sync.Mutex
	closed  bool
	pending map[*expiry]struct{}
	running sync.WaitGroup
}

// expiry is one pending TTL.
type expiry struct {
	t *time.Timer
}

// expireAfter deletes the store key skey after ttl seconds if it is still
// at revision rev.
func (a *Storage) expireAfter(skey string, rev int64, ttl uint64) {
	e := &expiry{}
	x := &a.ttl
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed {
		return
	}
	if x.pending == nil {
		x.pending = make(map[*expiry]struct{})
	}
	x.pending[e] = struct{}{}
	e.t = time.AfterFunc(time.Duration(ttl)*time.Second, func() {
		x.mu.Lock()
		if _, ok := x.pending[e]; !ok || x.closed {
			x.mu.Unlock()
			return
		}
		delete(x.pending, e)
		x.running.Add(1)
		x.mu.Unlock()
		defer x.running.Done()
		a.expire(skey, rev)
	})
}

// expire deletes skey if it is still at revision rev.
func (a *Storage) expire(skey string, rev int64) {
	_, _, err := a.s.Update(a.resource, skey, func(cur *store.Object) (store.Write, error) {
		if cur == nil || cur.Revision != rev {
			return store.Write{}, store.ErrUnchanged
		}
		return store.Write{Value: cur.Value, Delete: true}, nil
	})
	if err != nil && !errors.Is(err, store.ErrClosed) {
		a.logger.Warn("k8sstorage: cannot delete an expired key", "resource", a.resource, "key", skey, "error", err)
	}
}

// close stops the pending timers and waits for the expiries under way.
func (x *expiries) close() {
	x.mu.Lock()
	x.closed = true
	for e := range x.pending {
		e.t.Stop()
	}
	x.pending = nil
	x.mu.Unlock()
	x.running.Wait()
}
