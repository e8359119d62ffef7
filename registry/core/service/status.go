package service

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate"
)

// loadBalancerIPModes are the ipMode values upstream accepts, sorted as its
// message lists them.
var loadBalancerIPModes = []string{string(corev1.LoadBalancerIPModeProxy), string(corev1.LoadBalancerIPModeVIP)}

// ValidateStatusUpdate is upstream's ValidateServiceStatusUpdate less the
// metadata: its load balancer status (ValidateLoadBalancerStatus).
func (serviceStrategy) ValidateStatusUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	s, o := obj.(*corev1.Service), old.(*corev1.Service)
	return validateLoadBalancerStatus(&s.Status.LoadBalancer, &o.Status.LoadBalancer, s.Spec.Type)
}

// validateLoadBalancerStatus is upstream's ValidateLoadBalancerStatus: only
// a LoadBalancer service has ingress points; each one's IP (strictly
// parsed, unless the stored status has it), its ipMode, which goes with an
// IP, and its hostname, a DNS name that is not an IP.
func validateLoadBalancerStatus(status, old *corev1.LoadBalancerStatus, typ corev1.ServiceType) field.ErrorList {
	fld := field.NewPath("status", "loadBalancer", "ingress")
	if typ != corev1.ServiceTypeLoadBalancer && len(status.Ingress) != 0 {
		return field.ErrorList{field.Forbidden(fld, "may only be used when `spec.type` is 'LoadBalancer'")}
	}
	var existing []string
	for _, in := range old.Ingress {
		if in.IP != "" {
			existing = append(existing, in.IP)
		}
	}
	var errs field.ErrorList
	for i, in := range status.Ingress {
		idx := fld.Index(i)
		if in.IP != "" {
			errs = append(errs, validate.LegacyIP(idx.Child("ip"), in.IP, existing)...)
		}
		switch {
		case in.IPMode == nil:
			if in.IP != "" {
				errs = append(errs, field.Required(idx.Child("ipMode"), "must be specified when `ip` is set"))
			}
		case in.IP == "":
			errs = append(errs, field.Forbidden(idx.Child("ipMode"), "may not be specified when `ip` is not set"))
		case *in.IPMode != corev1.LoadBalancerIPModeVIP && *in.IPMode != corev1.LoadBalancerIPModeProxy:
			errs = append(errs, field.NotSupported(idx.Child("ipMode"), in.IPMode, loadBalancerIPModes))
		}
		if in.Hostname != "" {
			errs = append(errs, validate.LoadBalancerHostname(idx.Child("hostname"), in.Hostname)...)
		}
	}
	return errs
}
