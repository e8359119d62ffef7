package aggregator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	"github.com/fakeplane/fakeplane/controllers"
	"github.com/fakeplane/fakeplane/internal/builtin"
	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
)

// kube-apiserver's CRD autoregistration (its crdRegistrationController and
// the aggregator's autoregister controller together): every group/version
// a CRD serves has a local APIService "<version>.<group>", labelled
// automanaged=true, with group priority 1000 and version priority 100; it
// is removed when no CRD serves that group/version any more. An APIService
// of that name that someone else made (no automanaged label) is left
// alone. The built-in groups' APIServices come with the bootstrap objects
// (automanaged=onstart) and are not this controller's.

// Store buckets the controller watches.
const (
	crdBucket        = "apiextensions.k8s.io/customresourcedefinitions"
	apiServiceBucket = "apiregistration.k8s.io/apiservices"
)

const (
	// automanagedLabel marks the APIServices the aggregator manages.
	automanagedLabel = "kube-aggregator.kubernetes.io/automanaged"
	// automanagedContinuously is its value for those kept in sync with CRDs.
	automanagedContinuously = "true"
	// crdGroupPriority and crdVersionPriority are what upstream gives CRD
	// group/versions ("CRDs should have relatively low priority").
	crdGroupPriority   = 1000
	crdVersionPriority = 100
)

var _ controllers.Controller = (*CRDAutoRegistration)(nil)

var apiServicesGVR = schema.GroupVersionResource{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"}

// CRDAutoRegistration keeps a local APIService for every group/version
// that a CustomResourceDefinition serves, as kube-apiserver's CRD
// autoregistration does. It writes as kube-apiserver's loopback identity
// (system:apiserver) under the field manager "kube-apiserver".
type CRDAutoRegistration struct {
	reg  registry.Interface
	log  *slog.Logger
	user user.Info
	// crds is what each CRD (by name) serves.
	crds map[string]crdServing
	// services are the stored APIServices, by name.
	services map[string]*apiregistrationv1.APIService
	// dirty are the groups to reconcile.
	dirty map[string]bool
}

// crdServing is the part of a CRD the controller looks at.
type crdServing struct {
	group    string
	versions []string // the served ones
}

// NewCRDAutoRegistration returns the CRD APIService autoregistration
// controller, writing through reg and logging to log.
func NewCRDAutoRegistration(reg registry.Interface, log *slog.Logger) *CRDAutoRegistration {
	return &CRDAutoRegistration{
		reg:      reg,
		log:      log,
		user:     &user.DefaultInfo{Name: user.APIServerUser, Groups: []string{user.SystemPrivilegedGroup}},
		crds:     map[string]crdServing{},
		services: map[string]*apiregistrationv1.APIService{},
		dirty:    map[string]bool{},
	}
}

// Name implements controllers.Controller.
func (c *CRDAutoRegistration) Name() string { return "crd-autoregister" }

// Resources implements controllers.Controller: CRDs, and APIServices so
// that a deleted or changed automanaged one is put back.
func (c *CRDAutoRegistration) Resources() []string {
	return []string{crdBucket, apiServiceBucket}
}

// Sync implements controllers.Controller.
func (c *CRDAutoRegistration) Sync(ctx context.Context, events []store.Event) error {
	for _, ev := range events {
		switch ev.Resource {
		case crdBucket:
			c.observeCRD(ev)
		case apiServiceBucket:
			c.observeAPIService(ev)
		}
	}
	groups := make([]string, 0, len(c.dirty))
	for g := range c.dirty {
		groups = append(groups, g)
	}
	sort.Strings(groups)
	ctx = registry.WithFieldManager(apirequest.WithUser(ctx, c.user), "kube-apiserver")
	var errs []error
	for _, g := range groups {
		if err := c.reconcile(ctx, g); err != nil {
			errs = append(errs, fmt.Errorf("group %s: %w", g, err))
			continue
		}
		delete(c.dirty, g)
	}
	return errors.Join(errs...)
}

// observeCRD records what a CRD serves and marks its group dirty.
func (c *CRDAutoRegistration) observeCRD(ev store.Event) {
	if old, ok := c.crds[ev.Key]; ok {
		c.dirty[old.group] = true
	}
	if ev.Type == store.Deleted {
		delete(c.crds, ev.Key)
		return
	}
	var crd struct {
		Spec struct {
			Group    string `json:"group"`
			Versions []struct {
				Name   string `json:"name"`
				Served bool   `json:"served"`
			} `json:"versions"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(ev.Value, &crd); err != nil {
		c.log.Error("decode CustomResourceDefinition", "key", ev.Key, "revision", ev.Revision, "err", err)
		delete(c.crds, ev.Key)
		return
	}
	s := crdServing{group: crd.Spec.Group}
	for _, v := range crd.Spec.Versions {
		if v.Served {
			s.versions = append(s.versions, v.Name)
		}
	}
	c.crds[ev.Key] = s
	c.dirty[s.group] = true
}

// observeAPIService records a stored APIService and marks its group dirty.
// Those of built-in groups are not the controller's (reconcile leaves their
// groups alone): it neither decodes nor keeps them. An APIService's name is
// its version.group (validation holds it to that), so their key says it.
func (c *CRDAutoRegistration) observeAPIService(ev store.Event) {
	if _, group, _ := strings.Cut(ev.Key, "."); isBuiltinGroup(group) {
		return
	}
	if old, ok := c.services[ev.Key]; ok {
		c.dirty[old.Spec.Group] = true
	}
	if ev.Type == store.Deleted {
		delete(c.services, ev.Key)
		return
	}
	as := &apiregistrationv1.APIService{}
	if err := registry.DecodeWithoutManagedFields(ev.Value, as); err != nil {
		c.log.Error("decode APIService", "key", ev.Key, "revision", ev.Revision, "err", err)
		delete(c.services, ev.Key)
		return
	}
	c.services[ev.Key] = as
	c.dirty[as.Spec.Group] = true
}

// reconcile creates, corrects or deletes the automanaged APIServices of a
// group.
func (c *CRDAutoRegistration) reconcile(ctx context.Context, group string) error {
	if group == "" || isBuiltinGroup(group) {
		return nil
	}
	want := map[string]apiregistrationv1.APIServiceSpec{}
	for _, crd := range c.crds {
		if crd.group != group {
			continue
		}
		for _, v := range crd.versions {
			want[v+"."+group] = apiregistrationv1.APIServiceSpec{
				Group: group, Version: v, GroupPriorityMinimum: crdGroupPriority, VersionPriority: crdVersionPriority,
			}
		}
	}
	var errs []error
	for name, spec := range want {
		cur, ok := c.services[name]
		switch {
		case !ok:
			errs = append(errs, c.create(ctx, name, spec))
		case cur.Labels[automanagedLabel] != automanagedContinuously:
			// Not ours (made by hand, or a built-in's): left alone.
		case !equality.Semantic.DeepEqual(cur.Spec, spec):
			errs = append(errs, c.update(ctx, name, spec))
		}
	}
	for name, cur := range c.services {
		if cur.Spec.Group != group || cur.Labels[automanagedLabel] != automanagedContinuously {
			continue
		}
		if _, ok := want[name]; !ok {
			errs = append(errs, c.delete(ctx, cur))
		}
	}
	return errors.Join(errs...)
}

func (c *CRDAutoRegistration) create(ctx context.Context, name string, spec apiregistrationv1.APIServiceSpec) error {
	_, err := c.reg.Create(ctx, apiServicesGVR, &apiregistrationv1.APIService{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{automanagedLabel: automanagedContinuously}},
		Spec:       spec,
	})
	if err != nil && !apierrors.IsAlreadyExists(err) { // then its event is on the way
		return fmt.Errorf("create APIService %s: %w", name, err)
	}
	return nil
}

func (c *CRDAutoRegistration) update(ctx context.Context, name string, spec apiregistrationv1.APIServiceSpec) error {
	_, err := c.reg.Update(ctx, apiServicesGVR, "", name, func(cur runtime.Object) (runtime.Object, error) {
		as := cur.(*apiregistrationv1.APIService)
		as.Spec = spec
		return as, nil
	})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("update APIService %s: %w", name, err)
	}
	return nil
}

// delete deletes an automanaged APIService as it was last seen: if it
// changed since, the change's event decides again.
func (c *CRDAutoRegistration) delete(ctx context.Context, as *apiregistrationv1.APIService) error {
	uid, rv := as.UID, as.ResourceVersion
	_, err := c.reg.Delete(ctx, apiServicesGVR, "", as.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid, ResourceVersion: &rv}})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return fmt.Errorf("delete APIService %s: %w", as.Name, err)
	}
	return nil
}

// isBuiltinGroup reports whether the control plane serves group itself
// (the core group "" too).
func isBuiltinGroup(group string) bool { return builtin.PreferredVersion(group) != "" }
