package service

import (
	"context"
	"reflect"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// PrepareForUpdate drops the fields of a Service's old type, as upstream's
// PrepareForUpdate does (see dropTypeDependentFields). The server calls it
// before what was allocated is carried over and the rest allocated.
func (serviceStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	dropTypeDependentFields(obj.(*corev1.Service), old.(*corev1.Service))
}

// dropTypeDependentFields is upstream's: a Service changing type loses the
// fields of its old type the client did not change.
func dropTypeDependentFields(svc, old *corev1.Service) {
	needsClusterIP := func(s *corev1.Service) bool { return s.Spec.Type != corev1.ServiceTypeExternalName }
	needsNodePort := func(s *corev1.Service) bool {
		return s.Spec.Type == corev1.ServiceTypeNodePort || s.Spec.Type == corev1.ServiceTypeLoadBalancer
	}
	if needsClusterIP(old) && !needsClusterIP(svc) {
		if svc.Spec.ClusterIP == old.Spec.ClusterIP && slices.Equal(svc.Spec.ClusterIPs, old.Spec.ClusterIPs) {
			svc.Spec.ClusterIP, svc.Spec.ClusterIPs = "", nil
		}
		if slices.Equal(svc.Spec.IPFamilies, old.Spec.IPFamilies) {
			svc.Spec.IPFamilies = nil
		}
		if reflect.DeepEqual(svc.Spec.IPFamilyPolicy, old.Spec.IPFamilyPolicy) {
			svc.Spec.IPFamilyPolicy = nil
		}
		if reflect.DeepEqual(svc.Spec.InternalTrafficPolicy, old.Spec.InternalTrafficPolicy) {
			svc.Spec.InternalTrafficPolicy = nil
		}
	}
	if needsNodePort(old) && !needsNodePort(svc) {
		same := len(svc.Spec.Ports) == len(old.Spec.Ports)
		oldPorts := map[int32]bool{}
		for _, p := range old.Spec.Ports {
			oldPorts[p.NodePort] = true
		}
		for _, p := range svc.Spec.Ports {
			same = same && (p.NodePort == 0 || oldPorts[p.NodePort])
		}
		if same {
			for i := range svc.Spec.Ports {
				svc.Spec.Ports[i].NodePort = 0
			}
		}
	}
	if NeedsHealthCheck(old) && !NeedsHealthCheck(svc) && svc.Spec.HealthCheckNodePort == old.Spec.HealthCheckNodePort {
		svc.Spec.HealthCheckNodePort = 0
	}
	if old.Spec.Type == corev1.ServiceTypeLoadBalancer && svc.Spec.Type != corev1.ServiceTypeLoadBalancer {
		if a, b := svc.Spec.AllocateLoadBalancerNodePorts, old.Spec.AllocateLoadBalancerNodePorts; a != nil && b != nil && *a == *b {
			svc.Spec.AllocateLoadBalancerNodePorts = nil
		}
		if reflect.DeepEqual(svc.Spec.LoadBalancerClass, old.Spec.LoadBalancerClass) {
			svc.Spec.LoadBalancerClass = nil
		}
	}
	if ExternallyAccessible(old) && !ExternallyAccessible(svc) && svc.Spec.ExternalTrafficPolicy == old.Spec.ExternalTrafficPolicy {
		svc.Spec.ExternalTrafficPolicy = ""
	}
	if svc.Spec.Type != corev1.ServiceTypeLoadBalancer {
		svc.Status.LoadBalancer = corev1.LoadBalancerStatus{}
	}
}
