package networkpolicy

import (
	"context"
	"slices"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestNetworkPolicyWarnings(t *testing.T) {
	block := func(cidr string, except ...string) networkingv1.NetworkPolicyPeer {
		return networkingv1.NetworkPolicyPeer{IPBlock: &networkingv1.IPBlock{CIDR: cidr, Except: except}}
	}
	pods := networkingv1.NetworkPolicyPeer{PodSelector: &metav1.LabelSelector{}}
	for _, tc := range []struct {
		name string
		spec networkingv1.NetworkPolicySpec
		want []string
	}{
		{name: "standard CIDRs warn of nothing", spec: networkingv1.NetworkPolicySpec{
			Ingress: []networkingv1.NetworkPolicyIngressRule{{From: []networkingv1.NetworkPolicyPeer{pods, block("10.0.0.0/8", "10.1.0.0/16")}}},
			Egress:  []networkingv1.NetworkPolicyEgressRule{{To: []networkingv1.NetworkPolicyPeer{block("2001:db8::/32")}}},
		}},
		{name: "ingress and egress CIDRs not in their standard form", spec: networkingv1.NetworkPolicySpec{
			Egress: []networkingv1.NetworkPolicyEgressRule{{}, {To: []networkingv1.NetworkPolicyPeer{block("2001:db8:0::/48")}}},
			Ingress: []networkingv1.NetworkPolicyIngressRule{{From: []networkingv1.NetworkPolicyPeer{
				pods,
				block("10.0.0.1/8", "10.1.0.0/16", "010.2.0.0/16"),
			}}},
		}, want: []string{
			`spec.ingress[0].from[1].ipBlock.cidr: CIDR value "10.0.0.1/8" is ambiguous in this context (should be "10.0.0.0/8" or "10.0.0.1/32"?)`,
			`spec.ingress[0].from[1].ipBlock.except[1]: non-standard CIDR value "010.2.0.0/16" is invalid: use "10.2.0.0/16"`,
			`spec.egress[1].to[0].ipBlock.cidr: IPv6 CIDR value "2001:db8:0::/48" should be in RFC 5952 canonical format ("2001:db8::/48")`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			np := &networkingv1.NetworkPolicy{Spec: tc.spec}
			if got := Strategy.WarningsOnCreate(context.Background(), np); !slices.Equal(got, tc.want) {
				t.Errorf("create warnings:\n got %q\nwant %q", got, tc.want)
			}
			if got := Strategy.WarningsOnUpdate(context.Background(), np, np.DeepCopy()); !slices.Equal(got, tc.want) {
				t.Errorf("update warnings:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}
