package registry

// The compiled-in admission plugins of kube-apiserver's default list that
// look at more than a new pod or claim (registry/admission.go has those):
// each is a builtinPlugin over upstream's admission.Attributes, run on
// every create, update and delete the API makes (subresources included),
// in kube-apiserver's plugin order, before the webhooks and policies.

import (
	"errors"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"

	admissionplugins "github.com/fakeplane/fakeplane/admission"
)

// builtinPlugin is one compiled-in admission plugin. handles says, before
// any attributes are built, whether it looks at an operation on a
// resource's subresource ("" for the resource itself). admit may change
// the attributes' object; validate may only refuse. Either may be nil.
// Their errors reach the client as they are when they are API statuses,
// else as upstream's admission handler wraps them (403 Forbidden).
type builtinPlugin struct {
	name     string
	handles  func(op admission.Operation, gr schema.GroupResource, subresource string) bool
	admit    func(s *Registry, c *Request, a admission.Attributes) error
	validate func(s *Registry, c *Request, a admission.Attributes) error
}

// builtinPlugins are the plugins in kube-apiserver's order
// (pkg/kubeapiserver/options/plugins.go, AllOrderedPlugins).
var builtinPlugins = []builtinPlugin{{
	name: "StorageObjectInUseProtection",
	handles: func(op admission.Operation, gr schema.GroupResource, sub string) bool {
		return op == admission.Create && sub == "" && (gr == pvsGR || gr == pvcsGR || gr == vacsGR)
	},
	admit: func(_ *Registry, _ *Request, a admission.Attributes) error {
		admissionplugins.ProtectStorageObject(a.GetObject())
		return nil
	},
}, {
	name: "PersistentVolumeClaimResize",
	handles: func(op admission.Operation, gr schema.GroupResource, sub string) bool {
		return op == admission.Update && sub == "" && gr == pvcsGR
	},
	validate: func(s *Registry, _ *Request, a admission.Attributes) error {
		pvc, ok := a.GetObject().(*corev1.PersistentVolumeClaim)
		old, ok2 := a.GetOldObject().(*corev1.PersistentVolumeClaim)
		if !ok || !ok2 {
			return nil
		}
		if why := admissionplugins.ClaimResizeRefusal(pvc, old, s.storageClass); why != "" {
			return errors.New(why)
		}
		return nil
	},
}}

// The resources the storage plugins look at.
var (
	pvsGR  = schema.GroupResource{Resource: "persistentvolumes"}
	pvcsGR = schema.GroupResource{Resource: "persistentvolumeclaims"}
	vacsGR = schema.GroupResource{Group: "storage.k8s.io", Resource: "volumeattributesclasses"}
)

// storageClass is the stored StorageClass of that name, or nil.
func (s *Registry) storageClass(name string) *storagev1.StorageClass {
	r, ok := s.served.Lookup("storage.k8s.io", "v1", "storageclasses")
	if !ok {
		return nil
	}
	obj, err := s.store.Get(r.Bucket, ObjectKey("", name))
	if err != nil {
		return nil
	}
	sc := &storagev1.StorageClass{}
	if JSONUnmarshal(obj.Value, sc) != nil {
		return nil
	}
	return sc
}

// runBuiltinPlugins runs the mutating (validate false) or validating
// (validate true) half of the built-in plugins on a write of o (nil on a
// delete) over old (nil on a create). What the mutating half changes is in
// o afterwards.
func (s *Registry) runBuiltinPlugins(c *Request, validate bool, op admission.Operation, o, old *Object, dry bool) error {
	return s.runBuiltin(c, validate, op, func() (admission.Attributes, error) {
		t, err := targetOf(c, o, old)
		if err != nil {
			return nil, err
		}
		if t.name == "" && old != nil {
			t.name = old.Meta.GetName()
		}
		return admissionAttributes(c, op, t, operationOptions(op, dry, nil), dry), nil
	})
}

// runBuiltin runs one half of the built-in plugins that handle op on the
// request's resource, with the attributes that attrsOf builds at most
// once.
func (s *Registry) runBuiltin(c *Request, validate bool, op admission.Operation, attrsOf func() (admission.Attributes, error)) error {
	if c.Res == nil || c.unadmitted() {
		return nil
	}
	gr, sub := c.Res.GR, c.subresource()
	var attrs admission.Attributes
	for i := range builtinPlugins {
		p := &builtinPlugins[i]
		f := p.admit
		if validate {
			f = p.validate
		}
		if f == nil || !p.handles(op, gr, sub) {
			continue
		}
		if attrs == nil {
			var err error
			if attrs, err = attrsOf(); err != nil {
				return admissionErr(err)
			}
		}
		if err := f(s, c, attrs); err != nil {
			return builtinAdmissionErr(attrs, err)
		}
	}
	return nil
}

// builtinAdmissionErr is what a client gets for a built-in plugin's
// error: an API status as it is, anything else as upstream's
// admission.NewForbidden makes of it.
func builtinAdmissionErr(a admission.Attributes, err error) error {
	if _, ok := err.(apierrors.APIStatus); ok {
		return err
	}
	return admission.NewForbidden(a, err)
}
