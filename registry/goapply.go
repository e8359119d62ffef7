package registry

import (
	"context"
	"errors"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Applier is the server-side apply of the registry's Go API (the registry
// Interface that New's Client returns implements it): the applied
// configuration is merged into the object as a PATCH with
// application/apply-patch+yaml through the subresource does, its fields
// owned by the context's field manager (WithFieldManager), taken from
// other managers when force is set.
type Applier interface {
	ApplySubresource(ctx context.Context, gvr schema.GroupVersionResource, subresource, namespace, name string, applied *unstructured.Unstructured, force bool) (runtime.Object, error)
}

var _ Applier = goAPI{}

// ApplySubresource implements Applier for "status" (the only subresource
// the server's own appliers write). The object must exist.
func (g goAPI) ApplySubresource(ctx context.Context, gvr schema.GroupVersionResource, subresource, namespace, name string, applied *unstructured.Unstructured, force bool) (runtime.Object, error) {
	if subresource != "status" {
		return nil, apierrors.NewBadRequest("only status is applied from Go")
	}
	c, err := g.newSubresourceCall(ctx, gvr, subresource, namespace, name, "patch")
	if err != nil {
		return nil, err
	}
	manager := FieldManagerFrom(ctx)
	if manager == "" {
		return nil, apierrors.NewBadRequest("PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch")
	}
	fm, err := c.Res.FieldManager(subresource)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	out, _, err := g.s.updateKey(c, c.Key(), name, statusWrite, false, func(old *Object) (*Object, error) {
		merged, err := fm.Apply(old.Obj.DeepCopyObject(), applied.DeepCopy(), manager, force)
		if err != nil {
			return nil, ErrUnknown(err)
		}
		return g.decode(c, merged)
	})
	if err != nil {
		if errors.Is(err, ErrCreateInstead) {
			return nil, apierrors.NewNotFound(c.Res.GR, name)
		}
		return nil, err
	}
	return g.result(c, out)
}
