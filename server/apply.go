package server

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/fakeplane/fakeplane/registry"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/managedfields"
)

// apply answers a server-side apply patch (application/apply-patch+yaml):
// upstream's field manager merges the applied configuration into the live
// object (or an empty one, creating it), records the manager's fields and
// refuses to take fields another manager owns unless force is set.
func (s *Server) apply(c *call, statusOnly bool, body []byte, wo *writeOptions) error {
	patch, err := parseApplyPatch(body)
	if err != nil {
		return apierrors.NewBadRequest(fmt.Sprintf("error encoding patch: %v", err))
	}
	fm, err := c.Res.FieldManager(c.Info.Subresource)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	var warnings []string
	applyTo := func(live runtime.Object) (*registry.Object, error) {
		warnings = nil
		out, err := applyPatch(fm, live, patch, wo)
		if err != nil {
			return nil, err
		}
		if wo.fieldValidation == metav1.FieldValidationStrict || wo.fieldValidation == metav1.FieldValidationWarn {
			if err := patch.strictErr; err != nil {
				if wo.fieldValidation == metav1.FieldValidationStrict {
					return nil, apierrors.NewBadRequest(fmt.Sprintf("error strict decoding patch: %v", err))
				}
				warnings = append(warnings, registry.StrictDecodingWarnings(err)...)
			}
		}
		acc, err := meta.Accessor(out)
		if err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		o := &registry.Object{Obj: out, Meta: acc}
		if err := c.checkAppliedIdentity(o); err != nil {
			return nil, err
		}
		return o, nil
	}
	c.AllowCreate, c.Merged = !statusOnly, true
	out, _, err := s.UpdateObject(c.Request, statusOnly, wo.dryRun, func(old *registry.Object) (*registry.Object, error) {
		return applyTo(old.Obj)
	})
	if errors.Is(err, registry.ErrCreateInstead) {
		live := c.Res.NewObject()
		live.GetObjectKind().SetGroupVersionKind(c.Res.GVK)
		o, err := applyTo(live)
		// The patch's warnings go with the answer whatever it is, as
		// upstream records them while applying.
		addWarnings(c.w, warnings)
		if err != nil {
			return err
		}
		// As upstream's patch handler and store when a patch creates: a UID
		// is refused, a resourceVersion ignored.
		if uid := o.Meta.GetUID(); uid != "" {
			return apierrors.NewConflict(c.Res.GR, c.Info.Name, fmt.Errorf("uid mismatch: the provided object specified uid %s, and no existing object was found", uid))
		}
		o.Meta.SetResourceVersion("")
		data, err := s.CreateObject(c.Request, o, wo.dryRun)
		if err != nil {
			return err
		}
		return s.writeObject(c, http.StatusCreated, data)
	}
	addWarnings(c.w, warnings)
	if err != nil {
		return err
	}
	return s.writeObject(c, http.StatusOK, out)
}

// checkAppliedIdentity checks the name and namespace of an applied object
// against the URL, filling in the namespace, as upstream's patch handler does.
func (c *call) checkAppliedIdentity(o *registry.Object) error {
	if c.Res.Namespaced {
		switch ns := o.Meta.GetNamespace(); {
		case ns == "":
			o.Meta.SetNamespace(c.Namespace)
		case ns != c.Namespace:
			return apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
		}
	} else {
		o.Meta.SetNamespace("")
	}
	return registry.URLNameError(o.Meta.GetName(), c.Info.Name)
}

// applyPatch merges an apply patch into live with a field manager, with
// upstream's errors for a patch that does not decode or does not merge.
func applyPatch(fm *managedfields.FieldManager, live runtime.Object, body *applyPatchBody, wo *writeOptions) (runtime.Object, error) {
	// As upstream: integral numbers decode as int64, so an unchanged value
	// compares equal to the stored one (ratcheting) and is stored as it was.
	patch, err := body.object()
	if err != nil {
		return nil, err
	}
	out, err := fm.Apply(live, patch, wo.fieldManager, wo.force)
	if err != nil {
		return nil, registry.ErrUnknown(err)
	}
	return out, nil
}
