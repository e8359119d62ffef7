package registry

import (
	"encoding/json"
	"errors"
	"sort"
	"strings"
	"sync/atomic"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource/tableconvertor"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/version"

	"github.com/fakeplane/fakeplane/crd"
	"github.com/fakeplane/fakeplane/internal/builtin"
	"github.com/fakeplane/fakeplane/store"
)

// CustomResourceDefinitions: a CRD write is validated with upstream's
// validation, and once committed its served versions become resources of
// the registry (routing, discovery, the OpenAPI index) in the same instant.
// Names are accepted and the CRD established at once (no 2 s delay).

// crdBucket is where CRDs are stored.
const crdBucket = "apiextensions.k8s.io/customresourcedefinitions"

// validateCRD defaults a CRD, records its storage version among the
// stored versions (upstream's PrepareForCreate and PrepareForUpdate) and
// runs upstream's create or update validation.
func (s *Registry) validateCRD(c *Request, o, old *Object) error {
	def, ok := o.Obj.(*apiextensionsv1.CustomResourceDefinition)
	if !ok {
		return nil
	}
	crd.Default(def)
	crd.RecordStorageVersion(def)
	var prev *apiextensionsv1.CustomResourceDefinition
	if old != nil {
		prev = old.Obj.(*apiextensionsv1.CustomResourceDefinition)
	}
	fe, err := crd.Validate(c.Context(), def, prev)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	if len(fe) > 0 {
		return apierrors.NewInvalid(c.Res.GVK.GroupKind(), def.Name, fe)
	}
	return nil
}

// crdStatus sets what upstream's naming and establishing controllers set,
// against the names the CRDs of the registry have accepted.
func (s *Registry) crdStatus(def *apiextensionsv1.CustomResourceDefinition, now metav1.Time) {
	crd.SetStatus(def, s.served.knownCRDs(), now)
}

// syncCRD brings the registry and the CRD's status in line with a committed
// CRD: its versions are served once established. A terminating CRD stays
// served as it was until controllers.CRDFinalizer has deleted its objects
// and let it go (forgetCRD). CRDs of the group waiting for names are looked
// at again.
func (s *Registry) syncCRD(crd *apiextensionsv1.CustomResourceDefinition) {
	if !s.shared {
		// With a shared store, ObserveStoreEvent serves it, in revision
		// order with every process's writes.
		s.serveCRD(crd)
	}
	if crd.DeletionTimestamp != nil {
		return
	}
	now := metav1.NewTime(s.now().Truncate(timePrecision))
	want := crd.DeepCopy()
	s.crdStatus(want, now)
	if equality.Semantic.DeepEqual(want.Status, crd.Status) {
		return
	}
	c := s.internalCall("apiextensions.k8s.io", "v1", "customresourcedefinitions", "", crd.Name, "update")
	c.Info.Subresource = "status"
	_, _, err := s.updateKey(c, crd.Name, crd.Name, internalWrite, false, func(old *Object) (*Object, error) {
		cur := old.Obj.(*apiextensionsv1.CustomResourceDefinition).DeepCopy()
		s.crdStatus(cur, now)
		o := &Object{Obj: cur, Meta: cur}
		c.Res.recordServerWrite("status", old.Obj, o)
		return o, nil
	})
	if err != nil && !apierrors.IsNotFound(err) {
		s.log.Warn("crd status", "crd", crd.Name, "err", err)
	}
	s.resyncWaitingCRDs(crd.Spec.Group, crd.Name)
}

// serveCRD serves a committed CRD as it now is, or marks it terminating.
func (s *Registry) serveCRD(crd *apiextensionsv1.CustomResourceDefinition) {
	if crd.DeletionTimestamp != nil {
		s.served.markTerminating(crd.Name, crd.UID)
		return
	}
	s.crdMu.Lock()
	s.served.setCRD(crd)
	s.crdMu.Unlock()
}

// resyncWaitingCRDs looks again at the CRDs of a group whose names were not
// all accepted, after a CRD of the group changed or went away.
func (s *Registry) resyncWaitingCRDs(group, except string) {
	for _, other := range s.served.knownCRDs() {
		if other.Spec.Group == group && other.Name != except && !apihelpers.IsCRDConditionTrue(other, apiextensionsv1.NamesAccepted) {
			s.syncCRD(other.DeepCopy())
		}
	}
}

// markCRDForDeletion is upstream's CRD delete (crd.MarkForDeletion), for
// the delete path's per-resource graceful deletion.
func markCRDForDeletion(def *apiextensionsv1.CustomResourceDefinition, now metav1.Time) {
	crd.MarkForDeletion(def, now)
}

// unserveDeletedCRD stops serving a CRD whose deletion is about to commit
// (controllers.CRDFinalizer removed its last finalizer, or a client did):
// it runs under the store's writer lock, before the deletion is visible,
// so that no client sees the CRD gone and its resources still served. A
// CRD served under another uid is a newer one, left alone.
func (s *Registry) unserveDeletedCRD(o *Object) {
	if def, ok := o.Obj.(*apiextensionsv1.CustomResourceDefinition); ok {
		s.served.removeCRDWithUID(def.Name, def.UID)
	}
}

// forgetCRD drops what the resources of a deleted CRD (data, its last
// state) still store (objects left when a client, not
// controllers.CRDFinalizer, removed the cleanup finalizer) and looks again at the CRDs of its
// group waiting for names. A new CRD served meanwhile under the same
// storage is left alone: crdMu orders this against serving it (syncCRD).
func (s *Registry) forgetCRD(name string, data []byte) {
	def := &apiextensionsv1.CustomResourceDefinition{}
	if err := json.Unmarshal(data, def); err != nil {
		s.log.Warn("crd deleted", "crd", name, "err", err)
		return
	}
	plural := def.Status.AcceptedNames.Plural
	if plural == "" {
		plural = def.Spec.Names.Plural
	}
	bucket := "crd:" + def.Spec.Group + "/" + plural
	s.crdMu.Lock()
	if !s.served.servesBucket(bucket) {
		if err := s.store.DeleteResource(bucket); err == nil {
			s.enc.forgetBucket(bucket)
		}
	}
	s.crdMu.Unlock()
	s.resyncWaitingCRDs(def.Spec.Group, name)
}

// loadCRDs serves the CRDs already in the store (after a restart).
func (s *Registry) loadCRDs() error {
	lst, err := s.store.List(crdBucket, store.ListOptions{})
	if err != nil {
		return err
	}
	for _, it := range lst.Items {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := json.Unmarshal(it.Value, crd); err != nil {
			return err
		}
		// A terminating one too: controllers.CRDFinalizer deletes its
		// objects through it.
		s.served.setCRD(crd)
	}
	return nil
}

// convGens numbers the converters of CRD resources (Resource.convGen).
var convGens atomic.Uint64

// crdResources builds the served resources of a CRD, one per served version.
func crdResources(def *apiextensionsv1.CustomResourceDefinition, webhookConv func(*apiextensionsv1.CustomResourceDefinition) (runtime.ObjectConvertor, error)) []*Resource {
	// Served under the names accepted for it, as upstream serves them.
	names := def.Status.AcceptedNames
	if names.Plural == "" {
		names = def.Spec.Names
	}
	storage := ""
	for _, v := range def.Spec.Versions {
		if v.Storage {
			storage = v.Name
		}
	}
	bucket := "crd:" + def.Spec.Group + "/" + names.Plural
	var out []*Resource
	managed := newCRDFieldManagers(def)
	var webhook runtime.ObjectConvertor
	if c := def.Spec.Conversion; c != nil && c.Strategy == apiextensionsv1.WebhookConverter && webhookConv != nil {
		var err error
		if webhook, err = webhookConv(def); err != nil {
			webhook = nil // validation refuses such CRDs; serve without conversion
		}
	}
	// The schema of every version: objects stored at a version that is no
	// longer served are read with its defaults.
	schemas := map[string]*crd.Schema{}
	for _, v := range def.Spec.Versions {
		sch, err := crd.NewSchema(v.Schema)
		if err != nil {
			sch = nil // validation of the CRD refuses such schemas; serve without one
		}
		schemas[v.Name] = sch
	}
	for _, v := range def.Spec.Versions {
		if !v.Served {
			continue
		}
		b := builtin.Resource{
			Group: def.Spec.Group, Version: v.Name, Resource: names.Plural, Kind: names.Kind,
			SingularName: names.Singular, Namespaced: def.Spec.Scope == apiextensionsv1.NamespaceScoped,
			ShortNames: names.ShortNames, Categories: names.Categories,
			Verbs:           []string{"delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"},
			StorageResource: def.Spec.Group + "/" + names.Plural, StorageVersion: def.Spec.Group + "/" + storage,
		}
		if v.Subresources != nil && v.Subresources.Status != nil {
			b.Subresources = append(b.Subresources, builtin.Subresource{Name: "status", Group: b.Group, Version: b.Version, Kind: names.Kind, Verbs: []string{"get", "patch", "update"}})
		}
		if v.Subresources != nil && v.Subresources.Scale != nil {
			b.Subresources = append(b.Subresources, builtin.Subresource{Name: "scale", Group: "autoscaling", Version: "v1", Kind: "Scale", Verbs: []string{"get", "patch", "update"}})
		}
		gvk := schema.GroupVersionKind{Group: b.Group, Version: b.Version, Kind: b.Kind}
		sch := schemas[v.Name]
		columns := v.AdditionalPrinterColumns
		if len(columns) == 0 {
			columns = []apiextensionsv1.CustomResourceColumnDefinition{{Name: "Age", Type: "date", Description: objectMetaDocs["creationTimestamp"], JSONPath: ".metadata.creationTimestamp"}}
		}
		table, err := tableconvertor.New(columns)
		if err != nil {
			table = nil // falls back to Name and Age, as upstream falls back to default printing
		}
		r := &Resource{
			Resource:          b,
			GVK:               gvk,
			GR:                schema.GroupResource{Group: b.Group, Resource: b.Resource},
			Bucket:            bucket,
			ListKind:          names.ListKind,
			generation:        true,
			conditionalUpdate: true,
			nameValid:         nameValidator(b.Group, b.Resource),
			subs:              map[string]builtin.Subresource{},
			CRD:               def.Name,
			schema:            sch,
			// apiextensions' strategies: update rules checked twice and
			// answered so, a status write keeping the stored metadata.
			repeatsMetaErrors:   true,
			statusKeepsMetadata: true,
			Table:               table,
			managed:             managed,
		}
		for _, sub := range b.Subresources {
			r.subs[sub.Name] = sub
		}
		if v.Subresources != nil && v.Subresources.Scale != nil {
			r.scalePaths = v.Subresources.Scale.DeepCopy()
			r.scaleTable = crdScaleTable(r.scalePaths)
		}
		if warning, deprecated := crd.DeprecationWarning(def.Spec, v); deprecated {
			r.Warnings = []string{warning}
		}
		selectable := sets.New("metadata.name", "metadata.namespace")
		for _, f := range v.SelectableFields {
			selectable.Insert(strings.TrimPrefix(f.JSONPath, "."))
		}
		r.convertField = func(label string) (string, bool) { return label, selectable.Has(label) }
		r.conv = crd.NewConverter(def, v.Name, webhook, schemas)
		r.convGen = convGens.Add(1)
		out = append(out, r)
	}
	return out
}

// setCRD records a CRD and serves (or re-serves) its versions when it is
// established; a CRD waiting for its names is known but not served.
func (g *ServedResources) setCRD(crd *apiextensionsv1.CustomResourceDefinition) {
	var rs []*Resource
	if apihelpers.IsCRDConditionTrue(crd, apiextensionsv1.Established) {
		rs = crdResources(crd, g.WebhookConverter)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.removeCRDLocked(crd.Name)
	for _, r := range rs {
		g.byGVR[schema.GroupVersionResource{Group: r.Group, Version: r.Version, Resource: r.Resource.Resource}] = r
	}
	g.byGVK = nil
	if len(rs) > 0 {
		g.crds[crd.Name] = rs
	}
	g.crdObjs[crd.Name] = crd.DeepCopy()
	if crd.DeletionTimestamp != nil || apihelpers.IsCRDConditionTrue(crd, apiextensionsv1.Terminating) {
		g.terminating[crd.Name] = true
	}
	g.rebuildGroupVersionsLocked()
}

// markTerminating records that CRD name (the one with uid) is being
// deleted: it stays served as it was, but its objects may not be created.
func (g *ServedResources) markTerminating(name string, uid types.UID) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if cur, ok := g.crdObjs[name]; ok && cur.UID == uid {
		g.terminating[name] = true
	}
}

// crdTerminating reports whether CRD name is being deleted.
func (g *ServedResources) crdTerminating(name string) bool {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.terminating[name]
}

// errCRDTerminating is kube-apiserver's answer to a create of a custom
// resource whose CRD is being deleted (its forbidCreateAdmission, which
// runs before the rest of admission).
func errCRDTerminating(c *Request, name string) error {
	return apierrors.NewForbidden(c.Res.GR, name, errors.New("create not allowed while custom resource definition is terminating"))
}

// knownCRDs returns every CRD recorded, served or not.
func (g *ServedResources) knownCRDs() []*apiextensionsv1.CustomResourceDefinition {
	g.mu.RLock()
	defer g.mu.RUnlock()
	out := make([]*apiextensionsv1.CustomResourceDefinition, 0, len(g.crdObjs))
	for _, crd := range g.crdObjs {
		out = append(out, crd)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// crdsServing returns the CRDs that serve a group/version.
func (g *ServedResources) CRDsServing(group, version string) []*apiextensionsv1.CustomResourceDefinition {
	g.mu.RLock()
	defer g.mu.RUnlock()
	var out []*apiextensionsv1.CustomResourceDefinition
	for name, rs := range g.crds {
		for _, r := range rs {
			if r.Group == group && r.Version == version {
				out = append(out, g.crdObjs[name])
				break
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func (g *ServedResources) removeCRDLocked(name string) {
	for _, r := range g.crds[name] {
		delete(g.byGVR, schema.GroupVersionResource{Group: r.Group, Version: r.Version, Resource: r.Resource.Resource})
	}
	g.byGVK = nil
	delete(g.crds, name)
	delete(g.crdObjs, name)
	delete(g.terminating, name)
}

// removeCRDWithUID stops serving CRD name if it is the one with uid.
func (g *ServedResources) removeCRDWithUID(name string, uid types.UID) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if cur, ok := g.crdObjs[name]; !ok || cur.UID != uid {
		return
	}
	g.removeCRDLocked(name)
	g.rebuildGroupVersionsLocked()
}

// servesBucket reports whether a served CRD stores its objects in bucket.
func (g *ServedResources) servesBucket(bucket string) bool {
	g.mu.RLock()
	defer g.mu.RUnlock()
	for _, rs := range g.crds {
		for _, r := range rs {
			if r.Bucket == bucket {
				return true
			}
		}
	}
	return false
}

// rebuildGroupVersionsLocked lists built-in group/versions first, then the
// groups of CRDs by name, each group's versions by Kubernetes version
// priority, as aggregated discovery orders them.
func (g *ServedResources) rebuildGroupVersionsLocked() {
	g.gen++
	out := append([]builtin.GroupVersion(nil), g.builtinGVs...)
	known := map[builtin.GroupVersion]bool{}
	for _, gv := range out {
		known[gv] = true
	}
	byGroup := map[string][]string{}
	for _, rs := range g.crds {
		for _, r := range rs {
			gv := builtin.GroupVersion{Group: r.Group, Version: r.Version}
			if known[gv] {
				continue
			}
			known[gv] = true
			byGroup[r.Group] = append(byGroup[r.Group], r.Version)
		}
	}
	groups := make([]string, 0, len(byGroup))
	for grp := range byGroup {
		groups = append(groups, grp)
	}
	sort.Strings(groups)
	for _, grp := range groups {
		vs := byGroup[grp]
		sort.Slice(vs, func(i, j int) bool { return version.CompareKubeAwareVersionStrings(vs[i], vs[j]) > 0 })
		for _, v := range vs {
			out = append(out, builtin.GroupVersion{Group: grp, Version: v})
		}
	}
	g.groupVersions = out
}

// AllCRDs returns the served CRDs by name.
func (g *ServedResources) AllCRDs() []*apiextensionsv1.CustomResourceDefinition {
	g.mu.RLock()
	defer g.mu.RUnlock()
	out := make([]*apiextensionsv1.CustomResourceDefinition, 0, len(g.crds))
	for name := range g.crds {
		out = append(out, g.crdObjs[name])
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
