package controllers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
)

// Owners is the OwnerIndex the control plane keeps for the garbage
// collector: an index from owner UID to dependents and a queue of work.
// Observe updates both after every commit, under the store's writer lock
// and so in revision order (the registry's commit hook calls it); Load
// indexes a store with objects from an earlier run. Objects are located by
// store bucket and key, translated to and from ObjectRef through the
// registry's served resources.
type Owners struct {
	reg *registry.Registry

	mu sync.Mutex
	// dependents maps an owner UID to the objects referring to it.
	dependents map[types.UID]map[storedRef]struct{}
	// owners maps a dependent to the owner UIDs it refers to.
	owners map[storedRef][]types.UID
	queue  []ownerWork
	queued map[ownerWork]bool
	kick   chan struct{}
}

var _ OwnerIndex = (*Owners)(nil)

// storedRef locates a stored object: its store bucket and key.
type storedRef struct{ bucket, key string }

// ownerWork is one piece of work: check a dependent's owners (changed: its
// owner references are new or changed), or an owner's deletion finalizers.
type ownerWork struct {
	ref     storedRef
	owner   bool
	changed bool
}

// NewOwners returns an empty owner index over the objects reg stores. Call
// Load for a store with objects from an earlier run, and have Observe called
// after every commit from before the first write on.
func NewOwners(reg *registry.Registry) *Owners {
	return &Owners{
		reg:        reg,
		dependents: map[types.UID]map[storedRef]struct{}{},
		owners:     map[storedRef][]types.UID{},
		queued:     map[ownerWork]bool{},
		kick:       make(chan struct{}, 1),
	}
}

// enqueue adds work unless it is already waiting.
func (x *Owners) enqueue(items ...ownerWork) {
	if len(items) == 0 {
		return
	}
	x.mu.Lock()
	for _, it := range items {
		if !x.queued[it] {
			x.queued[it] = true
			x.queue = append(x.queue, it)
		}
	}
	x.mu.Unlock()
	select {
	case x.kick <- struct{}{}:
	default:
	}
}

// next takes the next piece of work.
func (x *Owners) next() (ownerWork, bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if len(x.queue) == 0 {
		return ownerWork{}, false
	}
	it := x.queue[0]
	x.queue = x.queue[1:]
	delete(x.queued, it)
	return it, true
}

// dependentsOf returns the objects referring to an owner.
func (x *Owners) dependentsOf(uid types.UID) []storedRef {
	x.mu.Lock()
	defer x.mu.Unlock()
	out := make([]storedRef, 0, len(x.dependents[uid]))
	for r := range x.dependents[uid] {
		out = append(out, r)
	}
	return out
}

// index records the owners of ref (none when deleted) and reports whether
// they changed.
func (x *Owners) index(ref storedRef, uids []types.UID) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	old := x.owners[ref]
	if slices.Equal(old, uids) {
		return false
	}
	for _, u := range old {
		if deps := x.dependents[u]; deps != nil {
			delete(deps, ref)
			if len(deps) == 0 {
				delete(x.dependents, u)
			}
		}
	}
	if len(uids) == 0 {
		delete(x.owners, ref)
		return true
	}
	x.owners[ref] = uids
	for _, u := range uids {
		if x.dependents[u] == nil {
			x.dependents[u] = map[storedRef]struct{}{}
		}
		x.dependents[u][ref] = struct{}{}
	}
	return true
}

// ownerMeta is the part of an object's metadata the index reads.
type ownerMeta struct {
	UID               types.UID               `json:"uid"`
	Name              string                  `json:"name"`
	Namespace         string                  `json:"namespace"`
	DeletionTimestamp *metav1.Time            `json:"deletionTimestamp"`
	Finalizers        []string                `json:"finalizers"`
	OwnerReferences   []metav1.OwnerReference `json:"ownerReferences"`
	ResourceVersion   string                  `json:"resourceVersion"`
}

// ownerMetaOf reads the index's metadata from a committed object, in its Go
// type when the write path has it, else from its JSON.
func ownerMetaOf(obj runtime.Object, data []byte) (ownerMeta, bool) {
	if obj != nil {
		if acc, err := meta.Accessor(obj); err == nil {
			return ownerMeta{
				UID: acc.GetUID(), Name: acc.GetName(), Namespace: acc.GetNamespace(), DeletionTimestamp: acc.GetDeletionTimestamp(),
				Finalizers: acc.GetFinalizers(), OwnerReferences: acc.GetOwnerReferences(), ResourceVersion: acc.GetResourceVersion(),
			}, true
		}
	}
	md, err := registry.RawMetadata(data)
	if err != nil {
		return ownerMeta{}, false
	}
	var m ownerMeta
	if err := json.Unmarshal(md, &m); err != nil {
		return ownerMeta{}, false
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

// mayMatter reports whether stored JSON can hold what the index reads:
// owner references or a deletion timestamp.
func mayMatter(data []byte) bool {
	return bytes.Contains(data, []byte(`"ownerReferences"`)) || bytes.Contains(data, []byte(`"deletionTimestamp"`))
}

// Observe updates the index after a commit to key in bucket of obj (its Go
// type, or nil) stored as data, and queues the work the change calls for:
// a new or changed set of owners has the dependent checked, a deletion has
// its dependents and its owners checked, and an owner being deleted with
// the orphan or foregroundDeletion finalizer has those handled. It has the
// signature of registry.Hooks.CommitObserver and must be called in
// revision order.
func (x *Owners) Observe(bucket, key string, obj runtime.Object, data []byte, deleted bool) {
	if bucket == "" {
		return
	}
	ref := storedRef{bucket, key}
	if obj == nil && !deleted && !mayMatter(data) {
		x.index(ref, nil)
		return
	}
	m, ok := ownerMetaOf(obj, data)
	if !ok {
		return
	}
	if deleted {
		x.index(ref, nil)
		// Its dependents may now be orphans; owners waiting for it may go.
		var work []ownerWork
		for _, d := range x.dependentsOf(m.UID) {
			work = append(work, ownerWork{ref: d})
		}
		for _, o := range m.OwnerReferences {
			if oref, ok := x.ownerRef(m.Namespace, o); ok {
				work = append(work, ownerWork{ref: oref, owner: true})
			}
		}
		x.enqueue(work...)
		return
	}
	if x.index(ref, ownerUIDs(m.OwnerReferences)) && len(m.OwnerReferences) > 0 {
		x.enqueue(ownerWork{ref: ref, changed: true})
	}
	if m.DeletionTimestamp != nil && (slices.Contains(m.Finalizers, metav1.FinalizerOrphanDependents) || slices.Contains(m.Finalizers, metav1.FinalizerDeleteDependents)) {
		x.enqueue(ownerWork{ref: ref, owner: true})
	}
}

// Load indexes the objects already in the store (after a restart) and
// queues the work they call for, as Observe would have. A store that never
// had a write has none. Call it before the first write.
func (x *Owners) Load() error {
	st := x.reg.Store()
	if st.CurrentRevision() == 0 {
		return nil
	}
	seen := map[string]bool{}
	for _, r := range x.reg.Resources().All() {
		if r.Bucket == "" || seen[r.Bucket] {
			continue
		}
		seen[r.Bucket] = true
		lst, err := st.List(r.Bucket, store.ListOptions{Filter: func(o store.Object) bool { return mayMatter(o.Value) }})
		if err != nil {
			return fmt.Errorf("index owner references in %s: %w", r.Bucket, err)
		}
		for _, it := range lst.Items {
			x.Observe(r.Bucket, it.Key, nil, it.Value, false)
		}
	}
	return nil
}

// ownerRef locates the owner an owner reference names, seen from a
// dependent in namespace ns.
func (x *Owners) ownerRef(ns string, o metav1.OwnerReference) (storedRef, bool) {
	gv, err := schema.ParseGroupVersion(o.APIVersion)
	if err != nil {
		return storedRef{}, false
	}
	res, ok := x.reg.Resources().ForKind(gv.WithKind(o.Kind))
	if !ok || res.Bucket == "" {
		return storedRef{}, false
	}
	if !res.Namespaced {
		return storedRef{res.Bucket, o.Name}, true
	}
	if ns == "" {
		// A cluster-scoped object cannot be owned by a namespaced one.
		return storedRef{}, false
	}
	return storedRef{res.Bucket, registry.ObjectKey(ns, o.Name)}, true
}

// objectRef turns a stored object's location into the collector's.
func (x *Owners) objectRef(ref storedRef) (ObjectRef, bool) {
	res, ok := x.reg.Resources().ForBucket(ref.bucket)
	if !ok {
		return ObjectRef{}, false
	}
	out := ObjectRef{Resource: schema.GroupVersionResource{Group: res.Group, Version: res.Version, Resource: res.Resource.Resource}, Name: ref.key}
	if res.Namespaced {
		if ns, name, ok := strings.Cut(ref.key, "/"); ok {
			out.Namespace, out.Name = ns, name
		}
	}
	return out, true
}

// storedRef turns the collector's location of an object into the store's.
func (x *Owners) storedRef(ref ObjectRef) (storedRef, bool) {
	res, ok := x.reg.Resources().Lookup(ref.Resource.Group, ref.Resource.Version, ref.Resource.Resource)
	if !ok || res.Bucket == "" {
		return storedRef{}, false
	}
	if res.Namespaced {
		return storedRef{res.Bucket, registry.ObjectKey(ref.Namespace, ref.Name)}, true
	}
	return storedRef{res.Bucket, ref.Name}, true
}

// Next implements OwnerIndex. Work on an object whose resource is no
// longer served is dropped.
func (x *Owners) Next() (GCWork, bool) {
	for {
		it, ok := x.next()
		if !ok {
			return GCWork{}, false
		}
		if ref, ok := x.objectRef(it.ref); ok {
			return GCWork{Object: ref, Owner: it.owner, OwnersChanged: it.changed}, true
		}
	}
}

// Enqueue implements OwnerIndex.
func (x *Owners) Enqueue(work ...GCWork) {
	items := make([]ownerWork, 0, len(work))
	for _, w := range work {
		if ref, ok := x.storedRef(w.Object); ok {
			items = append(items, ownerWork{ref: ref, owner: w.Owner, changed: w.OwnersChanged})
		}
	}
	x.enqueue(items...)
}

// Wake implements OwnerIndex.
func (x *Owners) Wake() <-chan struct{} { return x.kick }

// DependentsOf implements OwnerIndex.
func (x *Owners) DependentsOf(owner types.UID) []ObjectRef {
	deps := x.dependentsOf(owner)
	out := make([]ObjectRef, 0, len(deps))
	for _, d := range deps {
		if ref, ok := x.objectRef(d); ok {
			out = append(out, ref)
		}
	}
	return out
}

// OwnerOf implements OwnerIndex.
func (x *Owners) OwnerOf(ns string, o metav1.OwnerReference) (ObjectRef, bool) {
	ref, ok := x.ownerRef(ns, o)
	if !ok {
		return ObjectRef{}, false
	}
	return x.objectRef(ref)
}

// NamespacedResourceOf implements OwnerIndex.
func (x *Owners) NamespacedResourceOf(o metav1.OwnerReference) (schema.GroupVersionResource, bool) {
	gv, err := schema.ParseGroupVersion(o.APIVersion)
	if err != nil {
		return schema.GroupVersionResource{}, false
	}
	res, ok := x.reg.Resources().ForKind(gv.WithKind(o.Kind))
	if !ok || !res.Namespaced {
		return schema.GroupVersionResource{}, false
	}
	return schema.GroupVersionResource{Group: res.Group, Version: res.Version, Resource: res.Resource.Resource}, true
}

// KindOf implements OwnerIndex.
func (x *Owners) KindOf(gvr schema.GroupVersionResource) string {
	if res, ok := x.reg.Resources().Lookup(gvr.Group, gvr.Version, gvr.Resource); ok {
		return res.GVK.Kind
	}
	return ""
}
