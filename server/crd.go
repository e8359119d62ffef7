package server

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsinstall "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/install"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource/tableconvertor"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/version"

	"github.com/fakeplane/fakeplane/internal/builtin"
	"github.com/fakeplane/fakeplane/store"
)

// CustomResourceDefinitions: a CRD write is validated with upstream's
// validation, and once committed its served versions become resources of
// the registry (routing, discovery, the OpenAPI index) in the same instant.
// Names are accepted and the CRD established at once (no 2 s delay).

// crdBucket is where CRDs are stored.
const crdBucket = "apiextensions.k8s.io/customresourcedefinitions"

// crdScheme converts CRDs between v1 and the internal version that
// upstream's validation takes. Built once, read afterwards.
var crdScheme = sync.OnceValue(func() *runtime.Scheme {
	s := runtime.NewScheme()
	apiextensionsinstall.Install(s)
	return s
})

// validateCRD defaults a CRD and runs upstream's create or update validation.
func (s *Server) validateCRD(c *call, o, old *object) error {
	crd, ok := o.obj.(*apiextensionsv1.CustomResourceDefinition)
	if !ok {
		return nil
	}
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(crd)
	internal := &apiextensions.CustomResourceDefinition{}
	if err := crdScheme().Convert(crd, internal, nil); err != nil {
		return apierrors.NewInternalError(err)
	}
	ctx := c.ctx()
	if old == nil {
		fe := apiextensionsvalidation.ValidateCustomResourceDefinition(ctx, internal)
		if len(fe) > 0 {
			return apierrors.NewInvalid(c.res.gvk.GroupKind(), crd.Name, fe)
		}
		return nil
	}
	oldInternal := &apiextensions.CustomResourceDefinition{}
	if err := crdScheme().Convert(old.obj, oldInternal, nil); err != nil {
		return apierrors.NewInternalError(err)
	}
	if fe := apiextensionsvalidation.ValidateCustomResourceDefinitionUpdate(ctx, internal, oldInternal); len(fe) > 0 {
		return apierrors.NewInvalid(c.res.gvk.GroupKind(), crd.Name, fe)
	}
	return nil
}

// crdStatus sets what upstream's naming and establishing controllers set:
// accepted names (each requested name unless another CRD of the group has
// accepted it), NamesAccepted and Established conditions, stored versions.
// A CRD whose names are not all accepted is not established (and not
// served) until they are; once established it stays so.
func (s *Server) crdStatus(crd *apiextensionsv1.CustomResourceDefinition, now metav1.Time) {
	names, namesCond := s.registry.acceptNames(crd)
	crd.Status.AcceptedNames = names
	established := apiextensionsv1.CustomResourceDefinitionCondition{
		Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionFalse, Reason: "NotAccepted", Message: "not all names are accepted",
	}
	if old := apihelpers.FindCRDCondition(crd, apiextensionsv1.Established); old != nil {
		established = *old
	}
	if established.Status != apiextensionsv1.ConditionTrue && namesCond.Status == apiextensionsv1.ConditionTrue {
		established = apiextensionsv1.CustomResourceDefinitionCondition{
			Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionTrue, Reason: "InitialNamesAccepted", Message: "the initial names have been accepted",
		}
	}
	for _, cond := range []apiextensionsv1.CustomResourceDefinitionCondition{namesCond, established} {
		if existing := apihelpers.FindCRDCondition(crd, cond.Type); existing != nil && existing.Status == cond.Status && existing.Reason == cond.Reason && existing.Message == cond.Message {
			continue
		}
		cond.LastTransitionTime = now
		apihelpers.SetCRDCondition(crd, cond)
	}
	for _, v := range crd.Spec.Versions {
		if v.Storage && !sets.New(crd.Status.StoredVersions...).Has(v.Name) {
			crd.Status.StoredVersions = append(crd.Status.StoredVersions, v.Name)
		}
	}
}

// acceptNames is upstream's naming decision for a CRD against the names the
// CRDs of its group have accepted.
func (g *registry) acceptNames(crd *apiextensionsv1.CustomResourceDefinition) (apiextensionsv1.CustomResourceDefinitionNames, apiextensionsv1.CustomResourceDefinitionCondition) {
	resources, kinds := sets.New[string](), sets.New[string]()
	g.mu.RLock()
	for _, other := range g.crdObjs {
		if other.Spec.Group != crd.Spec.Group {
			continue
		}
		an := other.Status.AcceptedNames
		resources.Insert(an.Plural, an.Singular)
		resources.Insert(an.ShortNames...)
		kinds.Insert(an.Kind, an.ListKind)
	}
	g.mu.RUnlock()
	cond := apiextensionsv1.CustomResourceDefinitionCondition{Type: apiextensionsv1.NamesAccepted, Status: apiextensionsv1.ConditionUnknown}
	conflict := func(reason string, err error) {
		cond.Status, cond.Reason, cond.Message = apiextensionsv1.ConditionFalse, reason, err.Error()
	}
	requested, accepted := crd.Spec.Names, crd.Status.AcceptedNames
	out := accepted
	if err := freshName(requested.Plural, accepted.Plural, resources); err != nil {
		conflict("PluralConflict", err)
	} else {
		out.Plural = requested.Plural
	}
	if err := freshName(requested.Singular, accepted.Singular, resources); err != nil {
		conflict("SingularConflict", err)
	} else {
		out.Singular = requested.Singular
	}
	if !slices.Equal(requested.ShortNames, accepted.ShortNames) {
		var errs []error
		mine := sets.New(accepted.ShortNames...)
		for _, sn := range requested.ShortNames {
			if mine.Has(sn) {
				continue
			}
			if err := freshName(sn, "", resources); err != nil {
				errs = append(errs, err)
			}
		}
		if err := utilerrors.NewAggregate(errs); err != nil {
			conflict("ShortNamesConflict", err)
		} else {
			out.ShortNames = requested.ShortNames
		}
	}
	if err := freshName(requested.Kind, accepted.Kind, kinds); err != nil {
		conflict("KindConflict", err)
	} else {
		out.Kind = requested.Kind
	}
	if err := freshName(requested.ListKind, accepted.ListKind, kinds); err != nil {
		conflict("ListKindConflict", err)
	} else {
		out.ListKind = requested.ListKind
	}
	out.Categories = requested.Categories
	if cond.Status == apiextensionsv1.ConditionUnknown {
		cond.Status, cond.Reason, cond.Message = apiextensionsv1.ConditionTrue, "NoConflicts", "no conflicts found"
	}
	return out, cond
}

// freshName accepts a requested name that is already the CRD's own or that
// no CRD of the group has taken.
func freshName(requested, accepted string, used sets.Set[string]) error {
	if requested == accepted || !used.Has(requested) {
		return nil
	}
	return fmt.Errorf("%q is already in use", requested)
}

// syncCRD brings the registry and the CRD's status in line with a committed
// CRD: its versions are served once established, and a terminating CRD is
// cleaned up. CRDs of the group waiting for names are looked at again.
func (s *Server) syncCRD(crd *apiextensionsv1.CustomResourceDefinition) {
	if crd.DeletionTimestamp != nil {
		s.spawn(func() { s.cleanupCRD(crd.Name) })
		return
	}
	s.registry.setCRD(crd)
	now := metav1.NewTime(s.now().Truncate(timePrecision))
	want := crd.DeepCopy()
	s.crdStatus(want, now)
	if equality.Semantic.DeepEqual(want.Status, crd.Status) {
		return
	}
	c := s.internalCall("apiextensions.k8s.io", "v1", "customresourcedefinitions", "", crd.Name, "update")
	c.info.Subresource = "status"
	_, _, err := s.updateKey(c, crd.Name, crd.Name, internalWrite, false, func(old *object) (*object, error) {
		cur := old.obj.(*apiextensionsv1.CustomResourceDefinition).DeepCopy()
		s.crdStatus(cur, now)
		o := &object{obj: cur, meta: cur}
		c.res.recordServerWrite("status", old.obj, o)
		return o, nil
	})
	if err != nil && !apierrors.IsNotFound(err) {
		s.log.Warn("crd status", "crd", crd.Name, "err", err)
	}
	s.resyncWaitingCRDs(crd.Spec.Group, crd.Name)
}

// resyncWaitingCRDs looks again at the CRDs of a group whose names were not
// all accepted, after a CRD of the group changed or went away.
func (s *Server) resyncWaitingCRDs(group, except string) {
	for _, other := range s.registry.knownCRDs() {
		if other.Spec.Group == group && other.Name != except && !apihelpers.IsCRDConditionTrue(other, apiextensionsv1.NamesAccepted) {
			s.syncCRD(other.DeepCopy())
		}
	}
}

// markCRDForDeletion is upstream's CRD delete: the cleanup finalizer and a
// Terminating condition; the objects go first, then the CRD.
func markCRDForDeletion(crd *apiextensionsv1.CustomResourceDefinition, now metav1.Time) {
	if !apihelpers.CRDHasFinalizer(crd, apiextensionsv1.CustomResourceCleanupFinalizer) {
		crd.Finalizers = append(crd.Finalizers, apiextensionsv1.CustomResourceCleanupFinalizer)
	}
	apihelpers.SetCRDCondition(crd, apiextensionsv1.CustomResourceDefinitionCondition{
		Type: apiextensionsv1.Terminating, Status: apiextensionsv1.ConditionTrue, Reason: "InstanceDeletionPending",
		Message:            "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon",
		LastTransitionTime: now,
	})
}

// cleanupCRD deletes every object of a terminating CRD, stops serving it
// and removes the cleanup finalizer (which deletes the CRD).
func (s *Server) cleanupCRD(name string) {
	s.crdMu.Lock()
	defer s.crdMu.Unlock()
	rs := s.registry.crdResourcesOf(name)
	if len(rs) > 0 {
		res := rs[0]
		lst, err := s.store.List(res.bucket, store.ListOptions{})
		if err == nil {
			for _, it := range lst.Items {
				select {
				case <-s.stopping: // resumed at the next start
					return
				default:
				}
				ns, name := "", it.Key
				if i := strings.IndexByte(it.Key, '/'); i >= 0 {
					ns, name = it.Key[:i], it.Key[i+1:]
				}
				c := s.internalCall("", "v1", "namespaces", ns, name, "delete")
				c.res = res
				_, _, _ = s.deleteObject(c, it.Key, name, &metav1.DeleteOptions{})
			}
		}
		_ = s.store.DeleteResource(res.bucket)
	}
	group := ""
	for _, crd := range s.registry.knownCRDs() {
		if crd.Name == name {
			group = crd.Spec.Group
		}
	}
	s.registry.removeCRD(name)
	defer s.resyncWaitingCRDs(group, name)
	c := s.internalCall("apiextensions.k8s.io", "v1", "customresourcedefinitions", "", name, "update")
	_, _, err := s.updateKey(c, name, name, internalWrite, false, func(old *object) (*object, error) {
		crd := old.obj.(*apiextensionsv1.CustomResourceDefinition).DeepCopy()
		var keep []string
		for _, f := range crd.Finalizers {
			if f != apiextensionsv1.CustomResourceCleanupFinalizer {
				keep = append(keep, f)
			}
		}
		crd.Finalizers = keep
		return &object{obj: crd, meta: crd}, nil
	})
	if err != nil && !apierrors.IsNotFound(err) {
		s.log.Warn("crd cleanup", "crd", name, "err", err)
	}
}

// loadCRDs serves the CRDs already in the store (after a restart).
func (s *Server) loadCRDs() error {
	lst, err := s.store.List(crdBucket, store.ListOptions{})
	if err != nil {
		return err
	}
	for _, it := range lst.Items {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := json.Unmarshal(it.Value, crd); err != nil {
			return err
		}
		if crd.DeletionTimestamp == nil {
			s.registry.setCRD(crd)
		} else {
			s.spawn(func() { s.cleanupCRD(crd.Name) })
		}
	}
	return nil
}

// crdResources builds the served resources of a CRD, one per served version.
func crdResources(crd *apiextensionsv1.CustomResourceDefinition, webhookConv func(*apiextensionsv1.CustomResourceDefinition) (runtime.ObjectConvertor, error)) []*resource {
	// Served under the names accepted for it, as upstream serves them.
	names := crd.Status.AcceptedNames
	if names.Plural == "" {
		names = crd.Spec.Names
	}
	storage := ""
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			storage = v.Name
		}
	}
	bucket := "crd:" + crd.Spec.Group + "/" + names.Plural
	var out []*resource
	managed := newCRDFieldManagers(crd)
	var webhook runtime.ObjectConvertor
	if c := crd.Spec.Conversion; c != nil && c.Strategy == apiextensionsv1.WebhookConverter && webhookConv != nil {
		var err error
		if webhook, err = webhookConv(crd); err != nil {
			webhook = nil // validation refuses such CRDs; serve without conversion
		}
	}
	for _, v := range crd.Spec.Versions {
		if !v.Served {
			continue
		}
		b := builtin.Resource{
			Group: crd.Spec.Group, Version: v.Name, Resource: names.Plural, Kind: names.Kind,
			SingularName: names.Singular, Namespaced: crd.Spec.Scope == apiextensionsv1.NamespaceScoped,
			ShortNames: names.ShortNames, Categories: names.Categories,
			Verbs:           []string{"delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"},
			StorageResource: crd.Spec.Group + "/" + names.Plural, StorageVersion: crd.Spec.Group + "/" + storage,
		}
		if v.Subresources != nil && v.Subresources.Status != nil {
			b.Subresources = append(b.Subresources, builtin.Subresource{Name: "status", Group: b.Group, Version: b.Version, Kind: names.Kind, Verbs: []string{"get", "patch", "update"}})
		}
		if v.Subresources != nil && v.Subresources.Scale != nil {
			b.Subresources = append(b.Subresources, builtin.Subresource{Name: "scale", Group: "autoscaling", Version: "v1", Kind: "Scale", Verbs: []string{"get", "patch", "update"}})
		}
		gvk := schema.GroupVersionKind{Group: b.Group, Version: b.Version, Kind: b.Kind}
		sch, err := newCRDSchema(v.Schema)
		if err != nil {
			sch = nil // validation of the CRD refuses such schemas; serve without one
		}
		columns := v.AdditionalPrinterColumns
		if len(columns) == 0 {
			columns = []apiextensionsv1.CustomResourceColumnDefinition{{Name: "Age", Type: "date", Description: objectMetaDocs["creationTimestamp"], JSONPath: ".metadata.creationTimestamp"}}
		}
		table, err := tableconvertor.New(columns)
		if err != nil {
			table = nil // falls back to Name and Age, as upstream falls back to default printing
		}
		r := &resource{
			Resource:          b,
			gvk:               gvk,
			gr:                schema.GroupResource{Group: b.Group, Resource: b.Resource},
			bucket:            bucket,
			listKind:          names.ListKind,
			generation:        true,
			conditionalUpdate: true,
			nameValid:         nameValidator(b.Group, b.Resource),
			subs:              map[string]builtin.Subresource{},
			crd:               crd.Name,
			schema:            sch,
			table:             table,
			managed:           managed,
		}
		for _, sub := range b.Subresources {
			r.subs[sub.Name] = sub
		}
		if v.Subresources != nil && v.Subresources.Scale != nil {
			r.scalePaths = v.Subresources.Scale.DeepCopy()
		}
		if v.Deprecated {
			if v.DeprecationWarning != nil {
				r.warnings = []string{*v.DeprecationWarning}
			} else {
				r.warnings = []string{defaultDeprecationWarning(v.Name, crd.Spec)}
			}
		}
		selectable := sets.New("metadata.name", "metadata.namespace")
		for _, f := range v.SelectableFields {
			selectable.Insert(strings.TrimPrefix(f.JSONPath, "."))
		}
		r.convertField = func(label string) (string, bool) { return label, selectable.Has(label) }
		switch {
		case webhook != nil:
			r.conv = webhookConverter{conv: webhook, served: gvk.GroupVersion(), storage: schema.GroupVersion{Group: crd.Spec.Group, Version: storage}}
		case v.Name != storage:
			r.conv = apiVersionConverter{stored: crd.Spec.Group + "/" + storage, served: crd.Spec.Group + "/" + v.Name}
		}
		if sch != nil && hasDefaults(sch.structural) {
			r.conv = defaultingConverter{inner: r.conv, schema: sch}
		}
		out = append(out, r)
	}
	return out
}

// defaultDeprecationWarning is upstream's warning for a deprecated CRD
// version without its own: the newest served, not deprecated, newer
// version is suggested.
func defaultDeprecationWarning(deprecated string, spec apiextensionsv1.CustomResourceDefinitionSpec) string {
	msg := fmt.Sprintf("%s/%s %s is deprecated", spec.Group, deprecated, spec.Names.Kind)
	var newer []string
	for _, v := range spec.Versions {
		if v.Served && !v.Deprecated && version.CompareKubeAwareVersionStrings(deprecated, v.Name) < 0 {
			newer = append(newer, v.Name)
		}
	}
	if len(newer) == 0 {
		return msg
	}
	sort.Slice(newer, func(i, j int) bool { return version.CompareKubeAwareVersionStrings(newer[i], newer[j]) > 0 })
	return msg + fmt.Sprintf("; use %s/%s %s", spec.Group, newer[0], spec.Names.Kind)
}

// apiVersionConverter is the "None" conversion of CRDs: only apiVersion changes.
type apiVersionConverter struct{ stored, served string }

func (a apiVersionConverter) toStorage(served []byte) ([]byte, error) {
	return setAPIVersion(served, a.stored)
}
func (a apiVersionConverter) fromStorage(stored []byte) ([]byte, error) {
	return setAPIVersion(stored, a.served)
}

func setAPIVersion(data []byte, apiVersion string) ([]byte, error) {
	var m map[string]any
	if err := jsonUnmarshal(data, &m); err != nil {
		return nil, err
	}
	m["apiVersion"] = apiVersion
	return json.Marshal(m)
}

// setCRD records a CRD and serves (or re-serves) its versions when it is
// established; a CRD waiting for its names is known but not served.
func (g *registry) setCRD(crd *apiextensionsv1.CustomResourceDefinition) {
	var rs []*resource
	if apihelpers.IsCRDConditionTrue(crd, apiextensionsv1.Established) {
		rs = crdResources(crd, g.webhookConverter)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.removeCRDLocked(crd.Name)
	for _, r := range rs {
		g.byGVR[schema.GroupVersionResource{Group: r.Group, Version: r.Version, Resource: r.Resource.Resource}] = r
	}
	if len(rs) > 0 {
		g.crds[crd.Name] = rs
	}
	g.crdObjs[crd.Name] = crd.DeepCopy()
	g.rebuildGroupVersionsLocked()
}

// knownCRDs returns every CRD recorded, served or not.
func (g *registry) knownCRDs() []*apiextensionsv1.CustomResourceDefinition {
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
func (g *registry) crdsServing(group, version string) []*apiextensionsv1.CustomResourceDefinition {
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

// removeCRD stops serving a CRD.
func (g *registry) removeCRD(name string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.removeCRDLocked(name)
	g.rebuildGroupVersionsLocked()
}

func (g *registry) removeCRDLocked(name string) {
	for _, r := range g.crds[name] {
		delete(g.byGVR, schema.GroupVersionResource{Group: r.Group, Version: r.Version, Resource: r.Resource.Resource})
	}
	delete(g.crds, name)
	delete(g.crdObjs, name)
}

// crdResourcesOf returns the served resources of a CRD.
func (g *registry) crdResourcesOf(name string) []*resource {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.crds[name]
}

// rebuildGroupVersionsLocked lists built-in group/versions first, then the
// groups of CRDs by name, each group's versions by Kubernetes version
// priority, as aggregated discovery orders them.
func (g *registry) rebuildGroupVersionsLocked() {
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

// allCRDs returns the served CRDs by name.
func (g *registry) allCRDs() []*apiextensionsv1.CustomResourceDefinition {
	g.mu.RLock()
	defer g.mu.RUnlock()
	out := make([]*apiextensionsv1.CustomResourceDefinition, 0, len(g.crds))
	for name := range g.crds {
		out = append(out, g.crdObjs[name])
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
