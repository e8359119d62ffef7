package ingress

import (
	"context"
	"slices"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane/internal/validate/validatetest"
)

func TestIngressWarnings(t *testing.T) {
	const warning = `annotation "kubernetes.io/ingress.class" is deprecated, please use 'spec.ingressClassName' instead`
	for _, tc := range []struct {
		name        string
		annotations map[string]string
		className   *string
		wantCreate  []string
	}{
		{name: "class name warns of nothing", className: ptr.To("nginx")},
		{name: "no class at all warns of nothing"},
		{name: "class annotation alone", annotations: map[string]string{"kubernetes.io/ingress.class": "nginx"}, wantCreate: []string{warning}},
		{name: "class annotation with a class name", annotations: map[string]string{"kubernetes.io/ingress.class": "nginx"}, className: ptr.To("nginx")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Annotations: tc.annotations}, Spec: networkingv1.IngressSpec{IngressClassName: tc.className,
				DefaultBackend: &networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "s", Port: networkingv1.ServiceBackendPort{Number: 80}}}}}
			if got := Strategy.WarningsOnCreate(context.Background(), ing); !slices.Equal(got, tc.wantCreate) {
				t.Errorf("create warnings:\n got %q\nwant %q", got, tc.wantCreate)
			}
			// Upstream warns on create only.
			if got := Strategy.WarningsOnUpdate(context.Background(), ing, ing.DeepCopy()); len(got) != 0 {
				t.Errorf("update warnings: %q", got)
			}
		})
	}
}

func TestIngressStatusValidationAndWarnings(t *testing.T) {
	for _, tc := range []struct {
		name         string
		ingress, old []networkingv1.IngressLoadBalancerIngress
		wantErrs     []string
		wantWarnings []string
	}{
		{name: "standard IPs and hostnames warn of nothing", ingress: []networkingv1.IngressLoadBalancerIngress{{IP: "10.0.0.1"}, {Hostname: "lb.example"}}},
		{name: "non-canonical IPv6 IP is warned about under the ingress point's path", ingress: []networkingv1.IngressLoadBalancerIngress{{Hostname: "lb.example"}, {IP: "2001:DB8::1"}},
			wantWarnings: []string{`status.loadBalancer.ingress[1]: IPv6 address "2001:DB8::1" should be in RFC 5952 canonical format ("2001:db8::1")`}},
		{name: "new IPv4-mapped IP is invalid (strict validation)", ingress: []networkingv1.IngressLoadBalancerIngress{{IP: "::ffff:10.0.0.1"}},
			wantErrs: []string{`status.loadBalancer.ingress[0].ip: Invalid value: "::ffff:10.0.0.1": must not be an IPv4-mapped IPv6 address`}},
		{name: "stored IPv4-mapped IP stays and is warned about", old: []networkingv1.IngressLoadBalancerIngress{{IP: "::ffff:10.0.0.1"}},
			ingress:      []networkingv1.IngressLoadBalancerIngress{{IP: "::ffff:10.0.0.1"}},
			wantWarnings: []string{`status.loadBalancer.ingress[0]: non-standard IP address "::ffff:10.0.0.1" is invalid: use "10.0.0.1"`}},
		{name: "hostname that is an IP", ingress: []networkingv1.IngressLoadBalancerIngress{{Hostname: "10.0.0.3"}},
			wantErrs: []string{`status.loadBalancer.ingress[0].hostname: Invalid value: "10.0.0.3": must be a DNS name, not an IP address`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ing := &networkingv1.Ingress{Status: networkingv1.IngressStatus{LoadBalancer: networkingv1.IngressLoadBalancerStatus{Ingress: tc.ingress}}}
			old := &networkingv1.Ingress{Status: networkingv1.IngressStatus{LoadBalancer: networkingv1.IngressLoadBalancerStatus{Ingress: tc.old}}}
			validatetest.ExpectErrors(t, Strategy.ValidateStatusUpdate(context.Background(), ing, old), tc.wantErrs)
			if len(tc.wantErrs) > 0 {
				return // warnings go with valid writes only
			}
			if got := Strategy.WarningsOnStatusUpdate(context.Background(), ing, old); !slices.Equal(got, tc.wantWarnings) {
				t.Errorf("status warnings:\n got %q\nwant %q", got, tc.wantWarnings)
			}
		})
	}
}
