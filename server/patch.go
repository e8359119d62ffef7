package server

import (
	"errors"
	"fmt"
	"mime"
	"net/http"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/mergepatch"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
)

// maxJSONPatchOperations is upstream's limit on JSON patch operations.
const maxJSONPatchOperations = 10000

// patchTypes lists the patch content types in the order upstream's 415 names them.
func (r *resource) patchTypes() []string {
	out := []string{string(types.JSONPatchType), string(types.MergePatchType), string(types.ApplyYAMLPatchType)}
	if r.typed != nil {
		out = append(out, string(types.StrategicMergePatchType))
	}
	return out
}

// patch answers PATCH on an object or its status.
func (s *Server) patch(c *call, statusOnly bool) error {
	ct := c.r.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return errUnsupportedMediaType(c.res.patchTypes())
	}
	pt := types.PatchType(mt)
	switch pt {
	case types.JSONPatchType, types.MergePatchType:
	case types.StrategicMergePatchType:
		if c.res.typed == nil {
			return errUnsupportedMediaType(c.res.patchTypes())
		}
	default:
		return errUnsupportedMediaType(c.res.patchTypes())
	}
	body, err := readBody(c.r)
	if err != nil {
		return err
	}
	dry, err := isDryRun(c)
	if err != nil {
		return err
	}
	var jp jsonpatch.Patch
	if pt == types.JSONPatchType {
		jp, err = jsonpatch.DecodePatch(body)
		if err != nil {
			return apierrors.NewBadRequest(err.Error())
		}
		if len(jp) > maxJSONPatchOperations {
			return apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("The allowed maximum operations in a JSON patch is %d, got %d", maxJSONPatchOperations, len(jp)))
		}
	}
	out, _, err := s.updateObject(c, statusOnly, dry, func(old *object) (*object, error) {
		cur, err := encode(old.obj)
		if err != nil {
			return nil, err
		}
		var patched []byte
		switch pt {
		case types.JSONPatchType:
			patched, err = jp.Apply(cur)
			if err != nil {
				return nil, apierrors.NewGenericServerResponse(http.StatusUnprocessableEntity, "", c.res.gr, "", err.Error(), 0, false)
			}
		case types.MergePatchType:
			patched, err = jsonpatch.MergePatch(cur, body)
			if err != nil {
				if errors.Is(err, jsonpatch.ErrBadJSONPatch) || errors.Is(err, jsonpatch.ErrBadJSONDoc) {
					return nil, apierrors.NewBadRequest(err.Error())
				}
				return nil, apierrors.NewBadRequest(err.Error())
			}
		case types.StrategicMergePatchType:
			patched, err = strategicpatch.StrategicMergePatch(cur, body, c.res.newObject())
			if err != nil {
				return nil, interpretStrategicError(err)
			}
		}
		o, err := c.res.decodeObject(patched)
		if err != nil {
			return nil, err
		}
		if o.meta.GetName() != c.info.Name {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", o.meta.GetName(), c.info.Name))
		}
		return o, nil
	})
	if errors.Is(err, errCreateInstead) {
		return apierrors.NewNotFound(c.res.gr, c.info.Name)
	}
	if err != nil {
		return err
	}
	return s.writeObject(c, http.StatusOK, out)
}

// interpretStrategicError words strategic merge patch errors as upstream does.
func interpretStrategicError(err error) error {
	switch {
	case errors.Is(err, mergepatch.ErrBadJSONDoc), errors.Is(err, mergepatch.ErrBadPatchFormatForPrimitiveList),
		errors.Is(err, mergepatch.ErrBadPatchFormatForRetainKeys), errors.Is(err, mergepatch.ErrBadPatchFormatForSetElementOrderList),
		errors.Is(err, mergepatch.ErrUnsupportedStrategicMergePatchFormat):
		return apierrors.NewBadRequest(err.Error())
	case errors.Is(err, mergepatch.ErrNoListOfLists), errors.Is(err, mergepatch.ErrPatchContentNotMatchRetainKeys):
		return apierrors.NewGenericServerResponse(http.StatusUnprocessableEntity, "", schema.GroupResource{}, "", err.Error(), 0, false)
	}
	return apierrors.NewBadRequest(err.Error())
}
