package registry

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/gob"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"reflect"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	openapibuilder "k8s.io/apiextensions-apiserver/pkg/controller/openapi/builder"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/kube-openapi/pkg/spec3"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	"github.com/fakeplane/fakeplane/registry/apps/daemonset"
)

// builtinTypeConverter knows the merge schema (list types, map keys) of
// every built-in type, derived (by hack/gen-openapi.sh) from their OpenAPI
// definitions as kube-apiserver derives it from its own. It is decoded once
// (about 10 ms) and only read afterwards.
var builtinTypeConverter = sync.OnceValue(func() managedfields.TypeConverter {
	g := mergeSchemaConverter{deduced: managedfields.NewDeducedTypeConverter()}
	types, err := readMergeSchema()
	if err != nil {
		slog.Error("merge schema of built-in types", "err", err)
		return g
	}
	g.typed = managedfields.NewSchemeTypeConverter(TypesScheme(), &typed.Parser{Schema: smdschema.Schema{Types: types}})
	return g
})

// WarmTypeConverter decodes the merge schema of the built-in types, if the
// process has not yet: a control plane's first start calls it on a core
// that is otherwise idle, so that the first write whose managedFields are
// computed (a controller's, right after the bootstrap) does not wait for it.
func WarmTypeConverter() {
	builtinTypeConverter()
}

// readMergeSchema decodes the embedded merge schema types (gob: each atom's
// embedded Scalar, List and Map collide in JSON).
func readMergeSchema() ([]smdschema.TypeDef, error) {
	f, err := openAPIData.Open("openapidata/builtin-smd.gob.gz")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	var types []smdschema.TypeDef
	if err := gob.NewDecoder(zr).Decode(&types); err != nil {
		return nil, fmt.Errorf("builtin-smd.gob.gz: %w", err)
	}
	return types, nil
}

// mergeSchemaConverter converts built-in objects with their merge schema; a
// type it does not know is merged as the deduced converter merges
// schemaless objects.
type mergeSchemaConverter struct {
	typed   managedfields.TypeConverter
	deduced managedfields.TypeConverter
}

// ObjectToTyped implements managedfields.TypeConverter.
func (g mergeSchemaConverter) ObjectToTyped(obj runtime.Object, opts ...typed.ValidationOptions) (*typed.TypedValue, error) {
	if g.typed == nil {
		return g.deduced.ObjectToTyped(obj, opts...)
	}
	tv, err := g.typed.ObjectToTyped(obj, opts...)
	if err != nil && strings.Contains(err.Error(), "no type found matching") {
		return g.deduced.ObjectToTyped(obj, opts...)
	}
	return tv, err
}

// TypedToObject implements managedfields.TypeConverter.
func (g mergeSchemaConverter) TypedToObject(v *typed.TypedValue) (runtime.Object, error) {
	return g.deduced.TypedToObject(v)
}

// withoutManagedFields returns obj without metadata.managedFields: obj
// itself when it has none, else a shallow copy (obj is not changed).
//
// The field manager converts whole objects to typed values, the live one
// with its managedFields, but what it computes never depends on them: it
// decodes the managed fields itself before, the patch may not carry any,
// an update's new object has them removed, the field sets it records have
// metadata.managedFields stripped, and the object it returns gets them
// encoded anew. Converting, merging and comparing them (each entry's
// fieldsV1 a JSON round trip) was most of an apply's merge. An entry whose
// fieldsV1 is not a JSON object would fail the conversion, so such an
// object (which no field manager stores) is converted as it is.
func withoutManagedFields(obj runtime.Object) runtime.Object {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		md, ok := u.Object["metadata"].(map[string]any)
		if !ok {
			return obj
		}
		if _, has := md["managedFields"]; !has {
			return obj
		}
		if entries, ok := md["managedFields"].([]any); ok {
			for _, e := range entries {
				em, ok := e.(map[string]any)
				if !ok {
					return obj
				}
				if f, has := em["fieldsV1"]; has && f != nil {
					if _, ok := f.(map[string]any); !ok {
						return obj
					}
				}
			}
		}
		out := shallowCopy(u).(*unstructured.Unstructured)
		delete(out.Object["metadata"].(map[string]any), "managedFields")
		return out
	}
	acc, err := meta.Accessor(obj)
	if err != nil {
		return obj
	}
	entries := acc.GetManagedFields()
	if entries == nil {
		return obj
	}
	for _, e := range entries {
		if e.FieldsV1 != nil && !isJSONObject(e.FieldsV1.Raw) {
			return obj
		}
	}
	out := shallowCopy(obj)
	if out == nil {
		return obj
	}
	outAcc, err := meta.Accessor(out)
	if err != nil {
		return obj
	}
	outAcc.SetManagedFields(nil)
	return out
}

// isJSONObject reports whether raw (JSON) is an object or null, as the
// fieldsV1 of an entry converts to a typed value.
func isJSONObject(raw []byte) bool {
	if raw == nil {
		return true
	}
	raw = bytes.TrimLeft(raw, " \t\r\n")
	return len(raw) > 0 && (raw[0] == '{' || bytes.HasPrefix(raw, []byte("null")))
}

// managedFieldsStripper is a type converter that converts objects without
// their managedFields (see withoutManagedFields).
type managedFieldsStripper struct{ managedfields.TypeConverter }

// ObjectToTyped implements managedfields.TypeConverter.
func (s managedFieldsStripper) ObjectToTyped(obj runtime.Object, opts ...typed.ValidationOptions) (*typed.TypedValue, error) {
	return s.TypeConverter.ObjectToTyped(withoutManagedFields(obj), opts...)
}

// fieldManagers builds, once per subresource, the upstream field manager
// that tracks metadata.managedFields and merges server-side apply patches
// for one resource.
type fieldManagers struct {
	mu sync.Mutex
	// typeConverter is built on first use (for CRDs from their schemas).
	typeConverter func() (managedfields.TypeConverter, error)
	// bySub holds the field managers by "version/subresource".
	bySub map[string]*managedfields.FieldManager
	// crd is the CRD served, nil for built-ins.
	crd *apiextensionsv1.CustomResourceDefinition
	// created and updated remember what creates and updates recorded, by
	// object shape.
	created createdFieldsMemo
	updated updatedFieldsMemo
}

// newBuiltinFieldManagers serves a built-in resource.
func newBuiltinFieldManagers() *fieldManagers {
	return &fieldManagers{typeConverter: func() (managedfields.TypeConverter, error) {
		return managedFieldsStripper{builtinTypeConverter()}, nil
	}}
}

// newCRDFieldManagers serves the versions of a CRD, all sharing one type
// converter built from their schemas as upstream builds it.
func newCRDFieldManagers(crd *apiextensionsv1.CustomResourceDefinition) *fieldManagers {
	crd = crd.DeepCopy()
	return &fieldManagers{crd: crd, typeConverter: sync.OnceValues(func() (managedfields.TypeConverter, error) {
		tc, err := crdTypeConverter(crd)
		if err != nil {
			return nil, err
		}
		return managedFieldsStripper{tc}, nil
	})}
}

// crdTypeConverter merges the OpenAPI documents of every version of a CRD
// into the models structured-merge-diff reads, as kube-apiserver does for
// apply; a CRD without schemas gets the deduced (all-atomic) converter.
func crdTypeConverter(crd *apiextensionsv1.CustomResourceDefinition) (managedfields.TypeConverter, error) {
	var specs []*spec3.OpenAPI
	for _, v := range crd.Spec.Versions {
		if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			return managedfields.NewDeducedTypeConverter(), nil
		}
		s, err := openapibuilder.BuildOpenAPIV3(crd, v.Name, openapibuilder.Options{})
		if err != nil {
			return nil, fmt.Errorf("openapi of %s/%s: %w", crd.Name, v.Name, err)
		}
		specs = append(specs, s)
	}
	if len(specs) == 0 {
		return managedfields.NewDeducedTypeConverter(), nil
	}
	merged, err := openapibuilder.MergeSpecsV3(specs...)
	if err != nil {
		return nil, fmt.Errorf("merge openapi of %s: %w", crd.Name, err)
	}
	return managedfields.NewTypeConverter(merged.Components.Schemas, crd.Spec.PreserveUnknownFields)
}

// FieldManager returns the field manager of the resource or of one of its
// subresources ("status", "scale").
func (r *Resource) FieldManager(sub string) (*managedfields.FieldManager, error) {
	fms := r.managed
	if fms == nil {
		return nil, fmt.Errorf("%s has no field manager", r.GR)
	}
	fms.mu.Lock()
	defer fms.mu.Unlock()
	// The versions of a CRD share one set: each version has its own managers.
	key := r.Version + "/" + sub
	if fm := fms.bySub[key]; fm != nil {
		return fm, nil
	}
	if k, ok := subresourceKinds[sub]; ok {
		conv := &objectConvertor{res: k}
		fm, err := managedfields.NewDefaultFieldManager(managedFieldsStripper{builtinTypeConverter()}, conv, conv, conv,
			k.GVK, k.GVK.GroupVersion(), sub, nil)
		if err != nil {
			return nil, err
		}
		fms.set(key, fm)
		return fm, nil
	}
	tc, err := fms.typeConverter()
	if err != nil {
		return nil, err
	}
	conv := &objectConvertor{res: r}
	reset := fieldpath.NewExcludeFilterSetMap(r.resetFields(sub))
	var fm *managedfields.FieldManager
	if r.CRD != "" {
		fm, err = managedfields.NewDefaultCRDFieldManager(tc, conv, conv, conv, r.GVK, r.GVK.GroupVersion(), sub, reset)
	} else {
		fm, err = managedfields.NewDefaultFieldManager(tc, conv, conv, conv, r.GVK, r.GVK.GroupVersion(), sub, reset)
	}
	if err != nil {
		return nil, err
	}
	fms.set(key, fm)
	return fm, nil
}

func (fms *fieldManagers) set(key string, fm *managedfields.FieldManager) {
	if fms.bySub == nil {
		fms.bySub = map[string]*managedfields.FieldManager{}
	}
	fms.bySub[key] = fm
}

// ReplicasPaths maps each version of a scalable resource to its replicas
// field, for translating managed fields between it and its Scale.
func (r *Resource) ReplicasPaths() managedfields.ResourcePathMappings {
	out := managedfields.ResourcePathMappings{
		autoscalingv1.SchemeGroupVersion.String(): fieldpath.MakePathOrDie("spec", "replicas"),
	}
	if r.managed == nil || r.managed.crd == nil {
		out[r.APIVersion()] = fieldpath.MakePathOrDie("spec", "replicas")
		return out
	}
	// Every version of a CRD, nil where it has no scale subresource.
	for _, v := range r.managed.crd.Spec.Versions {
		var path fieldpath.Path
		if v.Subresources != nil && v.Subresources.Scale != nil {
			parts := jsonPathFields(v.Subresources.Scale.SpecReplicasPath)
			elems := make([]any, len(parts))
			for i, p := range parts {
				elems[i] = p
			}
			path = fieldpath.MakePathOrDie(elems...)
		}
		out[r.managed.crd.Spec.Group+"/"+v.Name] = path
	}
	return out
}

// resetFields are the fields a write through sub may not set, which its
// field manager does not record, as the strategy's GetResetFields lists them
// upstream (see resetPaths).
func (r *Resource) resetFields(sub string) map[fieldpath.APIVersion]*fieldpath.Set {
	paths := r.resetPaths(sub)
	if paths == nil {
		return nil
	}
	return map[fieldpath.APIVersion]*fieldpath.Set{fieldpath.APIVersion(r.APIVersion()): fieldpath.NewSet(paths...)}
}

// Paths of reset fields.
var (
	statusPath = fieldpath.MakePathOrDie("status")
	specPath   = fieldpath.MakePathOrDie("spec")
)

// statusResetsOwnFields are the reset fields of the status strategies that
// list fields of their own.
var statusResetsOwnFields = map[schema.GroupResource][]fieldpath.Path{
	{Group: "apps", Resource: "deployments"}: {specPath, fieldpath.MakePathOrDie("metadata", "labels")},
	{Resource: "pods"}:                       {specPath, fieldpath.MakePathOrDie("metadata", "deletionTimestamp"), fieldpath.MakePathOrDie("metadata", "ownerReferences")},
	{Group: "certificates.k8s.io", Resource: "certificatesigningrequests"}: {specPath, fieldpath.MakePathOrDie("status", "conditions")},
}

// statusResetsMetadata are the built-in resources whose status strategy
// resets metadata as well as spec; the others' reset spec only.
var statusResetsMetadata = map[schema.GroupResource]bool{
	{Group: "admissionregistration.k8s.io", Resource: "validatingadmissionpolicies"}: true,
	{Group: "apiregistration.k8s.io", Resource: "apiservices"}:                       true,
	{Group: "certificates.k8s.io", Resource: "podcertificaterequests"}:               true,
	{Group: "flowcontrol.apiserver.k8s.io", Resource: "flowschemas"}:                 true,
	{Group: "flowcontrol.apiserver.k8s.io", Resource: "prioritylevelconfigurations"}: true,
	{Group: "internal.apiserver.k8s.io", Resource: "storageversions"}:                true,
	{Group: "lifecycle.k8s.io", Resource: "evictionrequests"}:                        true,
	{Group: "lifecycle.k8s.io", Resource: "evictions"}:                               true,
	{Group: "networking.k8s.io", Resource: "servicecidrs"}:                           true,
	{Group: "resource.k8s.io", Resource: "devicetaintrules"}:                         true,
	{Group: "resource.k8s.io", Resource: "resourceclaims"}:                           true,
	{Group: "resource.k8s.io", Resource: "resourcepoolstatusrequests"}:               true,
	{Group: "scheduling.k8s.io", Resource: "compositepodgroups"}:                     true,
	{Group: "scheduling.k8s.io", Resource: "podgroups"}:                              true,
	{Group: "storage.k8s.io", Resource: "csinodes"}:                                  true,
	{Group: "storage.k8s.io", Resource: "volumeattachments"}:                         true,
	{Group: "storagemigration.k8s.io", Resource: "storageversionmigrations"}:         true,
}

// resetPaths lists the reset fields of a write through sub (nil for none),
// as upstream's strategies do:
//   - the main resource of a resource with a status subresource resets
//     status (a CertificateSigningRequest's spec as well);
//   - /status resets spec, and metadata too for a custom resource and the
//     resources statusResetsMetaToo lists; a Deployment's, a Pod's and a
//     CertificateSigningRequest's status strategies have their own lists;
//   - a CertificateSigningRequest's /approval resets spec and
//     status.certificate, a Namespace's /finalize status;
//   - a Pod's /ephemeralcontainers and /resize reset nothing: their
//     storage lists no reset fields, so their managers record all they set.
func (r *Resource) resetPaths(sub string) []fieldpath.Path {
	csr := r.GR == schema.GroupResource{Group: "certificates.k8s.io", Resource: "certificatesigningrequests"}
	switch sub {
	case "":
		switch {
		case csr:
			return []fieldpath.Path{specPath, statusPath}
		case r.HasSub("status"):
			return []fieldpath.Path{statusPath}
		}
	case "status":
		switch {
		case statusResetsOwnFields[r.GR] != nil:
			return statusResetsOwnFields[r.GR]
		case r.CRD != "" && r.GR != apiextensionsv1.Resource("customresourcedefinitions"), statusResetsMetadata[r.GR]:
			return []fieldpath.Path{fieldpath.MakePathOrDie("metadata"), specPath}
		}
		return []fieldpath.Path{specPath}
	case "approval":
		if csr {
			return []fieldpath.Path{specPath, fieldpath.MakePathOrDie("status", "certificate")}
		}
	case "finalize":
		return []fieldpath.Path{statusPath}
	}
	return nil
}

// objectConvertor gives the field manager what a scheme gives it upstream:
// objects in the resource's served version (typed for built-ins), and in
// the other versions of its kind upstream converts it to (convertVersion),
// defaulting and empty objects. Versions it cannot convert to are reported
// as not registered, so managed fields recorded through them are dropped
// rather than failing the write.
type objectConvertor struct{ res *Resource }

// New implements runtime.ObjectCreater.
func (c *objectConvertor) New(gvk schema.GroupVersionKind) (runtime.Object, error) {
	if gvk != c.res.GVK {
		return nil, runtime.NewNotRegisteredErrForKind("fakeplane", gvk)
	}
	obj := c.res.NewObject()
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	return obj, nil
}

// Default implements runtime.ObjectDefaulter: defaults after a merge.
func (c *objectConvertor) Default(obj runtime.Object) {
	switch o := obj.(type) {
	case *unstructured.Unstructured:
		if c.res.schema != nil {
			c.res.schema.Admit(o)
		}
	default:
		c.res.Defaults(obj)
	}
}

// Convert implements runtime.ObjectConvertor.
func (c *objectConvertor) Convert(in, out, context any) error {
	return fmt.Errorf("fakeplane: Convert is not supported")
}

// ConvertFieldLabel implements runtime.ObjectConvertor.
func (c *objectConvertor) ConvertFieldLabel(gvk schema.GroupVersionKind, label, value string) (string, string, error) {
	return label, value, nil
}

// ConvertToVersion implements runtime.ObjectConvertor.
func (c *objectConvertor) ConvertToVersion(in runtime.Object, target runtime.GroupVersioner) (runtime.Object, error) {
	from := in.GetObjectKind().GroupVersionKind()
	if from.Empty() {
		from = c.res.GVK
	}
	to, ok := target.KindForGroupVersionKinds([]schema.GroupVersionKind{from})
	if !ok {
		return nil, runtime.NewNotRegisteredErrForKind("fakeplane", from)
	}
	if c.res.CRD != "" {
		// CRD versions without a conversion webhook differ only in apiVersion.
		u, ok := in.(*unstructured.Unstructured)
		if !ok || to.Group != c.res.GVK.Group || to.Kind != c.res.GVK.Kind {
			return nil, runtime.NewNotRegisteredErrForKind("fakeplane", to)
		}
		if from.GroupVersion() == to.GroupVersion() {
			return u, nil
		}
		out := u.DeepCopy()
		out.SetAPIVersion(to.GroupVersion().String())
		return out, nil
	}
	if from != to {
		return convertObjectVersion(in, from, to)
	}
	if to != c.res.GVK {
		return nil, runtime.NewNotRegisteredErrForKind("fakeplane", to)
	}
	u, ok := in.(*unstructured.Unstructured)
	if !ok || c.res.Typed == nil {
		in.GetObjectKind().SetGroupVersionKind(c.res.GVK)
		return in, nil
	}
	out := c.res.NewObject()
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, out); err != nil {
		// (Worded as the scheme's conversion words it upstream.)
		return nil, fmt.Errorf("unable to convert unstructured object to %v: %v", c.res.GVK, err)
	}
	out.GetObjectKind().SetGroupVersionKind(c.res.GVK)
	return out, nil
}

// convertObjectVersion converts a built-in object between two versions of
// its kind (convertVersion), into its typed form.
func convertObjectVersion(in runtime.Object, from, to schema.GroupVersionKind) (runtime.Object, error) {
	data, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	converted, ok, err := convertVersion(data, from, to)
	if !ok {
		return nil, runtime.NewNotRegisteredErrForKind("fakeplane", to)
	}
	if err != nil {
		return nil, fmt.Errorf("convert %v to %v: %w", from, to, err)
	}
	out, err := TypesScheme().New(to)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(converted, out); err != nil {
		return nil, fmt.Errorf("convert %v to %v: %w", from, to, err)
	}
	out.GetObjectKind().SetGroupVersionKind(to)
	return out, nil
}

// ManagerName is the manager a non-apply write is recorded under: the
// fieldManager parameter, else the user agent up to its first "/", printable
// characters only and at most 128 bytes, as upstream names it.
func ManagerName(fieldManager, userAgent string) string {
	if fieldManager != "" {
		return fieldManager
	}
	m, _, _ := strings.Cut(userAgent, "/")
	var b strings.Builder
	for _, r := range m {
		if !unicode.IsPrint(r) {
			continue
		}
		if b.Len()+utf8.RuneLen(r) > metav1validation.FieldManagerMaxLength {
			break
		}
		b.WriteRune(r)
	}
	return b.String()
}

// TrackManagedFields records in o's managedFields what the request's
// manager changed from live (nil on create), as upstream's create, update
// and patch handlers do before admission. Writes through subresources that
// write the object whole are tracked (see tracksManagedFields); scale's are
// translated by its handler.
func (c *Request) TrackManagedFields(live runtime.Object, o *Object, fieldManager string) {
	asConvertedForFieldManager(o)
	sub := c.Info.Subresource
	if !tracksManagedFields(sub) {
		return
	}
	fm, err := c.Res.FieldManager(sub)
	if err != nil {
		slog.Debug("no field manager", "resource", c.Res.GR.String(), "err", err)
		return
	}
	manager := ManagerName(fieldManager, c.UserAgent)
	if live == nil {
		c.Res.trackCreate(fm, sub, o, manager)
		return
	}
	out := fm.UpdateNoErrors(live, o.Obj, manager)
	if acc, err := meta.Accessor(out); err == nil {
		o.Obj, o.Meta = out, acc
	}
}

// asConvertedForFieldManager gives o what upstream's field manager sees of
// it: the object converted from the internal version, whose conversion to
// apps/v1 writes a DaemonSet's template generation annotation, "0" when
// the client sent none (so the writer owns it, as on kube-apiserver). The
// strategy sets its value afterwards.
func asConvertedForFieldManager(o *Object) {
	if ds, ok := o.Obj.(*appsv1.DaemonSet); ok {
		if _, has := ds.Annotations[daemonset.TemplateGenerationAnnotation]; !has {
			daemonset.SetTemplateGeneration(ds, 0)
		}
	}
}

// tracksManagedFields reports whether writes through sub record managed
// fields of the object they write: the main resource and the subresources
// whose updates and patches take the whole object (upstream's installer
// gives each a field manager), and a TokenRequest's create (whose answer
// shows them); not scale (whose handler translates a Scale's) nor binding
// and eviction (whose answer is a Status).
func tracksManagedFields(sub string) bool {
	switch sub {
	case "", "status", "approval", "ephemeralcontainers", "resize", "finalize", "token":
		return true
	}
	return false
}

// trackCreate records manager's create of o through sub with fm, as
// UpdateNoErrors from an empty object does, remembering what it recorded
// for objects of o's shape (see createdShape).
func (r *Resource) trackCreate(fm *managedfields.FieldManager, sub string, o *Object, manager string) {
	var key string
	if r.managed != nil && len(o.Meta.GetManagedFields()) == 0 {
		if shape, ok := createdShape(o.Obj); ok {
			key = sub + "\x00" + manager + "\x00" + o.Obj.GetObjectKind().GroupVersionKind().String() + "\x00" + string(shape)
			if entries, hit := r.managed.created.get(key); hit {
				o.Meta.SetManagedFields(retimedEntries(entries, time.Now().UTC()))
				return
			}
		}
	}
	kind := r
	if k, ok := subresourceKinds[sub]; ok {
		kind = k // a TokenRequest is created through a service account
	}
	live := kind.NewObject()
	live.GetObjectKind().SetGroupVersionKind(kind.GVK)
	out := fm.UpdateNoErrors(live, o.Obj, manager)
	acc, err := meta.Accessor(out)
	if err != nil {
		return
	}
	o.Obj, o.Meta = out, acc
	if key != "" {
		r.managed.created.put(key, retimedEntries(acc.GetManagedFields(), time.Time{}))
	}
}

// createdFieldsMemo remembers, for one resource of one control plane, the
// managedFields entries creates recorded, by the shape of the created
// object (createdShape), without their time. A create's entries are a
// function of the field manager, the manager, the object's kind and its
// fields other than metadata's name, namespace, uid, resourceVersion,
// selfLink, creationTimestamp and generation: the created object is
// compared with an empty one, what differs is recorded, and those fields
// are stripped from what is recorded (upstream's stripMeta: its list, which
// does not have generateName), so their values cannot change it. Objects created from one template
// (a loop in a test, a controller's pods) share one entry and skip the
// typed conversion and comparison.
type createdFieldsMemo struct {
	mu sync.Mutex
	m  map[string][]metav1.ManagedFieldsEntry
}

// Bounds of a createdFieldsMemo: entries (it is emptied when full) and the
// size of an object's shape worth remembering.
const (
	maxCreatedShapes   = 128
	maxCreatedShapeLen = 32 << 10
)

func (cm *createdFieldsMemo) get(key string) ([]metav1.ManagedFieldsEntry, bool) {
	cm.mu.Lock()
	defer cm.mu.Unlock()
	e, ok := cm.m[key]
	return e, ok
}

func (cm *createdFieldsMemo) put(key string, entries []metav1.ManagedFieldsEntry) {
	cm.mu.Lock()
	defer cm.mu.Unlock()
	if cm.m == nil || len(cm.m) >= maxCreatedShapes {
		cm.m = map[string][]metav1.ManagedFieldsEntry{}
	}
	cm.m[key] = entries
}

// retimedEntries copies entries, the time of those that have one set to t
// (the field manager times the entry of the manager that wrote); nil stays
// nil.
func retimedEntries(entries []metav1.ManagedFieldsEntry, t time.Time) []metav1.ManagedFieldsEntry {
	if entries == nil {
		return nil
	}
	out := make([]metav1.ManagedFieldsEntry, len(entries))
	for i := range entries {
		entries[i].DeepCopyInto(&out[i])
		if out[i].Time != nil {
			out[i].Time = &metav1.Time{Time: t}
		}
	}
	return out
}

// createdShape is obj's JSON without the metadata fields a create's
// managedFields do not depend on (see createdFieldsMemo); false when obj
// does not encode or its shape is too big to remember.
func createdShape(obj runtime.Object) ([]byte, bool) {
	if u, ok := obj.(*unstructured.Unstructured); ok && !wellTypedIdentity(u) {
		// A value of the wrong type fails the typed conversion: not the
		// same as the object without it.
		return nil, false
	}
	cp := shallowCopy(obj)
	if cp == nil {
		return nil, false
	}
	acc, err := meta.Accessor(cp)
	if err != nil {
		return nil, false
	}
	acc.SetName("")
	acc.SetNamespace("")
	acc.SetUID("")
	acc.SetResourceVersion("")
	acc.SetSelfLink("")
	acc.SetCreationTimestamp(metav1.Time{})
	acc.SetGeneration(0)
	b, err := encodeAsSent(cp)
	if err != nil || len(b) > maxCreatedShapeLen {
		return nil, false
	}
	return b, true
}

// wellTypedIdentity reports whether the metadata fields createdShape drops
// are, where u has them, of the types their schema gives them.
func wellTypedIdentity(u *unstructured.Unstructured) bool {
	md, ok := u.Object["metadata"].(map[string]any)
	if !ok {
		return false
	}
	for _, k := range []string{"name", "namespace", "uid", "resourceVersion", "selfLink", "creationTimestamp", "generation"} {
		v, has := md[k]
		if !has {
			continue
		}
		switch v.(type) {
		case string:
			if k == "generation" {
				return false
			}
		case int64:
			if k != "generation" {
				return false
			}
		case nil:
			if k != "creationTimestamp" {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// shallowCopy copies obj's top level and (unstructured) its metadata map,
// so that metadata setters on the copy leave obj alone; nil when obj is
// neither unstructured nor a pointer to a struct.
func shallowCopy(obj runtime.Object) runtime.Object {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		out := maps.Clone(u.Object)
		if md, ok := out["metadata"].(map[string]any); ok {
			out["metadata"] = maps.Clone(md)
		}
		return &unstructured.Unstructured{Object: out}
	}
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return nil
	}
	cp := reflect.New(v.Elem().Type())
	cp.Elem().Set(v.Elem())
	out, _ := cp.Interface().(runtime.Object)
	return out
}

// recordServerWrite records a change the server itself makes (as upstream's
// controllers, under the manager "kube-apiserver") through sub in o's
// managedFields, live being the object before it.
func (r *Resource) recordServerWrite(sub string, live runtime.Object, o *Object) {
	r.recordWriteAs("kube-apiserver", sub, live, o)
}

// recordWriteAs records a change made in the control plane's name, as
// manager's update through sub, in o's managedFields; live is the object
// before it.
func (r *Resource) recordWriteAs(manager, sub string, live runtime.Object, o *Object) {
	fm, err := r.FieldManager(sub)
	if err != nil {
		return
	}
	live.GetObjectKind().SetGroupVersionKind(r.GVK)
	o.Obj.GetObjectKind().SetGroupVersionKind(r.GVK)
	out := fm.UpdateNoErrors(live, o.Obj, manager)
	if acc, err := meta.Accessor(out); err == nil {
		o.Obj, o.Meta = out, acc
	}
}

// createdFields memoizes, for the whole process, the managedFields that
// creating an object records: the control plane's own creates (the
// bootstrap objects, at every Start) are the same objects each time, and
// computing their field sets would be a third of a start. It holds the
// results of a pure function of the resource, the object's JSON and the
// manager, so every control plane gets what it would compute alone; it is
// bounded by maxCreatedFields entries.
var createdFields struct {
	sync.Mutex
	m map[[sha256.Size]byte][]metav1.ManagedFieldsEntry
}

// maxCreatedFields bounds createdFields.
const maxCreatedFields = 4096

// trackCreate records manager's create of o (decoded from data) in its
// managedFields, as TrackManagedFields does, at the registry's clock.
func (s *Registry) trackCreate(c *Request, o *Object, data []byte, manager string) {
	h := sha256.New()
	h.Write([]byte(c.Res.GVK.String()))
	h.Write([]byte{0})
	h.Write([]byte(manager))
	h.Write([]byte{0})
	h.Write(data)
	var key [sha256.Size]byte
	h.Sum(key[:0])
	createdFields.Lock()
	entries, ok := createdFields.m[key]
	createdFields.Unlock()
	if !ok {
		c.TrackManagedFields(nil, o, manager)
		entries = o.Meta.GetManagedFields()
		createdFields.Lock()
		if createdFields.m == nil {
			createdFields.m = map[[sha256.Size]byte][]metav1.ManagedFieldsEntry{}
		}
		if len(createdFields.m) < maxCreatedFields {
			createdFields.m[key] = entries
		}
		createdFields.Unlock()
	}
	s.setCreatedFields(o, entries)
}

// setCreatedFields gives o copies of a create's managedFields entries,
// timed now (to the second, as upstream records them).
func (s *Registry) setCreatedFields(o *Object, entries []metav1.ManagedFieldsEntry) {
	now := metav1.NewTime(s.now().Truncate(time.Second))
	out := make([]metav1.ManagedFieldsEntry, len(entries))
	for i, e := range entries {
		e.DeepCopyInto(&out[i])
		out[i].Time = &now
	}
	o.Meta.SetManagedFields(out)
}
