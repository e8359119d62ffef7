package service

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Upstream's status strategy warns about writes to /status too.
var _ strategy.StatusWarner = serviceStrategy{}

// WarningsOnCreate returns upstream's warnings for a new Service
// (GetWarningsForService of pkg/api/service).
func (serviceStrategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	return serviceWarnings(obj.(*corev1.Service))
}

// WarningsOnUpdate returns the same warnings for the updated Service: what
// the stored one held does not matter.
func (serviceStrategy) WarningsOnUpdate(_ context.Context, obj, _ runtime.Object) []string {
	return serviceWarnings(obj.(*corev1.Service))
}

// WarningsOnStatusUpdate implements strategy.StatusWarner as upstream's
// service status strategy: the load balancer's ingress IPs that are not in
// their standard form.
func (serviceStrategy) WarningsOnStatusUpdate(_ context.Context, obj, _ runtime.Object) []string {
	return loadBalancerIngressWarnings(obj.(*corev1.Service).Status.LoadBalancer.Ingress)
}

// loadBalancerIngressWarnings warns about each ingress point's IP that is
// not in its standard form; upstream's path names the ingress point, not
// its ip field.
func loadBalancerIngressWarnings(ingress []corev1.LoadBalancerIngress) []string {
	var warnings []string
	fld := field.NewPath("status", "loadBalancer", "ingress")
	for i, in := range ingress {
		if in.IP != "" {
			warnings = append(warnings, validate.IPWarnings(fld.Index(i), in.IP)...)
		}
	}
	return warnings
}

// isHeadlessClusterIP is upstream's isHeadlessService of pkg/api/service:
// a ClusterIP service whose clusterIP is None (isHeadless does not look at
// the type).
func isHeadlessClusterIP(s *corev1.Service) bool {
	return s.Spec.Type == corev1.ServiceTypeClusterIP && s.Spec.ClusterIP == corev1.ClusterIPNone
}

// serviceWarnings is upstream's GetWarningsForService, in its order: the
// deprecated topology annotation, IPs and CIDRs not in their standard form,
// fields a headless or ExternalName service ignores, externalIPs' and the
// PreferClose traffic distribution's deprecation.
func serviceWarnings(s *corev1.Service) []string {
	var warnings []string
	spec := field.NewPath("spec")
	if _, ok := s.Annotations[corev1.DeprecatedAnnotationTopologyAwareHints]; ok {
		warnings = append(warnings, fmt.Sprintf("annotation %s is deprecated, please use %s instead",
			corev1.DeprecatedAnnotationTopologyAwareHints, corev1.AnnotationTopologyMode))
	}
	if s.Spec.ClusterIP != "" && s.Spec.ClusterIP != corev1.ClusterIPNone {
		for i, ip := range s.Spec.ClusterIPs {
			warnings = append(warnings, validate.IPWarnings(spec.Child("clusterIPs").Index(i), ip)...)
		}
	}
	headless := isHeadlessClusterIP(s)
	if headless {
		if s.Spec.LoadBalancerIP != "" {
			warnings = append(warnings, "spec.loadBalancerIP is ignored for headless services")
		}
		if len(s.Spec.ExternalIPs) > 0 {
			warnings = append(warnings, "spec.externalIPs is ignored for headless services")
		}
		if s.Spec.SessionAffinity != corev1.ServiceAffinityNone {
			warnings = append(warnings, "spec.SessionAffinity is ignored for headless services")
		}
	}
	for i, ip := range s.Spec.ExternalIPs {
		warnings = append(warnings, validate.IPWarnings(spec.Child("externalIPs").Index(i), ip)...)
	}
	if len(s.Spec.ExternalIPs) > 0 && !headless && s.Spec.Type != corev1.ServiceTypeExternalName {
		warnings = append(warnings, "spec.externalIPs is deprecated and may no longer be implemented in some clusters")
	}
	if s.Spec.LoadBalancerIP != "" {
		warnings = append(warnings, validate.IPWarnings(spec.Child("loadBalancerIP"), s.Spec.LoadBalancerIP)...)
	}
	for i, cidr := range s.Spec.LoadBalancerSourceRanges {
		warnings = append(warnings, validate.CIDRWarnings(spec.Child("loadBalancerSourceRanges").Index(i), cidr)...)
	}
	if s.Spec.Type == corev1.ServiceTypeExternalName && len(s.Spec.ExternalIPs) > 0 {
		warnings = append(warnings, fmt.Sprintf("spec.externalIPs is ignored when spec.type is %q", corev1.ServiceTypeExternalName))
	}
	if s.Spec.Type != corev1.ServiceTypeExternalName && s.Spec.ExternalName != "" {
		warnings = append(warnings, fmt.Sprintf("spec.externalName is ignored when spec.type is not %q", corev1.ServiceTypeExternalName))
	}
	if d := s.Spec.TrafficDistribution; d != nil && *d == corev1.ServiceTrafficDistributionPreferClose {
		warnings = append(warnings, fmt.Sprintf("spec.trafficDistribution: %q is deprecated; use %q",
			corev1.ServiceTrafficDistributionPreferClose, corev1.ServiceTrafficDistributionPreferSameZone))
	}
	return warnings
}
