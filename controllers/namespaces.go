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
// terminating namespace is deleted with background propagation; an object
// already marked for deletion is waited for. It writes as that controller's
// service account, kube-system/namespace-controller.
type NamespaceLifecycle struct {
	reg        registry.Interface
	namespaced NamespacedResourcesFunc
	log        *slog.Logger
	user       user.Info
	// terminating are the namespaces being deleted, by name, with the
	// number of objects they held at the last pass (-1 before the first).
	terminating map[string]int
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
		terminating: map[string]int{},
	}
}

// Name implements Controller.
func (c *NamespaceLifecycle) Name() string { return "namespace-controller" }

// Resources implements Controller.
func (c *NamespaceLifecycle) Resources() []string { return []string{namespacesBucket} }

// Sync implements Controller: every terminating namespace is emptied as far
// as it can be, and finalized once empty. While some still have content, it
// returns a Requeue.
func (c *NamespaceLifecycle) Sync(ctx context.Context, events []store.Event) error {
	for _, ev := range events {
		if ev.Type == store.Deleted || !terminating(ev.Value) {
			delete(c.terminating, ev.Key)
			continue
		}
		if _, ok := c.terminating[ev.Key]; !ok {
			c.terminating[ev.Key] = -1
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
	ctx = apirequest.WithUser(ctx, c.user)
	resources := c.namespaced()
	var errs []error
	changed, waiting := false, false
	for _, ns := range names {
		remaining, deleted, err := c.empty(ctx, ns, resources)
		if err != nil {
			errs = append(errs, fmt.Errorf("namespace %s: %w", ns, err))
		}
		if deleted > 0 || remaining != c.terminating[ns] {
			changed = true
		}
		c.terminating[ns] = remaining
		if remaining > 0 || err != nil {
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
// deletion yet. It returns how many objects ns held before (those deleted
// now included: gone or not, the next pass sees) and how many it deleted.
func (c *NamespaceLifecycle) empty(ctx context.Context, ns string, resources []schema.GroupVersionResource) (remaining, deleted int, err error) {
	var errs []error
	bg := metav1.DeletePropagationBackground
	for _, gvr := range resources {
		lst, err := c.reg.List(ctx, gvr, ns, metav1.ListOptions{})
		if apierrors.IsNotFound(err) || apierrors.IsMethodNotSupported(err) {
			continue // a CRD gone meanwhile, or a resource that cannot be listed
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("list %s: %w", gvr.GroupResource(), err))
			remaining++
			continue
		}
		items, err := meta.ExtractList(lst)
		if err != nil {
			errs = append(errs, fmt.Errorf("list %s: %w", gvr.GroupResource(), err))
			remaining++
			continue
		}
		for _, it := range items {
			remaining++
			m, err := meta.Accessor(it)
			if err != nil {
				continue
			}
			if m.GetDeletionTimestamp() != nil {
				continue // waiting for its finalizers
			}
			_, err = c.reg.Delete(ctx, gvr, ns, m.GetName(), metav1.DeleteOptions{PropagationPolicy: &bg})
			switch {
			case err == nil:
				deleted++
			case apierrors.IsNotFound(err):
			default:
				errs = append(errs, fmt.Errorf("delete %s %s/%s: %w", gvr.GroupResource(), ns, m.GetName(), err))
			}
		}
	}
	return remaining, deleted, errors.Join(errs...)
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
