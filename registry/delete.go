package registry

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/registry/rest"

	"github.com/fakeplane/fakeplane/registry/strategy"
	"github.com/fakeplane/fakeplane/store"
)

// DeleteObject deletes one object, or marks it for deletion when finalizers
// remain or its deletion is graceful (pods, see beforeDelete). It returns
// the object's last state and whether it is gone.
//
// A graceful delete that is due at once (grace period 0) is two commits,
// as in kube-apiserver: the object is first written with its
// deletionTimestamp, then removed; watchers see MODIFIED then DELETED.
func (s *Registry) DeleteObject(c *Request, key, name string, opts *metav1.DeleteOptions) ([]byte, bool, error) {
	if err := CheckNameParameter(name); err != nil {
		return nil, false, err
	}
	dry := len(opts.DryRun) > 0
	deleted, removeNext := false, false
	var uid types.UID
	_, cur, err := s.store.Update(c.Res.Bucket, key, func(cur *store.Object) (store.Write, error) {
		deleted, removeNext = false, false
		if cur == nil {
			return store.Write{}, apierrors.NewNotFound(c.Res.GR, name)
		}
		curServed, err := c.Res.FromStorage(cur.Value)
		if err != nil {
			return store.Write{}, ErrStorageDecode(c.Res, cur.Key, cur.Revision, err)
		}
		o, err := c.Res.DecodeStored(curServed)
		if err != nil {
			return store.Write{}, err
		}
		uid = o.Meta.GetUID()
		if p := opts.Preconditions; p != nil {
			if _, ok := o.Obj.(*corev1.Namespace); ok {
				if err := namespacePreconditions(c.Res.GR, name, p, o); err != nil {
					return store.Write{}, err
				}
			}
			// Upstream's precondition check (rest.BeforeDelete) names the
			// kind, not the resource, in the group of the type it stores
			// (core for an events.k8s.io Event).
			kindGR := schema.GroupResource{Group: c.Res.Group, Resource: c.Res.Kind}
			if gv, err := schema.ParseGroupVersion(c.Res.StorageVersion); err == nil && c.Res.StorageVersion != "" {
				kindGR.Group = gv.Group
			}
			if p.UID != nil && *p.UID != o.Meta.GetUID() {
				return store.Write{}, apierrors.NewConflict(kindGR, name, fmt.Errorf("the UID in the precondition (%s) does not match the UID in record (%s). The object might have been deleted and then recreated", *p.UID, o.Meta.GetUID()))
			}
			if p.ResourceVersion != nil && *p.ResourceVersion != o.Meta.GetResourceVersion() {
				return store.Write{}, apierrors.NewConflict(kindGR, name, fmt.Errorf("the ResourceVersion in the precondition (%s) does not match the ResourceVersion in record (%s). The object might have been modified", *p.ResourceVersion, o.Meta.GetResourceVersion()))
			}
		}
		// The strategy's graceful deletion decides the grace period on a
		// copy of the options, as upstream's registry does per object.
		stored := o.DeepCopy()
		graceful, pending, grace := s.beforeDelete(c, o, opts.DeepCopy())
		if pending {
			return store.Write{}, store.ErrUnchanged
		}
		// A namespace's first delete only marks it, whatever its
		// finalizers; a later delete removes it once its spec.finalizers
		// are gone and changes nothing before (upstream's namespace REST
		// answers the object as it is, without delete admission).
		firstNamespaceDelete := false
		if ns, ok := o.Obj.(*corev1.Namespace); ok {
			firstNamespaceDelete = ns.DeletionTimestamp == nil
			if !firstNamespaceDelete && len(ns.Spec.Finalizers) > 0 {
				return store.Write{}, store.ErrUnchanged
			}
		}
		// Upstream's storage runs delete admission on the stored object,
		// once the preconditions hold.
		if err := s.admitDelete(c, stored, opts); err != nil {
			return store.Write{}, err
		}
		finOpts := opts
		//nolint:staticcheck // OrphanDependents is still honoured upstream
		if firstNamespaceDelete && opts.OrphanDependents != nil && !*opts.OrphanDependents {
			// Upstream's namespace REST reads orphanDependents=false as
			// a call for the foregroundDeletion finalizer.
			foreground := metav1.DeletePropagationForeground
			finOpts = opts.DeepCopy()
			finOpts.OrphanDependents, finOpts.PropagationPolicy = nil, &foreground //nolint:staticcheck
		}
		// Without garbage collection (--enable-garbage-collector=false),
		// upstream's generic stores add neither finalizer; its namespace
		// REST adds them whatever the flag.
		_, isNamespace := o.Obj.(*corev1.Namespace)
		if !s.noGC || isNamespace {
			if fins, changed := deletionFinalizers(o.Meta.GetFinalizers(), finOpts, gcPolicy(c)); changed {
				o.Meta.SetFinalizers(fins)
			}
		}
		marked := s.markForDeletion(c, o) || firstNamespaceDelete
		finalizing := len(o.Meta.GetFinalizers()) > 0
		// A dry run of a graceful delete due at once answers as the
		// removal would; any other graceful delete writes the mark.
		if marked || finalizing || (graceful && (grace > 0 || !dry)) {
			if o.Meta.GetDeletionTimestamp() == nil {
				now := metav1.NewTime(s.now().Truncate(timePrecision))
				o.Meta.SetDeletionTimestamp(&now)
				if !marked {
					// Upstream's markAsDeleting: due at once, waiting for
					// finalizers, a tracked generation bumped. (The
					// namespace and CRD storages mark theirs with the
					// timestamp alone.)
					zero := int64(0)
					o.Meta.SetDeletionGracePeriodSeconds(&zero)
					if gen := o.Meta.GetGeneration(); gen > 0 {
						o.Meta.SetGeneration(gen + 1)
					}
				}
			}
			// A graceful deletion with no time left and nothing to wait
			// for is removed once this write commits.
			removeNext = graceful && grace == 0 && !marked && !finalizing
			b, err := Encode(o.Obj)
			if err != nil {
				return store.Write{}, err
			}
			if bytes.Equal(b, curServed) {
				return store.Write{}, store.ErrUnchanged
			}
			if dry {
				return store.Write{}, &dryRunResult{data: b}
			}
			return s.storageWrite(c.Res, key, o, false)
		}
		deleted = true
		if dry {
			if graceful {
				b, err := Encode(o.Obj)
				if err != nil {
					return store.Write{}, err
				}
				return store.Write{}, &dryRunResult{data: b}
			}
			return store.Write{}, &dryRunResult{data: curServed}
		}
		return s.storageWrite(c.Res, key, o, true)
	})
	var dr *dryRunResult
	if errors.As(err, &dr) {
		return dr.data, deleted, nil
	}
	if err != nil {
		return nil, false, storeErr(err)
	}
	s.afterCommit(c, key, nil, cur.Value, deleted)
	if removeNext {
		last := cur
		gone, err := s.removeDeleted(c, key, uid)
		if err != nil {
			return nil, false, err
		}
		if gone != nil {
			last = gone
		}
		cur, deleted = last, true
	}
	out, err := c.Res.FromStorage(cur.Value)
	if err != nil {
		return nil, false, ErrStorageDecode(c.Res, cur.Key, cur.Revision, err)
	}
	if deleted {
		s.enc.forget(c.Res.Bucket, key)
	}
	return out, deleted, nil
}

// removeDeleted is the second commit of a graceful deletion due at once:
// it removes the object with uid, as it was just marked. It returns the
// removed object, or nil when another client removed it first (upstream
// tolerates that race) or it was replaced.
func (s *Registry) removeDeleted(c *Request, key string, uid types.UID) (*store.Object, error) {
	_, cur, err := s.store.Update(c.Res.Bucket, key, func(cur *store.Object) (store.Write, error) {
		if cur == nil {
			return store.Write{}, errGone
		}
		served, err := c.Res.FromStorage(cur.Value)
		if err != nil {
			return store.Write{}, ErrStorageDecode(c.Res, cur.Key, cur.Revision, err)
		}
		o, err := c.Res.DecodeStored(served)
		if err != nil {
			return store.Write{}, err
		}
		if o.Meta.GetUID() != uid {
			return store.Write{}, errGone // replaced by a new object of that name
		}
		return s.storageWrite(c.Res, key, o, true)
	})
	if errors.Is(err, errGone) {
		return nil, nil
	}
	if err != nil {
		return nil, storeErr(err)
	}
	s.afterCommit(c, key, nil, cur.Value, true)
	return cur, nil
}

// errGone stops removeDeleted when the marked object is no longer there to
// remove.
var errGone = errors.New("registry: object already gone")

// deletionFinalizers is upstream's deletionFinalizersForGarbageCollection:
// the orphan or foregroundDeletion finalizer that a delete's propagation
// policy, else the object's own finalizers (the first of the two it has),
// else the resource's default policy calls for. A resource whose policy
// is Unsupported (Events) keeps neither. It returns the finalizers and
// whether they changed.
func deletionFinalizers(fins []string, opts *metav1.DeleteOptions, policy rest.GarbageCollectionPolicy) ([]string, bool) {
	orphan, foreground := false, false
	switch {
	case policy == rest.Unsupported:
	case opts.OrphanDependents != nil: //nolint:staticcheck // still honoured upstream
		orphan = *opts.OrphanDependents //nolint:staticcheck
	case opts.PropagationPolicy != nil && *opts.PropagationPolicy == metav1.DeletePropagationOrphan:
		orphan = true
	case opts.PropagationPolicy != nil && *opts.PropagationPolicy == metav1.DeletePropagationForeground:
		foreground = true
	case opts.PropagationPolicy != nil && *opts.PropagationPolicy == metav1.DeletePropagationBackground:
	default:
		decided := false
		for _, f := range fins {
			if f == metav1.FinalizerOrphanDependents || f == metav1.FinalizerDeleteDependents {
				orphan, foreground, decided = f == metav1.FinalizerOrphanDependents, f == metav1.FinalizerDeleteDependents, true
				break
			}
		}
		if !decided {
			orphan = policy == rest.OrphanDependents
		}
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

// gcPolicy is the request's resource's default garbage collection policy:
// its strategy's, or upstream's default (delete the dependents).
func gcPolicy(c *Request) rest.GarbageCollectionPolicy {
	if st, ok := For(c.Res.GR); ok {
		if gc, ok := st.(strategy.GarbageCollector); ok {
			return gc.DefaultGarbageCollectionPolicy(c.Context())
		}
	}
	return rest.DeleteDependents
}

// DeleteWarnings records the warnings upstream's storage gives a delete or
// a delete of a collection with opts before it deletes anything (a v1
// Job's that orphans its pods).
func (s *Registry) DeleteWarnings(c *Request, opts *metav1.DeleteOptions) {
	if st, ok := For(c.Res.GR); ok {
		if dw, ok := st.(strategy.DeleteWarner); ok {
			addWarnings(c, dw.WarningsOnDelete(c.Context(), opts))
		}
	}
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

// namespacePreconditions is the precondition check of upstream's namespace
// REST, which runs before its storage's and words its conflicts its own way.
func namespacePreconditions(gr schema.GroupResource, name string, p *metav1.Preconditions, o *Object) error {
	if p.UID != nil && *p.UID != o.Meta.GetUID() {
		return apierrors.NewConflict(gr, name, fmt.Errorf("Precondition failed: UID in precondition: %v, UID in object meta: %v", *p.UID, o.Meta.GetUID()))
	}
	if p.ResourceVersion != nil && *p.ResourceVersion != o.Meta.GetResourceVersion() {
		return apierrors.NewConflict(gr, name, fmt.Errorf("Precondition failed: ResourceVersion in precondition: %v, ResourceVersion in object meta: %v", *p.ResourceVersion, o.Meta.GetResourceVersion()))
	}
	return nil
}
