// Package service holds the Service strategy: kube-apiserver's
// pkg/registry/core/service rules (its defaults and upstream's
// validateService, ValidateServiceCreate and ValidateServiceUpdate of
// pkg/apis/core/validation on the v1 type). The allocation of ClusterIPs
// and node ports, which the REST storage does, stays with the server's
// allocator.
package service

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	netutils "k8s.io/utils/net"

	"github.com/fakeplane/fakeplane/internal/validate"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the Service strategy.
var Strategy = serviceStrategy{strategy.Base{Namespaced: true, CreateOnUpdate: true, UnconditionalUpdate: true, ReturnDeleted: true, ResetStatusOnCreate: true, StatusWritesMetadata: true, NameRuleOnCreateOnly: true}}

type serviceStrategy struct{ strategy.Base }

// Default sets upstream's SetDefaults_Service.
func (serviceStrategy) Default(obj runtime.Object) {
	defaultService(obj.(*corev1.Service))
}

// Validate checks a new Service.
func (serviceStrategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validateService(obj.(*corev1.Service), nil)
}

// ValidateUpdate checks a changed Service: its ClusterIP, load balancer
// class and health check port stay.
func (serviceStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validateServiceUpdate(obj.(*corev1.Service), old.(*corev1.Service))
}

func isHeadless(s *corev1.Service) bool {
	return s.Spec.ClusterIP == corev1.ClusterIPNone
}

// validateService is upstream's validateService (old nil on create).
func validateService(s, old *corev1.Service) field.ErrorList {
	var errs field.ErrorList
	spec := field.NewPath("spec")
	if len(s.Spec.Ports) == 0 && !isHeadless(s) && s.Spec.Type != corev1.ServiceTypeExternalName {
		errs = append(errs, field.Required(spec.Child("ports"), ""))
	}
	switch s.Spec.Type {
	case corev1.ServiceTypeLoadBalancer:
		if isHeadless(s) {
			errs = append(errs, field.Invalid(spec.Child("clusterIPs").Index(0), s.Spec.ClusterIPs[0], "may not be set to 'None' for LoadBalancer services"))
		}
	case corev1.ServiceTypeNodePort:
		if isHeadless(s) {
			errs = append(errs, field.Invalid(spec.Child("clusterIPs").Index(0), s.Spec.ClusterIPs[0], "may not be set to 'None' for NodePort services"))
		}
	case corev1.ServiceTypeExternalName:
		if len(s.Spec.ClusterIPs) > 0 {
			errs = append(errs, field.Forbidden(spec.Child("clusterIPs"), "may not be set for ExternalName services"))
		}
		if len(s.Spec.IPFamilies) > 0 {
			errs = append(errs, field.Forbidden(spec.Child("ipFamilies"), "may not be set for ExternalName services"))
		}
		if s.Spec.IPFamilyPolicy != nil {
			errs = append(errs, field.Forbidden(spec.Child("ipFamilyPolicy"), "may not be set for ExternalName services"))
		}
		if cname := strings.TrimSuffix(s.Spec.ExternalName, "."); cname != "" {
			for _, msg := range validation.IsDNS1123Subdomain(cname) {
				errs = append(errs, field.Invalid(spec.Child("externalName"), cname, msg))
			}
		} else {
			errs = append(errs, field.Required(spec.Child("externalName"), ""))
		}
	}
	names := sets.New[string]()
	for i := range s.Spec.Ports {
		errs = append(errs, validateServicePort(&s.Spec.Ports[i], len(s.Spec.Ports) > 1, names, spec.Child("ports").Index(i))...)
	}
	if s.Spec.Selector != nil {
		errs = append(errs, metav1validation.ValidateLabels(s.Spec.Selector, spec.Child("selector"))...)
	}
	switch s.Spec.SessionAffinity {
	case "":
		errs = append(errs, field.Required(spec.Child("sessionAffinity"), ""))
	case corev1.ServiceAffinityClientIP:
		errs = append(errs, validateClientIPAffinity(s.Spec.SessionAffinityConfig, spec.Child("sessionAffinityConfig"))...)
	case corev1.ServiceAffinityNone:
		if s.Spec.SessionAffinityConfig != nil {
			errs = append(errs, field.Forbidden(spec.Child("sessionAffinityConfig"), "must not be set when session affinity is None"))
		}
	default:
		errs = append(errs, field.NotSupported(spec.Child("sessionAffinity"), s.Spec.SessionAffinity, []string{"ClientIP", "None"}))
	}
	errs = append(errs, ValidateClusterIPFields(s, old)...)
	var oldExternal []string
	if old != nil {
		oldExternal = old.Spec.ExternalIPs
	}
	for i, ip := range s.Spec.ExternalIPs {
		idx := spec.Child("externalIPs").Index(i)
		if ipErrs := validate.LegacyIP(idx, ip, oldExternal); len(ipErrs) > 0 {
			errs = append(errs, ipErrs...)
		} else {
			// Upstream checks them as endpoint IPs, for historical reasons.
			errs = append(errs, validate.EndpointIP(ip, idx)...)
		}
	}
	switch s.Spec.Type {
	case "":
		errs = append(errs, field.Required(spec.Child("type"), ""))
	case corev1.ServiceTypeClusterIP, corev1.ServiceTypeNodePort, corev1.ServiceTypeLoadBalancer, corev1.ServiceTypeExternalName:
	default:
		errs = append(errs, field.NotSupported(spec.Child("type"), s.Spec.Type, []string{"ClusterIP", "ExternalName", "LoadBalancer", "NodePort"}))
	}
	if s.Spec.Type == corev1.ServiceTypeClusterIP {
		for i, p := range s.Spec.Ports {
			if p.NodePort != 0 {
				errs = append(errs, field.Forbidden(spec.Child("ports").Index(i).Child("nodePort"), "may not be used when `type` is 'ClusterIP'"))
			}
		}
	}
	type protoPort struct {
		proto corev1.Protocol
		port  int32
	}
	nodePorts := map[protoPort]bool{}
	for i, p := range s.Spec.Ports {
		if p.NodePort == 0 {
			continue
		}
		k := protoPort{p.Protocol, p.NodePort}
		if nodePorts[k] {
			errs = append(errs, field.Duplicate(spec.Child("ports").Index(i).Child("nodePort"), p.NodePort))
		}
		nodePorts[k] = true
	}
	ports := map[protoPort]bool{}
	for i, p := range s.Spec.Ports {
		k := protoPort{p.Protocol, p.Port}
		if ports[k] {
			// Upstream shows the internal ServicePort it compared.
			errs = append(errs, field.Duplicate(spec.Child("ports").Index(i), validate.InternalValue(corev1.ServicePort{Protocol: p.Protocol, Port: p.Port})))
		}
		ports[k] = true
	}
	if len(s.Spec.LoadBalancerSourceRanges) > 0 {
		fld := spec.Child("LoadBalancerSourceRanges")
		if s.Spec.Type != corev1.ServiceTypeLoadBalancer {
			errs = append(errs, field.Forbidden(fld, "may only be used when `type` is 'LoadBalancer'"))
		}
		var existing []string
		if old != nil {
			for _, v := range old.Spec.LoadBalancerSourceRanges {
				existing = append(existing, strings.TrimSpace(v))
			}
		}
		for i, v := range s.Spec.LoadBalancerSourceRanges {
			errs = append(errs, validate.LegacyCIDR(fld.Index(i), strings.TrimSpace(v), existing)...)
		}
	} else if v, ok := s.Annotations[corev1.AnnotationLoadBalancerSourceRangesKey]; ok {
		// The annotation the field replaced: checked the same way when it
		// is new or changed.
		fld := field.NewPath("metadata", "annotations").Key(corev1.AnnotationLoadBalancerSourceRangesKey)
		if s.Spec.Type != corev1.ServiceTypeLoadBalancer {
			errs = append(errs, field.Forbidden(fld, "may only be used when `type` is 'LoadBalancer'"))
		}
		if old == nil || old.Annotations[corev1.AnnotationLoadBalancerSourceRangesKey] != v {
			if v = strings.TrimSpace(v); v != "" {
				for _, cidr := range strings.Split(v, ",") {
					errs = append(errs, validate.LegacyCIDR(fld, strings.TrimSpace(cidr), nil)...)
				}
			}
		}
	}
	if s.Spec.AllocateLoadBalancerNodePorts != nil && s.Spec.Type != corev1.ServiceTypeLoadBalancer {
		errs = append(errs, field.Forbidden(spec.Child("allocateLoadBalancerNodePorts"), "may only be used when `type` is 'LoadBalancer'"))
	}
	if s.Spec.Type == corev1.ServiceTypeLoadBalancer && s.Spec.AllocateLoadBalancerNodePorts == nil {
		errs = append(errs, field.Required(field.NewPath("allocateLoadBalancerNodePorts"), ""))
	}
	if s.Spec.LoadBalancerClass != nil {
		if s.Spec.Type == corev1.ServiceTypeLoadBalancer {
			for _, msg := range validation.IsQualifiedName(*s.Spec.LoadBalancerClass) {
				errs = append(errs, field.Invalid(spec.Child("loadBalancerClass"), *s.Spec.LoadBalancerClass, msg))
			}
		} else {
			errs = append(errs, field.Forbidden(spec.Child("loadBalancerClass"), "may only be used when `type` is 'LoadBalancer'"))
		}
	}
	if !ExternallyAccessible(s) {
		if s.Spec.ExternalTrafficPolicy != "" {
			errs = append(errs, field.Invalid(spec.Child("externalTrafficPolicy"), s.Spec.ExternalTrafficPolicy, "may only be set for externally-accessible services"))
		}
	} else if s.Spec.ExternalTrafficPolicy == "" {
		errs = append(errs, field.Required(spec.Child("externalTrafficPolicy"), ""))
	} else if p := s.Spec.ExternalTrafficPolicy; p != corev1.ServiceExternalTrafficPolicyCluster && p != corev1.ServiceExternalTrafficPolicyLocal {
		errs = append(errs, field.NotSupported(spec.Child("externalTrafficPolicy"), p, []string{"Cluster", "Local"}))
	}
	if !NeedsHealthCheck(s) {
		if s.Spec.HealthCheckNodePort != 0 {
			errs = append(errs, field.Invalid(spec.Child("healthCheckNodePort"), s.Spec.HealthCheckNodePort, "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"))
		}
	} else if s.Spec.HealthCheckNodePort == 0 {
		errs = append(errs, field.Required(spec.Child("healthCheckNodePort"), ""))
	} else {
		for _, msg := range validation.IsValidPortNum(int(s.Spec.HealthCheckNodePort)) {
			errs = append(errs, field.Invalid(spec.Child("healthCheckNodePort"), s.Spec.HealthCheckNodePort, msg))
		}
	}
	if s.Spec.InternalTrafficPolicy == nil {
		switch s.Spec.Type {
		case corev1.ServiceTypeNodePort, corev1.ServiceTypeLoadBalancer, corev1.ServiceTypeClusterIP:
			errs = append(errs, field.Required(spec.Child("internalTrafficPolicy"), ""))
		}
	} else if p := *s.Spec.InternalTrafficPolicy; p != corev1.ServiceInternalTrafficPolicyCluster && p != corev1.ServiceInternalTrafficPolicyLocal {
		errs = append(errs, field.NotSupported(spec.Child("internalTrafficPolicy"), p, []string{"Cluster", "Local"}))
	}
	if td := s.Spec.TrafficDistribution; td != nil {
		valid := []string{corev1.ServiceTrafficDistributionPreferClose, corev1.ServiceTrafficDistributionPreferSameZone, corev1.ServiceTrafficDistributionPreferSameNode}
		if !sets.New(valid...).Has(*td) {
			errs = append(errs, field.NotSupported(spec.Child("trafficDistribution"), *td, valid))
		}
	}
	return errs
}

func validateServicePort(p *corev1.ServicePort, requireName bool, names sets.Set[string], fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if requireName && p.Name == "" {
		errs = append(errs, field.Required(fld.Child("name"), ""))
	} else if p.Name != "" {
		errs = append(errs, validate.DNS1123Label(p.Name, fld.Child("name"))...)
		if names.Has(p.Name) {
			errs = append(errs, field.Duplicate(fld.Child("name"), p.Name))
		} else {
			names.Insert(p.Name)
		}
	}
	for _, msg := range validation.IsValidPortNum(int(p.Port)) {
		errs = append(errs, field.Invalid(fld.Child("port"), p.Port, msg))
	}
	if p.Protocol == "" {
		errs = append(errs, field.Required(fld.Child("protocol"), ""))
	} else if !sets.New(validate.ContainerPortProtocols...).Has(string(p.Protocol)) {
		errs = append(errs, field.NotSupported(fld.Child("protocol"), p.Protocol, validate.ContainerPortProtocols))
	}
	errs = append(errs, validate.PortNumOrName(p.TargetPort, fld.Child("targetPort"))...)
	if p.AppProtocol != nil {
		for _, msg := range validation.IsQualifiedName(*p.AppProtocol) {
			errs = append(errs, field.Invalid(fld.Child("appProtocol"), *p.AppProtocol, msg))
		}
	}
	return errs
}

func validateClientIPAffinity(c *corev1.SessionAffinityConfig, fld *field.Path) field.ErrorList {
	const when = "when session affinity type is ClientIP"
	switch {
	case c == nil:
		return field.ErrorList{field.Required(fld, when)}
	case c.ClientIP == nil:
		return field.ErrorList{field.Required(fld.Child("clientIP"), when)}
	case c.ClientIP.TimeoutSeconds == nil:
		return field.ErrorList{field.Required(fld.Child("clientIP", "timeoutSeconds"), when)}
	}
	if t := *c.ClientIP.TimeoutSeconds; t <= 0 || t > maxClientIPAffinitySeconds {
		return field.ErrorList{field.Invalid(fld.Child("clientIP", "timeoutSeconds"), t, fmt.Sprintf("must be greater than 0 and less than %d", maxClientIPAffinitySeconds))}
	}
	return nil
}

// ValidateClusterIPFields is upstream's ValidateServiceClusterIPsRelatedFields: the
// agreement of a Service's clusterIP, clusterIPs, ipFamilies and
// ipFamilyPolicy, which its storage checks before allocating.
func ValidateClusterIPFields(s, old *corev1.Service) field.ErrorList {
	if s.Spec.Type == corev1.ServiceTypeExternalName {
		return nil
	}
	var errs field.ErrorList
	spec := field.NewPath("spec")
	ipsFld := spec.Child("clusterIPs")
	if s.Spec.ClusterIP != "" {
		if len(s.Spec.ClusterIPs) == 0 {
			errs = append(errs, field.Required(ipsFld, ""))
		} else if s.Spec.ClusterIPs[0] != s.Spec.ClusterIP {
			errs = append(errs, field.Invalid(ipsFld, s.Spec.ClusterIPs, "first value must match `clusterIP`"))
		}
	} else if len(s.Spec.ClusterIPs) != 0 {
		errs = append(errs, field.Invalid(ipsFld, s.Spec.ClusterIPs, "must be empty when `clusterIP` is not specified"))
	}
	seen := sets.New[corev1.IPFamily]()
	for i, f := range s.Spec.IPFamilies {
		if f != corev1.IPv4Protocol && f != corev1.IPv6Protocol {
			errs = append(errs, field.NotSupported(spec.Child("ipFamilies").Index(i), f, []string{"IPv4", "IPv6"}))
		}
		if seen.Has(f) {
			errs = append(errs, field.Duplicate(spec.Child("ipFamilies").Index(i), f))
		}
		seen.Insert(f)
	}
	if p := s.Spec.IPFamilyPolicy; p != nil && *p != corev1.IPFamilyPolicySingleStack && *p != corev1.IPFamilyPolicyPreferDualStack && *p != corev1.IPFamilyPolicyRequireDualStack {
		errs = append(errs, field.NotSupported(spec.Child("ipFamilyPolicy"), p, []string{"PreferDualStack", "RequireDualStack", "SingleStack"}))
	}
	var existing []string
	if old != nil {
		existing = old.Spec.ClusterIPs
	}
	invalid := false
	for i, ip := range s.Spec.ClusterIPs {
		if i == 0 && ip == corev1.ClusterIPNone {
			if len(s.Spec.ClusterIPs) > 1 {
				invalid = true
				errs = append(errs, field.Invalid(ipsFld, s.Spec.ClusterIPs, "'None' must be the first and only value"))
			}
			continue
		}
		e := validate.LegacyIP(ipsFld.Index(i), ip, existing)
		invalid = invalid || len(e) > 0
		errs = append(errs, e...)
	}
	if len(s.Spec.ClusterIPs) > 2 {
		errs = append(errs, field.Invalid(ipsFld, s.Spec.ClusterIPs, "may only hold up to 2 values"))
	}
	if invalid {
		return errs
	}
	if len(s.Spec.ClusterIPs) > 1 {
		if dual, _ := netutils.IsDualStackIPStrings(s.Spec.ClusterIPs); !dual {
			errs = append(errs, field.Invalid(ipsFld, s.Spec.ClusterIPs, "may specify no more than one IP for each IP family"))
		}
	}
	if !isHeadless(s) {
		for i, ip := range s.Spec.ClusterIPs {
			if i >= len(s.Spec.IPFamilies) {
				break
			}
			if s.Spec.IPFamilies[i] == corev1.IPv4Protocol && netutils.IsIPv6String(ip) {
				errs = append(errs, field.Invalid(ipsFld.Index(i), ip, fmt.Sprintf("expected an IPv4 value as indicated by `ipFamilies[%v]`", i)))
			}
			if s.Spec.IPFamilies[i] == corev1.IPv6Protocol && !netutils.IsIPv6String(ip) {
				errs = append(errs, field.Invalid(ipsFld.Index(i), ip, fmt.Sprintf("expected an IPv6 value as indicated by `ipFamilies[%v]`", i)))
			}
		}
	}
	return errs
}

// validateServiceUpdate is upstream's ValidateServiceUpdate less the
// metadata (of the dual-stack rules, only that the primary ClusterIP
// stays).
func validateServiceUpdate(s, old *corev1.Service) field.ErrorList {
	errs := validateServiceClusterIPUpdate(s, old)
	if old.Spec.Type == corev1.ServiceTypeLoadBalancer && s.Spec.Type == corev1.ServiceTypeLoadBalancer {
		o, n := old.Spec.LoadBalancerClass, s.Spec.LoadBalancerClass
		if (o == nil) != (n == nil) || o != nil && *o != *n {
			errs = append(errs, field.Invalid(field.NewPath("spec", "loadBalancerClass"), n, "may not change once set"))
		}
	}
	if NeedsHealthCheck(old) && NeedsHealthCheck(s) && s.Spec.HealthCheckNodePort != old.Spec.HealthCheckNodePort {
		errs = append(errs, field.Forbidden(field.NewPath("spec", "healthCheckNodePort"), "field is immutable"))
	}
	return append(errs, validateService(s, old)...)
}

// validateServiceClusterIPUpdate is the rule that a Service's primary
// ClusterIP may not change once set.
func validateServiceClusterIPUpdate(n, p *corev1.Service) field.ErrorList {
	if n.Spec.Type != corev1.ServiceTypeExternalName && p.Spec.Type != corev1.ServiceTypeExternalName &&
		len(p.Spec.ClusterIPs) > 0 && len(n.Spec.ClusterIPs) > 0 && n.Spec.ClusterIPs[0] != p.Spec.ClusterIPs[0] {
		return field.ErrorList{field.Invalid(field.NewPath("spec", "clusterIPs").Index(0), n.Spec.ClusterIPs, "may not change once set")}
	}
	return nil
}

// maxClientIPAffinitySeconds is upstream's core.MaxClientIPServiceAffinitySeconds.
const maxClientIPAffinitySeconds = 86400

// defaultService is upstream's SetDefaults_Service (the IP families and the
// ClusterIP come at create, see allocateServiceIP).
func defaultService(s *corev1.Service) {
	if s.Spec.SessionAffinity == "" {
		s.Spec.SessionAffinity = corev1.ServiceAffinityNone
	}
	if s.Spec.SessionAffinity == corev1.ServiceAffinityNone {
		s.Spec.SessionAffinityConfig = nil
	}
	if s.Spec.SessionAffinity == corev1.ServiceAffinityClientIP {
		if c := s.Spec.SessionAffinityConfig; c == nil || c.ClientIP == nil || c.ClientIP.TimeoutSeconds == nil {
			timeout := corev1.DefaultClientIPServiceAffinitySeconds
			s.Spec.SessionAffinityConfig = &corev1.SessionAffinityConfig{ClientIP: &corev1.ClientIPConfig{TimeoutSeconds: &timeout}}
		}
	}
	if s.Spec.Type == "" {
		s.Spec.Type = corev1.ServiceTypeClusterIP
	}
	for i := range s.Spec.Ports {
		p := &s.Spec.Ports[i]
		if p.Protocol == "" {
			p.Protocol = corev1.ProtocolTCP
		}
		if p.TargetPort == intstr.FromInt32(0) || p.TargetPort == intstr.FromString("") {
			p.TargetPort = intstr.FromInt32(p.Port)
		}
	}
	if ExternallyAccessible(s) && s.Spec.ExternalTrafficPolicy == "" {
		s.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyCluster
	}
	switch s.Spec.Type {
	case corev1.ServiceTypeNodePort, corev1.ServiceTypeLoadBalancer, corev1.ServiceTypeClusterIP:
		if s.Spec.InternalTrafficPolicy == nil {
			p := corev1.ServiceInternalTrafficPolicyCluster
			s.Spec.InternalTrafficPolicy = &p
		}
	}
	if s.Spec.Type == corev1.ServiceTypeLoadBalancer {
		if s.Spec.AllocateLoadBalancerNodePorts == nil {
			t := true
			s.Spec.AllocateLoadBalancerNodePorts = &t
		}
		vip := corev1.LoadBalancerIPModeVIP
		for i, ing := range s.Status.LoadBalancer.Ingress {
			if ing.IP != "" && ing.IPMode == nil {
				s.Status.LoadBalancer.Ingress[i].IPMode = &vip
			}
		}
	}
}

// ExternallyAccessible is upstream's service.ExternallyAccessible: a
// LoadBalancer or NodePort Service, or a ClusterIP one with external IPs.
func ExternallyAccessible(s *corev1.Service) bool {
	return s.Spec.Type == corev1.ServiceTypeLoadBalancer || s.Spec.Type == corev1.ServiceTypeNodePort ||
		s.Spec.Type == corev1.ServiceTypeClusterIP && len(s.Spec.ExternalIPs) > 0
}

// NeedsHealthCheck is upstream's service.NeedsHealthCheck: a LoadBalancer
// Service with the Local external traffic policy.
func NeedsHealthCheck(s *corev1.Service) bool {
	return s.Spec.Type == corev1.ServiceTypeLoadBalancer && s.Spec.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal
}
