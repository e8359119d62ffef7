package registry

import (
	"context"
	"fmt"
	"sort"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/api/validation/path"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/rest"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	"github.com/fakeplane/fakeplane/crd"
	"github.com/fakeplane/fakeplane/internal/builtin"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// TypesScheme knows every built-in Go type the server decodes into. It is
// built once and only read afterwards.
var TypesScheme = sync.OnceValue(func() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		clientgoscheme.AddToScheme, apiextensionsv1.AddToScheme, apiregistrationv1.AddToScheme,
	} {
		if err := add(s); err != nil {
			panic(fmt.Sprintf("building the type scheme: %v", err))
		}
	}
	return s
})

// Resource is one served group/version/resource with everything the generic
// REST handler needs to know about it.
type Resource struct {
	builtin.Resource
	GVK      schema.GroupVersionKind
	GR       schema.GroupResource
	Bucket   string // store bucket
	ListKind string
	// Typed builds an empty built-in object; nil means the resource is
	// handled as unstructured JSON.
	Typed func() runtime.Object
	// generation: metadata.generation is set on create and bumped on spec changes.
	generation bool
	// subresources by name.
	subs map[string]builtin.Subresource
	// nameValid validates metadata.name the way upstream's strategy does.
	nameValid validation.ValidateNameFunc
	// noMetadataRules: the type's validation checks no metadata, the
	// generic rules alone do (see strategy.Base.NoMetadataRules).
	noMetadataRules bool
	// nameRuleOnUpdate: the type's update validation checks the metadata
	// with its name rule again, as most built-ins' does (see
	// strategy.Base.NameRuleOnCreateOnly); without it an update's
	// generateName need only be a path segment.
	nameRuleOnUpdate bool
	// repeatsMetaErrors: the type's validation is not declarative, which
	// answers each error once, so the metadata update rules it runs after
	// the generic ones are answered twice (kube-aggregator's APIServices,
	// apiextensions-apiserver's CRDs, custom resources).
	repeatsMetaErrors bool
	// nameRuleOnStatus: the type's status validation checks the name rule
	// too (strategy.Base.NameRuleOnStatus).
	nameRuleOnStatus bool
	// noKubeFinalizersOnStatus: the type's status validation skips the
	// core group's finalizer rule (strategy.Base.StatusSkipsKubeFinalizerRules).
	noKubeFinalizersOnStatus bool
	// statusSetsMetadata: a write to /status also sets the labels,
	// annotations, finalizers and owner references it carries
	// (strategy.Base.StatusWritesMetadata; CRDs, whose upstream status
	// strategy resets the new metadata from itself).
	statusSetsMetadata bool
	// statusKeepsMetadata: a write to /status keeps the stored metadata
	// whole (strategy.Base.StatusKeepsStoredMetadata; custom resources).
	statusKeepsMetadata bool
	// ReturnDeleted: a delete answers with the object instead of a Status.
	ReturnDeleted bool
	// graceful deletes objects gracefully (pods): see beforeDelete.
	graceful rest.RESTGracefulDeleteStrategy
	// createOnUpdate: PUT of a missing object creates it.
	createOnUpdate bool
	// conditionalUpdate: an update must name the resourceVersion it replaces.
	conditionalUpdate bool
	// conv translates between the served version and the bucket's storage
	// version; nil when they are the same.
	conv converter
	// convGen tells conv from the converters of the CRD's earlier states,
	// for the encoding cache: unique per CRD resource built, 0 for built-ins.
	convGen uint64
	// crd names the CustomResourceDefinition serving it ("" for built-ins).
	CRD string
	// schema is the CRD version's schema (nil for built-ins and schemaless versions).
	schema *crd.Schema
	// scalePaths are a CRD version's scale subresource paths.
	scalePaths *apiextensionsv1.CustomResourceSubresourceScale
	// Table renders a CRD version's additionalPrinterColumns.
	Table rest.TableConvertor
	// scaleTable renders a CRD version's Scale (see ScaleTable); nil for
	// built-ins and versions without a scale subresource.
	scaleTable rest.TableConvertor
	// Warnings are sent with every request (a deprecated CRD version's).
	Warnings []string
	// managed holds the field managers tracking managedFields and merging
	// server-side apply patches.
	managed *fieldManagers
	// convertField accepts a field selector label and names the field it
	// matches, or rejects it.
	convertField func(label string) (string, bool)
	// defaultFieldLabels: the resource has no field label conversion of its
	// own (upstream's runtime.DefaultMetaV1FieldSelectorConversion), which
	// words its refusal differently.
	defaultFieldLabels bool
}

// fieldLabelError is upstream's refusal of a field selector label the
// resource does not support.
func (r *Resource) fieldLabelError(label string) error {
	if r.defaultFieldLabels {
		return fmt.Errorf("%q is not a known field selector: only %q, %q", label, "metadata.name", "metadata.namespace")
	}
	if st, ok := For(r.GR); ok {
		if fr, ok := st.(strategy.FieldLabelRefuser); ok {
			return fr.FieldLabelError(label)
		}
	}
	return fmt.Errorf("field label not supported: %s", label)
}

// HasSub reports whether the resource has the named subresource.
func (r *Resource) HasSub(name string) bool { _, ok := r.subs[name]; return ok }

// HasSchema reports whether the resource is a custom resource whose version
// has a structural schema, which prunes the fields it does not know.
func (r *Resource) HasSchema() bool { return r.schema != nil }

// apiVersion is the apiVersion string of the resource's group/version.
func (r *Resource) APIVersion() string { return r.GVK.GroupVersion().String() }

// ServedResources holds the served resources. It is read on every request and
// changes only when resources are added (CRDs, in later work).
type ServedResources struct {
	mu    sync.RWMutex
	byGVR map[schema.GroupVersionResource]*Resource
	// byGVK indexes the main resources of byGVR by kind, for ForKind; it
	// is built on first use after a change to byGVR (nil until then).
	byGVK map[schema.GroupVersionKind]*Resource
	// groupVersions are the served group/versions in discovery order.
	groupVersions []builtin.GroupVersion
	// builtinGVs are the built-in ones.
	builtinGVs []builtin.GroupVersion
	// crds maps a CRD name to the resources it serves.
	crds map[string][]*Resource
	// crdObjs maps a CRD name to the CRD itself.
	crdObjs map[string]*apiextensionsv1.CustomResourceDefinition
	// terminating are the CRDs being deleted, by name: their objects may
	// not be created any more.
	terminating map[string]bool
	// gen counts the changes to the served CRDs.
	gen uint64
	// WebhookConverter builds the converter of a CRD with webhook conversion.
	WebhookConverter func(*apiextensionsv1.CustomResourceDefinition) (runtime.ObjectConvertor, error)
}

// Generation counts the changes to the served CRDs, for caches of what is
// derived from them.
func (g *ServedResources) Generation() uint64 {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.gen
}

// deprecatedBuiltins are the deprecation warnings kube-apiserver v1.37 sends
// with every request to a resource of its own.
var deprecatedBuiltins = map[schema.GroupVersionResource]string{
	{Version: "v1", Resource: "endpoints"}:         "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice",
	{Version: "v1", Resource: "componentstatuses"}: "v1 ComponentStatus is deprecated in v1.19+",
}

// withoutStrategy gives the built-in resource without a strategy in package
// registry, CustomResourceDefinitions (whose rules are in package crd),
// upstream's flags: it refuses an update without metadata.resourceVersion
// and keeps metadata.generation. Every other built-in resource's strategy
// says it.
func withoutStrategy(r *Resource) {
	switch r.GR {
	case schema.GroupResource{Group: apiextensionsv1.GroupName, Resource: "customresourcedefinitions"}:
		r.generation, r.conditionalUpdate = true, true
		r.repeatsMetaErrors, r.statusSetsMetadata = true, true
	}
}

// nameValidator returns upstream's metadata.name rule for a resource.
func nameValidator(group, res string) validation.ValidateNameFunc {
	switch group + "/" + res {
	case "/namespaces":
		return validation.ValidateNamespaceName
	case "/services": // an RFC 1123 label: RelaxedServiceNameValidation is on in v1.37
		return validation.NameIsDNSLabel
	case "apps/statefulsets": // a pod's name is the set's, "-" and an ordinal
		return validation.NameIsDNSLabel
	case "rbac.authorization.k8s.io/roles", "rbac.authorization.k8s.io/clusterroles",
		"rbac.authorization.k8s.io/rolebindings", "rbac.authorization.k8s.io/clusterrolebindings",
		"apiregistration.k8s.io/apiservices",             // an APIService is named version.group, "v1." for the core group
		"certificates.k8s.io/certificatesigningrequests": // upstream's own rule checks nothing
		return func(name string, prefix bool) []string { return path.IsValidPathSegmentName(name) }
	case "/replicationcontrollers", "resource.k8s.io/deviceclasses":
		// The name's rule is declarative (see their strategies);
		// generateName need only be a path segment's prefix.
		return func(name string, prefix bool) []string {
			if prefix {
				return content.IsPathSegmentPrefix(name)
			}
			return validation.NameIsDNSSubdomain(name, false)
		}
	default:
		return validation.NameIsDNSSubdomain
	}
}

func newServedResources() (*ServedResources, error) {
	reg := &ServedResources{byGVR: map[schema.GroupVersionResource]*Resource{}, crds: map[string][]*Resource{}, crdObjs: map[string]*apiextensionsv1.CustomResourceDefinition{}, terminating: map[string]bool{}}
	reg.builtinGVs = builtin.GroupVersions()
	reg.groupVersions = builtin.GroupVersions()
	scheme := TypesScheme()
	all := builtin.Resources()
	owners := map[string]bool{}
	for _, b := range all {
		if b.StorageResource != "" && (builtin.GroupVersion{Group: b.Group, Version: b.Version}).String() == b.StorageVersion {
			owners[b.StorageResource] = true
		}
	}
	for _, b := range all {
		gvk := schema.GroupVersionKind{Group: b.Group, Version: b.Version, Kind: b.Kind}
		r := &Resource{
			Resource:  b,
			GVK:       gvk,
			GR:        schema.GroupResource{Group: b.Group, Resource: b.Resource},
			Bucket:    bucketName(b, owners),
			conv:      converters[converterKey(b)],
			ListKind:  b.Kind + "List",
			nameValid: nameValidator(b.Group, b.Resource),
			subs:      map[string]builtin.Subresource{},
			managed:   newBuiltinFieldManagers(),
		}
		st, hasStrategy := For(r.GR)
		if hasStrategy {
			// The resource's strategy decides, as upstream's does.
			r.createOnUpdate = st.AllowCreateOnUpdate(context.Background())
			r.conditionalUpdate = !st.AllowUnconditionalUpdate(context.Background())
			g, ok := st.(strategy.GenerationTracker)
			r.generation = ok && g.TracksGeneration()
			d, ok := st.(strategy.DeleteReturner)
			r.ReturnDeleted = ok && d.ReturnsDeletedObject()
			r.graceful, _ = st.(rest.RESTGracefulDeleteStrategy)
			if m, ok := st.(strategy.MetadataRules); ok && !m.ChecksMetadata() {
				r.noMetadataRules = true
				r.nameValid = pathSegmentName
			}
			u, ok := st.(strategy.UpdateNameRule)
			r.nameRuleOnUpdate = !r.noMetadataRules && (!ok || u.ChecksNameRuleOnUpdate())
			r.nameRuleOnStatus = ok && u.ChecksNameRuleOnStatus()
			r.noKubeFinalizersOnStatus = ok && !u.ChecksKubeFinalizersOnStatus()
			r.repeatsMetaErrors = r.GR == schema.GroupResource{Group: "apiregistration.k8s.io", Resource: "apiservices"}
			if sm, ok := st.(strategy.StatusMetadata); ok {
				r.statusSetsMetadata, r.statusKeepsMetadata = sm.StatusSetsMetadata(), sm.StatusKeepsMetadata()
			}
		} else {
			withoutStrategy(r)
		}
		r.convertField, r.defaultFieldLabels = strategy.ConvertMetaFieldLabel, true
		if fl, ok := st.(strategy.FieldLabeler); ok {
			r.convertField, r.defaultFieldLabels = fl.ConvertFieldLabel, false
		}
		for _, sub := range b.Subresources {
			r.subs[sub.Name] = sub
		}
		if w, ok := deprecatedBuiltins[schema.GroupVersionResource{Group: b.Group, Version: b.Version, Resource: b.Resource}]; ok {
			r.Warnings = []string{w}
		}
		if scheme.Recognizes(gvk) {
			r.Typed = func() runtime.Object {
				obj, err := scheme.New(gvk)
				if err != nil {
					panic(err)
				}
				return obj
			}
		}
		reg.byGVR[schema.GroupVersionResource{Group: b.Group, Version: b.Version, Resource: b.Resource}] = r
	}
	return reg, nil
}

// bucketName is the store bucket of a built-in resource: upstream's storage
// group/resource. A served version other than the storage version of a
// shared resource gets a bucket of its own unless fakeplane has a converter
// for it (events.k8s.io events share core events' bucket, autoscaling/v1
// horizontalpodautoscalers autoscaling/v2's).
func bucketName(b builtin.Resource, owners map[string]bool) string {
	if b.Virtual {
		return ""
	}
	g, res := b.StorageGroupResource()
	bucket := g + "/" + res
	gv := builtin.GroupVersion{Group: b.Group, Version: b.Version}.String()
	if gv != b.StorageVersion && owners[b.StorageResource] && converters[converterKey(b)] == nil {
		bucket += "@" + gv
	}
	return bucket
}

// lookup finds a served resource.
// forBucket returns a resource stored in bucket, preferring the one served
// in the storage version.
func (g *ServedResources) ForBucket(bucket string) (*Resource, bool) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	var found *Resource
	for _, r := range g.byGVR {
		if r.Bucket != bucket || r.Virtual {
			continue
		}
		if found == nil || (found.conv != nil && r.conv == nil) || (found.conv == nil) == (r.conv == nil) && r.Version < found.Version {
			found = r
		}
	}
	return found, found != nil
}

// IsBuiltinGroup reports whether kube-apiserver itself serves a group.
func (g *ServedResources) IsBuiltinGroup(group string) bool {
	for _, gv := range g.builtinGVs {
		if gv.Group == group {
			return true
		}
	}
	return false
}

// Lookup returns the served resource of a group, version and resource.
func (g *ServedResources) Lookup(group, version, res string) (*Resource, bool) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	r, ok := g.byGVR[schema.GroupVersionResource{Group: group, Version: version, Resource: res}]
	return r, ok
}

// All returns every served resource ordered by group/version (discovery
// order) and then by resource name.
func (g *ServedResources) All() []*Resource {
	g.mu.RLock()
	defer g.mu.RUnlock()
	order := map[builtin.GroupVersion]int{}
	for i, gv := range g.groupVersions {
		order[gv] = i
	}
	out := make([]*Resource, 0, len(g.byGVR))
	for _, r := range g.byGVR {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		oa, ob := order[builtin.GroupVersion{Group: a.Group, Version: a.Version}], order[builtin.GroupVersion{Group: b.Group, Version: b.Version}]
		if oa != ob {
			return oa < ob
		}
		return a.Resource.Resource < b.Resource.Resource
	})
	return out
}

// namespacedResources lists one served version of each namespaced resource
// bucket, for namespace deletion.
func (g *ServedResources) namespacedBuckets() []*Resource {
	seen := map[string]bool{}
	var out []*Resource
	for _, r := range g.All() {
		if !r.Namespaced || r.Virtual || seen[r.Bucket] {
			continue
		}
		seen[r.Bucket] = true
		out = append(out, r)
	}
	return out
}

// gvs returns the served group/versions in discovery order.
func (g *ServedResources) GroupVersions() []builtin.GroupVersion {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.groupVersions
}

// Preferred returns the preferred version of a served group.
func (g *ServedResources) Preferred(group string) (string, bool) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	for _, gv := range g.groupVersions {
		if gv.Group == group {
			return gv.Version, true
		}
	}
	return "", false
}

// ForGroupKind lists the resources serving a kind of a group in any of
// its versions, in discovery's order of the group's versions (the
// preferred first), as a REST mapper's RESTMappings of the group and kind.
func (g *ServedResources) ForGroupKind(gk schema.GroupKind) []*Resource {
	var out []*Resource
	for _, gv := range g.GroupVersions() {
		if gv.Group != gk.Group {
			continue
		}
		if r, ok := g.ForKind(schema.GroupVersionKind{Group: gk.Group, Version: gv.Version, Kind: gk.Kind}); ok {
			out = append(out, r)
		}
	}
	return out
}

// ForKind finds the resource serving a group/version/kind (the main
// resource, not a subresource).
func (g *ServedResources) ForKind(gvk schema.GroupVersionKind) (*Resource, bool) {
	g.mu.RLock()
	if g.byGVK != nil {
		r, ok := g.byGVK[gvk]
		g.mu.RUnlock()
		return r, ok
	}
	g.mu.RUnlock()
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.byGVK == nil {
		g.byGVK = kindIndex(g.byGVR)
	}
	r, ok := g.byGVK[gvk]
	return r, ok
}

// kindIndex indexes the resources of byGVR that are not virtual by their
// group, version and kind; of two of one kind (none are served), the one
// whose resource name sorts first.
func kindIndex(byGVR map[schema.GroupVersionResource]*Resource) map[schema.GroupVersionKind]*Resource {
	m := make(map[schema.GroupVersionKind]*Resource, len(byGVR))
	for gvr, r := range byGVR {
		if r.Virtual {
			continue
		}
		gvk := gvr.GroupVersion().WithKind(r.Kind)
		if o, ok := m[gvk]; !ok || gvr.Resource < o.Resource.Resource {
			m[gvk] = r
		}
	}
	return m
}
