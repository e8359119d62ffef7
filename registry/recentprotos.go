package registry

import "sync"

// A write encodes its object's protobuf message for its answer (when the
// client asked for protobuf, and for the cache before). The watches of the
// resource send the same object a moment later, and a client often reads
// what it just wrote: recentProtos keeps the messages of the latest writes
// for them, so that neither decodes the stored JSON again, without the
// encoding cache holding every written object's message for good.

// maxRecentProtos is how many writes' messages recentProtos keeps.
const maxRecentProtos = 128

// maxRecentProtoSize is the largest message recentProtos keeps.
const maxRecentProtoSize = 64 << 10

// protoKey names the message of an object at a revision in one version. A
// revision is one commit's, so the message it names never changes.
type protoKey struct {
	bucket, key, apiVersion string
	rev                     int64
}

// recentProtos holds the messages of the latest writes, maxRecentProtos at
// most, each at most maxRecentProtoSize bytes. Its zero value is empty and
// ready to use.
type recentProtos struct {
	mu    sync.Mutex
	m     map[protoKey][]byte
	slots [maxRecentProtos]protoKey // ring of the keys in m, oldest at next
	next  int
}

// put records msg, the message k names; callers must not change it after.
func (rp *recentProtos) put(k protoKey, msg []byte) {
	if len(msg) > maxRecentProtoSize {
		return
	}
	rp.mu.Lock()
	defer rp.mu.Unlock()
	if rp.m == nil {
		rp.m = map[protoKey][]byte{}
	}
	if _, ok := rp.m[k]; ok {
		return
	}
	delete(rp.m, rp.slots[rp.next])
	rp.slots[rp.next] = k
	rp.next = (rp.next + 1) % maxRecentProtos
	rp.m[k] = msg
}

// get returns the message k names if it is still kept, else nil. Callers
// share it and must not change it.
func (rp *recentProtos) get(k protoKey) []byte {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	return rp.m[k]
}
