package controllers

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
)

// observeAdoptable decodes the object an event carries and records it
// with keepControlled; it also keeps, in orphans, the objects with no
// controller at all (those an apps/v1 controller may adopt). It returns
// the object when it is such an orphan now, for the caller to wake the
// controllers whose selector matches it.
func observeAdoptable[T any, PT interface {
	*T
	metav1.Object
}](ev store.Event, kind string, objects, orphans map[string]PT, dirty map[string]bool) (PT, error) {
	delete(orphans, ev.Key)
	obj, err := decodeEvent[T](ev)
	if err != nil {
		return nil, err
	}
	o := PT(obj)
	keepControlled(ev, o, kind, objects, dirty)
	if ev.Type == store.Deleted || metav1.GetControllerOfNoCopy(o) != nil || o.GetDeletionTimestamp() != nil {
		return nil, nil
	}
	orphans[ev.Key] = o
	return o, nil
}

// ownerRefs is what a controller adopting and releasing objects needs to
// know of their owner: the owner, where to read it fresh, and the
// controller reference it sets.
type ownerRefs struct {
	reg   registry.Interface
	owner metav1.Object
	gvr   schema.GroupVersionResource
	ref   *metav1.OwnerReference
	// canAdopt is whether a fresh read found the owner, not being
	// deleted (nil: not read yet).
	canAdopt *bool
}

// newOwnerRefs is the adoption state of owner, of kind gvk, stored in gvr.
func newOwnerRefs(reg registry.Interface, owner metav1.Object, gvr schema.GroupVersionResource, gvk schema.GroupVersionKind) *ownerRefs {
	return &ownerRefs{reg: reg, owner: owner, gvr: gvr, ref: controllerRefTo(owner, gvk)}
}

// adopt gives the orphans sel matches (and keep accepts, nil: all) the
// owner as controller, as kube-controller-manager's ControllerRefManager:
// not while the owner is being deleted, and only once a fresh read of it
// finds it there, not being deleted. It returns those adopted, in key
// order.
func adopt[T metav1.Object](ctx context.Context, o *ownerRefs, gvr schema.GroupVersionResource, orphans map[string]T, sel labels.Selector, keep func(T) bool) ([]T, error) {
	if o.owner.GetDeletionTimestamp() != nil || sel.Empty() {
		return nil, nil
	}
	var adopted []T
	var errs []error
	prefix := o.owner.GetNamespace() + "/"
	for _, key := range slices.Sorted(func(yield func(string) bool) {
		for k := range orphans {
			if strings.HasPrefix(k, prefix) && !yield(k) {
				return
			}
		}
	}) {
		obj := orphans[key]
		if !selectorMatches(sel, obj.GetLabels()) || keep != nil && !keep(obj) {
			continue
		}
		ok, err := o.adoptOne(ctx, gvr, obj)
		if err != nil {
			errs = append(errs, err)
		}
		if ok {
			adopted = append(adopted, obj)
		}
		if !*o.canAdopt {
			break
		}
	}
	return adopted, errors.Join(errs...)
}

// adoptOne gives obj, an orphan being adopted, the owner as controller,
// once a fresh read found the owner there (o.canAdopt records it). It
// reports whether obj was adopted; an object gone or changed meanwhile is
// not, and is no error.
func (o *ownerRefs) adoptOne(ctx context.Context, gvr schema.GroupVersionResource, obj metav1.Object) (bool, error) {
	if o.canAdopt == nil {
		ok := ownerStillThere(ctx, o.reg, o.gvr, o.owner)
		o.canAdopt = &ok
	}
	if !*o.canAdopt {
		return false, nil
	}
	err := adoptObject(ctx, o.reg, gvr, obj.GetNamespace(), obj.GetName(), string(obj.GetUID()), o.ref)
	switch {
	case err == nil:
		return true, nil
	case apierrors.IsNotFound(err), errors.Is(err, errAdoptionRaced):
		return false, nil
	default:
		return false, fmt.Errorf("adopt %s %s: %w", gvr.Resource, obj.GetName(), err)
	}
}

// claim returns, of candidates (objects of the owner's namespace, in the
// order the caller wants), those the owner controls that sel matches and
// the orphans sel matches once adopted, as copies (withRef) carrying the
// new reference; it releases those the owner controls that sel no longer
// matches. As upstream's ControllerRefManager.ClaimObject: objects another
// controller owns are skipped, nothing is adopted or released while the
// owner is being deleted, and an orphan being deleted is not adopted.
func claim[T metav1.Object](ctx context.Context, o *ownerRefs, gvr schema.GroupVersionResource, candidates []T, sel labels.Selector, withRef func(T, metav1.OwnerReference) T) ([]T, error) {
	var claimed []T
	var errs []error
	deleting := o.owner.GetDeletionTimestamp() != nil
	for _, obj := range candidates {
		match := selectorMatches(sel, obj.GetLabels())
		if ref := metav1.GetControllerOfNoCopy(obj); ref != nil {
			switch {
			case ref.UID != o.owner.GetUID():
			case match:
				claimed = append(claimed, obj)
			default:
				if err := release(ctx, o, gvr, obj); err != nil {
					errs = append(errs, err)
				}
			}
			continue
		}
		if deleting || !match || obj.GetDeletionTimestamp() != nil {
			continue
		}
		ok, err := o.adoptOne(ctx, gvr, obj)
		if err != nil {
			errs = append(errs, err)
		}
		if ok {
			claimed = append(claimed, withRef(obj, *o.ref))
		}
	}
	return claimed, errors.Join(errs...)
}

// ownerStillThere reports whether a fresh read of owner (stored in gvr)
// finds it, with its UID, not being deleted: the check upstream's
// ControllerRefManager makes before its first adoption.
func ownerStillThere(ctx context.Context, reg registry.Interface, gvr schema.GroupVersionResource, owner metav1.Object) bool {
	cur, err := reg.Get(ctx, gvr, owner.GetNamespace(), owner.GetName())
	if err != nil {
		return false
	}
	m, err := metaOf(cur)
	return err == nil && m.GetUID() == owner.GetUID() && m.GetDeletionTimestamp() == nil
}

// release removes the owner's reference from obj, which it controls but
// no longer matches (not while the owner is being deleted).
func release(ctx context.Context, o *ownerRefs, gvr schema.GroupVersionResource, obj metav1.Object) error {
	if o.owner.GetDeletionTimestamp() != nil {
		return nil
	}
	err := releaseObject(ctx, o.reg, gvr, obj.GetNamespace(), obj.GetName(), string(obj.GetUID()), string(o.owner.GetUID()))
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("release %s %s: %w", gvr.Resource, obj.GetName(), err)
	}
	return nil
}

// releaseUnmatched releases, of owned (objects the owner controls), those
// sel no longer matches or keep (nil: all) rejects, as the
// ControllerRefManager does (not while the owner is being deleted), and
// returns the others.
func releaseUnmatched[T metav1.Object](ctx context.Context, o *ownerRefs, gvr schema.GroupVersionResource, owned []T, sel labels.Selector, keep func(T) bool) ([]T, error) {
	var kept []T
	var errs []error
	for _, obj := range owned {
		if selectorMatches(sel, obj.GetLabels()) && (keep == nil || keep(obj)) {
			kept = append(kept, obj)
			continue
		}
		if err := release(ctx, o, gvr, obj); err != nil {
			errs = append(errs, err)
		}
	}
	return kept, errors.Join(errs...)
}

// wakeSelecting marks in dirty the keys of the objects of sets, in obj's
// namespace, whose selector (selectorOf) matches obj's labels: the
// controllers that may adopt it.
func wakeSelecting[S metav1.Object](obj metav1.Object, sets map[string]S, selectorOf func(S) *metav1.LabelSelector, dirty map[string]bool) {
	for key, s := range sets {
		if s.GetNamespace() != obj.GetNamespace() {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(selectorOf(s))
		if err != nil || sel.Empty() || !selectorMatches(sel, obj.GetLabels()) {
			continue
		}
		dirty[key] = true
	}
}

// controlledIn are the objects of owner's namespace that owner controls.
func controlledIn[T metav1.Object](objects map[string]T, owner metav1.Object) []T {
	var out []T
	for _, o := range objects {
		if o.GetNamespace() == owner.GetNamespace() && controlledBy(o, owner.GetUID()) {
			out = append(out, o)
		}
	}
	return out
}
