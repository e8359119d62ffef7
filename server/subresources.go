package server

import (
	"encoding/json"
	"fmt"
	"mime"
	"net/http"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
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
	switch c.info.Verb {
	case "get":
		cur, err := s.getObject(c.request)
		if err != nil {
			return err
		}
		sc, err := scaleOf(c.res, cur)
		if err != nil {
			return err
		}
		return writeEncoded(c, http.StatusOK, sc)
	case "update", "patch":
	default:
		return c.errMethodNotSupported()
	}
	body, err := readBody(c.r)
	if err != nil {
		return err
	}
	var pt types.PatchType
	if c.info.Verb == "update" {
		if body, err = bodyToJSON(c.r, body); err != nil {
			return err
		}
	} else {
		pt = types.PatchType(mediaTypeOf(c.r))
		switch pt {
		case types.JSONPatchType, types.MergePatchType, types.StrategicMergePatchType, types.ApplyYAMLPatchType:
		default:
			if c.res.crd == "" {
				return errRouteUnsupportedMediaType()
			}
			return errUnsupportedMediaType([]string{string(types.JSONPatchType), string(types.MergePatchType), string(types.ApplyYAMLPatchType), string(types.StrategicMergePatchType)})
		}
	}
	wo, err := parseWriteOptions(c, pt)
	if err != nil {
		return err
	}
	fm, err := c.res.fieldManager("scale")
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	scaleGR := schema.GroupResource{Group: "autoscaling", Resource: "scale"}
	var result *autoscalingv1.Scale
	_, _, err = s.updateObject(c.request, false, wo.dryRun, func(old *object) (*object, error) {
		cur, err := scaleOf(c.res, old)
		if err != nil {
			return nil, err
		}
		// The parent's managers of spec.replicas own the Scale's, as upstream's
		// scale handler translates them.
		handler := managedfields.NewScaleHandler(old.meta.GetManagedFields(), c.res.gvk.GroupVersion(), c.res.replicasPaths())
		if cur.ManagedFields, err = handler.ToSubresource(); err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		want := &autoscalingv1.Scale{}
		data := body
		if pt == types.ApplyYAMLPatchType {
			applied, err := applyPatch(fm, cur, body, wo)
			if err != nil {
				return nil, err
			}
			sc, ok := applied.(*autoscalingv1.Scale)
			if !ok {
				return nil, apierrors.NewInternalError(fmt.Errorf("apply to scale returned %T", applied))
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
			if err := kjson.UnmarshalCaseSensitivePreserveInts(data, want); err != nil {
				return nil, apierrors.NewBadRequest(fmt.Sprintf("Scale in version \"v1\" cannot be handled as a Scale: %v", err))
			}
			want.SetGroupVersionKind(autoscalingv1.SchemeGroupVersion.WithKind("Scale"))
			if out, ok := fm.UpdateNoErrors(cur, want, managerName(wo.fieldManager, c.r.UserAgent())).(*autoscalingv1.Scale); ok {
				want = out
			}
		}
		if want.Name != "" && want.Name != c.info.Name {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", want.Name, c.info.Name))
		}
		if want.Spec.Replicas < 0 {
			return nil, apierrors.NewInvalid(schema.GroupKind{Group: "autoscaling", Kind: "Scale"}, c.info.Name, field.ErrorList{
				field.Invalid(field.NewPath("spec", "replicas"), want.Spec.Replicas, "must be greater than or equal to 0"),
			})
		}
		if want.ResourceVersion != "" && want.ResourceVersion != old.meta.GetResourceVersion() {
			return nil, errConflict(c.res.gr, c.info.Name)
		}
		next, err := c.res.decodeStored(mustEncode(old.obj))
		if err != nil {
			return nil, err
		}
		if err := setReplicas(c.res, next, want.Spec.Replicas); err != nil {
			return nil, err
		}
		parentFields, err := handler.ToParent(want.ManagedFields)
		if err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		next.meta.SetManagedFields(parentFields)
		result = want
		return next, nil
	})
	if err != nil {
		return err
	}
	cur, err := s.getObject(c.request)
	if err != nil {
		return err
	}
	sc, err := scaleOf(c.res, cur)
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
	if c.info.Verb != "create" {
		return c.errMethodNotSupported()
	}
	body, err := c.objectBody()
	if err != nil {
		return err
	}
	return s.serveBindingBody(c, c.info.Name, body)
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
	if err := s.bind(c.request, podName, &b, dry); err != nil {
		return err
	}
	return writeEncoded(c, http.StatusCreated, successStatus(http.StatusCreated))
}

// serveEviction deletes a pod through pods/eviction.
func (s *Server) serveEviction(c *call) error {
	if c.info.Verb != "create" {
		return c.errMethodNotSupported()
	}
	body, err := c.objectBody()
	if err != nil {
		return err
	}
	var ev policyv1.Eviction
	if err := kjson.UnmarshalCaseSensitivePreserveInts(body, &ev); err != nil {
		return apierrors.NewBadRequest(fmt.Sprintf("Eviction in version \"v1\" cannot be handled as a Eviction: %v", err))
	}
	if ev.Name != "" && ev.Name != c.info.Name {
		return apierrors.NewBadRequest(fmt.Sprintf("name in URL does not match name in Eviction object"))
	}
	opts := ev.DeleteOptions
	if opts == nil {
		opts = &metav1.DeleteOptions{}
	}
	if _, _, err := s.deleteObject(c.request, c.key(), c.info.Name, opts); err != nil {
		return err
	}
	return writeEncoded(c, http.StatusCreated, successStatus(http.StatusCreated))
}

// serveFinalize serves namespaces/finalize: a PUT that sets spec.finalizers.
func (s *Server) serveFinalize(c *call) error {
	if c.info.Verb != "update" {
		return c.errMethodNotSupported()
	}
	body, err := c.objectBody()
	if err != nil {
		return err
	}
	o, err := c.res.decodeObject(body)
	if err != nil {
		return err
	}
	if err := checkName(c.request, o); err != nil {
		return err
	}
	want := o.obj.(*corev1.Namespace).Spec.Finalizers
	out, _, err := s.updateObject(c.request, false, false, func(old *object) (*object, error) {
		ns := old.obj.DeepCopyObject().(*corev1.Namespace)
		ns.Spec.Finalizers = want
		ns.ResourceVersion = o.meta.GetResourceVersion()
		return &object{obj: ns, meta: ns}, nil
	})
	if err != nil {
		return err
	}
	return s.writeObject(c, http.StatusOK, out)
}
