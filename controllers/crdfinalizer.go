package controllers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"

	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
)

// crdsBucket is the store bucket of CustomResourceDefinitions.
const crdsBucket = "apiextensions.k8s.io/customresourcedefinitions"

var crdsGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// CRDFinalizer cleans up after a CustomResourceDefinition being deleted,
// as kube-apiserver's CRD finalizer does: it deletes every custom resource
// of the CRD, then removes the customresourcecleanup.apiextensions.k8s.io
// finalizer, which lets the CRD go (the server stops serving it then). An
// object that its own finalizers hold is marked for deletion and not
// waited for. It writes as kube-apiserver's loopback identity
// (system:apiserver).
type CRDFinalizer struct {
	reg  registry.Interface
	log  *slog.Logger
	user user.Info
	// pending are the CRDs to clean up, by name: the custom resources
	// they serve.
	pending map[string]schema.GroupVersionResource
}

// NewCRDFinalizer returns the CRD finalizer, writing through reg and
// logging to log (nil: slog.Default()).
func NewCRDFinalizer(reg registry.Interface, log *slog.Logger) *CRDFinalizer {
	if log == nil {
		log = slog.Default()
	}
	return &CRDFinalizer{
		reg:     reg,
		log:     log,
		user:    &user.DefaultInfo{Name: user.APIServerUser, Groups: []string{user.SystemPrivilegedGroup}},
		pending: map[string]schema.GroupVersionResource{},
	}
}

// Name implements Controller.
func (c *CRDFinalizer) Name() string { return "crd-finalizer" }

// Resources implements Controller.
func (c *CRDFinalizer) Resources() []string { return []string{crdsBucket} }

// Sync implements Controller: every CRD marked for deletion and held by the
// cleanup finalizer has its custom resources deleted and then the
// finalizer removed.
func (c *CRDFinalizer) Sync(ctx context.Context, events []store.Event) error {
	for _, ev := range events {
		if ev.Type == store.Deleted {
			delete(c.pending, ev.Key)
			continue
		}
		var def apiextensionsv1.CustomResourceDefinition
		if err := json.Unmarshal(ev.Value, &def); err != nil {
			c.log.Warn("undecodable CRD", "crd", ev.Key, "err", err)
			continue
		}
		if def.DeletionTimestamp == nil || !slices.Contains(def.Finalizers, apiextensionsv1.CustomResourceCleanupFinalizer) {
			delete(c.pending, ev.Key)
			continue
		}
		c.pending[ev.Key] = servedResource(&def)
	}
	if len(c.pending) == 0 {
		return nil
	}
	ctx = apirequest.WithUser(ctx, c.user)
	names := make([]string, 0, len(c.pending))
	for name := range c.pending {
		names = append(names, name)
	}
	slices.Sort(names)
	var errs []error
	for _, name := range names {
		if ctx.Err() != nil {
			return ctx.Err() // resumed at the next start
		}
		if err := c.deleteInstances(ctx, c.pending[name]); err != nil {
			errs = append(errs, fmt.Errorf("crd %s: %w", name, err))
			continue
		}
		if err := c.removeFinalizer(ctx, name); err != nil {
			errs = append(errs, fmt.Errorf("crd %s: %w", name, err))
			continue
		}
		delete(c.pending, name)
		c.log.Debug("custom resources deleted and CRD finalized", "crd", name)
	}
	return errors.Join(errs...)
}

// servedResource is the resource a CRD's objects are read and deleted
// through: its accepted plural, at its storage version when served (no
// conversion needed), else at its first served version.
func servedResource(def *apiextensionsv1.CustomResourceDefinition) schema.GroupVersionResource {
	plural := def.Status.AcceptedNames.Plural
	if plural == "" {
		plural = def.Spec.Names.Plural
	}
	version := ""
	for _, v := range def.Spec.Versions {
		if v.Served && (version == "" || v.Storage) {
			version = v.Name
		}
	}
	return schema.GroupVersionResource{Group: def.Spec.Group, Version: version, Resource: plural}
}

// deleteInstances deletes every object of gvr, in every namespace. A
// resource that is not served (a CRD never established) has none.
func (c *CRDFinalizer) deleteInstances(ctx context.Context, gvr schema.GroupVersionResource) error {
	lst, err := c.reg.List(ctx, gvr, "", metav1.ListOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("list %s: %w", gvr.GroupResource(), err)
	}
	items, err := meta.ExtractList(lst)
	if err != nil {
		return fmt.Errorf("list %s: %w", gvr.GroupResource(), err)
	}
	var errs []error
	for _, it := range items {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		m, err := meta.Accessor(it)
		if err != nil || m.GetDeletionTimestamp() != nil {
			continue
		}
		_, err = c.reg.Delete(ctx, gvr, m.GetNamespace(), m.GetName(), metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("delete %s %s/%s: %w", gvr.GroupResource(), m.GetNamespace(), m.GetName(), err))
		}
	}
	return errors.Join(errs...)
}

// removeFinalizer removes the cleanup finalizer from CRD name.
func (c *CRDFinalizer) removeFinalizer(ctx context.Context, name string) error {
	_, err := c.reg.Update(ctx, crdsGVR, "", name, func(cur runtime.Object) (runtime.Object, error) {
		def, ok := cur.(*apiextensionsv1.CustomResourceDefinition)
		if !ok {
			return nil, fmt.Errorf("the registry answered with a %T", cur)
		}
		def.Finalizers = slices.DeleteFunc(def.Finalizers, func(f string) bool { return f == apiextensionsv1.CustomResourceCleanupFinalizer })
		return def, nil
	})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("remove finalizer: %w", err)
	}
	return nil
}
