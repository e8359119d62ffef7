package registry

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fakeplane/fakeplane/store"
)

// DeleteObject deletes one object, or marks it for deletion when finalizers
// remain. It returns the object's last state and whether it is gone.
func (s *Registry) DeleteObject(c *Request, key, name string, opts *metav1.DeleteOptions) ([]byte, bool, error) {
	dry := len(opts.DryRun) > 0
	deleted := false
	_, cur, err := s.store.Update(c.Res.Bucket, key, func(cur *store.Object) (store.Write, error) {
		deleted = false
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
		if p := opts.Preconditions; p != nil {
			// Upstream's storage precondition check names the kind, not the resource.
			kindGR := schema.GroupResource{Group: c.Res.Group, Resource: c.Res.Kind}
			if p.UID != nil && *p.UID != o.Meta.GetUID() {
				return store.Write{}, apierrors.NewConflict(kindGR, name, fmt.Errorf("the UID in the precondition (%s) does not match the UID in record (%s). The object might have been deleted and then recreated", *p.UID, o.Meta.GetUID()))
			}
			if p.ResourceVersion != nil && *p.ResourceVersion != o.Meta.GetResourceVersion() {
				return store.Write{}, apierrors.NewConflict(kindGR, name, fmt.Errorf("the ResourceVersion in the precondition (%s) does not match the ResourceVersion in record (%s). The object might have been modified", *p.ResourceVersion, o.Meta.GetResourceVersion()))
			}
		}
		// Upstream's storage runs delete admission on the stored object,
		// once the preconditions hold.
		if err := s.admitDelete(c, o.DeepCopy(), opts); err != nil {
			return store.Write{}, err
		}
		if fins, changed := deletionFinalizers(o.Meta.GetFinalizers(), opts); changed {
			o.Meta.SetFinalizers(fins)
		}
		graceful := s.markForDeletion(c, o)
		if graceful || len(o.Meta.GetFinalizers()) > 0 {
			if o.Meta.GetDeletionTimestamp() == nil {
				now := metav1.NewTime(s.now().Truncate(timePrecision))
				o.Meta.SetDeletionTimestamp(&now)
				if c.Res.Resource.Resource != "namespaces" {
					zero := int64(0)
					o.Meta.SetDeletionGracePeriodSeconds(&zero)
				}
			}
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
	out, err := c.Res.FromStorage(cur.Value)
	if err != nil {
		return nil, false, ErrStorageDecode(c.Res, cur.Key, cur.Revision, err)
	}
	s.afterCommit(c, key, nil, cur.Value, deleted)
	if deleted {
		s.enc.forget(c.Res.Bucket, key)
	}
	return out, deleted, nil
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
