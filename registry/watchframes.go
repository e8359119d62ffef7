package registry

import "sync"

// A watch event goes to every watch of its resource, each with its own
// handler: the frame one watch encoding sends for it (the protobuf stream's
// length-prefixed WatchEvent around the object's envelope) is the same for
// all of them, so the first builds it and the others take it from
// recentFrames. Only the most recent events are kept: watches that lag
// further behind build their frames again, which gives the same bytes.

// maxRecentFrames is how many event frames recentFrames keeps.
const maxRecentFrames = 128

// maxRecentFrameSize is the largest frame recentFrames keeps; a larger one
// (a big object) is built by every watch, as it was before the cache.
const maxRecentFrameSize = 64 << 10

// frameKey names the frame of one event for one encoding: the object at a
// revision, as one resource version serves it, with the event's type (a
// watch with a selector may send a MODIFIED as ADDED or DELETED).
type frameKey struct {
	bucket, key, apiVersion, kind, typ string
	rev                                int64
}

// frameEntry is one frame, built once.
type frameEntry struct {
	once sync.Once
	data []byte
	err  error
}

// recentFrames holds the frames of the latest events, maxRecentFrames at
// most, each at most maxRecentFrameSize bytes.
type recentFrames struct {
	mu    sync.Mutex
	m     map[frameKey]*frameEntry
	slots [maxRecentFrames]frameKey // ring of the keys in m, oldest at next
	next  int
}

// WatchFrame returns the frame a watch sends for the event of type typ on
// the object key at revision rev (rev > 0) as r serves it, calling build
// for it once for all the watches that send it at about the same time;
// they share the result and must not change it.
func (ec *EncCache) WatchFrame(r *Resource, key string, rev int64, typ string, build func() ([]byte, error)) ([]byte, error) {
	f := &ec.frames
	k := frameKey{bucket: r.Bucket, key: key, apiVersion: r.APIVersion(), kind: r.Kind, typ: typ, rev: rev}
	f.mu.Lock()
	if f.m == nil {
		f.m = make(map[frameKey]*frameEntry, maxRecentFrames)
	}
	e := f.m[k]
	if e == nil {
		e = &frameEntry{}
		delete(f.m, f.slots[f.next])
		f.slots[f.next] = k
		f.next = (f.next + 1) % maxRecentFrames
		f.m[k] = e
	}
	f.mu.Unlock()
	e.once.Do(func() {
		e.data, e.err = build()
		if e.err != nil || len(e.data) > maxRecentFrameSize {
			// Not kept: an error is not an encoding, a big frame not
			// worth holding on to.
			f.mu.Lock()
			if f.m[k] == e {
				delete(f.m, k)
			}
			f.mu.Unlock()
		}
	})
	return e.data, e.err
}
