package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"

	"github.com/fakeplane/fakeplane/registry"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/mergepatch"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
)

// jsonPatchOp is one JSON patch operation, used to check a patch's shape.
type jsonPatchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	From  string `json:"from"`
	Value any    `json:"value"`
}

// maxJSONPatchOperations is upstream's limit on JSON patch operations.
const maxJSONPatchOperations = 10000

// patchTypes lists the patch content types in the order upstream's 415 names them.
func patchTypes(r *registry.Resource) []string {
	out := []string{string(types.JSONPatchType), string(types.MergePatchType), string(types.ApplyYAMLPatchType)}
	if r.Typed != nil {
		out = append(out, string(types.StrategicMergePatchType))
	}
	return out
}

// patch answers PATCH on an object or its status.
func (s *Server) patch(c *call, statusOnly bool) error {
	ct := c.r.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return errUnsupportedMediaType(patchTypes(c.Res))
	}
	pt := types.PatchType(mt)
	switch pt {
	case types.JSONPatchType, types.MergePatchType, types.ApplyYAMLPatchType:
	case types.StrategicMergePatchType:
		if c.Res.Typed == nil {
			return errUnsupportedMediaType(patchTypes(c.Res))
		}
	default:
		if c.Res.CRD == "" {
			// go-restful's route refuses a type the PATCH route does not consume.
			return errRouteUnsupportedMediaType()
		}
		return errUnsupportedMediaType(patchTypes(c.Res))
	}
	if c.Info.Name == "" {
		// A custom resource's collection (a built-in one has no PATCH
		// route): apiextensions' patch handler asks the URL for the name
		// once it knows the patch type.
		return apierrors.NewBadRequest("name must be provided")
	}
	body, err := readBody(c.r)
	if err != nil {
		return err
	}
	wo, err := parseWriteOptions(c, pt)
	if err != nil {
		return err
	}
	if pt == types.ApplyYAMLPatchType {
		auditRequestYAML(c.r, body)
		return s.apply(c, statusOnly, body, wo)
	}
	// Upstream refuses a body that is not JSON before it reads the object.
	if !json.Valid(body) {
		return apierrors.NewBadRequest("invalid JSON patch")
	}
	auditRequestJSON(c.r, body)
	dry := wo.dryRun
	var (
		jp          jsonpatch.Patch
		patchStrict []error // the patch's own duplicate and unknown fields
		patchMap    map[string]any
		decodedOnce bool
	)
	// decodePatch decodes the patch as upstream does once it has read the
	// object (so a missing object is NotFound first).
	decodePatch := func() error {
		if decodedOnce {
			return nil
		}
		var err error
		patchStrict, patchMap, jp, err = decodePatchBody(pt, body, wo.fieldValidation)
		if err != nil {
			return err
		}
		decodedOnce = true
		return nil
	}
	// The patched object is decoded once, strictly (a built-in type) or
	// tracking the fields its schema prunes (a custom resource): what it
	// found is reported below unless fieldValidation is Ignore.
	checkStrict := (c.Res.Typed != nil || c.Res.HasSchema()) && wo.fieldValidation != metav1.FieldValidationIgnore
	decodePatched := func(patched []byte) (*registry.Object, []error, error) {
		if checkStrict {
			return c.Res.DecodeObjectStrictErrors(patched)
		}
		o, err := c.Res.DecodeObject(patched)
		return o, nil, err
	}
	var warnings []string
	out, _, err := s.UpdateObject(c.Request, statusOnly, dry, func(old *registry.Object) (*registry.Object, error) {
		warnings = nil
		if err := decodePatch(); err != nil {
			return nil, err
		}
		var decoded *registry.Object // the patched object, when decoded already
		cur, err := registry.Encode(old.Obj)
		if err != nil {
			return nil, err
		}
		var patched []byte
		switch pt {
		case types.JSONPatchType:
			patched, err = jp.Apply(cur)
			if err != nil {
				// kube-apiserver words every failed JSON patch operation alike.
				return nil, apierrors.NewGenericServerResponse(http.StatusUnprocessableEntity, "", schema.GroupResource{}, "", err.Error(), 0, false)
			}
		case types.MergePatchType:
			var walked bool
			if patched, walked = registry.ApplyMergePatch(cur, body); walked {
				// Decoded as json-patch's result would be. If decoding finds
				// anything to report, it is reported from json-patch's result,
				// whose bytes the messages show.
				if checked, err := c.Res.PatchedTypeMeta(patched, false, c.Info.Name); err == nil {
					if o, strictErrs, err := decodePatched(checked); err == nil && len(strictErrs) == 0 {
						decoded = o
						break
					}
				}
			}
			patched, err = jsonpatch.MergePatch(cur, body)
			if err != nil {
				return nil, apierrors.NewBadRequest(err.Error())
			}
		case types.StrategicMergePatchType:
			patched, err = strategicpatch.StrategicMergePatch(cur, body, c.Res.NewObject())
			if err != nil {
				return nil, interpretStrategicError(err)
			}
		}
		o, strictErrs := decoded, []error(nil)
		if o == nil {
			if patched, err = c.Res.PatchedTypeMeta(patched, pt == types.StrategicMergePatchType, c.Info.Name); err != nil {
				return nil, err
			}
			o, strictErrs, err = decodePatched(patched)
		}
		if err != nil && pt == types.StrategicMergePatchType && c.Res.Typed != nil {
			// Upstream converts a strategic merge patch's result from a
			// map, which wraps an int32 that overflows where decoding JSON
			// refuses it: validation then sees the wrapped value.
			if b, ok := viaUnstructured(patched, c.Res.NewObject()); ok {
				if o2, strict2, err2 := decodePatched(b); err2 == nil {
					o, strictErrs, err = o2, strict2, nil
				}
			}
		}
		if err != nil {
			if c.Res.Typed != nil {
				if perr := patchDecodeError(pt, body, patched, c.Res.NewObject()); perr != nil {
					return nil, perr
				}
			} else if perr := customPatchDecodeError(c.Res, patched, err); perr != nil {
				return nil, perr
			}
			return nil, err
		}
		if wo.fieldValidation != metav1.FieldValidationIgnore {
			// The patch's own strict errors (its duplicate fields, which
			// vanish once applied, and a JSON patch's unknown operation
			// fields) come first, as upstream reports them.
			strictErrs = append(append([]error(nil), patchStrict...), strictErrs...)
			if len(strictErrs) > 0 {
				if wo.fieldValidation == metav1.FieldValidationStrict {
					shown := string(patched)
					if decoded != nil {
						// Upstream shows json-patch's result.
						if p, err := jsonpatch.MergePatch(cur, body); err == nil {
							shown = string(p)
						}
					}
					if pt == types.StrategicMergePatchType {
						shown = fmt.Sprintf("%+v", patchMap)
					}
					return nil, apierrors.NewInvalid(schema.GroupKind{}, "", field.ErrorList{
						field.Invalid(field.NewPath("patch"), shown, runtime.NewStrictDecodingError(strictErrs).Error()),
					})
				}
				warnings = append(warnings, registry.StrictDecodingWarnings(strictErrs...)...)
			}
		}
		if err := registry.URLNameError(o.Meta.GetName(), c.Info.Name); err != nil {
			return nil, err
		}
		c.TrackManagedFieldsFrom(old, o, wo.fieldManager)
		return o, nil
	})
	// The patch's warnings go with the answer whatever it is (a 422 from
	// validation too), as upstream records them while patching.
	addWarnings(c.w, warnings)
	if errors.Is(err, registry.ErrCreateInstead) {
		return apierrors.NewNotFound(c.Res.GR, c.Info.Name)
	}
	if err != nil {
		return err
	}
	return s.writeObject(c, http.StatusOK, out)
}

// decodePatchBody decodes a JSON, merge or strategic merge patch as
// upstream's patch handler does for the field validation directive (empty
// meaning Warn): unless it is Ignore, strictly, returning the patch's own
// strict errors (a JSON patch's prefixed "json patch "). It returns the
// decoded map of a strategic merge patch and the decoded JSON patch, and
// upstream's error for a patch that does not decode.
func decodePatchBody(pt types.PatchType, body []byte, directive string) (strict []error, patchMap map[string]any, jp jsonpatch.Patch, err error) {
	checkStrict := directive != metav1.FieldValidationIgnore
	switch pt {
	case types.JSONPatchType:
		if checkStrict {
			var ops []jsonPatchOp
			if strict, err = kjson.UnmarshalStrict(body, &ops); err != nil {
				// Worded as upstream's handler, whose operation type lives in package handlers.
				msg := strings.Replace(err.Error(), "server.jsonPatchOp", "handlers.jsonPatchOp", 1)
				return nil, nil, nil, apierrors.NewBadRequest("error decoding patch: " + msg)
			}
			for i, e := range strict {
				strict[i] = fmt.Errorf("json patch %v", e)
			}
		}
		if jp, err = jsonpatch.DecodePatch(body); err != nil {
			return nil, nil, nil, apierrors.NewBadRequest(err.Error())
		}
		if len(jp) > maxJSONPatchOperations {
			return nil, nil, nil, apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("The allowed maximum operations in a JSON patch is %d, got %d", maxJSONPatchOperations, len(jp)))
		}
	case types.MergePatchType:
		if checkStrict {
			v := map[string]any{}
			if strict, err = kjson.UnmarshalStrict(body, &v); err != nil {
				return nil, nil, nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding patch: %v", err))
			}
		}
	case types.StrategicMergePatchType:
		patchMap = map[string]any{}
		if checkStrict {
			strict, err = kjson.UnmarshalStrict(body, &patchMap)
		} else {
			err = kjson.UnmarshalCaseSensitivePreserveInts(body, &patchMap)
		}
		if err != nil {
			return nil, nil, nil, apierrors.NewBadRequest(err.Error())
		}
	}
	return strict, patchMap, jp, nil
}

// interpretStrategicError words strategic merge patch errors as upstream
// does (its interpretStrategicMergePatchError): the patch format errors it
// names exactly are 400 or 422; any other, such as an unknown "$patch"
// directive, reaches the client as an unconverted error, 500 without a
// reason.
func interpretStrategicError(err error) error {
	switch err {
	case mergepatch.ErrBadJSONDoc, mergepatch.ErrBadPatchFormatForPrimitiveList,
		mergepatch.ErrBadPatchFormatForRetainKeys, mergepatch.ErrBadPatchFormatForSetElementOrderList,
		mergepatch.ErrUnsupportedStrategicMergePatchFormat:
		return apierrors.NewBadRequest(err.Error())
	case mergepatch.ErrNoListOfLists, mergepatch.ErrPatchContentNotMatchRetainKeys:
		return apierrors.NewGenericServerResponse(http.StatusUnprocessableEntity, "", schema.GroupResource{}, "", err.Error(), 0, false)
	}
	return registry.ErrUnknown(err)
}

// customPatchDecodeError is upstream's answer for a patch whose result does
// not decode into a custom resource (an embedded resource's apiVersion not
// a string): its decoding error, as a 422 on the field "patch" naming the
// patched object. It returns nil for any other error.
func customPatchDecodeError(res *registry.Resource, patched []byte, err error) error {
	var st apierrors.APIStatus
	if !errors.As(err, &st) || st.Status().Code != http.StatusBadRequest {
		return nil
	}
	prefix := fmt.Sprintf("%s in version %q cannot be handled as a %s: ", res.Kind, res.GVK.Version, res.Kind)
	msg, ok := strings.CutPrefix(st.Status().Message, prefix)
	if !ok {
		return nil
	}
	return apierrors.NewInvalid(schema.GroupKind{}, "", field.ErrorList{field.Invalid(field.NewPath("patch"), string(patched), msg)})
}

// viaUnstructured converts a patched object's JSON into the typed object
// into as upstream converts a strategic merge patch's result (from a map,
// with int32 fields that overflow wrapped), and returns its JSON.
func viaUnstructured(patched []byte, into runtime.Object) ([]byte, bool) {
	var m map[string]any
	if kjson.UnmarshalCaseSensitivePreserveInts(patched, &m) != nil {
		return nil, false
	}
	if runtime.DefaultUnstructuredConverter.FromUnstructured(m, into) != nil {
		return nil, false
	}
	b, err := json.Marshal(into)
	return b, err == nil
}

// patchDecodeError is upstream's answer for a patch whose result does not
// decode into the resource's type: a 422 on the field "patch", naming the
// patched object (JSON and merge patches) or the patch as a Go map
// (strategic merge patches, which upstream applies to maps and converts
// from unstructured). It returns nil when the result decodes.
func patchDecodeError(pt types.PatchType, body, patched []byte, into runtime.Object) error {
	if pt == types.StrategicMergePatchType {
		var patch, result map[string]any
		if kjson.UnmarshalCaseSensitivePreserveInts(body, &patch) != nil || kjson.UnmarshalCaseSensitivePreserveInts(patched, &result) != nil {
			return nil
		}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(result, into); err != nil {
			return apierrors.NewInvalid(schema.GroupKind{}, "", field.ErrorList{field.Invalid(field.NewPath("patch"), fmt.Sprintf("%+v", patch), err.Error())})
		}
		return nil
	}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(patched, into); err != nil {
		return apierrors.NewInvalid(schema.GroupKind{}, "", field.ErrorList{field.Invalid(field.NewPath("patch"), string(patched), err.Error())})
	}
	return nil
}
