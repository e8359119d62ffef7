package registry

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"maps"
	goruntime "runtime"
	"slices"
	"strings"
	"sync"

	"github.com/fakeplane/fakeplane/store"

	"google.golang.org/protobuf/encoding/protowire"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
)

// EncCache keeps, per stored object revision, what lists need again and
// again: its labels (for label selectors) and its protobuf encoding (for
// protobuf lists). Entries are checked against the stored revision on every
// use, so a stale entry is never served; deletes drop them.
//
// An object's protobuf is kept once a list or a get served it, not when it
// is written: a write's encoding goes to recentProtos, a short ring of the
// latest writes' that watches send and the next read takes from, so that
// objects nobody reads cost no memory here.
//
// A reader that read an object before it was deleted (a lagging watcher, a
// list) may encode it afterwards: its entry is not put back, so the cache
// never holds deleted objects. Each delete leaves a tombstone, the store
// revision it was forgotten at; an entry at or below a key's tombstone is
// for an object that is gone and is not kept. Tombstones are bounded: when
// there are too many they are dropped and floor rises to the newest of
// them; an entry at or below floor is then kept only if the store still
// holds the object at that revision. A bucket deleted whole (a deleted
// CRD's) leaves one tombstone for all its keys, bounded the same way.
type EncCache struct {
	st encStore

	mu      sync.Mutex
	m       map[string]*encEntry
	deleted map[string]int64 // cache key -> store revision when it was forgotten
	dropped map[string]int64 // bucket -> store revision when it was forgotten whole
	floor   int64            // tombstones at or below it were dropped
	forgets uint64           // counts forget and forgetBucket calls, to detect one during a store check

	frames recentFrames // the watch frames of the latest events (watchframes.go)
	protos recentProtos // the protobuf messages of the latest writes (recentprotos.go)
}

// encStore is what the encoding cache reads of the store: the current
// revision (for tombstones) and an object's revision (to tell whether it is
// still live). *store.Store implements it.
type encStore interface {
	CurrentRevision() int64
	Get(resource, key string) (*store.Object, error)
}

// maxTombstones bounds the tombstones the encoding cache keeps.
const maxTombstones = 4096

type encEntry struct {
	rev    int64
	labels labels.Set
	// prevRev and prevLabels are the labels of the revision this entry
	// replaced, when they were parsed: a watch event's previous state,
	// which every watcher with a label selector judges too.
	prevRev    int64
	prevLabels labels.Set
	proto      byVersion // the object's protobuf message, without the envelope
	served     byVersion // the JSON served, or asStored when it is what is stored
}

// asStored is the served form recorded for an object its converter serves
// exactly as stored: the verdict is kept (converting again would decode and
// coerce it again), the bytes are not copied. A converted form is never
// empty, so this non-nil empty slice stands for none.
var asStored = make([]byte, 0)

// isAsStored reports whether a cached served form is asStored.
func isAsStored(b []byte) bool { return b != nil && len(b) == 0 }

// byVersion holds encodings by apiVersion; an object is nearly always
// served in one version, so a short slice (not a map: ten times the memory
// for 10,000 objects) holds them.
type byVersion []versionBytes

// versionBytes is an encoding in apiVersion; conv names the converter that
// made it (see Resource.convGen; 0 for none). A CRD update builds new
// Resources for its versions (new schemas, defaults, converters), so what a
// CRD's earlier converter made (other defaults, pruning, versions the CRD no
// longer has) is not served once the CRD changed: it is converted again and
// replaces the old form.
type versionBytes struct {
	apiVersion string
	conv       uint64
	data       []byte
}

func (bv byVersion) get(apiVersion string, conv uint64) []byte {
	for _, v := range bv {
		if v.apiVersion == apiVersion && v.conv == conv {
			return v.data
		}
	}
	return nil
}

// set records data for apiVersion, in place of what another converter made.
func (bv *byVersion) set(apiVersion string, conv uint64, data []byte) {
	for i := range *bv {
		if (*bv)[i].apiVersion == apiVersion {
			(*bv)[i].conv, (*bv)[i].data = conv, data
			return
		}
	}
	*bv = append(*bv, versionBytes{apiVersion, conv, data})
}

func newEncCache(st encStore) *EncCache {
	return &EncCache{st: st, m: map[string]*encEntry{}, deleted: map[string]int64{}, dropped: map[string]int64{}}
}

func cacheKey(bucket, key string) string { return bucket + "\x00" + key }

// appendCacheKey appends cacheKey(bucket, key) to b.
func appendCacheKey(b []byte, bucket, key string) []byte {
	b = append(b, bucket...)
	b = append(b, 0)
	return append(b, key...)
}

// entry returns the entry of an object at a revision, creating it if
// needed. The entry is kept only when the object may still be live at rev
// (see encCache); otherwise, and when a newer revision is already cached,
// the caller gets a detached entry that is dropped after use.
func (ec *EncCache) entry(bucket, key string, rev int64) *encEntry {
	return ec.entryIn(bucket, key, rev, nil)
}

// pendingEntry is an entry handed out detached inside a store read (see
// entryIn), to keep once the read is over (adopt).
type pendingEntry struct {
	bucket, key string
	rev         int64
	e           *encEntry
}

// entryIn is entry for a caller inside a store read (a list's Visit) when
// later is not nil: that caller must not call the store (a second read
// transaction in the goroutine that holds one can deadlock against a
// writer that remaps the file), so an entry that needs the store's word on
// whether the object is still live is handed out detached and recorded in
// later, for the caller to adopt after the read.
func (ec *EncCache) entryIn(bucket, key string, rev int64, later *[]pendingEntry) *encEntry {
	// The lookup of a cached entry, the common case, builds its key in a
	// stack buffer (a map index by string(bytes) does not allocate).
	var kb [128]byte
	ec.mu.Lock()
	e := ec.m[string(appendCacheKey(kb[:0], bucket, key))]
	if e != nil && e.rev >= rev {
		ec.mu.Unlock()
		if e.rev == rev {
			return e
		}
		return &encEntry{rev: rev}
	}
	k := cacheKey(bucket, key)
	if t, ok := ec.dropped[bucket]; ok && rev <= t {
		// The whole bucket went after this revision.
		ec.mu.Unlock()
		return &encEntry{rev: rev}
	}
	if t, ok := ec.deleted[k]; ok {
		if rev <= t {
			ec.mu.Unlock()
			return &encEntry{rev: rev}
		}
		// A later revision: the key was created again.
		delete(ec.deleted, k)
	} else if rev <= ec.floor {
		// Its tombstone, if any, was dropped: ask the store.
		ec.mu.Unlock()
		if later != nil {
			// A list asks for an item's labels, served form and protobuf
			// one after the other: they share one pending entry.
			if n := len(*later); n > 0 {
				if p := (*later)[n-1]; p.rev == rev && p.key == key && p.bucket == bucket {
					return p.e
				}
			}
			e := &encEntry{rev: rev}
			*later = append(*later, pendingEntry{bucket: bucket, key: key, rev: rev, e: e})
			return e
		}
		e := &encEntry{rev: rev}
		if got := ec.keepIfLive(bucket, key, rev, e); got != nil {
			return got
		}
		return e
	}
	e = &encEntry{rev: rev}
	ec.install(k, e)
	ec.mu.Unlock()
	return e
}

// install puts e in the cache at k, carrying over the labels of the entry
// it replaces as its previous state's. The caller holds ec.mu.
func (ec *EncCache) install(k string, e *encEntry) {
	if old := ec.m[k]; old != nil && old.labels != nil && e.prevLabels == nil {
		e.prevRev, e.prevLabels = old.rev, old.labels
	}
	ec.m[k] = e
}

// keepIfLive keeps e, the entry of an object at rev at or below floor,
// when the store still holds the object at rev and no delete came between
// the check and now; it returns the cached entry at rev if there is one
// already (nil otherwise: e is then kept or detached).
func (ec *EncCache) keepIfLive(bucket, key string, rev int64, e *encEntry) *encEntry {
	ec.mu.Lock()
	forgets := ec.forgets
	ec.mu.Unlock()
	obj, err := ec.st.Get(bucket, key)
	if err != nil || obj.Revision != rev {
		return nil
	}
	k := cacheKey(bucket, key)
	ec.mu.Lock()
	defer ec.mu.Unlock()
	if ec.forgets != forgets {
		// A delete may have come between the check and now.
		return nil
	}
	if cur := ec.m[k]; cur != nil && cur.rev >= rev {
		if cur.rev == rev {
			return cur
		}
		return nil
	}
	ec.install(k, e)
	return nil
}

// adopt keeps the entries entryIn handed out detached during a store read,
// now that it is over, as entry would have.
func (ec *EncCache) adopt(pending []pendingEntry) {
	for _, p := range pending {
		ec.keepIfLive(p.bucket, p.key, p.rev, p.e)
	}
}

// forget drops the entry of an object that was just deleted and leaves its
// tombstone. Call it after the delete has committed.
func (ec *EncCache) forget(bucket, key string) {
	rev := ec.st.CurrentRevision()
	k := cacheKey(bucket, key)
	ec.mu.Lock()
	defer ec.mu.Unlock()
	ec.forgets++
	delete(ec.m, k)
	ec.deleted[k] = rev
	if len(ec.deleted) > maxTombstones {
		for _, t := range ec.deleted {
			ec.floor = max(ec.floor, t)
		}
		clear(ec.deleted)
	}
}

// forgetBucket drops the entries of every object of a bucket that was just
// deleted whole (store.DeleteResource, when a CRD goes) and leaves one
// tombstone for the bucket, which stands for its keys' own. Call it after
// the bucket is gone.
func (ec *EncCache) forgetBucket(bucket string) {
	rev := ec.st.CurrentRevision()
	prefix := cacheKey(bucket, "")
	ec.mu.Lock()
	defer ec.mu.Unlock()
	ec.forgets++
	for k := range ec.m {
		if strings.HasPrefix(k, prefix) {
			delete(ec.m, k)
		}
	}
	for k := range ec.deleted {
		if strings.HasPrefix(k, prefix) {
			delete(ec.deleted, k)
		}
	}
	ec.dropped[bucket] = rev
	if len(ec.dropped) > maxTombstones {
		for _, t := range ec.dropped {
			ec.floor = max(ec.floor, t)
		}
		clear(ec.dropped)
	}
}

// labelsOf returns an object's labels, parsing them at most once per revision.
func (ec *EncCache) labelsOf(bucket, key string, rev int64, data []byte) (labels.Set, bool) {
	return ec.labelsOfIn(bucket, key, rev, data, nil)
}

// labelsOfIn is labelsOf inside a store read when later is not nil (see
// entryIn).
func (ec *EncCache) labelsOfIn(bucket, key string, rev int64, data []byte, later *[]pendingEntry) (labels.Set, bool) {
	e := ec.entryIn(bucket, key, rev, later)
	ec.mu.Lock()
	l := e.labels
	if l == nil && rev > 0 {
		// The revision before the cached one (a watch event's previous
		// state) may still be known; looked up only when rev's are not.
		if cur := ec.m[cacheKey(bucket, key)]; cur != nil && cur.prevRev == rev {
			l = cur.prevLabels
		}
	}
	ec.mu.Unlock()
	if l != nil {
		return l, true
	}
	var o struct {
		Metadata struct {
			Labels map[string]string `json:"labels"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(data, &o); err != nil {
		return nil, false
	}
	l = labels.Set(o.Metadata.Labels)
	if l == nil {
		l = labels.Set{}
	}
	ec.mu.Lock()
	if e.prevLabels != nil && maps.Equal(e.prevLabels, l) {
		l = e.prevLabels // most writes keep the labels: keep one map
	}
	e.labels = l
	ec.mu.Unlock()
	return l, true
}

// protoMarshaler is implemented by every built-in API type.
type protoMarshaler interface {
	Marshal() ([]byte, error)
}

// ProtoOf returns the protobuf message of a stored (served-version) object,
// encoding it at most once per revision.
func (ec *EncCache) ProtoOf(r *Resource, key string, rev int64, data []byte) ([]byte, error) {
	return ec.protoOfIn(r, key, rev, data, nil)
}

// protoOfIn is ProtoOf inside a store read when later is not nil (see
// entryIn).
func (ec *EncCache) protoOfIn(r *Resource, key string, rev int64, data []byte, later *[]pendingEntry) ([]byte, error) {
	e := ec.entryIn(r.Bucket, key, rev, later)
	if p := ec.knownProto(r, e, key); p != nil {
		return p, nil
	}
	p, err := decodeProto(r, data)
	if err != nil {
		return nil, err
	}
	ec.setProto(r, e, p)
	return p, nil
}

// knownProto returns the message e (key's entry) holds in r's version,
// else a recent write's (recentProtos), which it caches in e; nil if
// neither has it.
func (ec *EncCache) knownProto(r *Resource, e *encEntry, key string) []byte {
	ec.mu.Lock()
	p := e.proto.get(r.APIVersion(), 0)
	ec.mu.Unlock()
	if p == nil {
		if p = ec.protos.get(recentKey(r, key, e.rev)); p != nil {
			ec.setProto(r, e, p)
		}
	}
	return p
}

// setProto caches p, a message in r's version, in e.
func (ec *EncCache) setProto(r *Resource, e *encEntry, p []byte) {
	ec.mu.Lock()
	e.proto.set(r.APIVersion(), 0, p)
	ec.mu.Unlock()
}

// protoItem is an item of a protobuf list whose message may not be
// encoded yet (see VisitServed): e is its cache entry, data a copy of its
// JSON while msg is nil.
type protoItem struct {
	key  string
	rev  int64
	msg  []byte
	e    *encEntry
	data []byte
}

// protoItemIn returns the item of a list read inside a store read (see
// entryIn), with its message when it is cached or a write's.
func (ec *EncCache) protoItemIn(r *Resource, key string, rev int64, data []byte, later *[]pendingEntry) protoItem {
	e := ec.entryIn(r.Bucket, key, rev, later)
	pi := protoItem{key: key, rev: rev, msg: ec.knownProto(r, e, key), e: e}
	if pi.msg == nil {
		pi.data = bytes.Clone(data)
	}
	return pi
}

// minMissesPerCore is how many messages encodeMissing encodes on a core
// before it uses another.
const minMissesPerCore = 256

// encodeMissing encodes the messages items lack, and caches them, on as
// many cores as there are batches of minMissesPerCore of them.
func (ec *EncCache) encodeMissing(r *Resource, items []protoItem) error {
	var miss []int
	for i := range items {
		if items[i].msg == nil {
			miss = append(miss, i)
		}
	}
	encode := func(idx []int) error {
		for _, i := range idx {
			pi := &items[i]
			p, err := decodeProto(r, pi.data)
			if err != nil {
				return err
			}
			ec.setProto(r, pi.e, p)
			pi.msg, pi.data = p, nil
		}
		return nil
	}
	cores := min(goruntime.GOMAXPROCS(0), len(miss)/minMissesPerCore)
	if cores <= 1 {
		return encode(miss)
	}
	errs := make([]error, cores)
	var wg sync.WaitGroup
	per := (len(miss) + cores - 1) / cores
	for w := 1; w < cores; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[w] = encode(miss[w*per : min((w+1)*per, len(miss))])
		}()
	}
	errs[0] = encode(miss[:per])
	wg.Wait()
	return errors.Join(errs...)
}

// WatchProtoOf is ProtoOf for a watch event: the cached message if a read
// left one, else the write's (recentProtos), else the object encoded. It
// fills no cache entry: a watch builds each event's frame once for all its
// watches (WatchFrame), and an object only watched costs no memory here.
// What it encodes goes to recentProtos, for the other watches that send
// the event after its frame left recentFrames (watches lagging behind).
func (ec *EncCache) WatchProtoOf(r *Resource, key string, rev int64, data []byte) ([]byte, error) {
	var kb [128]byte
	ec.mu.Lock()
	var p []byte
	if e := ec.m[string(appendCacheKey(kb[:0], r.Bucket, key))]; e != nil && e.rev == rev {
		p = e.proto.get(r.APIVersion(), 0)
	}
	ec.mu.Unlock()
	if p != nil {
		return p, nil
	}
	k := recentKey(r, key, rev)
	if p = ec.protos.get(k); p != nil {
		return p, nil
	}
	p, err := decodeProto(r, data)
	if err != nil {
		return nil, err
	}
	ec.protos.put(k, p)
	return p, nil
}

// recentKey is the key in recentProtos of key's message at rev in r's
// version.
func recentKey(r *Resource, key string, rev int64) protoKey {
	return protoKey{bucket: r.Bucket, key: key, apiVersion: r.APIVersion(), rev: rev}
}

// decodeProto returns the protobuf message of the stored object data (in
// r's served version), decoded and encoded.
func decodeProto(r *Resource, data []byte) ([]byte, error) {
	obj, err := r.TypedFromStored(data)
	if err != nil {
		return nil, err
	}
	pm, ok := obj.(protoMarshaler)
	if !ok {
		return nil, errNoProtobuf
	}
	return pm.Marshal()
}

type noProtobufError struct{}

// Error implements error.
func (noProtobufError) Error() string { return "type has no protobuf encoding" }

var errNoProtobuf error = noProtobufError{}

// ProtobufListMessage assembles a built-in list message from its items'
// messages: every k8s.io/api list has metadata as field 1 and items as
// field 2.
func ProtobufListMessage(lm *metav1.ListMeta, items [][]byte) ([]byte, error) {
	meta, err := lm.Marshal()
	if err != nil {
		return nil, err
	}
	size := len(meta) + 10
	for _, it := range items {
		size += len(it) + 10
	}
	out := make([]byte, 0, size)
	out = protowire.AppendTag(out, 1, protowire.BytesType)
	out = protowire.AppendBytes(out, meta)
	for _, it := range items {
		out = protowire.AppendTag(out, 2, protowire.BytesType)
		out = protowire.AppendBytes(out, it)
	}
	return out, nil
}

// protobufMagic starts every Kubernetes protobuf envelope.
const protobufMagic = "k8s\x00"

// ProtobufEnvelope wraps a message in the Kubernetes protobuf envelope.
func ProtobufEnvelope(apiVersion, kind string, msg []byte) ([]byte, error) {
	u := runtime.Unknown{TypeMeta: runtime.TypeMeta{APIVersion: apiVersion, Kind: kind}, Raw: msg}
	out := make([]byte, len(protobufMagic)+u.Size())
	copy(out, protobufMagic)
	if _, err := u.MarshalToSizedBuffer(out[len(protobufMagic):]); err != nil {
		return nil, err
	}
	return out, nil
}

// ProtobufWatchFrame frames one watch event for a protobuf watch stream
// (application/vnd.kubernetes.protobuf;stream=watch): the length of a
// metav1.WatchEvent (4 bytes, big-endian), then the event, whose object is
// raw, an object already in the protobuf envelope.
func ProtobufWatchFrame(typ string, raw []byte) ([]byte, error) {
	ev := &metav1.WatchEvent{Type: typ, Object: runtime.RawExtension{Raw: raw}}
	body, err := ev.Marshal()
	if err != nil {
		return nil, err
	}
	frame := make([]byte, 4, 4+len(body))
	binary.BigEndian.PutUint32(frame, uint32(len(body)))
	return append(frame, body...), nil
}

// ProtobufListEnvelope is ProtobufEnvelope of ProtobufListMessage, written
// in one buffer: the envelope (a runtime.Unknown: its type meta, the list
// message as its raw bytes, an empty content encoding and content type)
// around the list message assembled in place.
func ProtobufListEnvelope(apiVersion, kind string, lm *metav1.ListMeta, items [][]byte) ([]byte, error) {
	return AppendProtobufListEnvelope(nil, apiVersion, kind, lm, items)
}

// AppendProtobufListEnvelope is ProtobufListEnvelope appending to dst (a
// buffer to reuse), growing it at most once.
func AppendProtobufListEnvelope(dst []byte, apiVersion, kind string, lm *metav1.ListMeta, items [][]byte) ([]byte, error) {
	meta, err := lm.Marshal()
	if err != nil {
		return nil, err
	}
	typeMeta, err := ProtobufTypeMeta(apiVersion, kind)
	if err != nil {
		return nil, err
	}
	msgLen := protowire.SizeTag(1) + protowire.SizeBytes(len(meta))
	for _, it := range items {
		msgLen += protowire.SizeTag(2) + protowire.SizeBytes(len(it))
	}
	out := slices.Grow(dst, ProtobufEnvelopeSize(typeMeta, msgLen))
	out = AppendProtobufEnvelopeHead(out, typeMeta, msgLen)
	out = protowire.AppendTag(out, 1, protowire.BytesType)
	out = protowire.AppendBytes(out, meta)
	for _, it := range items {
		out = protowire.AppendTag(out, 2, protowire.BytesType)
		out = protowire.AppendBytes(out, it)
	}
	return AppendProtobufEnvelopeTail(out), nil
}

// ProtobufTypeMeta is the marshaled type meta of a protobuf envelope.
func ProtobufTypeMeta(apiVersion, kind string) ([]byte, error) {
	tm := runtime.TypeMeta{APIVersion: apiVersion, Kind: kind}
	return tm.Marshal()
}

// ProtobufEnvelopeSize is the size of the protobuf envelope (a
// runtime.Unknown after the magic) of a message of msgLen bytes, typeMeta
// its marshaled type meta (ProtobufTypeMeta).
func ProtobufEnvelopeSize(typeMeta []byte, msgLen int) int {
	return len(protobufMagic) + protowire.SizeTag(1) + protowire.SizeBytes(len(typeMeta)) +
		protowire.SizeTag(2) + protowire.SizeBytes(msgLen) + 2*(protowire.SizeTag(3)+protowire.SizeBytes(0))
}

// AppendProtobufEnvelopeHead appends what a protobuf envelope holds before
// its message of msgLen bytes: the magic, the type meta and the message's
// tag and length. The caller appends the message, then
// AppendProtobufEnvelopeTail.
func AppendProtobufEnvelopeHead(out, typeMeta []byte, msgLen int) []byte {
	out = append(out, protobufMagic...)
	out = protowire.AppendTag(out, 1, protowire.BytesType)
	out = protowire.AppendBytes(out, typeMeta)
	out = protowire.AppendTag(out, 2, protowire.BytesType)
	return protowire.AppendVarint(out, uint64(msgLen))
}

// AppendProtobufEnvelopeTail appends what a protobuf envelope holds after
// its message: an empty content encoding and content type.
func AppendProtobufEnvelopeTail(out []byte) []byte {
	out = protowire.AppendTag(out, 3, protowire.BytesType)
	out = protowire.AppendBytes(out, nil)
	out = protowire.AppendTag(out, 4, protowire.BytesType)
	return protowire.AppendBytes(out, nil)
}

// putProto encodes the protobuf message of an object just committed at
// rev and returns it (nil when the object has none), recording it among the
// recent writes' (recentProtos) for the watches that send the event and the
// next read of the object: a write does not fill the cache itself.
func (ec *EncCache) putProto(r *Resource, key string, rev int64, obj runtime.Object) []byte {
	pm, ok := obj.(protoMarshaler)
	if !ok || r.Typed == nil {
		return nil
	}
	p, err := pm.Marshal()
	if err != nil {
		return nil
	}
	ec.protos.put(recentKey(r, key, rev), p)
	return p
}

// batchConverter converts many stored objects in one go (one
// ConversionReview for a list, as kube-apiserver sends).
type batchConverter interface {
	FromStorageMany(stored [][]byte) ([][]byte, error)
}

// prefetchServed converts, in one batch, the listed objects whose served
// form is not cached yet, when the resource's converter can batch.
func (ec *EncCache) prefetchServed(r *Resource, items []store.Object) error {
	bc, ok := r.conv.(batchConverter)
	if !ok || len(items) < 2 {
		return nil
	}
	var todo []store.Object
	var data [][]byte
	for _, it := range items {
		e := ec.entry(r.Bucket, it.Key, it.Revision)
		ec.mu.Lock()
		cached := e.served.get(r.APIVersion(), r.convGen) != nil
		ec.mu.Unlock()
		if !cached {
			todo = append(todo, it)
			data = append(data, it.Value)
		}
	}
	if len(todo) < 2 {
		return nil
	}
	out, err := bc.FromStorageMany(data)
	if err != nil {
		return err
	}
	for i, it := range todo {
		b := out[i]
		if sameBytes(b, it.Value) {
			b = asStored
		}
		e := ec.entry(r.Bucket, it.Key, it.Revision)
		ec.mu.Lock()
		e.served.set(r.APIVersion(), r.convGen, b)
		ec.mu.Unlock()
	}
	return nil
}

// ServedOf returns a stored object as its resource serves it (converted,
// defaulted), converting it at most once per revision.
func (ec *EncCache) ServedOf(r *Resource, key string, rev int64, stored []byte) ([]byte, error) {
	return ec.servedOfIn(r, key, rev, stored, nil)
}

// servedOfIn is ServedOf inside a store read when later is not nil (see
// entryIn).
func (ec *EncCache) servedOfIn(r *Resource, key string, rev int64, stored []byte, later *[]pendingEntry) ([]byte, error) {
	if r.conv == nil {
		return stored, nil
	}
	e := ec.entryIn(r.Bucket, key, rev, later)
	ec.mu.Lock()
	b := e.served.get(r.APIVersion(), r.convGen)
	ec.mu.Unlock()
	if isAsStored(b) {
		return stored, nil
	}
	if b != nil {
		return b, nil
	}
	b, err := r.FromStorage(stored)
	if err != nil {
		return nil, err
	}
	keep := b
	if sameBytes(b, stored) {
		keep = asStored // served as stored: no copy worth keeping
	}
	ec.mu.Lock()
	e.served.set(r.APIVersion(), r.convGen, keep)
	ec.mu.Unlock()
	return b, nil
}

// sameBytes reports whether a converter handed back the very bytes it was
// given (a custom resource served as stored).
func sameBytes(a, b []byte) bool {
	return len(a) > 0 && len(a) == len(b) && &a[0] == &b[0]
}
