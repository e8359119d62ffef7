package server

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/fakeplane/fakeplane/store"
)

// The garbage collector does what kube-controller-manager's does with
// metadata.ownerReferences: an object whose owners are all gone is deleted
// (background propagation), an owner deleted with the foregroundDeletion
// finalizer waits for its blocking dependents to go first, and one deleted
// with the orphan finalizer has its dependents' references to it removed.
// It keeps an index from owner UID to dependents, updated after every
// commit, and works through a queue in one goroutine per server.

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
	md, err := rawMetadata(data)
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
	for _, r := range s.served.all() {
		if r.bucket == "" || seen[r.bucket] {
			continue
		}
		seen[r.bucket] = true
		lst, err := s.store.List(r.bucket, store.ListOptions{Filter: func(o store.Object) bool {
			return bytes.Contains(o.Value, []byte(`"ownerReferences"`)) || bytes.Contains(o.Value, []byte(`"deletionTimestamp"`))
		}})
		if err != nil {
			return err
		}
		for _, it := range lst.Items {
			s.gcObserve(r.bucket, it.Key, nil, it.Value, false)
		}
	}
	return nil
}

// runGarbageCollector works through the queue until the server stops.
func (s *Server) runGarbageCollector(ctx context.Context) {
	for {
		for {
			it, ok := s.gc.next()
			if !ok {
				break
			}
			if it.owner {
				s.gcOwner(it.ref)
			} else {
				s.gcDependent(it.ref)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-s.stopping:
			return
		case <-s.gc.kick:
		}
	}
}

// ownerRef locates the owner an owner reference names, seen from a
// dependent in namespace ns.
func (s *Server) ownerRef(ns string, o metav1.OwnerReference) (gcRef, bool) {
	gv, err := schema.ParseGroupVersion(o.APIVersion)
	if err != nil {
		return gcRef{}, false
	}
	res, ok := s.served.forKind(gv.WithKind(o.Kind))
	if !ok || res.bucket == "" {
		return gcRef{}, false
	}
	if !res.Namespaced {
		return gcRef{res.bucket, o.Name}, true
	}
	if ns == "" {
		// A cluster-scoped object cannot be owned by a namespaced one.
		return gcRef{}, false
	}
	return gcRef{res.bucket, objectKey(ns, o.Name)}, true
}

// ownerState classifies an owner reference as upstream's collector does.
type ownerState int

const (
	ownerSolid   ownerState = iota // exists (or cannot be resolved: left alone)
	ownerAbsent                    // gone, or replaced by another object of the name
	ownerWaiting                   // being deleted in the foreground
)

func (s *Server) stateOf(ns string, o metav1.OwnerReference) ownerState {
	ref, ok := s.ownerRef(ns, o)
	if !ok {
		return ownerSolid
	}
	cur, err := s.store.Get(ref.bucket, ref.key)
	if err != nil {
		return ownerAbsent
	}
	m, ok := gcMetaOf(nil, cur.Value)
	if !ok {
		return ownerSolid
	}
	if m.UID != o.UID {
		return ownerAbsent
	}
	if m.DeletionTimestamp != nil && slices.Contains(m.Finalizers, metav1.FinalizerDeleteDependents) {
		return ownerWaiting
	}
	return ownerSolid
}

// gcCall is an internal call acting on a stored object.
func (s *Server) gcCall(ref gcRef, verb string) (*call, string, bool) {
	res, ok := s.served.forBucket(ref.bucket)
	if !ok {
		return nil, "", false
	}
	ns, name := "", ref.key
	if res.Namespaced {
		if i := bytes.IndexByte([]byte(ref.key), '/'); i >= 0 {
			ns, name = ref.key[:i], ref.key[i+1:]
		}
	}
	c := s.internalCall(res.Group, res.Version, res.Resource.Resource, ns, name, verb)
	c.res = res
	return c, name, true
}

// gcDependent deletes an object whose owners are all gone, or drops its
// references to owners that are gone while others remain.
func (s *Server) gcDependent(ref gcRef) {
	cur, err := s.store.Get(ref.bucket, ref.key)
	if err != nil {
		return
	}
	m, ok := gcMetaOf(nil, cur.Value)
	if !ok || len(m.OwnerReferences) == 0 || m.DeletionTimestamp != nil {
		return
	}
	var solid, gone []metav1.OwnerReference
	waiting := false
	for _, o := range m.OwnerReferences {
		switch s.stateOf(m.Namespace, o) {
		case ownerSolid:
			solid = append(solid, o)
		case ownerAbsent:
			gone = append(gone, o)
		case ownerWaiting:
			waiting = true
			gone = append(gone, o)
		}
	}
	c, name, ok := s.gcCall(ref, "delete")
	if !ok {
		return
	}
	if len(solid) > 0 {
		if len(gone) > 0 {
			s.gcRemoveOwners(ref, ownerUIDs(gone))
		}
		return
	}
	policy := metav1.DeletePropagationBackground
	switch {
	case waiting && len(s.gc.dependentsOf(m.UID)) > 0:
		policy = metav1.DeletePropagationForeground
	case slices.Contains(m.Finalizers, metav1.FinalizerOrphanDependents):
		policy = metav1.DeletePropagationOrphan
	case slices.Contains(m.Finalizers, metav1.FinalizerDeleteDependents):
		policy = metav1.DeletePropagationForeground
	}
	uid := m.UID
	_, _, err = s.deleteObject(c, ref.key, name, &metav1.DeleteOptions{PropagationPolicy: &policy, Preconditions: &metav1.Preconditions{UID: &uid}})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		s.log.Warn("garbage collector: delete", "object", ref.key, "resource", ref.bucket, "err", err)
	}
}

// gcRemoveOwners drops the references to some owners from an object.
func (s *Server) gcRemoveOwners(ref gcRef, uids []types.UID) {
	c, name, ok := s.gcCall(ref, "update")
	if !ok {
		return
	}
	_, _, err := s.updateKey(c, ref.key, name, internalWrite, false, func(old *object) (*object, error) {
		var keep []metav1.OwnerReference
		for _, o := range old.meta.GetOwnerReferences() {
			if !slices.Contains(uids, o.UID) {
				keep = append(keep, o)
			}
		}
		old.meta.SetOwnerReferences(keep)
		return old, nil
	})
	if err != nil && !apierrors.IsNotFound(err) {
		s.log.Warn("garbage collector: remove owner references", "object", ref.key, "resource", ref.bucket, "err", err)
	}
}

// gcOwner finishes the deletion of an owner holding the orphan or
// foregroundDeletion finalizer.
func (s *Server) gcOwner(ref gcRef) {
	cur, err := s.store.Get(ref.bucket, ref.key)
	if err != nil {
		return
	}
	m, ok := gcMetaOf(nil, cur.Value)
	if !ok || m.DeletionTimestamp == nil {
		return
	}
	deps := s.gc.dependentsOf(m.UID)
	var done string
	switch {
	case slices.Contains(m.Finalizers, metav1.FinalizerOrphanDependents):
		for _, d := range deps {
			s.gcRemoveOwners(d, []types.UID{m.UID})
		}
		done = metav1.FinalizerOrphanDependents
	case slices.Contains(m.Finalizers, metav1.FinalizerDeleteDependents):
		blocking := 0
		var work []gcItem
		for _, d := range deps {
			work = append(work, gcItem{ref: d})
			if s.blocks(d, m.UID) {
				blocking++
			}
		}
		s.gc.enqueue(work...)
		if blocking > 0 {
			return // the last blocking dependent's deletion brings the owner back here
		}
		done = metav1.FinalizerDeleteDependents
	default:
		return
	}
	c, name, ok := s.gcCall(ref, "update")
	if !ok {
		return
	}
	_, _, err = s.updateKey(c, ref.key, name, internalWrite, false, func(old *object) (*object, error) {
		if old.meta.GetUID() != m.UID {
			return nil, apierrors.NewNotFound(c.res.gr, name)
		}
		fins := slices.DeleteFunc(slices.Clone(old.meta.GetFinalizers()), func(f string) bool { return f == done })
		old.meta.SetFinalizers(fins)
		return old, nil
	})
	if err != nil && !apierrors.IsNotFound(err) {
		s.log.Warn("garbage collector: remove finalizer", "object", ref.key, "resource", ref.bucket, "err", err)
	}
}

// blocks reports whether a dependent still exists with blockOwnerDeletion
// set on its reference to owner.
func (s *Server) blocks(d gcRef, owner types.UID) bool {
	cur, err := s.store.Get(d.bucket, d.key)
	if err != nil {
		return false
	}
	m, ok := gcMetaOf(nil, cur.Value)
	if !ok {
		return false
	}
	for _, o := range m.OwnerReferences {
		if o.UID == owner && o.BlockOwnerDeletion != nil && *o.BlockOwnerDeletion {
			return true
		}
	}
	return false
}

// deletionFinalizers is upstream's deletionFinalizersForGarbageCollection:
// the orphan or foregroundDeletion finalizer a delete's propagation policy
// (or the object's own finalizers) calls for. It returns the finalizers and
// whether they changed.
func deletionFinalizers(fins []string, opts *metav1.DeleteOptions) ([]string, bool) {
	orphan, foreground := false, false
	switch {
	case opts.OrphanDependents != nil: //nolint:staticcheck // still honoured upstream
		orphan = *opts.OrphanDependents //nolint:staticcheck
	case opts.PropagationPolicy != nil:
		orphan = *opts.PropagationPolicy == metav1.DeletePropagationOrphan
		foreground = *opts.PropagationPolicy == metav1.DeletePropagationForeground
	default:
		orphan = slices.Contains(fins, metav1.FinalizerOrphanDependents)
		foreground = !orphan && slices.Contains(fins, metav1.FinalizerDeleteDependents)
	}
	var out []string
	for _, f := range fins {
		if f != metav1.FinalizerOrphanDependents && f != metav1.FinalizerDeleteDependents {
			out = append(out, f)
		}
	}
	if orphan {
		out = append(out, metav1.FinalizerOrphanDependents)
	}
	if foreground {
		out = append(out, metav1.FinalizerDeleteDependents)
	}
	if sameSet(out, fins) {
		return fins, false
	}
	return out, true
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}
