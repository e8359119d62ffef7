package registry

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
)

// API returns the Go API of the server's read and write pipeline: the
// same decoding, defaults, admission, validation and commit as the REST API
// runs, called with a context and Go objects instead of an HTTP request.
// Controllers write through it.
func (s *Registry) API() Interface { return goAPI{s: s} }

// goAPI implements registry.Interface over the server's pipeline.
type goAPI struct{ s *Registry }

var _ Interface = goAPI{}

// errNoUser is the answer to a Go call whose context carries no user.
var errNoUser = errors.New("no user in the context (see k8s.io/apiserver/pkg/endpoints/request.WithUser)")

// errNamespaceRequired is upstream's answer (genericregistry's key
// function) for a namespaced call without a namespace.
func errNamespaceRequired() error { return apierrors.NewBadRequest("Namespace parameter required.") }

// newCall builds the call of a Go request: the resource gvr names, the user
// from ctx, and what kube-apiserver's routing would check (a served
// resource, a verb it serves).
func (g goAPI) newCall(ctx context.Context, gvr schema.GroupVersionResource, ns, name, verb string) (*Request, error) {
	return g.newSubresourceCall(ctx, gvr, "", ns, name, verb)
}

// newSubresourceCall is newCall for a subresource of gvr ("" for the
// resource itself).
func (g goAPI) newSubresourceCall(ctx context.Context, gvr schema.GroupVersionResource, sub, ns, name, verb string) (*Request, error) {
	u, ok := apirequest.UserFrom(ctx)
	if !ok || u == nil {
		return nil, apierrors.NewInternalError(errNoUser)
	}
	res, ok := g.s.served.Lookup(gvr.Group, gvr.Version, gvr.Resource)
	if !ok {
		return nil, NotFoundPath()
	}
	if !res.Namespaced {
		ns = ""
	}
	c := &Request{Res: res, Namespace: ns, User: u, GoCtx: ctx, internal: true, Info: &apirequest.RequestInfo{
		IsResourceRequest: true, Verb: verb, APIGroup: gvr.Group, APIVersion: gvr.Version,
		Resource: gvr.Resource, Subresource: sub, Namespace: ns, Name: name,
	}}
	if sub == "scale" && !res.HasSub(sub) {
		// No route serves the path (a Role's scale).
		return nil, NotFoundPath()
	}
	if res.Virtual || sub != "" && !res.HasSub(sub) || !g.s.VerbAllowed(c) {
		return nil, c.ErrMethodNotSupported()
	}
	if verb == "get" || verb == "update" || verb == "delete" {
		if name == "" {
			return nil, CheckNameParameter(name)
		}
		if res.Namespaced && ns == "" {
			return nil, errNamespaceRequired()
		}
	}
	return c, nil
}

// decode turns a caller's object into the pipeline's, as the REST API
// decodes a request body: through its JSON, so that a missing apiVersion
// and kind take the resource's, and the same defaults apply.
func (g goAPI) decode(c *Request, obj runtime.Object) (*Object, error) {
	if v := reflect.ValueOf(obj); obj == nil || v.Kind() == reflect.Pointer && v.IsNil() {
		return nil, apierrors.NewBadRequest("the object is nil")
	}
	if _, ok := obj.(*unstructured.Unstructured); !ok && c.Res.Typed != nil {
		if want := reflect.TypeOf(c.Res.Typed()); reflect.TypeOf(obj) != want {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("%T is not the Go type of %s (%s)", obj, c.Res.GR, want))
		}
	}
	// Encoded as stored: the control plane's clients send built-in objects
	// as protobuf, which has no empty lists, so a controller's [] arrives
	// as none (and its managedFields hold no field for it).
	data, err := Encode(obj)
	if err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("encode %T: %v", obj, err))
	}
	return c.Res.DecodeObject(data)
}

// result decodes an object the pipeline answered with (JSON in the served
// version) into a fresh Go object.
func (g goAPI) result(c *Request, data []byte) (runtime.Object, error) {
	o, err := c.Res.DecodeStored(data)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	return o.Obj, nil
}

// Get implements registry.Interface.
func (g goAPI) Get(ctx context.Context, gvr schema.GroupVersionResource, namespace, name string) (runtime.Object, error) {
	c, err := g.newCall(ctx, gvr, namespace, name, "get")
	if err != nil {
		return nil, err
	}
	served, err := g.s.GetServed(c)
	if err != nil {
		return nil, err
	}
	return g.result(c, served)
}

// List implements registry.Interface.
func (g goAPI) List(ctx context.Context, gvr schema.GroupVersionResource, namespace string, opts metav1.ListOptions) (runtime.Object, error) {
	c, err := g.newCall(ctx, gvr, namespace, "", "list")
	if err != nil {
		return nil, err
	}
	if opts.Watch {
		return nil, apierrors.NewBadRequest("a list through the registry cannot watch")
	}
	internal := &metainternalversion.ListOptions{}
	if err := metainternalversion.Convert_v1_ListOptions_To_internalversion_ListOptions(&opts, internal, nil); err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	checked, err := g.s.CheckListOptions(c, internal)
	if err != nil {
		return nil, err
	}
	lm, _, items, err := g.s.ListServed(c, checked)
	if err != nil {
		return nil, err
	}
	objs := make([]runtime.Object, len(items))
	for i, it := range items {
		if objs[i], err = g.result(c, it); err != nil {
			return nil, err
		}
	}
	listGVK := c.Res.GVK.GroupVersion().WithKind(c.Res.ListKind)
	var list runtime.Object
	if c.Res.Typed != nil {
		if list, err = TypesScheme().New(listGVK); err != nil {
			return nil, apierrors.NewInternalError(fmt.Errorf("list type of %s: %w", c.Res.GR, err))
		}
	} else {
		list = &unstructured.UnstructuredList{Object: map[string]any{}}
	}
	list.GetObjectKind().SetGroupVersionKind(listGVK)
	if err := meta.SetList(list, objs); err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("fill %s list: %w", c.Res.GR, err))
	}
	acc, err := meta.ListAccessor(list)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	acc.SetResourceVersion(lm.ResourceVersion)
	acc.SetContinue(lm.Continue)
	acc.SetRemainingItemCount(lm.RemainingItemCount)
	return list, nil
}

// Create implements registry.Interface.
func (g goAPI) Create(ctx context.Context, gvr schema.GroupVersionResource, obj runtime.Object) (runtime.Object, error) {
	c, err := g.newCall(ctx, gvr, "", "", "create")
	if err != nil {
		return nil, err
	}
	o, err := g.decode(c, obj)
	if err != nil {
		return nil, err
	}
	if c.Res.Namespaced {
		if c.Namespace = o.Meta.GetNamespace(); c.Namespace == "" {
			return nil, errNamespaceRequired()
		}
		c.Info.Namespace = c.Namespace
	}
	if fm := FieldManagerFrom(ctx); fm != "" {
		c.TrackManagedFields(nil, o, fm)
	}
	out, err := g.s.CreateObject(c, o, false)
	if err != nil {
		return nil, err
	}
	return g.result(c, out)
}

// Update implements registry.Interface.
func (g goAPI) Update(ctx context.Context, gvr schema.GroupVersionResource, namespace, name string, tryUpdate UpdateFunc) (runtime.Object, error) {
	return g.update(ctx, gvr, "", namespace, name, tryUpdate)
}

// UpdateSubresource implements registry.Interface.
func (g goAPI) UpdateSubresource(ctx context.Context, gvr schema.GroupVersionResource, subresource, namespace, name string, tryUpdate UpdateFunc) (runtime.Object, error) {
	if subresource == "" {
		return nil, apierrors.NewBadRequest("no subresource given")
	}
	return g.update(ctx, gvr, subresource, namespace, name, tryUpdate)
}

// update is Update through subresource sub ("" for the resource itself).
func (g goAPI) update(ctx context.Context, gvr schema.GroupVersionResource, sub, namespace, name string, tryUpdate UpdateFunc) (runtime.Object, error) {
	c, err := g.newSubresourceCall(ctx, gvr, sub, namespace, name, "update")
	if err != nil {
		return nil, err
	}
	mode := mainWrite
	switch sub {
	case "scale":
		return g.updateScale(c, name, tryUpdate)
	case "", "finalize", "approval":
		// finalize and approval are main writes that their rules let
		// change spec.finalizers (namespaces), or the Approved and Denied
		// conditions (CertificateSigningRequests), and nothing else, as
		// serveFinalize's and serveApproval's.
	case "status":
		mode = statusWrite
	default:
		return nil, c.ErrMethodNotSupported()
	}
	fm := FieldManagerFrom(ctx)
	// callerErr is tryUpdate's error, returned as it is.
	var callerErr error
	out, _, err := g.s.updateKey(c, c.Key(), name, mode, false, func(old *Object) (*Object, error) {
		callerErr = nil
		next, err := tryUpdate(old.Obj.DeepCopyObject())
		if err != nil {
			callerErr = err
			return nil, err
		}
		o, err := g.decode(c, next)
		if err != nil {
			return nil, err
		}
		if o.Meta.GetName() == "" {
			o.Meta.SetName(name)
		}
		if err := CheckName(c, o); err != nil {
			return nil, err
		}
		if o.Meta.GetResourceVersion() == "" {
			o.Meta.SetResourceVersion(old.Meta.GetResourceVersion())
		}
		if fm != "" {
			c.TrackManagedFields(old.Obj, o, fm)
		}
		return o, nil
	})
	if err := updateError(c, name, err, callerErr); err != nil {
		return nil, err
	}
	return g.result(c, out)
}

// updateError is what an update through the Go API returns for the error
// of its write: the caller's tryUpdate's as it is, NotFound for a missing
// object, or the write's.
func updateError(c *Request, name string, err, callerErr error) error {
	switch {
	case err != nil && callerErr != nil:
		return callerErr
	case errors.Is(err, ErrCreateInstead):
		return apierrors.NewNotFound(c.Res.GR, name)
	}
	return err
}

// Delete implements registry.Interface.
func (g goAPI) Delete(ctx context.Context, gvr schema.GroupVersionResource, namespace, name string, opts metav1.DeleteOptions) (runtime.Object, error) {
	c, err := g.newCall(ctx, gvr, namespace, name, "delete")
	if err != nil {
		return nil, err
	}
	if errs := metav1validation.ValidateDeleteOptions(&opts); len(errs) > 0 {
		return nil, apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: "DeleteOptions"}, "", errs)
	}
	out, _, err := g.s.DeleteObject(c, c.Key(), name, &opts)
	if err != nil {
		return nil, err
	}
	return g.result(c, out)
}

// NamespacedResources returns one served version of every stored namespaced
// resource, built-in or custom (the CRDs served now): what a namespace's
// deletion lists and deletes its content through.
func (s *Registry) NamespacedResources() []schema.GroupVersionResource {
	rs := s.served.namespacedBuckets()
	out := make([]schema.GroupVersionResource, 0, len(rs))
	for _, r := range rs {
		out = append(out, schema.GroupVersionResource{Group: r.Group, Version: r.Version, Resource: r.Resource.Resource})
	}
	return out
}
