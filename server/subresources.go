package server

import (
	"encoding/json"
	"fmt"
	"mime"
	"net/http"

	"github.com/fakeplane/fakeplane/registry"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	"k8s.io/apimachinery/pkg/util/managedfields"
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
		return writeEncoded(c, http.StatusOK, sc)
	case "update", "patch":
	default:
		return c.ErrMethodNotSupported()
	}
	body, err := readBody(c.r)
	if err != nil {
		return err
	}
	var pt types.PatchType
	if c.Info.Verb == "update" {
		if body, err = bodyToJSON(c.r, body); err != nil {
			return err
		}
	} else {
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
	scaleGR := schema.GroupResource{Group: "autoscaling", Resource: "scale"}
	var result *autoscalingv1.Scale
	var applied *applyPatchBody
	_, _, err = s.UpdateObject(c.Request, false, wo.dryRun, func(old *registry.Object) (*registry.Object, error) {
		cur, err := registry.ScaleOf(c.Res, old)
		if err != nil {
			return nil, err
		}
		// The parent's managers of spec.replicas own the Scale's, as upstream's
		// scale handler translates them.
		handler := managedfields.NewScaleHandler(old.Meta.GetManagedFields(), c.Res.GVK.GroupVersion(), c.Res.ReplicasPaths())
		if cur.ManagedFields, err = handler.ToSubresource(); err != nil {
			return nil, apierrors.NewInternalError(err)
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
						return nil, apierrors.NewGenericServerResponse(http.StatusUnprocessableEntity, "", scaleGR, "", err.Error(), 0, false)
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
			if err := kjson.UnmarshalCaseSensitivePreserveInts(data, want); err != nil {
				if pt != "" {
					return nil, registry.PatchInvalid(data, err.Error())
				}
				return nil, apierrors.NewBadRequest(fmt.Sprintf("Scale in version \"v1\" cannot be handled as a Scale: %v", err))
			}
			want.SetGroupVersionKind(autoscalingv1.SchemeGroupVersion.WithKind("Scale"))
			if out, ok := fm.UpdateNoErrors(cur, want, registry.ManagerName(wo.fieldManager, c.r.UserAgent())).(*autoscalingv1.Scale); ok {
				want = out
			}
		}
		if want.Name != "" && want.Name != c.Info.Name {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", want.Name, c.Info.Name))
		}
		if want.Spec.Replicas < 0 {
			return nil, apierrors.NewInvalid(schema.GroupKind{Group: "autoscaling", Kind: "Scale"}, c.Info.Name, field.ErrorList{
				field.Invalid(field.NewPath("spec", "replicas"), want.Spec.Replicas, "must be greater than or equal to 0"),
			})
		}
		if want.ResourceVersion != "" && want.ResourceVersion != old.Meta.GetResourceVersion() {
			return nil, registry.ErrConflict(c.Res.GR, c.Info.Name)
		}
		next, err := c.Res.DecodeStored(registry.MustEncode(old.Obj))
		if err != nil {
			return nil, err
		}
		if err := registry.SetReplicas(c.Res, next, want.Spec.Replicas); err != nil {
			return nil, err
		}
		parentFields, err := handler.ToParent(want.ManagedFields)
		if err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		next.Meta.SetManagedFields(parentFields)
		result = want
		return next, nil
	})
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
	return writeEncoded(c, http.StatusOK, sc)
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
	body, err := c.objectBody()
	if err != nil {
		return err
	}
	return s.serveBindingBody(c, c.Info.Name, body)
}

// serveBindingBody decodes a Binding and binds the pod it names.
func (s *Server) serveBindingBody(c *call, podName string, body []byte) error {
	var b corev1.Binding
	if err := kjson.UnmarshalCaseSensitivePreserveInts(body, &b); err != nil {
		return apierrors.NewBadRequest(fmt.Sprintf("Binding in version \"v1\" cannot be handled as a Binding: %v", err))
	}
	dry, err := isDryRun(c)
	if err != nil {
		return err
	}
	if err := s.Bind(c.Request, podName, &b, dry); err != nil {
		return err
	}
	return writeEncoded(c, http.StatusCreated, successStatus(http.StatusCreated))
}

// serveFinalize serves namespaces/finalize: a PUT that sets spec.finalizers.
func (s *Server) serveFinalize(c *call) error {
	if c.Info.Verb != "update" {
		return c.ErrMethodNotSupported()
	}
	body, err := c.objectBody()
	if err != nil {
		return err
	}
	o, err := c.Res.DecodeObject(body)
	if err != nil {
		return err
	}
	if err := registry.CheckName(c.Request, o); err != nil {
		return err
	}
	want := o.Obj.(*corev1.Namespace).Spec.Finalizers
	out, _, err := s.UpdateObject(c.Request, false, false, func(old *registry.Object) (*registry.Object, error) {
		ns := old.Obj.DeepCopyObject().(*corev1.Namespace)
		ns.Spec.Finalizers = want
		ns.ResourceVersion = o.Meta.GetResourceVersion()
		return &registry.Object{Obj: ns, Meta: ns}, nil
	})
	if err != nil {
		return err
	}
	return s.writeObject(c, http.StatusOK, out)
}

// serveApproval serves a CertificateSigningRequest's approval subresource
// and a pod's ephemeralcontainers: get, update and patch of the whole
// object, of which the strategy keeps the new status.conditions, or the
// new spec.ephemeralContainers, only.
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
