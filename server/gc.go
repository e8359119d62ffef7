package server

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"sync"

	"github.com/fakeplane/fakeplane/registry"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/fakeplane/fakeplane/controllers"
	"github.com/fakeplane/fakeplane/store"
)

// The garbage collector (controllers.GarbageCollector) works from an index
// from owner UID to dependents and a queue of work, both kept here and
// updated by every commit under the store's writer lock, so that they
// follow the store in revision order. The collector reads them through
// OwnerIndex.

// gcRef locates a stored object.
type gcRef struct{ bucket, key string }

// gcItem is one piece of work: check a dependent's owners, or an owner's
// deletion finalizers.
type gcItem struct {
	ref   gcRef
	owner bool
}

// garbageCollector holds the owner index and the work queue.
type garbageCollector struct {
	mu sync.Mutex
	// dependents maps an owner UID to the objects referring to it.
	dependents map[types.UID]map[gcRef]struct{}
	// owners maps a dependent to the owner UIDs it refers to.
	owners map[gcRef][]types.UID
	queue  []gcItem
	queued map[gcItem]bool
	kick   chan struct{}
}

func newGarbageCollector() *garbageCollector {
	return &garbageCollector{
		dependents: map[types.UID]map[gcRef]struct{}{},
		owners:     map[gcRef][]types.UID{},
		queued:     map[gcItem]bool{},
		kick:       make(chan struct{}, 1),
	}
}

// enqueue adds work unless it is already waiting.
func (gc *garbageCollector) enqueue(items ...gcItem) {
	if len(items) == 0 {
		return
	}
	gc.mu.Lock()
	for _, it := range items {
		if !gc.queued[it] {
			gc.queued[it] = true
			gc.queue = append(gc.queue, it)
		}
	}
	gc.mu.Unlock()
	select {
	case gc.kick <- struct{}{}:
	default:
	}
}

// next takes the next piece of work.
func (gc *garbageCollector) next() (gcItem, bool) {
	gc.mu.Lock()
	defer gc.mu.Unlock()
	if len(gc.queue) == 0 {
		return gcItem{}, false
	}
	it := gc.queue[0]
	gc.queue = gc.queue[1:]
	delete(gc.queued, it)
	return it, true
}

// dependentsOf returns the objects referring to an owner.
func (gc *garbageCollector) dependentsOf(uid types.UID) []gcRef {
	gc.mu.Lock()
	defer gc.mu.Unlock()
	out := make([]gcRef, 0, len(gc.dependents[uid]))
	for r := range gc.dependents[uid] {
		out = append(out, r)
	}
	return out
}

// index records the owners of ref (none when deleted) and reports whether
// they changed.
func (gc *garbageCollector) index(ref gcRef, uids []types.UID) bool {
	gc.mu.Lock()
	defer gc.mu.Unlock()
	old := gc.owners[ref]
	if slices.Equal(old, uids) {
		return false
	}
	for _, u := range old {
		if deps := gc.dependents[u]; deps != nil {
			delete(deps, ref)
			if len(deps) == 0 {
				delete(gc.dependents, u)
			}
		}
	}
	if len(uids) == 0 {
		delete(gc.owners, ref)
		return true
	}
	gc.owners[ref] = uids
	for _, u := range uids {
		if gc.dependents[u] == nil {
			gc.dependents[u] = map[gcRef]struct{}{}
		}
		gc.dependents[u][ref] = struct{}{}
	}
	return true
}

// gcMeta is the part of an object's metadata the collector reads.
type gcMeta struct {
	UID               types.UID               `json:"uid"`
	Name              string                  `json:"name"`
	Namespace         string                  `json:"namespace"`
	DeletionTimestamp *metav1.Time            `json:"deletionTimestamp"`
	Finalizers        []string                `json:"finalizers"`
	OwnerReferences   []metav1.OwnerReference `json:"ownerReferences"`
	ResourceVersion   string                  `json:"resourceVersion"`
}

// gcMetaOf reads the collector's metadata from a committed object, in its
// Go type when the write path has it, else from its JSON.
func gcMetaOf(obj runtime.Object, data []byte) (gcMeta, bool) {
	if obj != nil {
		if acc, err := meta.Accessor(obj); err == nil {
			return gcMeta{
				UID: acc.GetUID(), Name: acc.GetName(), Namespace: acc.GetNamespace(), DeletionTimestamp: acc.GetDeletionTimestamp(),
				Finalizers: acc.GetFinalizers(), OwnerReferences: acc.GetOwnerReferences(), ResourceVersion: acc.GetResourceVersion(),
			}, true
		}
	}
	md, err := registry.RawMetadata(data)
	if err != nil {
		return gcMeta{}, false
	}
	var m gcMeta
	if err := json.Unmarshal(md, &m); err != nil {
		return gcMeta{}, false
	}
	return m, true
}

func ownerUIDs(refs []metav1.OwnerReference) []types.UID {
	var out []types.UID
	for _, r := range refs {
		out = append(out, r.UID)
	}
	return out
}

// gcObserve updates the owner index after a commit and queues the work the
// change calls for.
func (s *Server) gcObserve(bucket, key string, obj runtime.Object, data []byte, deleted bool) {
	if bucket == "" {
		return
	}
	gc := s.gc
	ref := gcRef{bucket, key}
	if obj == nil && !deleted && !bytes.Contains(data, []byte(`"ownerReferences"`)) && !bytes.Contains(data, []byte(`"deletionTimestamp"`)) {
		gc.index(ref, nil)
		return
	}
	m, ok := gcMetaOf(obj, data)
	if !ok {
		return
	}
	if deleted {
		gc.index(ref, nil)
		// Its dependents may now be orphans; owners waiting for it may go.
		var work []gcItem
		for _, d := range gc.dependentsOf(m.UID) {
			work = append(work, gcItem{ref: d})
		}
		for _, o := range m.OwnerReferences {
			if oref, ok := s.ownerRef(m.Namespace, o); ok {
				work = append(work, gcItem{ref: oref, owner: true})
			}
		}
		gc.enqueue(work...)
		return
	}
	if gc.index(ref, ownerUIDs(m.OwnerReferences)) && len(m.OwnerReferences) > 0 {
		gc.enqueue(gcItem{ref: ref})
	}
	if m.DeletionTimestamp != nil && (slices.Contains(m.Finalizers, metav1.FinalizerOrphanDependents) || slices.Contains(m.Finalizers, metav1.FinalizerDeleteDependents)) {
		gc.enqueue(gcItem{ref: ref, owner: true})
	}
}

// gcLoad indexes the objects already stored (after a restart).
func (s *Server) gcLoad() error {
	seen := map[string]bool{}
	for _, r := range s.Resources().All() {
		if r.Bucket == "" || seen[r.Bucket] {
			continue
		}
		seen[r.Bucket] = true
		lst, err := s.Store().List(r.Bucket, store.ListOptions{Filter: func(o store.Object) bool {
			return bytes.Contains(o.Value, []byte(`"ownerReferences"`)) || bytes.Contains(o.Value, []byte(`"deletionTimestamp"`))
		}})
		if err != nil {
			return err
		}
		for _, it := range lst.Items {
			s.gcObserve(r.Bucket, it.Key, nil, it.Value, false)
		}
	}
	return nil
}

// ownerRef locates the owner an owner reference names, seen from a
// dependent in namespace ns.
func (s *Server) ownerRef(ns string, o metav1.OwnerReference) (gcRef, bool) {
	gv, err := schema.ParseGroupVersion(o.APIVersion)
	if err != nil {
		return gcRef{}, false
	}
	res, ok := s.Resources().ForKind(gv.WithKind(o.Kind))
	if !ok || res.Bucket == "" {
		return gcRef{}, false
	}
	if !res.Namespaced {
		return gcRef{res.Bucket, o.Name}, true
	}
	if ns == "" {
		// A cluster-scoped object cannot be owned by a namespaced one.
		return gcRef{}, false
	}
	return gcRef{res.Bucket, registry.ObjectKey(ns, o.Name)}, true
}

// OwnerIndex returns the garbage collector's owner index and work queue,
// kept up to date by every commit, for controllers.GarbageCollector.
func (s *Server) OwnerIndex() controllers.OwnerIndex { return gcIndex{s} }

// gcIndex implements controllers.OwnerIndex over the server's
// garbageCollector.
type gcIndex struct{ s *Server }

var _ controllers.OwnerIndex = gcIndex{}

// objectRef turns a stored object's location into the collector's.
func (x gcIndex) objectRef(ref gcRef) (controllers.ObjectRef, bool) {
	res, ok := x.s.Resources().ForBucket(ref.bucket)
	if !ok {
		return controllers.ObjectRef{}, false
	}
	out := controllers.ObjectRef{Resource: schema.GroupVersionResource{Group: res.Group, Version: res.Version, Resource: res.Resource.Resource}, Name: ref.key}
	if res.Namespaced {
		if ns, name, ok := strings.Cut(ref.key, "/"); ok {
			out.Namespace, out.Name = ns, name
		}
	}
	return out, true
}

// gcRef turns the collector's location of an object into the store's.
func (x gcIndex) gcRef(ref controllers.ObjectRef) (gcRef, bool) {
	res, ok := x.s.Resources().Lookup(ref.Resource.Group, ref.Resource.Version, ref.Resource.Resource)
	if !ok || res.Bucket == "" {
		return gcRef{}, false
	}
	if res.Namespaced {
		return gcRef{res.Bucket, registry.ObjectKey(ref.Namespace, ref.Name)}, true
	}
	return gcRef{res.Bucket, ref.Name}, true
}

// Next implements controllers.OwnerIndex.
func (x gcIndex) Next() (controllers.GCWork, bool) {
	for {
		it, ok := x.s.gc.next()
		if !ok {
			return controllers.GCWork{}, false
		}
		if ref, ok := x.objectRef(it.ref); ok {
			return controllers.GCWork{Object: ref, Owner: it.owner}, true
		}
	}
}

// Enqueue implements controllers.OwnerIndex.
func (x gcIndex) Enqueue(work ...controllers.GCWork) {
	items := make([]gcItem, 0, len(work))
	for _, w := range work {
		if ref, ok := x.gcRef(w.Object); ok {
			items = append(items, gcItem{ref: ref, owner: w.Owner})
		}
	}
	x.s.gc.enqueue(items...)
}

// Wake implements controllers.OwnerIndex.
func (x gcIndex) Wake() <-chan struct{} { return x.s.gc.kick }

// DependentsOf implements controllers.OwnerIndex.
func (x gcIndex) DependentsOf(owner types.UID) []controllers.ObjectRef {
	deps := x.s.gc.dependentsOf(owner)
	out := make([]controllers.ObjectRef, 0, len(deps))
	for _, d := range deps {
		if ref, ok := x.objectRef(d); ok {
			out = append(out, ref)
		}
	}
	return out
}

// OwnerOf implements controllers.OwnerIndex.
func (x gcIndex) OwnerOf(ns string, o metav1.OwnerReference) (controllers.ObjectRef, bool) {
	ref, ok := x.s.ownerRef(ns, o)
	if !ok {
		return controllers.ObjectRef{}, false
	}
	return x.objectRef(ref)
}
