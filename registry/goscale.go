package registry

import (
	"context"
	"fmt"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// scaleGVK is the kind of the scale subresource's objects.
var scaleGVK = autoscalingv1.SchemeGroupVersion.WithKind("Scale")

// CurrentScale returns the Scale of old, a workload, with the
// managedFields its managers of the replicas give it (upstream's scale
// handler translates the parent's entries), and the handler that turns the
// Scale's entries back into the parent's.
func CurrentScale(res *Resource, old *Object) (*autoscalingv1.Scale, *managedfields.ScaleHandler, error) {
	cur, err := ScaleOf(res, old)
	if err != nil {
		return nil, nil, err
	}
	handler := managedfields.NewScaleHandler(old.Meta.GetManagedFields(), res.GVK.GroupVersion(), res.ReplicasPaths())
	if cur.ManagedFields, err = handler.ToSubresource(); err != nil {
		return nil, nil, apierrors.NewInternalError(err)
	}
	return cur, handler, nil
}

// ScaledObject is old, the workload named name, with the replicas of want,
// a Scale written to its scale subresource, and the parent's managedFields
// that handler makes of want's: as upstream's scale storage, it refuses
// another name (400), negative replicas (422) and a resourceVersion other
// than old's (409).
func ScaledObject(res *Resource, old *Object, want *autoscalingv1.Scale, name string, handler *managedfields.ScaleHandler) (*Object, error) {
	if want.Name != "" && want.Name != name {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", want.Name, name))
	}
	if want.Spec.Replicas < 0 {
		return nil, apierrors.NewInvalid(schema.GroupKind{Group: "autoscaling", Kind: "Scale"}, name, field.ErrorList{
			field.Invalid(field.NewPath("spec", "replicas"), want.Spec.Replicas, "must be greater than or equal to 0"),
		})
	}
	if want.ResourceVersion != "" && want.ResourceVersion != old.Meta.GetResourceVersion() {
		return nil, ErrConflict(res.GR, name)
	}
	next, err := res.DecodeStored(MustEncode(old.Obj))
	if err != nil {
		return nil, err
	}
	if err := SetReplicas(res, next, want.Spec.Replicas); err != nil {
		return nil, err
	}
	parentFields, err := handler.ToParent(want.ManagedFields)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	next.Meta.SetManagedFields(parentFields)
	return next, nil
}

// ScaleGetter reads the scale subresource of a workload, as a GET of it
// does (a resource without the subresource is a 404); the Go API
// implements it.
type ScaleGetter interface {
	GetScale(ctx context.Context, gvr schema.GroupVersionResource, namespace, name string) (*autoscalingv1.Scale, error)
}

var _ ScaleGetter = goAPI{}

// GetScale implements ScaleGetter.
func (g goAPI) GetScale(ctx context.Context, gvr schema.GroupVersionResource, namespace, name string) (*autoscalingv1.Scale, error) {
	c, err := g.newSubresourceCall(ctx, gvr, "scale", namespace, name, "get")
	if err != nil {
		return nil, err
	}
	o, err := g.s.GetObject(c)
	if err != nil {
		return nil, err
	}
	return ScaleOf(c.Res, o)
}

// updateScale is UpdateSubresource of "scale", as a PUT of a Scale to it
// is: tryUpdate is handed the current *autoscalingv1.Scale and returns the
// one to write; what is written is the parent's replicas, and the Scale
// as it then is is returned. A resource without the subresource has no
// such path (404).
func (g goAPI) updateScale(c *Request, name string, tryUpdate UpdateFunc) (runtime.Object, error) {
	fm, err := c.Res.FieldManager("scale")
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	manager := FieldManagerFrom(c.GoCtx)
	// callerErr is tryUpdate's error, returned as it is.
	var callerErr error
	_, _, err = g.s.updateKey(c, c.Key(), name, mainWrite, false, func(old *Object) (*Object, error) {
		callerErr = nil
		cur, handler, err := CurrentScale(c.Res, old)
		if err != nil {
			return nil, err
		}
		next, err := tryUpdate(cur.DeepCopy())
		if err != nil {
			callerErr = err
			return nil, err
		}
		want, ok := next.(*autoscalingv1.Scale)
		if !ok {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("a scale subresource takes a Scale, not %T", next))
		}
		want.SetGroupVersionKind(scaleGVK)
		if manager != "" {
			if out, ok := fm.UpdateNoErrors(cur, want, manager).(*autoscalingv1.Scale); ok {
				want = out
			}
		}
		return ScaledObject(c.Res, old, want, name, handler)
	})
	if err := updateError(c, name, err, callerErr); err != nil {
		return nil, err
	}
	cur, err := g.s.GetObject(c)
	if err != nil {
		return nil, err
	}
	return ScaleOf(c.Res, cur)
}
