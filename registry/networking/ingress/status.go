package ingress

import (
	"context"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate"
)

// ValidateStatusUpdate is upstream's ValidateIngressStatusUpdate less the
// metadata (ValidateIngressLoadBalancerStatus): each ingress point's IP,
// strictly parsed unless the stored status has it, and its hostname, a
// DNS name that is not an IP.
func (ingressStrategy) ValidateStatusUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	var existing []string
	for _, in := range old.(*networkingv1.Ingress).Status.LoadBalancer.Ingress {
		if in.IP != "" {
			existing = append(existing, in.IP)
		}
	}
	var errs field.ErrorList
	fld := field.NewPath("status", "loadBalancer", "ingress")
	for i, in := range obj.(*networkingv1.Ingress).Status.LoadBalancer.Ingress {
		idx := fld.Index(i)
		if in.IP != "" {
			errs = append(errs, validate.LegacyIP(idx.Child("ip"), in.IP, existing)...)
		}
		if in.Hostname != "" {
			errs = append(errs, validate.LoadBalancerHostname(idx.Child("hostname"), in.Hostname)...)
		}
	}
	return errs
}
