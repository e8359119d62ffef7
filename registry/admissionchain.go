package registry

// The admission plugins outside the registry: webhooks and admission
// policies (package admission), called from the write pipeline as
// kube-apiserver's handlers and storage call its admission chain.

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync/atomic"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/audit"
	"k8s.io/apiserver/pkg/authentication/user"
)

// Admission is the part of kube-apiserver's admission chain that is not
// built into the registry: mutating plugins (MutatingAdmissionPolicy,
// MutatingAdmissionWebhook) and validating ones (ValidatingAdmissionPolicy,
// ValidatingAdmissionWebhook), in kube-apiserver's order. Package admission
// implements it.
type Admission interface {
	admission.MutationInterface
	admission.ValidationInterface
}

// admissionHolder lets an Admission be stored in an atomic.Pointer.
type admissionHolder struct{ a Admission }

// SetAdmission installs the admission plugins outside the registry. Writes
// made before it (the bootstrap objects) are not admitted by them.
func (s *Registry) SetAdmission(a Admission) {
	if a == nil {
		s.admission.Store(nil)
		return
	}
	s.admission.Store(&admissionHolder{a: a})
}

// admissionPointer is where SetAdmission keeps the chain.
type admissionPointer = atomic.Pointer[admissionHolder]

// activeAdmission is what an Admission may implement to say it has
// nothing to do (no admission configuration exists): the registry then
// skips building its attributes.
type activeAdmission interface{ Active() bool }

// admissionOf is the installed chain, or nil when there is none or it
// has nothing to do.
func (s *Registry) admissionOf() Admission {
	h := s.admission.Load()
	if h == nil {
		return nil
	}
	if a, ok := h.a.(activeAdmission); ok && !a.Active() {
		return nil
	}
	return h.a
}

// admissionFor is admissionOf for request c: when c is audited, the
// annotations the plugins add to its attributes (webhooks' and policies')
// are recorded in its audit event after each call, as upstream's
// admission.WithAudit records them.
func (s *Registry) admissionFor(c *Request) Admission {
	a := s.admissionOf()
	if ctx := c.Context(); a == nil || ctx == nil || audit.AuditContextFrom(ctx) == nil {
		return a
	}
	if w, ok := admission.WithAudit(a).(Admission); ok {
		return w
	}
	return a
}

// admissionTarget is what an admission call sees of a write: the object
// and the old one in the request's kind, which for /scale is
// autoscaling/v1 Scale rather than the parent's.
type admissionTarget struct {
	obj, old runtime.Object
	kind     schema.GroupVersionKind
	name     string
}

// scaleKind is the kind of every scale subresource.
var scaleKind = autoscalingv1.SchemeGroupVersion.WithKind("Scale")

// targetOf builds what admission sees of a write of o (nil for a delete)
// over old (nil for a create).
func targetOf(c *Request, o, old *Object) (admissionTarget, error) {
	t := admissionTarget{kind: c.Res.GVK}
	if c.Info != nil {
		t.name = c.Info.Name
	}
	if c.subresource() == "scale" {
		t.kind = scaleKind
		if o != nil {
			sc, err := ScaleOf(c.Res, o)
			if err != nil {
				return t, err
			}
			t.obj = sc
		}
		if old != nil {
			sc, err := ScaleOf(c.Res, old)
			if err != nil {
				return t, err
			}
			t.old = sc
		}
	} else {
		if o != nil {
			t.obj = o.Obj
		}
		if old != nil {
			t.old = old.Obj
		}
	}
	for _, obj := range []runtime.Object{t.obj, t.old} {
		if obj != nil {
			obj.GetObjectKind().SetGroupVersionKind(t.kind)
		}
	}
	if o != nil && t.name == "" {
		t.name = o.Meta.GetName()
	}
	return t, nil
}

// subresource is the request's subresource, "" for the resource itself.
func (c *Request) subresource() string {
	if c.Info == nil {
		return ""
	}
	return c.Info.Subresource
}

// admissionAttributes builds upstream's admission.Attributes of a request.
func admissionAttributes(c *Request, op admission.Operation, t admissionTarget, opts runtime.Object, dry bool) admission.Attributes {
	u := c.User
	if u == nil {
		u = &user.DefaultInfo{}
	}
	ns := c.Namespace
	if !c.Res.Namespaced {
		ns = ""
	}
	gvr := c.Res.GVK.GroupVersion().WithResource(c.Res.Resource.Resource)
	return admission.NewAttributesRecord(t.obj, t.old, t.kind, ns, t.name, gvr, c.subresource(), op, opts, dry, u)
}

// operationOptions are the options object an AdmissionReview carries.
func operationOptions(c *Request, op admission.Operation, dry bool, del *metav1.DeleteOptions) runtime.Object {
	var dryRun []string
	if dry {
		dryRun = []string{metav1.DryRunAll}
	}
	switch op {
	case admission.Create:
		return &metav1.CreateOptions{TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "CreateOptions"}, DryRun: dryRun,
			FieldManager: c.FieldManager, FieldValidation: c.FieldValidation}
	case admission.Update:
		return &metav1.UpdateOptions{TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "UpdateOptions"}, DryRun: dryRun,
			FieldManager: c.FieldManager, FieldValidation: c.FieldValidation}
	case admission.Delete:
		out := &metav1.DeleteOptions{}
		if del != nil {
			out = del.DeepCopy()
		}
		out.TypeMeta = metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "DeleteOptions"}
		return out
	}
	return nil
}

// admitMutating runs the mutating plugins on a write of o over old (nil on
// a create). What they change is in o afterwards; a custom resource is
// pruned and defaulted again, as upstream does after a mutating webhook.
func (s *Registry) admitMutating(c *Request, op admission.Operation, o, old *Object, dry bool) error {
	if err := s.admitMutatingChain(c, op, o, old, dry); err != nil {
		return err
	}
	return s.denyAll(c, func() (admission.Attributes, error) {
		t, err := targetOf(c, o, old)
		return admissionAttributes(c, op, t, nil, dry), err
	})
}

// denyAll is the AlwaysDeny plugin, last of the mutating plugins: when it
// runs it refuses every write of a client (attrs builds the attributes of
// its error); the control plane's own writes pass (Request.internal).
func (s *Registry) denyAll(c *Request, attrs func() (admission.Attributes, error)) error {
	if !s.plugins.Enabled("AlwaysDeny") || c.unadmitted() || c.internal {
		return nil
	}
	a, err := attrs()
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	return admission.NewForbidden(a, errors.New("admission control is denying all modifications"))
}

// admitMutatingChain is admitMutating's call of the admission chain
// (policies and webhooks).
func (s *Registry) admitMutatingChain(c *Request, op admission.Operation, o, old *Object, dry bool) error {
	a := s.admissionFor(c)
	if a == nil || !a.Handles(op) || c.unadmitted() {
		return nil
	}
	t, err := targetOf(c, o, old)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	before := t.obj.DeepCopyObject()
	attrs := admissionAttributes(c, op, t, operationOptions(c, op, dry, nil), dry)
	if err := a.Admit(c.Context(), attrs, admissionObjects{s: s, res: c.Res, kind: t.kind}); err != nil {
		return admissionErr(err)
	}
	if reflect.DeepEqual(before, t.obj) {
		return nil
	}
	// Changed: not the object its document's memo validated.
	c.createMemo = nil
	if sc, ok := t.obj.(*autoscalingv1.Scale); ok {
		// A webhook on */scale changed the Scale: its replicas go to the
		// parent.
		if err := SetReplicas(c.Res, o, sc.Spec.Replicas); err != nil {
			return apierrors.NewInternalError(err)
		}
		return nil
	}
	if u, ok := o.Obj.(*unstructured.Unstructured); ok && c.Res.schema != nil {
		c.Res.schema.Admit(u)
	}
	if pod, ok := o.Obj.(*corev1.Pod); ok && op == admission.Create && c.subresource() == "" && s.plugins.Enabled("ServiceAccount") {
		readmitPod(pod)
	}
	return nil
}

// admitValidating runs the validating plugins on a write of o (nil on a
// delete) over old (nil on a create).
func (s *Registry) admitValidating(c *Request, op admission.Operation, o, old *Object, dry bool, del *metav1.DeleteOptions) error {
	a := s.admissionFor(c)
	if a == nil || !a.Handles(op) || c.unadmitted() {
		return nil
	}
	t, err := targetOf(c, o, old)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	attrs := admissionAttributes(c, op, t, operationOptions(c, op, dry, del), dry)
	if err := a.Validate(c.Context(), attrs, admissionObjects{s: s, res: c.Res, kind: t.kind}); err != nil {
		return admissionErr(err)
	}
	return nil
}

// admitDelete runs mutating and then validating admission on the deletion
// of old, as upstream's AdmissionToValidateObjectDeleteFunc does inside the
// storage's delete.
func (s *Registry) admitDelete(c *Request, old *Object, opts *metav1.DeleteOptions) error {
	if c.unadmitted() {
		return nil
	}
	dryRun := opts != nil && len(opts.DryRun) > 0
	for _, validate := range []bool{false, true} {
		if err := s.runBuiltinPlugins(c, validate, admission.Delete, nil, old, dryRun); err != nil {
			return err
		}
	}
	a := s.admissionFor(c)
	if a == nil || !a.Handles(admission.Delete) {
		a = nil
		if !s.plugins.Enabled("AlwaysDeny") {
			return nil
		}
	}
	dry := opts != nil && len(opts.DryRun) > 0
	t, err := targetOf(c, nil, old)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	if t.name == "" {
		t.name = old.Meta.GetName()
	}
	attrs := admissionAttributes(c, admission.Delete, t, operationOptions(c, admission.Delete, dry, opts), dry)
	objs := admissionObjects{s: s, res: c.Res, kind: t.kind}
	if a != nil {
		if err := a.Admit(c.Context(), attrs, objs); err != nil {
			return admissionErr(err)
		}
	}
	if err := s.denyAll(c, func() (admission.Attributes, error) { return attrs, nil }); err != nil {
		return err
	}
	if a == nil {
		return nil
	}
	if err := a.Validate(c.Context(), attrs, objs); err != nil {
		return admissionErr(err)
	}
	return nil
}

// bindingKind is the kind of pods/binding and bindings.
var bindingKind = corev1.SchemeGroupVersion.WithKind("Binding")

// AdmitCreate runs mutating and validating admission, built-in plugins
// included, on a create through a subresource whose object is not stored
// as it is (an Eviction, a TokenRequest): obj, of kind, is what the plugins
// see and may change.
func (s *Registry) AdmitCreate(c *Request, obj runtime.Object, kind schema.GroupVersionKind, name string, dry bool) error {
	return s.admitSubresource(c, admission.Create, obj, kind, name, dry)
}

// AdmitConnect runs mutating and validating admission on a CONNECT (exec,
// attach, portforward, proxy), as upstream's ConnectResource handler does:
// obj is the connect options (PodExecOptions, PodProxyOptions, ...), of
// kind.
func (s *Registry) AdmitConnect(c *Request, obj runtime.Object, kind schema.GroupVersionKind, name string) error {
	return s.admitSubresource(c, admission.Connect, obj, kind, name, false)
}

// withoutAdmissionKey is the context key of WithoutAdmission.
type withoutAdmissionKey struct{}

// WithoutAdmission returns a context whose writes through the registry
// skip admission, as kube-apiserver's own writes on behalf of a request
// that was admitted already (an eviction's pod condition and delete) do
// with rest.ValidateAllObjectFunc.
func WithoutAdmission(ctx context.Context) context.Context {
	return context.WithValue(ctx, withoutAdmissionKey{}, true)
}

// unadmitted reports whether the request's writes skip admission.
func (c *Request) unadmitted() bool {
	ctx := c.Context()
	return ctx != nil && ctx.Value(withoutAdmissionKey{}) != nil
}

// admitSubresourceCreate runs mutating and validating admission on a
// create whose object is not stored as it is (a Binding): obj is what the
// plugins see and may change.
func (s *Registry) admitSubresourceCreate(c *Request, obj runtime.Object, kind schema.GroupVersionKind, name string, dry bool) error {
	return s.admitSubresource(c, admission.Create, obj, kind, name, dry)
}

// admitSubresource runs mutating and validating admission on an
// operation whose object is not stored: obj is what the plugins see and
// may change.
func (s *Registry) admitSubresource(c *Request, op admission.Operation, obj runtime.Object, kind schema.GroupVersionKind, name string, dry bool) error {
	obj.GetObjectKind().SetGroupVersionKind(kind)
	t := admissionTarget{obj: obj, kind: kind, name: name}
	attrs := admissionAttributes(c, op, t, operationOptions(c, op, dry, nil), dry)
	for _, validate := range []bool{false, true} {
		if err := s.runBuiltin(c, validate, op, func() (admission.Attributes, error) { return attrs, nil }); err != nil {
			return err
		}
	}
	a := s.admissionFor(c)
	if a != nil {
		if err := a.Admit(c.Context(), attrs, admissionObjects{s: s, res: c.Res, kind: kind}); err != nil {
			return admissionErr(err)
		}
	}
	if err := s.denyAll(c, func() (admission.Attributes, error) { return attrs, nil }); err != nil {
		return err
	}
	if a == nil {
		return nil
	}
	objs := admissionObjects{s: s, res: c.Res, kind: kind}
	if err := a.Validate(c.Context(), attrs, objs); err != nil {
		return admissionErr(err)
	}
	return nil
}

// admissionErr is what a client gets for an admission error: an API
// status as it is, anything else as upstream's handlers answer an error
// that is not one (500).
func admissionErr(err error) error {
	if _, ok := err.(apierrors.APIStatus); ok {
		return err
	}
	return apierrors.NewInternalError(err)
}

// admissionObjects are upstream's admission.ObjectInterfaces for one
// resource: built-in kinds are the Go types of TypesScheme, custom
// resources unstructured; defaulting is the resource's.
type admissionObjects struct {
	s    *Registry
	res  *Resource
	kind schema.GroupVersionKind
}

var _ admission.ObjectInterfaces = admissionObjects{}

// GetObjectCreater implements admission.ObjectInterfaces.
func (a admissionObjects) GetObjectCreater() runtime.ObjectCreater { return a }

// GetObjectTyper implements admission.ObjectInterfaces.
func (a admissionObjects) GetObjectTyper() runtime.ObjectTyper { return a }

// GetObjectDefaulter implements admission.ObjectInterfaces.
func (a admissionObjects) GetObjectDefaulter() runtime.ObjectDefaulter { return a }

// GetObjectConvertor implements admission.ObjectInterfaces.
func (a admissionObjects) GetObjectConvertor() runtime.ObjectConvertor { return a }

// GetEquivalentResourceMapper implements admission.ObjectInterfaces.
func (a admissionObjects) GetEquivalentResourceMapper() runtime.EquivalentResourceMapper {
	return equivalentResources{a.s}
}

// New implements runtime.ObjectCreater.
func (a admissionObjects) New(gvk schema.GroupVersionKind) (runtime.Object, error) {
	if gvk == a.res.GVK {
		return a.res.NewObject(), nil
	}
	if obj, err := TypesScheme().New(gvk); err == nil {
		return obj, nil
	}
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetGroupVersionKind(gvk)
	return u, nil
}

// ObjectKinds implements runtime.ObjectTyper.
func (a admissionObjects) ObjectKinds(obj runtime.Object) ([]schema.GroupVersionKind, bool, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return []schema.GroupVersionKind{u.GroupVersionKind()}, false, nil
	}
	return TypesScheme().ObjectKinds(obj)
}

// Recognizes implements runtime.ObjectTyper.
func (a admissionObjects) Recognizes(gvk schema.GroupVersionKind) bool {
	return gvk == a.res.GVK || TypesScheme().Recognizes(gvk)
}

// Default implements runtime.ObjectDefaulter: a patched object gets the
// defaults of its resource.
func (a admissionObjects) Default(obj runtime.Object) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		if a.res.schema != nil && u.GroupVersionKind() == a.res.GVK {
			a.res.schema.Default(u)
		}
		return
	}
	if a.kind == a.res.GVK {
		a.res.Defaults(obj)
	}
}

// Convert implements runtime.ObjectConvertor: between two objects of the
// same kind it copies; between two versions of a resource (a webhook or
// policy matched through matchPolicy Equivalent) it converts as the store
// does, through the storage version.
func (a admissionObjects) Convert(in, out, _ any) error {
	if in == out {
		return nil
	}
	if inObj, ok := in.(runtime.Object); ok {
		if outObj, ok := out.(runtime.Object); ok {
			inKind, outKind := a.kindOf(inObj), a.kindOf(outObj)
			if !inKind.Empty() && !outKind.Empty() && inKind != outKind {
				return a.convertVersion(inObj, outObj, inKind, outKind)
			}
		}
	}
	switch src := in.(type) {
	case *unstructured.Unstructured:
		if dst, ok := out.(*unstructured.Unstructured); ok {
			dst.Object = runtime.DeepCopyJSON(src.Object)
			return nil
		}
		if obj, ok := out.(runtime.Object); ok {
			return runtime.DefaultUnstructuredConverter.FromUnstructured(src.Object, obj)
		}
	default:
		if dst, ok := out.(*unstructured.Unstructured); ok {
			m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(in)
			if err != nil {
				return err
			}
			dst.Object = m
			return nil
		}
		iv, ov := reflect.ValueOf(in), reflect.ValueOf(out)
		if iv.Type() == ov.Type() && iv.Kind() == reflect.Pointer {
			ov.Elem().Set(iv.Elem())
			return nil
		}
	}
	return fmt.Errorf("converting (%T) to (%T): unknown conversion", in, out)
}

// kindOf is the kind an object says it is, or its Go type's.
func (a admissionObjects) kindOf(obj runtime.Object) schema.GroupVersionKind {
	if gvk := obj.GetObjectKind().GroupVersionKind(); !gvk.Empty() {
		return gvk
	}
	if kinds, _, err := a.ObjectKinds(obj); err == nil && len(kinds) == 1 {
		return kinds[0]
	}
	return schema.GroupVersionKind{}
}

// convertVersion converts between two served versions of one stored
// resource through its storage version.
func (a admissionObjects) convertVersion(in, out runtime.Object, inKind, outKind schema.GroupVersionKind) error {
	from, ok := a.s.served.ForKind(inKind)
	if !ok {
		return fmt.Errorf("converting %v to %v: %v is not served", inKind, outKind, inKind)
	}
	to, ok := a.s.served.ForKind(outKind)
	if !ok || to.Bucket != from.Bucket {
		return fmt.Errorf("converting %v to %v: not versions of one resource", inKind, outKind)
	}
	b, err := encodeAsSent(in)
	if err != nil {
		return err
	}
	if b, err = from.toStorage(b); err != nil {
		return err
	}
	if b, err = to.FromStorage(b); err != nil {
		return err
	}
	if u, ok := out.(*unstructured.Unstructured); ok {
		u.Object = map[string]any{}
		return JSONUnmarshal(b, &u.Object)
	}
	v := reflect.ValueOf(out)
	if v.Kind() != reflect.Pointer {
		return fmt.Errorf("converting %v to %v: %T is not a pointer", inKind, outKind, out)
	}
	v.Elem().Set(reflect.Zero(v.Elem().Type()))
	return JSONUnmarshal(b, out)
}

// ConvertToVersion implements runtime.ObjectConvertor.
func (a admissionObjects) ConvertToVersion(in runtime.Object, gv runtime.GroupVersioner) (runtime.Object, error) {
	kinds, _, err := a.ObjectKinds(in)
	if err != nil {
		return nil, err
	}
	if target, ok := gv.KindForGroupVersionKinds(kinds); ok && target == kinds[0] {
		return in, nil
	}
	return nil, fmt.Errorf("converting %v to %v is not supported", kinds[0], gv)
}

// ConvertFieldLabel implements runtime.ObjectConvertor.
func (a admissionObjects) ConvertFieldLabel(_ schema.GroupVersionKind, label, value string) (string, string, error) {
	return label, value, nil
}

// equivalentResources is upstream's EquivalentResourceMapper over the
// served resources: two resources are equivalent when they share storage.
type equivalentResources struct{ s *Registry }

// EquivalentResourcesFor implements runtime.EquivalentResourceMapper.
func (e equivalentResources) EquivalentResourcesFor(resource schema.GroupVersionResource, subresource string) []schema.GroupVersionResource {
	r, ok := e.s.served.Lookup(resource.Group, resource.Version, resource.Resource)
	if !ok || r.Bucket == "" {
		return nil
	}
	var out []schema.GroupVersionResource
	for _, o := range e.s.served.All() {
		if o.Bucket != r.Bucket || o.Virtual || (subresource != "" && !o.HasSub(subresource)) {
			continue
		}
		out = append(out, o.GVK.GroupVersion().WithResource(o.Resource.Resource))
	}
	return out
}

// KindFor implements runtime.EquivalentResourceMapper.
func (e equivalentResources) KindFor(resource schema.GroupVersionResource, subresource string) schema.GroupVersionKind {
	r, ok := e.s.served.Lookup(resource.Group, resource.Version, resource.Resource)
	if !ok {
		return schema.GroupVersionKind{}
	}
	if subresource == "scale" {
		return scaleKind
	}
	return r.GVK
}
