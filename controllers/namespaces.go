package controllers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/serviceaccount"
	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"

	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
)

// namespacesBucket is the store bucket of Namespaces.
const namespacesBucket = "/namespaces"

var namespacesGVR = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}

// While a terminating namespace still has content (objects held by their
// finalizers, or deleted gracefully), its deletion is looked at again after
// namespaceRecheck, doubling while nothing changes, up to
// namespaceRecheckMax: the content's changes are not watched.
const (
	namespaceRecheck    = 20 * time.Millisecond
	namespaceRecheckMax = 500 * time.Millisecond
)

// NamespacedResourcesFunc lists one served version of every namespaced
// resource whose objects a namespace's deletion must delete: the built-in
// ones and those the CRDs serve at the time of the call.
type NamespacedResourcesFunc func() []schema.GroupVersionResource

// NamespaceLifecycle empties terminating namespaces and then removes the
// kubernetes finalizer from them (through namespaces/finalize), which
// deletes a namespace that no other finalizer holds, as
// kube-controller-manager's namespace controller does. Every object of a
// terminating namespace is deleted with background propagation, its pods
// first and the rest once no pod is left; an object already marked for
// deletion is waited for. Each pass writes that controller's five deletion
// conditions into the namespace's status (what remains, the finalizers
// that hold it, what failed). It writes as that controller's service
// account, kube-system/namespace-controller.
type NamespaceLifecycle struct {
	reg        registry.Interface
	namespaced NamespacedResourcesFunc
	log        *slog.Logger
	user       user.Info
	// terminating are the namespaces being deleted, by name, with what
	// the last pass over each found.
	terminating map[string]*namespaceSeen
	// idle counts the passes in a row that changed nothing, for the delay
	// of the next.
	idle int
}

// NewNamespaceLifecycle returns the namespace lifecycle controller, writing
// through reg, listing the namespaced resources with namespaced and logging
// to log (nil: slog.Default()).
func NewNamespaceLifecycle(reg registry.Interface, namespaced NamespacedResourcesFunc, log *slog.Logger) *NamespaceLifecycle {
	const ns, name = "kube-system", "namespace-controller"
	if log == nil {
		log = slog.Default()
	}
	return &NamespaceLifecycle{
		reg:        reg,
		namespaced: namespaced,
		log:        log,
		user: &user.DefaultInfo{
			Name:   serviceaccount.MakeUsername(ns, name),
			Groups: append(serviceaccount.MakeGroupNames(ns), user.AllAuthenticated),
		},
		terminating: map[string]*namespaceSeen{},
	}
}

// Name implements Controller.
func (c *NamespaceLifecycle) Name() string { return "namespace-controller" }

// Resources implements Controller.
func (c *NamespaceLifecycle) Resources() []string { return []string{namespacesBucket} }

// Sync implements Controller: every terminating namespace is emptied as far
// as it can be, its deletion conditions are written, and it is finalized
// once empty. While some still have content, it returns a Requeue.
func (c *NamespaceLifecycle) Sync(ctx context.Context, events []store.Event) error {
	for _, ev := range events {
		if ev.Type == store.Deleted || !toEmpty(ev.Value) {
			// Gone, live, or finalized already (no kubernetes finalizer:
			// upstream's deleter leaves it alone, Terminating until a
			// client deletes it again).
			delete(c.terminating, ev.Key)
			continue
		}
		if _, ok := c.terminating[ev.Key]; !ok {
			c.terminating[ev.Key] = &namespaceSeen{remaining: -1}
			c.idle = 0
		}
	}
	if len(c.terminating) == 0 {
		return nil
	}
	names := make([]string, 0, len(c.terminating))
	for ns := range c.terminating {
		names = append(names, ns)
	}
	sort.Strings(names)
	ctx = registry.WithFieldManager(apirequest.WithUser(ctx, c.user), "kube-controller-manager")
	resources := c.namespaced()
	var errs []error
	changed, waiting := false, false
	for _, ns := range names {
		p := c.empty(ctx, ns, resources)
		err := errors.Join(p.errs...)
		if err != nil {
			errs = append(errs, fmt.Errorf("namespace %s: %w", ns, err))
		}
		seen := c.terminating[ns]
		if conds := p.conditions(); !slices.Equal(conds, seen.conditions) {
			if err := c.writeConditions(ctx, ns, conds); err != nil {
				errs = append(errs, fmt.Errorf("namespace %s: %w", ns, err))
			} else {
				seen.conditions = conds
			}
		}
		if p.deleted > 0 || p.remaining != seen.remaining {
			changed = true
		}
		seen.remaining = p.remaining
		if p.remaining > 0 || err != nil {
			waiting = true
			continue
		}
		if err := c.finalize(ctx, ns); err != nil {
			errs = append(errs, fmt.Errorf("namespace %s: %w", ns, err))
			continue
		}
		c.log.Debug("namespace emptied and finalized", "namespace", ns)
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if !waiting {
		c.idle = 0
		return nil
	}
	if changed {
		c.idle = 0
	} else {
		c.idle++
	}
	return &Requeue{After: min(namespaceRecheck<<min(c.idle, 8), namespaceRecheckMax)}
}

// empty deletes the objects of namespace ns that are not marked for
// deletion yet: its pods first and, once no pod is left, everything else,
// as kube-controller-manager's namespace deleter does. The pass it returns
// says what is left.
func (c *NamespaceLifecycle) empty(ctx context.Context, ns string, resources []schema.GroupVersionResource) *namespacePass {
	p := &namespacePass{byResource: map[schema.GroupVersionResource]int{}, byFinalizer: map[string]int{}}
	if slices.Contains(resources, podsGVR) {
		c.emptyResource(ctx, p, ns, podsGVR)
		if p.remaining > 0 {
			// The rest waits for the pods, and the conditions leave out
			// what remains, as upstream's do.
			p.partial = true
			return p
		}
	}
	for _, gvr := range resources {
		if gvr != podsGVR {
			c.emptyResource(ctx, p, ns, gvr)
		}
	}
	return p
}

// emptyResource deletes the objects of resource gvr in namespace ns, and
// records in p what is left of them and which finalizers hold them.
func (c *NamespaceLifecycle) emptyResource(ctx context.Context, p *namespacePass, ns string, gvr schema.GroupVersionResource) {
	items, err := c.list(ctx, gvr, ns)
	if err != nil || len(items) == 0 {
		if err != nil {
			p.fail(gvr, err)
		}
		return
	}
	bg := metav1.DeletePropagationBackground
	deleted := 0
	for _, m := range items {
		if m.GetDeletionTimestamp() != nil {
			continue // waiting for its finalizers or its grace period
		}
		_, err := c.reg.Delete(ctx, gvr, ns, m.GetName(), metav1.DeleteOptions{PropagationPolicy: &bg})
		switch {
		case err == nil:
			deleted++
		case apierrors.IsNotFound(err), apierrors.IsMethodNotSupported(err):
		default:
			p.fail(gvr, fmt.Errorf("delete %s %s/%s: %w", gvr.GroupResource(), ns, m.GetName(), err))
			return
		}
	}
	p.deleted += deleted
	if deleted > 0 {
		// What is left now: deletions held by finalizers or a grace period.
		if items, err = c.list(ctx, gvr, ns); err != nil {
			p.fail(gvr, err)
			return
		}
	}
	if len(items) == 0 {
		return
	}
	p.remaining += len(items)
	p.byResource[gvr] += len(items)
	held := false
	for _, m := range items {
		for _, f := range m.GetFinalizers() {
			p.byFinalizer[f]++
			held = true
		}
	}
	if !held && gvr != podsGVR {
		// Nothing holds them (pods may wait for their grace period).
		p.deleteErrs = append(p.deleteErrs, fmt.Errorf("unexpected items still remain in namespace: %s for gvr: %v", ns, gvr))
	}
}

// list lists the objects of resource gvr in namespace ns: none when the
// resource cannot be listed or is gone (a CRD deleted meanwhile).
func (c *NamespaceLifecycle) list(ctx context.Context, gvr schema.GroupVersionResource, ns string) ([]metav1.Object, error) {
	lst, err := c.reg.List(ctx, gvr, ns, metav1.ListOptions{})
	if apierrors.IsNotFound(err) || apierrors.IsMethodNotSupported(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", gvr.GroupResource(), err)
	}
	objs, err := meta.ExtractList(lst)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", gvr.GroupResource(), err)
	}
	items := make([]metav1.Object, 0, len(objs))
	for _, o := range objs {
		if m, err := meta.Accessor(o); err == nil {
			items = append(items, m)
		}
	}
	return items, nil
}

// writeConditions writes conditions into namespace ns's status, through
// namespaces/status, when they differ from the stored ones.
func (c *NamespaceLifecycle) writeConditions(ctx context.Context, ns string, conditions []corev1.NamespaceCondition) error {
	_, err := c.reg.UpdateSubresource(ctx, namespacesGVR, "status", "", ns, func(cur runtime.Object) (runtime.Object, error) {
		n, ok := cur.(*corev1.Namespace)
		if !ok {
			return nil, fmt.Errorf("the registry answered with a %T", cur)
		}
		if n.DeletionTimestamp == nil {
			return n, nil // no longer the namespace being deleted
		}
		mergeNamespaceConditions(&n.Status, conditions, metav1.Now())
		return n, nil
	})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("write the deletion conditions: %w", err)
	}
	return nil
}

// finalize removes the kubernetes finalizer from namespace ns, through
// namespaces/finalize.
func (c *NamespaceLifecycle) finalize(ctx context.Context, ns string) error {
	_, err := c.reg.UpdateSubresource(ctx, namespacesGVR, "finalize", "", ns, func(cur runtime.Object) (runtime.Object, error) {
		n, ok := cur.(*corev1.Namespace)
		if !ok {
			return nil, fmt.Errorf("the registry answered with a %T", cur)
		}
		n.Spec.Finalizers = slices.DeleteFunc(n.Spec.Finalizers, func(f corev1.FinalizerName) bool { return f == corev1.FinalizerKubernetes })
		return n, nil
	})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("finalize: %w", err)
	}
	return nil
}

// namespaceSeen is what the last pass over a terminating namespace found.
type namespaceSeen struct {
	// remaining is the number of objects it held (-1 before the first
	// pass).
	remaining int
	// conditions are the deletion conditions last written.
	conditions []corev1.NamespaceCondition
}

// terminating reports whether a stored namespace is being deleted.
func terminating(data []byte) bool {
	var ns struct {
		Metadata struct {
			DeletionTimestamp *string `json:"deletionTimestamp"`
		} `json:"metadata"`
	}
	_ = json.Unmarshal(data, &ns)
	return ns.Metadata.DeletionTimestamp != nil
}

// toEmpty reports whether a stored namespace is being deleted and still
// holds the kubernetes finalizer, which the namespace controller removes
// once it has emptied it.
func toEmpty(data []byte) bool {
	var ns struct {
		Metadata struct {
			DeletionTimestamp *string `json:"deletionTimestamp"`
		} `json:"metadata"`
		Spec struct {
			Finalizers []corev1.FinalizerName `json:"finalizers"`
		} `json:"spec"`
	}
	_ = json.Unmarshal(data, &ns)
	return ns.Metadata.DeletionTimestamp != nil && slices.Contains(ns.Spec.Finalizers, corev1.FinalizerKubernetes)
}
