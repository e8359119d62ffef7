package node

import (
	"context"
	"github.com/fakeplane/fakeplane/internal/validate/validatetest"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func TestNodeStrategy(t *testing.T) {
	for _, tc := range []struct {
		name      string
		node, old *corev1.Node
		status    bool
		want      []string
	}{
		{name: "valid", node: &corev1.Node{Status: corev1.NodeStatus{Capacity: corev1.ResourceList{"cpu": resource.MustParse("2")}}}},
		{name: "bad taint", node: &corev1.Node{Spec: corev1.NodeSpec{Taints: []corev1.Taint{{Key: "k"}}}},
			want: []string{"metadata.taints[0].effect: Required value"}},
		{name: "pods not whole", node: &corev1.Node{Status: corev1.NodeStatus{Capacity: corev1.ResourceList{"pods": resource.MustParse("1.5")}}},
			want: []string{`status.capacity.pods: Invalid value: "1500m": must be an integer`, `status.allocatable.pods: Invalid value: "1500m": must be an integer`}},
		{name: "provider ID changed", old: &corev1.Node{Spec: corev1.NodeSpec{ProviderID: "a"}}, node: &corev1.Node{Spec: corev1.NodeSpec{ProviderID: "b"}},
			want: []string{"spec.providerID: Invalid value: null: field cannot be modified once set"}},
		{name: "pod CIDR with host bits (strict validation)", node: &corev1.Node{Spec: corev1.NodeSpec{PodCIDR: "10.0.0.1/24", PodCIDRs: []string{"10.0.0.1/24"}}},
			want: []string{`spec.podCIDRs[0]: Invalid value: "10.0.0.1/24": must not have bits set beyond the prefix length`}},
		{name: "status write", status: true, old: &corev1.Node{}, node: &corev1.Node{Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{{Type: "InternalIP", Address: "a"}, {Type: "InternalIP", Address: "a"}}}},
			want: []string{`status.addresses[1]: Duplicate value: {"Type":"InternalIP","Address":"a"}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			Strategy.Default(tc.node)
			errs := Strategy.Validate(context.Background(), tc.node)
			switch {
			case tc.status:
				errs = Strategy.ValidateStatusUpdate(context.Background(), tc.node, tc.old)
			case tc.old != nil:
				errs = Strategy.ValidateUpdate(context.Background(), tc.node, tc.old)
			}
			validatetest.ExpectErrors(t, errs, tc.want)
		})
	}
}

// TestNodeDefaultPodCIDRs checks that Default keeps spec.podCIDR and
// spec.podCIDRs in step as upstream's v1 conversion round trip does.
func TestNodeDefaultPodCIDRs(t *testing.T) {
	for _, tc := range []struct {
		name         string
		podCIDR      string
		podCIDRs     []string
		wantPodCIDR  string
		wantPodCIDRs []string
	}{
		{name: "none"},
		{name: "only podCIDR", podCIDR: "10.0.1.0/24", wantPodCIDR: "10.0.1.0/24", wantPodCIDRs: []string{"10.0.1.0/24"}},
		{name: "only podCIDRs", podCIDRs: []string{"10.0.2.0/24", "fd00::/64"}, wantPodCIDR: "10.0.2.0/24", wantPodCIDRs: []string{"10.0.2.0/24", "fd00::/64"}},
		{name: "podCIDR wins when they differ", podCIDR: "10.0.9.0/24", podCIDRs: []string{"10.0.2.0/24", "fd00::/64"}, wantPodCIDR: "10.0.9.0/24", wantPodCIDRs: []string{"10.0.9.0/24"}},
		{name: "both agree", podCIDR: "10.0.2.0/24", podCIDRs: []string{"10.0.2.0/24", "fd00::/64"}, wantPodCIDR: "10.0.2.0/24", wantPodCIDRs: []string{"10.0.2.0/24", "fd00::/64"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := &corev1.Node{Spec: corev1.NodeSpec{PodCIDR: tc.podCIDR, PodCIDRs: tc.podCIDRs}}
			Strategy.Default(n)
			if n.Spec.PodCIDR != tc.wantPodCIDR || !slices.Equal(n.Spec.PodCIDRs, tc.wantPodCIDRs) {
				t.Errorf("got podCIDR %q podCIDRs %q, want %q %q", n.Spec.PodCIDR, n.Spec.PodCIDRs, tc.wantPodCIDR, tc.wantPodCIDRs)
			}
		})
	}
}
