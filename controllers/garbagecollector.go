package controllers

import (
	"context"
	"fmt"
	"log/slog"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/authentication/serviceaccount"
	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"

	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
)

// ObjectRef locates an object: one served version of its resource, its
// namespace ("" for a cluster-scoped one) and its name.
type ObjectRef struct {
	Resource  schema.GroupVersionResource
	Namespace string
	Name      string
}

// GCWork is one piece of the garbage collector's work: check a dependent's
// owners, or (Owner) an owner's deletion finalizers. OwnersChanged says a
// dependent's owner references are new or changed: the collector then
// also reports those naming an owner in another namespace.
type GCWork struct {
	Object        ObjectRef
	Owner         bool
	OwnersChanged bool
}

// OwnerIndex is the garbage collector's view of ownerReferences: an index
// from owner UID to dependents, and a queue of the work the changes call
// for. The control plane keeps both up to date with every commit, in
// revision order (the collector must never act on an older view than the
// store's); the collector only reads the index and takes the work.
type OwnerIndex interface {
	// Next takes the next piece of work, if any.
	Next() (GCWork, bool)
	// Enqueue adds work unless it is already waiting.
	Enqueue(work ...GCWork)
	// Wake receives a value after work was enqueued.
	Wake() <-chan struct{}
	// DependentsOf returns the objects whose ownerReferences name the UID.
	DependentsOf(owner types.UID) []ObjectRef
	// OwnerOf locates the owner that an ownerReference of an object in
	// namespace ns names; false if none can be.
	OwnerOf(ns string, ref metav1.OwnerReference) (ObjectRef, bool)
	// NamespacedResourceOf returns the served resource of an
	// ownerReference's kind when that kind is namespaced; false for a
	// cluster-scoped or unknown kind.
	NamespacedResourceOf(ref metav1.OwnerReference) (schema.GroupVersionResource, bool)
	// KindOf returns the kind a served resource holds.
	KindOf(gvr schema.GroupVersionResource) string
}

// GarbageCollector does what kube-controller-manager's garbage collector
// does with metadata.ownerReferences: an object whose owners are all gone
// is deleted (background propagation, or the propagation its own deletion
// finalizers ask for), an owner deleted with the foregroundDeletion
// finalizer waits for its blocking dependents to go first, and one deleted
// with the orphan finalizer has its dependents' references to it removed.
// Its work comes from an OwnerIndex rather than from store watches; it
// writes as the service account kube-system/generic-garbage-collector.
type GarbageCollector struct {
	reg   registry.Interface
	index OwnerIndex
	log   *slog.Logger
	user  user.Info
	rec   *Recorder
}

// NewGarbageCollector returns the garbage collector, taking its work from
// index, writing through reg and logging to log (nil: slog.Default()).
func NewGarbageCollector(reg registry.Interface, index OwnerIndex, log *slog.Logger) *GarbageCollector {
	const ns, name = "kube-system", "generic-garbage-collector"
	if log == nil {
		log = slog.Default()
	}
	gc := &GarbageCollector{
		reg:   reg,
		index: index,
		log:   log,
		user: &user.DefaultInfo{
			Name:   serviceaccount.MakeUsername(ns, name),
			Groups: append(serviceaccount.MakeGroupNames(ns), user.AllAuthenticated),
		},
	}
	gc.rec = NewRecorder(reg, gc.Name(), gc.user, nil, log)
	return gc
}

// Name implements Controller.
func (gc *GarbageCollector) Name() string { return "garbage-collector-controller" }

// Resources implements Controller: none, the OwnerIndex feeds it.
func (gc *GarbageCollector) Resources() []string { return nil }

// Wake implements Waker: the OwnerIndex's.
func (gc *GarbageCollector) Wake() <-chan struct{} { return gc.index.Wake() }

// Sync implements Controller: it works through the queue until it is
// empty. A failed write is logged and dropped, as the next change of the
// object queues it again.
func (gc *GarbageCollector) Sync(ctx context.Context, _ []store.Event) error {
	ctx = registry.WithFieldManager(apirequest.WithUser(ctx, gc.user), "kube-controller-manager")
	for ctx.Err() == nil {
		w, ok := gc.index.Next()
		if !ok {
			return nil
		}
		if w.Owner {
			gc.owner(ctx, w.Object)
		} else {
			gc.dependent(ctx, w.Object, w.OwnersChanged)
		}
	}
	return nil
}

// get returns the metadata of the object ref locates, or nil if it cannot
// be read (gone, among others).
func (gc *GarbageCollector) get(ctx context.Context, ref ObjectRef) (metav1.Object, error) {
	obj, err := gc.reg.Get(ctx, ref.Resource, ref.Namespace, ref.Name)
	if err != nil {
		return nil, err
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, fmt.Errorf("metadata of %s %s: %w", ref.Resource.GroupResource(), ref.Name, err)
	}
	return m, nil
}

// ownerState classifies an owner reference as upstream's collector does.
type ownerState int

const (
	ownerSolid   ownerState = iota // exists (or cannot be resolved: left alone)
	ownerAbsent                    // gone, or replaced by another object of the name
	ownerWaiting                   // being deleted in the foreground
)

func (gc *GarbageCollector) stateOf(ctx context.Context, ns string, o metav1.OwnerReference) ownerState {
	ref, ok := gc.index.OwnerOf(ns, o)
	if !ok {
		return ownerSolid
	}
	m, err := gc.get(ctx, ref)
	switch {
	case apierrors.IsNotFound(err):
		return ownerAbsent
	case err != nil:
		return ownerSolid
	case m.GetUID() != o.UID:
		return ownerAbsent
	case m.GetDeletionTimestamp() != nil && slices.Contains(m.GetFinalizers(), metav1.FinalizerDeleteDependents):
		return ownerWaiting
	}
	return ownerSolid
}

// dependent deletes an object whose owners are all gone, or drops its
// references to owners that are gone while others remain. When its owner
// references are new or changed, those that name an owner of another
// namespace are reported.
func (gc *GarbageCollector) dependent(ctx context.Context, ref ObjectRef, ownersChanged bool) {
	m, err := gc.get(ctx, ref)
	if err != nil || len(m.GetOwnerReferences()) == 0 || m.GetDeletionTimestamp() != nil {
		return
	}
	var solid, gone []types.UID
	waiting := false
	for _, o := range m.GetOwnerReferences() {
		state := gc.stateOf(ctx, m.GetNamespace(), o)
		if ownersChanged {
			gc.reportOwnerInOtherNamespace(ctx, ref, m, o, state)
		}
		switch state {
		case ownerSolid:
			solid = append(solid, o.UID)
		case ownerAbsent:
			gone = append(gone, o.UID)
		case ownerWaiting:
			waiting = true
			gone = append(gone, o.UID)
		}
	}
	if len(solid) > 0 {
		if len(gone) > 0 {
			gc.removeOwners(ctx, ref, gone)
		}
		return
	}
	policy := metav1.DeletePropagationBackground
	switch fins := m.GetFinalizers(); {
	case waiting && len(gc.index.DependentsOf(m.GetUID())) > 0:
		policy = metav1.DeletePropagationForeground
	case slices.Contains(fins, metav1.FinalizerOrphanDependents):
		policy = metav1.DeletePropagationOrphan
	case slices.Contains(fins, metav1.FinalizerDeleteDependents):
		policy = metav1.DeletePropagationForeground
	}
	uid := m.GetUID()
	_, err = gc.reg.Delete(ctx, ref.Resource, ref.Namespace, ref.Name, metav1.DeleteOptions{PropagationPolicy: &policy, Preconditions: &metav1.Preconditions{UID: &uid}})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		gc.log.Warn("delete", "resource", ref.Resource.GroupResource(), "namespace", ref.Namespace, "name", ref.Name, "err", err)
	}
}

// removeOwners drops the references to some owners from an object.
func (gc *GarbageCollector) removeOwners(ctx context.Context, ref ObjectRef, uids []types.UID) {
	_, err := gc.reg.Update(ctx, ref.Resource, ref.Namespace, ref.Name, func(cur runtime.Object) (runtime.Object, error) {
		m, err := meta.Accessor(cur)
		if err != nil {
			return nil, err
		}
		m.SetOwnerReferences(slices.DeleteFunc(m.GetOwnerReferences(), func(o metav1.OwnerReference) bool { return slices.Contains(uids, o.UID) }))
		return cur, nil
	})
	if err != nil && !apierrors.IsNotFound(err) {
		gc.log.Warn("remove owner references", "resource", ref.Resource.GroupResource(), "namespace", ref.Namespace, "name", ref.Name, "err", err)
	}
}

// owner finishes the deletion of an owner holding the orphan or
// foregroundDeletion finalizer.
func (gc *GarbageCollector) owner(ctx context.Context, ref ObjectRef) {
	m, err := gc.get(ctx, ref)
	if err != nil || m.GetDeletionTimestamp() == nil {
		return
	}
	uid := m.GetUID()
	deps := gc.index.DependentsOf(uid)
	var done string
	switch fins := m.GetFinalizers(); {
	case slices.Contains(fins, metav1.FinalizerOrphanDependents):
		for _, d := range deps {
			gc.removeOwners(ctx, d, []types.UID{uid})
		}
		done = metav1.FinalizerOrphanDependents
	case slices.Contains(fins, metav1.FinalizerDeleteDependents):
		blocking := 0
		work := make([]GCWork, 0, len(deps))
		for _, d := range deps {
			work = append(work, GCWork{Object: d})
			if gc.blocks(ctx, d, uid) {
				blocking++
			}
		}
		gc.index.Enqueue(work...)
		if blocking > 0 {
			return // the last blocking dependent's deletion brings the owner back here
		}
		done = metav1.FinalizerDeleteDependents
	default:
		return
	}
	_, err = gc.reg.Update(ctx, ref.Resource, ref.Namespace, ref.Name, func(cur runtime.Object) (runtime.Object, error) {
		m, err := meta.Accessor(cur)
		if err != nil {
			return nil, err
		}
		if m.GetUID() != uid {
			return nil, apierrors.NewNotFound(ref.Resource.GroupResource(), ref.Name)
		}
		m.SetFinalizers(slices.DeleteFunc(m.GetFinalizers(), func(f string) bool { return f == done }))
		return cur, nil
	})
	if err != nil && !apierrors.IsNotFound(err) {
		gc.log.Warn("remove finalizer", "resource", ref.Resource.GroupResource(), "namespace", ref.Namespace, "name", ref.Name, "finalizer", done, "err", err)
	}
}

// blocks reports whether a dependent still exists with blockOwnerDeletion
// set on its reference to owner.
func (gc *GarbageCollector) blocks(ctx context.Context, d ObjectRef, owner types.UID) bool {
	m, err := gc.get(ctx, d)
	if err != nil {
		return false
	}
	for _, o := range m.GetOwnerReferences() {
		if o.UID == owner && o.BlockOwnerDeletion != nil && *o.BlockOwnerDeletion {
			return true
		}
	}
	return false
}

// reportOwnerInOtherNamespace records kube-controller-manager's
// OwnerRefInvalidNamespace warning on a dependent whose owner reference o
// names a namespaced object that exists, but in another namespace than the
// dependent's, as upstream's graph builder reports an observed owner whose
// namespace does not match. state is o's as stateOf found it: an owner of
// the dependent's own namespace is solid or waiting, and a cluster-scoped
// dependent's namespaced owner is solid, as left alone (such an owner is
// then looked for in every namespace).
func (gc *GarbageCollector) reportOwnerInOtherNamespace(ctx context.Context, ref ObjectRef, m metav1.Object, o metav1.OwnerReference, state ownerState) {
	if state != ownerAbsent && m.GetNamespace() != "" {
		return
	}
	res, ok := gc.index.NamespacedResourceOf(o)
	if !ok || !gc.existsElsewhere(ctx, res, m.GetNamespace(), o.UID) {
		return
	}
	gv := ref.Resource.GroupVersion()
	involved := corev1.ObjectReference{Kind: gc.index.KindOf(ref.Resource), APIVersion: gv.String(), Namespace: m.GetNamespace(), Name: m.GetName(), UID: m.GetUID()}
	gc.rec.Eventf(ctx, involved, corev1.EventTypeWarning, "OwnerRefInvalidNamespace", "ownerRef [%s/%s, namespace: %s, name: %s, uid: %s] does not exist in namespace %q",
		o.APIVersion, o.Kind, m.GetNamespace(), o.Name, o.UID, m.GetNamespace())
}

// existsElsewhere reports whether an object of res with the UID exists in
// another namespace than ns.
func (gc *GarbageCollector) existsElsewhere(ctx context.Context, res schema.GroupVersionResource, ns string, uid types.UID) bool {
	lst, err := gc.reg.List(ctx, res, "", metav1.ListOptions{})
	if err != nil {
		return false
	}
	found := false
	_ = meta.EachListItem(lst, func(obj runtime.Object) error {
		if m, err := meta.Accessor(obj); err == nil && m.GetUID() == uid && m.GetNamespace() != ns {
			found = true
		}
		return nil
	})
	return found
}
