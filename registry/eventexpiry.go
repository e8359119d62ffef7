package registry

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/fakeplane/fakeplane/store"
)

// Events expire. kube-apiserver stores every Event with an etcd lease of
// --event-ttl (default one hour), granted again at every write that changes
// it, so an Event no one writes for that long is removed by etcd: no
// admission, finalizers or grace period, and watchers see it DELETED.
// EventExpiry does the same on any store: it is told of every commit of an
// Event and removes one whose last write is TTL old. (etcd's lease reuse
// lets an Event live up to min(5% of the TTL, 60 s) longer there; here it
// goes at the TTL.)

// DefaultEventTTL is kube-apiserver's --event-ttl default.
const DefaultEventTTL = time.Hour

// EventExpiry removes the Events that were not written for their TTL. Load
// it, have it told of every commit (Observe, as a commit observer), then
// call Expire every second or so.
type EventExpiry struct {
	s   *Registry
	res *Resource
	ttl time.Duration
	now func() time.Time

	mu sync.Mutex
	// last is each Event's last write: the revision and when it expires.
	last map[string]eventWrite
	// due orders the writes by expiry; an entry superseded by a later
	// write of its key (or its delete) is skipped when it comes up.
	due eventWrites
}

// eventWrite is one write of an Event: its key and revision, and when it
// expires.
type eventWrite struct {
	key     string
	rev     int64
	expires time.Time
}

// NewEventExpiry expires the core Events (which events.k8s.io's share) that
// were not written for ttl, by the clock now.
func NewEventExpiry(s *Registry, ttl time.Duration, now func() time.Time) (*EventExpiry, error) {
	res, ok := s.served.Lookup("", "v1", "events")
	if !ok {
		return nil, errors.New("registry: events are not served")
	}
	return &EventExpiry{s: s, res: res, ttl: ttl, now: now, last: map[string]eventWrite{}}, nil
}

// Load gives every stored Event a full TTL from now, as a restarted
// kube-apiserver's Events keep the leases etcd holds for them.
func (e *EventExpiry) Load() error {
	list, err := e.s.store.List(e.res.Bucket, store.ListOptions{})
	if err != nil {
		return fmt.Errorf("registry: loading the events to expire: %w", err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, it := range list.Items {
		e.recordLocked(it.Key, it.Revision)
	}
	return nil
}

// Observe is told of a commit (a Hooks.CommitObserver): a write of an
// Event starts its TTL again, a delete forgets it.
func (e *EventExpiry) Observe(bucket, key string, obj runtime.Object, data []byte, deleted bool) {
	if bucket != e.res.Bucket {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if deleted {
		delete(e.last, key)
		return
	}
	rev, ok := committedRevision(obj, data)
	if !ok {
		return
	}
	e.recordLocked(key, rev)
}

// committedRevision reads the revision a commit stamped on the object: from
// obj, or from data when obj is nil.
func committedRevision(obj runtime.Object, data []byte) (int64, bool) {
	var rv string
	if obj != nil {
		m, err := meta.Accessor(obj)
		if err != nil {
			return 0, false
		}
		rv = m.GetResourceVersion()
	} else {
		var head struct {
			Metadata struct {
				ResourceVersion string `json:"resourceVersion"`
			} `json:"metadata"`
		}
		if JSONUnmarshal(data, &head) != nil {
			return 0, false
		}
		rv = head.Metadata.ResourceVersion
	}
	rev, err := strconv.ParseInt(rv, 10, 64)
	return rev, err == nil
}

func (e *EventExpiry) recordLocked(key string, rev int64) {
	w := eventWrite{key: key, rev: rev, expires: e.now().Add(e.ttl)}
	e.last[key] = w
	heap.Push(&e.due, w)
	if len(e.due) > 2*len(e.last)+64 {
		// Mostly superseded writes (Events rewritten within their TTL):
		// keep only each Event's last.
		e.due = e.due[:0]
		for _, w := range e.last {
			e.due = append(e.due, w)
		}
		heap.Init(&e.due)
	}
}

// Expire removes the Events due by the clock, and reports how many it
// removed. An Event written again since it was found due stays; one whose
// removal fails stays due, for the next call.
func (e *EventExpiry) Expire(ctx context.Context) (int, error) {
	now := e.now()
	var due []eventWrite
	e.mu.Lock()
	for len(e.due) > 0 && !e.due[0].expires.After(now) {
		w := heap.Pop(&e.due).(eventWrite)
		if e.last[w.key] == w {
			due = append(due, w)
		}
	}
	e.mu.Unlock()
	removed := 0
	var errs []error
	for _, w := range due {
		ok, err := e.s.expire(ctx, e.res, w.key, w.rev)
		if err != nil {
			errs = append(errs, fmt.Errorf("removing expired event %s: %w", w.key, err))
			e.mu.Lock()
			if e.last[w.key] == w {
				heap.Push(&e.due, w)
			}
			e.mu.Unlock()
			continue
		}
		if ok {
			removed++
		}
	}
	return removed, errors.Join(errs...)
}

// errRewritten stops expire when the object was written again.
var errRewritten = errors.New("registry: object written again")

// expire removes the object at key if it is still at revision rev, as etcd
// removes a key whose lease expired. It reports whether it removed it.
func (s *Registry) expire(ctx context.Context, res *Resource, key string, rev int64) (bool, error) {
	c := &Request{GoCtx: ctx, Res: res, internal: true}
	_, cur, err := s.store.Update(res.Bucket, key, func(cur *store.Object) (store.Write, error) {
		if cur == nil || cur.Revision != rev {
			return store.Write{}, errRewritten
		}
		served, err := res.FromStorage(cur.Value)
		if err != nil {
			return store.Write{}, ErrStorageDecode(res, cur.Key, cur.Revision, err)
		}
		o, err := res.DecodeStored(served)
		if err != nil {
			return store.Write{}, err
		}
		return s.storageWrite(res, key, o, true)
	})
	if errors.Is(err, errRewritten) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	s.afterCommit(c, key, nil, cur.Value, true)
	return true, nil
}

// eventWrites is a min-heap of writes by expiry (container/heap).
type eventWrites []eventWrite

func (h eventWrites) Len() int           { return len(h) }
func (h eventWrites) Less(i, j int) bool { return h[i].expires.Before(h[j].expires) }
func (h eventWrites) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *eventWrites) Push(x any)        { *h = append(*h, x.(eventWrite)) }
func (h *eventWrites) Pop() any {
	old := *h
	w := old[len(old)-1]
	*h = old[:len(old)-1]
	return w
}
