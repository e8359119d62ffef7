package server

import (
	"encoding/json"
	"fmt"
	"mime"
	"net/http"

	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/registry/printers"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
)

// successStatus is the Status a create-only subresource answers with.
func successStatus(code int32) *metav1.Status {
	return &metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusSuccess, Code: code}
}

// serveScale serves the scale subresource of workloads.
func (s *Server) serveScale(c *call) error {
	switch c.Info.Verb {
	case "get":
		if err := s.WaitForGetRevision(c.r.Context(), c.r.URL.Query().Get("resourceVersion")); err != nil {
			return err
		}
		cur, err := s.GetObject(c.Request)
		if err != nil {
			return err
		}
		sc, err := registry.ScaleOf(c.Res, cur)
		if err != nil {
			return err
		}
		return s.writeScale(c, sc)
	case "update", "patch":
	default:
		return c.ErrMethodNotSupported()
	}
	body, err := readBody(c.r)
	if err != nil {
		return err
	}
	var pt types.PatchType
	if c.Info.Verb != "update" {
		pt = types.PatchType(mediaTypeOf(c.r))
		// As the parent's patch: custom resources take no strategic merge
		// patch, on their scale either.
		switch {
		case pt == types.JSONPatchType, pt == types.MergePatchType, pt == types.ApplyYAMLPatchType,
			pt == types.StrategicMergePatchType && c.Res.CRD == "":
		case c.Res.CRD == "":
			return errRouteUnsupportedMediaType()
		default:
			return errUnsupportedMediaType(patchTypes(c.Res))
		}
	}
	wo, err := parseWriteOptions(c, pt)
	if err != nil {
		return err
	}
	fm, err := c.Res.FieldManager("scale")
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	// An update's UID is its store's precondition, checked first, as for
	// the parent (the error names the parent and its key).
	var putUID types.UID
	if pt == "" {
		// An update's body is decoded before the object is read: its
		// errors come before a 404.
		var sc *autoscalingv1.Scale
		body, err = bodyToJSONFor(c.r, body, "Scale")
		if err == nil {
			sc, err = checkScaleBody(body, wo)
		}
		if err != nil && c.Res.CRD != "" {
			// Upstream words every decoding failure of a custom resource's
			// Scale with the error of its typer, which does not know the
			// Scale kind (transformDecodeError).
			return apierrors.NewBadRequest(fmt.Sprintf("no kind is registered for the type v1.Scale in scheme %q", registry.UpstreamSchemeName))
		}
		if err != nil {
			return err
		}
		if err := registry.EnsureRequestNamespace(c.Request, sc); err != nil {
			return err
		}
		if err := registry.URLNameError(sc.Name, c.Info.Name); err != nil {
			return err
		}
		putUID = sc.UID
	}
	var result *autoscalingv1.Scale
	var applied *applyPatchBody
	var warnings []string
	_, _, err = s.UpdateObject(c.Request, false, wo.dryRun, func(old *registry.Object) (*registry.Object, error) {
		if putUID != "" && putUID != old.Meta.GetUID() {
			return nil, registry.ErrUIDPrecondition(c.Res, c.Key(), c.Info.Name, string(putUID), string(old.Meta.GetUID()), wo.dryRun)
		}
		// The parent's managers of spec.replicas own the Scale's, as upstream's
		// scale handler translates them.
		cur, handler, err := registry.CurrentScale(c.Res, old)
		if err != nil {
			return nil, err
		}
		want := &autoscalingv1.Scale{}
		data := body
		if pt == types.ApplyYAMLPatchType {
			if applied == nil {
				// (Parsed once, in the first attempt: a missing object is a
				// 404 whatever the body.)
				if applied, err = parseApplyPatch(body); err != nil {
					// As k8s.io/apimachinery's yaml.Unmarshal words it.
					return nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding patch: error converting YAML to JSON: %v", err))
				}
			}
			out, err := applyPatch(fm, cur, applied, wo)
			if err != nil {
				return nil, err
			}
			sc, ok := out.(*autoscalingv1.Scale)
			if !ok {
				return nil, apierrors.NewInternalError(fmt.Errorf("apply to scale returned %T", out))
			}
			if c.Res.CRD != "" && scaleChanged(cur, sc) {
				return nil, crdScaleApplyError(applied)
			}
			want = sc
		} else {
			if pt != "" {
				curJSON, _ := json.Marshal(cur)
				switch pt {
				case types.JSONPatchType:
					p, err := jsonpatch.DecodePatch(body)
					if err != nil {
						return nil, apierrors.NewBadRequest(err.Error())
					}
					if data, err = p.Apply(curJSON); err != nil {
						// Worded as the parent's failed JSON patch operations.
						return nil, apierrors.NewGenericServerResponse(http.StatusUnprocessableEntity, "", schema.GroupResource{}, "", err.Error(), 0, false)
					}
				case types.MergePatchType:
					if data, err = jsonpatch.MergePatch(curJSON, body); err != nil {
						return nil, apierrors.NewBadRequest(err.Error())
					}
				case types.StrategicMergePatchType:
					if data, err = strategicpatch.StrategicMergePatch(curJSON, body, &autoscalingv1.Scale{}); err != nil {
						return nil, interpretStrategicError(err)
					}
				}
			}
			// The apiVersion and kind are read as upstream's decoders read
			// them: an update's as a body's, a JSON or merge patch's result
			// as a patch's (a strategic merge patch's are not read).
			scaleGVK := autoscalingv1.SchemeGroupVersion.WithKind("Scale")
			switch pt {
			case "":
				if err := registry.CheckBodyTypeMeta(data, scaleGVK); err != nil {
					return nil, err
				}
			case types.JSONPatchType, types.MergePatchType:
				if data, err = registry.PatchedTypeMetaOf(data, c.Info.Name, scaleGVK); err != nil {
					return nil, err
				}
			}
			if pt == types.StrategicMergePatchType {
				// Upstream converts the merged map, and names the patch's.
				if err := patchDecodeError(pt, body, data, &autoscalingv1.Scale{}); err != nil {
					return nil, err
				}
			}
			if err := kjson.UnmarshalCaseSensitivePreserveInts(data, want); err != nil {
				if pt != "" {
					return nil, registry.PatchInvalid(data, err.Error())
				}
				return nil, apierrors.NewBadRequest(fmt.Sprintf("Scale in version \"v1\" cannot be handled as a Scale: %v", err))
			}
			warnings = nil
			if wo.fieldValidation != metav1.FieldValidationIgnore {
				if strictErrs, err := kjson.UnmarshalStrict(data, &autoscalingv1.Scale{}, kjson.DisallowDuplicateFields, kjson.DisallowUnknownFields); err == nil && len(strictErrs) > 0 {
					if wo.fieldValidation == metav1.FieldValidationStrict {
						return nil, scaleStrictError(pt, body, data, strictErrs)
					}
					warnings = append(warnings, registry.StrictDecodingWarnings(strictErrs...)...)
				}
			}
			want.SetGroupVersionKind(autoscalingv1.SchemeGroupVersion.WithKind("Scale"))
			if out, ok := fm.UpdateNoErrors(cur, want, registry.ManagerName(wo.fieldManager, c.r.UserAgent())).(*autoscalingv1.Scale); ok {
				want = out
			}
		}
		// A patched Scale naming another UID fails a built-in scale
		// storage's own precondition (a custom resource's has none).
		if uid := want.UID; uid != "" && uid != old.Meta.GetUID() && c.Res.CRD == "" {
			gr := schema.GroupResource{Group: c.Res.Group, Resource: c.Res.Resource.Resource + "/scale"}
			return nil, apierrors.NewConflict(gr, c.Info.Name, fmt.Errorf("Precondition failed: UID in precondition: %v, UID in object meta: %v", uid, old.Meta.GetUID()))
		}
		next, err := registry.ScaledObject(c.Res, old, want, c.Info.Name, handler)
		if err != nil {
			return nil, err
		}
		result = want
		return next, nil
	})
	// The warnings go with the answer whatever it is, as upstream records
	// them while patching.
	addWarnings(c.w, warnings)
	if err != nil {
		return err
	}
	cur, err := s.GetObject(c.Request)
	if err != nil {
		return err
	}
	sc, err := registry.ScaleOf(c.Res, cur)
	if err != nil {
		return err
	}
	if wo.dryRun && result != nil {
		sc.Spec.Replicas = result.Spec.Replicas
	}
	return s.writeScale(c, sc)
}

// writeScale answers with a Scale, or its Table when the request asked for
// one, as kube-apiserver's handlers transform it: each row's object is the
// Scale's PartialObjectMetadata (includeObject=Metadata, the default), the
// Scale (Object) or nothing (None).
func (s *Server) writeScale(c *call, sc *autoscalingv1.Scale) error {
	if c.media.as != "Table" {
		return writeEncoded(c, http.StatusOK, sc)
	}
	opts, err := tableOptions(c)
	if err != nil {
		return err
	}
	tc, err := c.Res.ScaleTable()
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	t, err := tc.ConvertToTable(printers.WithClock(c.Context(), s.now), sc, opts)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	t.APIVersion, t.Kind = "meta.k8s.io/"+c.media.version, "Table"
	sc.APIVersion, sc.Kind = "autoscaling/v1", "Scale"
	for i := range t.Rows {
		switch opts.IncludeObject {
		case metav1.IncludeObject:
			t.Rows[i].Object = runtime.RawExtension{Object: sc}
		case metav1.IncludeNone:
			t.Rows[i].Object = runtime.RawExtension{}
		default:
			pom := meta.AsPartialObjectMetadata(sc)
			pom.APIVersion, pom.Kind = "meta.k8s.io/"+c.media.version, "PartialObjectMetadata"
			t.Rows[i].Object = runtime.RawExtension{Object: pom}
		}
	}
	return writeEncoded(c, http.StatusOK, t)
}

// checkScaleBody checks an update's Scale as upstream's decoder does: its
// apiVersion and kind, that it decodes, and (fieldValidation Strict) that it
// has no unknown or duplicate fields.
func checkScaleBody(body []byte, wo *writeOptions) (*autoscalingv1.Scale, error) {
	if err := registry.CheckBodyTypeMeta(body, autoscalingv1.SchemeGroupVersion.WithKind("Scale")); err != nil {
		return nil, err
	}
	sc := &autoscalingv1.Scale{}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(body, sc); err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("Scale in version \"v1\" cannot be handled as a Scale: %v", err))
	}
	if wo.fieldValidation == metav1.FieldValidationStrict {
		if strictErrs, err := kjson.UnmarshalStrict(body, &autoscalingv1.Scale{}, kjson.DisallowDuplicateFields, kjson.DisallowUnknownFields); err == nil && len(strictErrs) > 0 {
			return nil, scaleStrictError("", nil, body, strictErrs)
		}
	}
	return sc, nil
}

// scaleStrictError is upstream's answer to a Scale, put or patched, with
// unknown or duplicate fields under fieldValidation=Strict: an update's 400,
// a patch's 422 on the field "patch" naming the patched Scale (the patch as
// a Go map for a strategic merge patch).
func scaleStrictError(pt types.PatchType, body, data []byte, strictErrs []error) error {
	err := runtime.NewStrictDecodingError(strictErrs)
	switch pt {
	case "":
		return apierrors.NewBadRequest(fmt.Sprintf("Scale in version \"v1\" cannot be handled as a Scale: %v", err))
	case types.StrategicMergePatchType:
		var pm map[string]any
		_ = json.Unmarshal(body, &pm)
		return apierrors.NewInvalid(schema.GroupKind{}, "", field.ErrorList{field.Invalid(field.NewPath("patch"), fmt.Sprintf("%+v", pm), err.Error())})
	}
	return registry.PatchInvalid(data, err.Error())
}

// scaleChanged reports whether an apply changed a Scale (managed fields
// aside), as structured-merge-diff compares the live object with the merged
// one.
func scaleChanged(live, applied *autoscalingv1.Scale) bool {
	a, b := *live, *applied
	a.ManagedFields, b.ManagedFields = nil, nil
	a.TypeMeta, b.TypeMeta = metav1.TypeMeta{}, metav1.TypeMeta{}
	return !apiequality.Semantic.DeepEqual(&a, &b)
}

// crdScaleApplyError is kube-apiserver's answer to an apply that changes the
// Scale of a custom resource: its scale field manager converts the merged
// Scale, unstructured, with the custom resource's converter, which knows
// only the CRD's versions (a no-op apply, which it does not convert,
// succeeds). The object is named by the patch's namespace and name.
func crdScaleApplyError(patch *applyPatchBody) error {
	namespace, name := patch.identity()
	return registry.ErrUnknown(fmt.Errorf("failed to convert new object (%s/%s; %v) to proper version: request to convert CR to an invalid group/version: %s",
		namespace, name, autoscalingv1.SchemeGroupVersion.WithKind("Scale"), autoscalingv1.SchemeGroupVersion))
}

// mediaTypeOf returns the request's Content-Type without parameters.
func mediaTypeOf(r *http.Request) string {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return mt
}

// serveBinding assigns a pod to a node (pods/binding), as the scheduler does.
func (s *Server) serveBinding(c *call) error {
	if c.Info.Verb != "create" {
		return c.ErrMethodNotSupported()
	}
	return s.serveBindingAs(c, registry.Bindings, func(*registry.Object) string { return c.Info.Name })
}

// serveBindingAs decodes a Binding as res (the binding subresource's kind,
// or the bindings collection's resource) and binds the pod podName names,
// through the create handler's steps: the create options checked, the body
// decoded with their field validation.
func (s *Server) serveBindingAs(c *call, res *registry.Resource, podName func(*registry.Object) string) error {
	wo, err := parseWriteOptions(c, "")
	if err != nil {
		return err
	}
	o, err := c.decodeRequestObjectAs(res, wo.fieldValidation)
	if err != nil {
		return err
	}
	addWarnings(c.w, o.Warnings)
	if err := registry.EnsureRequestNamespace(c.Request, o.Meta); err != nil {
		return err
	}
	if err := s.Bind(c.Request, podName(o), o.Obj.(*corev1.Binding), wo.dryRun); err != nil {
		return err
	}
	return writeEncoded(c, http.StatusCreated, successStatus(http.StatusCreated))
}

// serveFinalize serves namespaces/finalize: a PUT of the whole namespace,
// of which the strategy keeps all but the status (upstream's finalize
// strategy), its writer's fields recorded with subresource "finalize".
func (s *Server) serveFinalize(c *call) error {
	if c.Info.Verb != "update" {
		return c.ErrMethodNotSupported()
	}
	return s.update(c, false)
}

// serveApproval serves a CertificateSigningRequest's approval subresource
// and a pod's ephemeralcontainers and resize: get, update and patch of the
// whole object, of which the strategy keeps the new status.conditions, the
// new spec.ephemeralContainers, or the new resources and resize policies,
// only.
func (s *Server) serveApproval(c *call) error {
	switch c.Info.Verb {
	case "get":
		return s.get(c)
	case "update":
		return s.update(c, false)
	case "patch":
		return s.patch(c, false)
	}
	return c.ErrMethodNotSupported()
}
