package server

import (
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	eventsv1 "k8s.io/api/events/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate"
)

// Built-in validation: the rules of kube-apiserver's registry strategies
// (pkg/apis/*/validation upstream) for the built-in types, reimplemented on
// the v1 types. Each rule answers with upstream's field path and message,
// and the causes of a 422 come in upstream's order (metadata first, see
// validateCreate and beforeUpdate). Where upstream ranges over a map, the
// keys are taken in sorted order (upstream's order is random).

// validateBuiltin returns the errors of upstream's Validate (old == nil) or
// ValidateUpdate for a built-in object, metadata excluded.
func validateBuiltin(obj, old runtime.Object) field.ErrorList {
	switch n := obj.(type) {
	case *networkingv1.Ingress:
		return validateIngress(n)
	case *discoveryv1.EndpointSlice:
		if old != nil {
			return validateEndpointSlice(n, old.(*discoveryv1.EndpointSlice))
		}
		return validateEndpointSlice(n, nil)
	case *schedulingv1.PriorityClass:
		if old != nil {
			return validatePriorityClass(n, old.(*schedulingv1.PriorityClass))
		}
		return validatePriorityClass(n, nil)
	case *storagev1.StorageClass:
		if old != nil {
			return validateStorageClass(n, old.(*storagev1.StorageClass))
		}
		return validateStorageClass(n, nil)
	case *policyv1.PodDisruptionBudget:
		return validatePDB(n)
	case *autoscalingv2.HorizontalPodAutoscaler:
		if old != nil {
			if p, ok := old.(*autoscalingv2.HorizontalPodAutoscaler); ok {
				return validateHPA(n, p)
			}
		}
		return validateHPA(n, nil)
	case *networkingv1.NetworkPolicy:
		if old != nil {
			return validateNetworkPolicy(n, old.(*networkingv1.NetworkPolicy))
		}
		return validateNetworkPolicy(n, nil)
	case *corev1.ResourceQuota:
		return validateResourceQuota(n)
	case *corev1.Node:
		if old != nil {
			return validateNode(n, old.(*corev1.Node))
		}
		return validateNode(n, nil)
	case *coordinationv1.Lease:
		return validateLease(n)
	case *corev1.Event:
		return legacyValidateEvent(coreEventFields(n), "reportingComponent")
	case *eventsv1.Event:
		if old != nil {
			if p, ok := old.(*eventsv1.Event); ok {
				return validateEventsV1Update(n, p)
			}
		}
		return validateEventsV1Create(n)
	case *rbacv1.Role:
		return validateRules(n.Rules, true)
	case *rbacv1.ClusterRole:
		return validateClusterRole(n)
	case *rbacv1.RoleBinding:
		errs := validateBinding(n.RoleRef, []string{"Role", "ClusterRole"}, n.Subjects, true)
		if old != nil {
			errs = append(errs, validate.ImmutableInternal(n.RoleRef, old.(*rbacv1.RoleBinding).RoleRef, field.NewPath("roleRef"))...)
		}
		return errs
	case *rbacv1.ClusterRoleBinding:
		errs := validateBinding(n.RoleRef, []string{"ClusterRole"}, n.Subjects, false)
		if old != nil {
			errs = append(errs, validate.ImmutableInternal(n.RoleRef, old.(*rbacv1.ClusterRoleBinding).RoleRef, field.NewPath("roleRef"))...)
		}
		return errs
	case *corev1.Service:
		if old != nil {
			return validateServiceUpdate(n, old.(*corev1.Service))
		}
		return validateService(n, nil)
	}
	return nil
}

// validateBuiltinStatus returns the errors of upstream's status strategy
// ValidateUpdate for a built-in object, metadata excluded.
func validateBuiltinStatus(obj, old runtime.Object) field.ErrorList {
	switch n := obj.(type) {
	case *corev1.Node:
		// Upstream's node status strategy validates as an update.
		return validateNode(n, old.(*corev1.Node))
	}
	return nil
}
