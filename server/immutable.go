package server

import (
	"reflect"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// immutableForbidden is upstream's message for changing an immutable
// ConfigMap or Secret.
const immutableForbidden = "field is immutable when `immutable` is set"

// validateImmutable applies upstream's immutable-field rules to an update of
// a built-in object (ConfigMap and Secret `immutable`, workload selectors, a
// Service's ClusterIP), answering 422 as kube-apiserver does.
func validateImmutable(c *call, o, old *object) error {
	var errs field.ErrorList
	switch n := o.obj.(type) {
	case *corev1.ConfigMap:
		p := old.obj.(*corev1.ConfigMap)
		if p.Immutable != nil && *p.Immutable {
			if !reflect.DeepEqual(n.Data, p.Data) {
				errs = append(errs, field.Forbidden(field.NewPath("data"), immutableForbidden))
			}
			if !reflect.DeepEqual(n.BinaryData, p.BinaryData) {
				errs = append(errs, field.Forbidden(field.NewPath("binaryData"), immutableForbidden))
			}
			if n.Immutable == nil || !*n.Immutable {
				errs = append(errs, field.Forbidden(field.NewPath("immutable"), immutableForbidden))
			}
		}
	case *corev1.Secret:
		p := old.obj.(*corev1.Secret)
		if p.Immutable != nil && *p.Immutable {
			if !reflect.DeepEqual(n.Data, p.Data) {
				errs = append(errs, field.Forbidden(field.NewPath("data"), immutableForbidden))
			}
			if n.Immutable == nil || !*n.Immutable {
				errs = append(errs, field.Forbidden(field.NewPath("immutable"), immutableForbidden))
			}
		}
	case *appsv1.Deployment:
		if p := old.obj.(*appsv1.Deployment); !reflect.DeepEqual(n.Spec.Selector, p.Spec.Selector) {
			errs = append(errs, field.Invalid(field.NewPath("spec", "selector"), n.Spec.Selector, "field is immutable"))
		}
	case *appsv1.ReplicaSet:
		if p := old.obj.(*appsv1.ReplicaSet); !reflect.DeepEqual(n.Spec.Selector, p.Spec.Selector) {
			errs = append(errs, field.Invalid(field.NewPath("spec", "selector"), n.Spec.Selector, "field is immutable"))
		}
	case *appsv1.StatefulSet:
		if p := old.obj.(*appsv1.StatefulSet); !reflect.DeepEqual(n.Spec.Selector, p.Spec.Selector) {
			errs = append(errs, field.Invalid(field.NewPath("spec", "selector"), n.Spec.Selector, "field is immutable"))
		}
	case *appsv1.DaemonSet:
		if p := old.obj.(*appsv1.DaemonSet); !reflect.DeepEqual(n.Spec.Selector, p.Spec.Selector) {
			errs = append(errs, field.Invalid(field.NewPath("spec", "selector"), n.Spec.Selector, "field is immutable"))
		}
	case *corev1.Service:
		p := old.obj.(*corev1.Service)
		if n.Spec.Type != corev1.ServiceTypeExternalName && p.Spec.Type != corev1.ServiceTypeExternalName &&
			len(p.Spec.ClusterIPs) > 0 && len(n.Spec.ClusterIPs) > 0 && n.Spec.ClusterIPs[0] != p.Spec.ClusterIPs[0] {
			errs = append(errs, field.Invalid(field.NewPath("spec", "clusterIPs").Index(0), n.Spec.ClusterIPs, "may not change once set"))
		}
	}
	if len(errs) > 0 {
		return apierrors.NewInvalid(c.res.gvk.GroupKind(), o.meta.GetName(), errs)
	}
	return nil
}
