package node

import (
	"context"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestNodeWarnings(t *testing.T) {
	configSource := &corev1.NodeConfigSource{ConfigMap: &corev1.ConfigMapNodeConfigSource{Name: "c", Namespace: "kube-system", KubeletConfigKey: "kubelet"}}
	for _, tc := range []struct {
		name    string
		spec    corev1.NodeSpec
		oldSpec *corev1.NodeSpec // nil: a create
		want    []string
	}{
		{name: "plain node warns of nothing", spec: corev1.NodeSpec{PodCIDR: "10.244.0.0/24", PodCIDRs: []string{"10.244.0.0/24", "fd00::/64"}}},
		{name: "external ID", spec: corev1.NodeSpec{DoNotUseExternalID: "ext-1"},
			want: []string{"spec.externalID: this field is deprecated, and is unused by Kubernetes"}},
		{name: "pod CIDRs not in their standard form", spec: corev1.NodeSpec{PodCIDR: "10.244.0.1/24", PodCIDRs: []string{"10.244.0.1/24", "fd00:0::/64"}},
			want: []string{
				`spec.podCIDRs[0]: CIDR value "10.244.0.1/24" is ambiguous in this context (should be "10.244.0.0/24" or "10.244.0.1/32"?)`,
				`spec.podCIDRs[1]: IPv6 CIDR value "fd00:0::/64" should be in RFC 5952 canonical format ("fd00::/64")`,
			}},
		{name: "config source sent on create is dropped", spec: corev1.NodeSpec{ConfigSource: configSource}},
		{name: "config source added by an update is dropped", spec: corev1.NodeSpec{ConfigSource: configSource}, oldSpec: &corev1.NodeSpec{}},
		{name: "config source a stored node has is kept and warned about", spec: corev1.NodeSpec{ConfigSource: configSource, DoNotUseExternalID: "ext-1"},
			oldSpec: &corev1.NodeSpec{ConfigSource: configSource, DoNotUseExternalID: "ext-1"},
			want:    []string{"spec.configSource: the feature is removed", "spec.externalID: this field is deprecated, and is unused by Kubernetes"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := &corev1.Node{Spec: tc.spec}
			var got []string
			if tc.oldSpec == nil {
				Strategy.PrepareForCreate(context.Background(), n)
				got = Strategy.WarningsOnCreate(context.Background(), n)
			} else {
				old := &corev1.Node{Spec: *tc.oldSpec}
				Strategy.PrepareForUpdate(context.Background(), n, old)
				got = Strategy.WarningsOnUpdate(context.Background(), n, old)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("warnings:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestNodeStatusConfigDropped(t *testing.T) {
	config := &corev1.NodeConfigStatus{Error: "x"}
	n := &corev1.Node{Status: corev1.NodeStatus{Config: config}}
	Strategy.PrepareForCreate(context.Background(), n)
	if n.Status.Config != nil {
		t.Errorf("create kept status.config")
	}
	n = &corev1.Node{Status: corev1.NodeStatus{Config: config}}
	Strategy.PrepareForStatusUpdate(context.Background(), n, &corev1.Node{})
	if n.Status.Config != nil {
		t.Errorf("status update kept a new status.config")
	}
	n = &corev1.Node{Status: corev1.NodeStatus{Config: config}}
	Strategy.PrepareForStatusUpdate(context.Background(), n, &corev1.Node{Status: corev1.NodeStatus{Config: config}})
	if n.Status.Config == nil {
		t.Errorf("status update dropped the stored status.config")
	}
}
