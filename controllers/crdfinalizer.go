package controllers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"

	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
)

// crdsBucket is the store bucket of CustomResourceDefinitions.
const crdsBucket = "apiextensions.k8s.io/customresourcedefinitions"

var crdsGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// CRDFinalizer cleans up after a CustomResourceDefinition being deleted,
// as kube-apiserver's CRD finalizer does: it sets the CRD's Terminating
// condition to InstanceDeletionInProgress, deletes every custom resource
// of the CRD, waits until none is left (objects that their own finalizers
// hold are waited for), then sets Terminating to InstanceDeletionCompleted
// and removes the customresourcecleanup.apiextensions.k8s.io finalizer,
// which lets the CRD go (the server stops serving it then). A CRD never
// established has no objects: Terminating says NeverEstablished and the
// finalizer goes at once. Failures are reported in the condition as
// upstream reports them (InstanceDeletionFailed) and retried; a wait that
// lasts longer than upstream's (a minute) is reported as
// InstanceDeletionCheck and starts over, as upstream's does.
//
// Upstream polls the remaining objects every 5 seconds; this one polls
// every PollInterval, as fakeplane establishes CRDs at once rather than
// after upstream's delay. It writes as kube-apiserver's loopback identity
// (system:apiserver).
type CRDFinalizer struct {
	reg  registry.Interface
	log  *slog.Logger
	user user.Info
	now  func() time.Time
	// PollInterval is the wait between two looks at the objects left.
	PollInterval time.Duration
	// StartDelay is how long it waits, after it reports
	// InstanceDeletionInProgress, before it deletes the custom resources,
	// as kube-apiserver's finalizer takes a while to get there through its
	// loopback client and the custom resources' storage. Against
	// kube-apiserver v1.37 the condition said InstanceDeletionInProgress
	// for about 10 ms (a CRD whose objects were read before) to 100 ms (one
	// whose storage was never built); clients see Terminating True in that
	// while, and upstream's TestApplyCRDuringCRDFinalization waits for it.
	// Longer is not better: clients that delete a CRD and create it again
	// soon after (controller-runtime's TestApiMachinery) find it still
	// there.
	StartDelay time.Duration
	// pending are the CRDs to clean up, by name.
	pending map[string]*crdCleanup
}

// crdCleanup is the cleanup of one CRD.
type crdCleanup struct {
	// gvr is the custom resource its objects are read and deleted through.
	gvr schema.GroupVersionResource
	// established: the CRD was served, it may have objects.
	established bool
	// since is when the current round (deletes, then the wait) started;
	// zero before the first.
	since time.Time
	// deleteAt is when the first round's deletes may start (StartDelay
	// after it reported InstanceDeletionInProgress).
	deleteAt time.Time
}

// crdStartDelay is CRDFinalizer.StartDelay's default.
const crdStartDelay = 20 * time.Millisecond

// crdInstanceWait is how long upstream waits for the objects to go before
// it reports InstanceDeletionCheck and starts over.
const crdInstanceWait = time.Minute

// NewCRDFinalizer returns the CRD finalizer, writing through reg and
// logging to log (nil: slog.Default()).
func NewCRDFinalizer(reg registry.Interface, log *slog.Logger) *CRDFinalizer {
	if log == nil {
		log = slog.Default()
	}
	return &CRDFinalizer{
		reg:          reg,
		log:          log,
		user:         apiserverUser(),
		now:          time.Now,
		PollInterval: 200 * time.Millisecond,
		StartDelay:   crdStartDelay,
		pending:      map[string]*crdCleanup{},
	}
}

// Name implements Controller.
func (c *CRDFinalizer) Name() string { return "crd-finalizer" }

// Resources implements Controller.
func (c *CRDFinalizer) Resources() []string { return []string{crdsBucket} }

// Sync implements Controller: every CRD marked for deletion and held by the
// cleanup finalizer has its custom resources deleted and, once they are
// all gone, the finalizer removed. While objects are left it asks to be
// called again (Requeue).
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
		p := c.pending[ev.Key]
		if p == nil {
			p = &crdCleanup{}
			c.pending[ev.Key] = p
		}
		p.gvr = servedResource(&def)
		p.established = apihelpers.IsCRDConditionTrue(&def, apiextensionsv1.Established)
	}
	if len(c.pending) == 0 {
		return nil
	}
	// apiextensions-apiserver writes through its loopback client: manager kube-apiserver.
	ctx = registry.WithFieldManager(apirequest.WithUser(ctx, c.user), "kube-apiserver")
	names := make([]string, 0, len(c.pending))
	for name := range c.pending {
		names = append(names, name)
	}
	slices.Sort(names)
	var errs []error
	waiting := false
	next := c.PollInterval // until the next look
	for _, name := range names {
		if ctx.Err() != nil {
			return ctx.Err() // resumed at the next start
		}
		done, err := c.cleanup(ctx, name, c.pending[name])
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("crd %s: %w", name, err))
		case done:
			delete(c.pending, name)
			c.log.Debug("custom resources deleted and CRD finalized", "crd", name)
		default:
			waiting = true
			if p := c.pending[name]; p != nil {
				if d := p.deleteAt.Sub(c.now()); d > 0 && d < next {
					next = d
				}
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if waiting {
		return &Requeue{After: next}
	}
	return nil
}

// cleanup takes the cleanup of CRD name one step further, and reports
// whether it is done (the finalizer removed, or the CRD gone).
func (c *CRDFinalizer) cleanup(ctx context.Context, name string, p *crdCleanup) (bool, error) {
	if p.since.IsZero() {
		// This cleanup could take a while: say so first.
		gone, err := c.setCondition(ctx, name, apiextensionsv1.ConditionTrue, "InstanceDeletionInProgress", "CustomResource deletion is in progress")
		if gone || err != nil {
			return gone, err
		}
		p.since = c.now()
		if p.deleteAt.IsZero() {
			p.deleteAt = p.since.Add(c.StartDelay)
		}
	}
	if !p.established {
		return c.finalize(ctx, name, apiextensionsv1.ConditionFalse, "NeverEstablished", "resource was never established")
	}
	if c.now().Before(p.deleteAt) {
		return false, nil
	}
	items, err := c.instances(ctx, p.gvr)
	if err != nil {
		err = fmt.Errorf("could not list instances: %w", err)
		return c.failed(ctx, name, p, "InstanceDeletionFailed", err)
	}
	if err := c.deleteInstances(ctx, p.gvr, items); err != nil {
		return c.failed(ctx, name, p, "InstanceDeletionFailed", fmt.Errorf("could not issue all deletes: %w", err))
	}
	left, err := c.instances(ctx, p.gvr)
	if err != nil {
		return c.failed(ctx, name, p, "InstanceDeletionCheck", fmt.Errorf("could not confirm zero CustomResources remaining: %w", err))
	}
	if len(left) == 0 {
		return c.finalize(ctx, name, apiextensionsv1.ConditionFalse, "InstanceDeletionCompleted", "removed all instances")
	}
	if c.now().Sub(p.since) >= crdInstanceWait {
		c.log.Debug("custom resources still there", "crd", name, "count", len(left))
		return c.failed(ctx, name, p, "InstanceDeletionCheck", fmt.Errorf("could not confirm zero CustomResources remaining: %w", context.DeadlineExceeded))
	}
	return false, nil
}

// failed reports a failed round in the Terminating condition, as upstream
// does, and returns err: the next round starts over.
func (c *CRDFinalizer) failed(ctx context.Context, name string, p *crdCleanup, reason string, err error) (bool, error) {
	p.since = time.Time{}
	gone, werr := c.setCondition(ctx, name, apiextensionsv1.ConditionTrue, reason, err.Error())
	if gone {
		return true, nil
	}
	return false, errors.Join(err, werr)
}

// instances lists the objects of gvr, in every namespace. A resource that
// is not served (any more) has none.
func (c *CRDFinalizer) instances(ctx context.Context, gvr schema.GroupVersionResource) ([]runtime.Object, error) {
	lst, err := c.reg.List(ctx, gvr, "", metav1.ListOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return meta.ExtractList(lst)
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

// deleteInstances deletes the objects of gvr that are not being deleted
// already.
func (c *CRDFinalizer) deleteInstances(ctx context.Context, gvr schema.GroupVersionResource, items []runtime.Object) error {
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
	return utilerrors.NewAggregate(errs)
}

// setCondition sets the Terminating condition of CRD name through its
// status, as upstream's UpdateStatus does; gone reports a CRD that is not
// there any more.
func (c *CRDFinalizer) setCondition(ctx context.Context, name string, status apiextensionsv1.ConditionStatus, reason, message string) (gone bool, err error) {
	_, err = c.reg.UpdateSubresource(ctx, crdsGVR, "status", "", name, func(cur runtime.Object) (runtime.Object, error) {
		def, ok := cur.(*apiextensionsv1.CustomResourceDefinition)
		if !ok {
			return nil, fmt.Errorf("the registry answered with a %T", cur)
		}
		apihelpers.SetCRDCondition(def, apiextensionsv1.CustomResourceDefinitionCondition{
			Type: apiextensionsv1.Terminating, Status: status, Reason: reason, Message: message,
		})
		return def, nil
	})
	if apierrors.IsNotFound(err) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("set the Terminating condition: %w", err)
	}
	return false, nil
}

// finalize sets the final Terminating condition and removes the cleanup
// finalizer from CRD name, which upstream does in one status write: here
// the status goes first, then the finalizer, through the main resource.
func (c *CRDFinalizer) finalize(ctx context.Context, name string, status apiextensionsv1.ConditionStatus, reason, message string) (bool, error) {
	if gone, err := c.setCondition(ctx, name, status, reason, message); gone || err != nil {
		return gone, err
	}
	_, err := c.reg.Update(ctx, crdsGVR, "", name, func(cur runtime.Object) (runtime.Object, error) {
		def, ok := cur.(*apiextensionsv1.CustomResourceDefinition)
		if !ok {
			return nil, fmt.Errorf("the registry answered with a %T", cur)
		}
		def.Finalizers = slices.DeleteFunc(def.Finalizers, func(f string) bool { return f == apiextensionsv1.CustomResourceCleanupFinalizer })
		return def, nil
	})
	if err != nil && !apierrors.IsNotFound(err) {
		return false, fmt.Errorf("remove finalizer: %w", err)
	}
	return true, nil
}
