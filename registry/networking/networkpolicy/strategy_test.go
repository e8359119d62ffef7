package networkpolicy

import (
	"context"
	"github.com/fakeplane/fakeplane/internal/validate/validatetest"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

func TestNetworkPolicyStrategy(t *testing.T) {
	for _, tc := range []struct {
		name    string
		np, old *networkingv1.NetworkPolicy
		want    []string
	}{
		{name: "defaulted", np: &networkingv1.NetworkPolicy{Spec: networkingv1.NetworkPolicySpec{Egress: []networkingv1.NetworkPolicyEgressRule{{Ports: []networkingv1.NetworkPolicyPort{{Port: ptr.To(intstr.FromInt32(80))}}}}}}},
		{name: "bad CIDR", np: &networkingv1.NetworkPolicy{Spec: networkingv1.NetworkPolicySpec{Ingress: []networkingv1.NetworkPolicyIngressRule{{From: []networkingv1.NetworkPolicyPeer{{IPBlock: &networkingv1.IPBlock{CIDR: "10.0.0.0/33"}}}}}}},
			want: []string{`spec.ingress[0].from[0].ipBlock.cidr: Invalid value: "10.0.0.0/33": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)`}},
		{name: "bad port", np: &networkingv1.NetworkPolicy{Spec: networkingv1.NetworkPolicySpec{Ingress: []networkingv1.NetworkPolicyIngressRule{{Ports: []networkingv1.NetworkPolicyPort{{Port: ptr.To(intstr.FromInt32(0))}}}}}},
			want: []string{"spec.ingress[0].ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive"}},
		{name: "CIDRs with host bits are invalid (strict validation)", np: &networkingv1.NetworkPolicy{Spec: networkingv1.NetworkPolicySpec{Ingress: []networkingv1.NetworkPolicyIngressRule{{From: []networkingv1.NetworkPolicyPeer{{IPBlock: &networkingv1.IPBlock{CIDR: "10.0.0.1/8", Except: []string{"10.1.0.1/16"}}}}}}}},
			want: []string{
				`spec.ingress[0].from[0].ipBlock.cidr: Invalid value: "10.0.0.1/8": must not have bits set beyond the prefix length`,
				`spec.ingress[0].from[0].ipBlock.except[0]: Invalid value: "10.1.0.1/16": must not have bits set beyond the prefix length`,
			}},
		{name: "stored CIDR with host bits may stay", np: &networkingv1.NetworkPolicy{Spec: networkingv1.NetworkPolicySpec{Ingress: []networkingv1.NetworkPolicyIngressRule{{From: []networkingv1.NetworkPolicyPeer{{IPBlock: &networkingv1.IPBlock{CIDR: "10.0.0.1/8"}}}}, {}}}},
			old: &networkingv1.NetworkPolicy{Spec: networkingv1.NetworkPolicySpec{Ingress: []networkingv1.NetworkPolicyIngressRule{{From: []networkingv1.NetworkPolicyPeer{{IPBlock: &networkingv1.IPBlock{CIDR: "10.0.0.1/8"}}}}}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			Strategy.Default(tc.np)
			errs := Strategy.Validate(context.Background(), tc.np)
			if tc.old != nil {
				errs = Strategy.ValidateUpdate(context.Background(), tc.np, tc.old)
			}
			validatetest.ExpectErrors(t, errs, tc.want)
		})
	}
	np := &networkingv1.NetworkPolicy{Spec: networkingv1.NetworkPolicySpec{Egress: []networkingv1.NetworkPolicyEgressRule{{Ports: []networkingv1.NetworkPolicyPort{{}}}}}}
	Strategy.Default(np)
	if len(np.Spec.PolicyTypes) != 2 || *np.Spec.Egress[0].Ports[0].Protocol != "TCP" {
		t.Errorf("defaults: %+v", np.Spec)
	}
}
