package service

import (
	"context"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane/internal/validate/validatetest"
)

func TestServiceWarnings(t *testing.T) {
	port := []corev1.ServicePort{{Port: 80}}
	for _, tc := range []struct {
		name string
		svc  *corev1.Service
		want []string
	}{
		{name: "plain ClusterIP service warns of nothing", svc: &corev1.Service{Spec: corev1.ServiceSpec{Ports: port, ClusterIP: "10.0.0.1", ClusterIPs: []string{"10.0.0.1"}}}},
		{name: "deprecated topology annotation", svc: &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"service.kubernetes.io/topology-aware-hints": "auto"}},
			Spec:       corev1.ServiceSpec{Ports: port}},
			want: []string{"annotation service.kubernetes.io/topology-aware-hints is deprecated, please use service.kubernetes.io/topology-mode instead"}},
		{name: "non-canonical IPv6 cluster IP", svc: &corev1.Service{Spec: corev1.ServiceSpec{Ports: port,
			ClusterIP: "2001:db8:0::1", ClusterIPs: []string{"2001:db8:0::1"}}},
			want: []string{`spec.clusterIPs[0]: IPv6 address "2001:db8:0::1" should be in RFC 5952 canonical format ("2001:db8::1")`}},
		{name: "headless service with ignored fields", svc: &corev1.Service{Spec: corev1.ServiceSpec{Ports: port,
			ClusterIP: "None", ClusterIPs: []string{"None"}, LoadBalancerIP: "10.1.1.1", ExternalIPs: []string{"10.2.2.2"}, SessionAffinity: corev1.ServiceAffinityClientIP}},
			want: []string{
				"spec.loadBalancerIP is ignored for headless services",
				"spec.externalIPs is ignored for headless services",
				"spec.SessionAffinity is ignored for headless services",
			}},
		{name: "non-standard external IPs (which only a stored service can keep) and their deprecation", svc: &corev1.Service{Spec: corev1.ServiceSpec{Ports: port, ExternalIPs: []string{"010.0.0.1", "::ffff:1.2.3.4"}}},
			want: []string{
				`spec.externalIPs[0]: non-standard IP address "010.0.0.1" is invalid: use "10.0.0.1"`,
				`spec.externalIPs[1]: non-standard IP address "::ffff:1.2.3.4" is invalid: use "1.2.3.4"`,
				"spec.externalIPs is deprecated and may no longer be implemented in some clusters",
			}},
		{name: "load balancer IP and source ranges", svc: &corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Ports: port,
			LoadBalancerIP: "2001:DB8::1", LoadBalancerSourceRanges: []string{"10.0.0.1/8", "192.168.0.0/16", "2001:db8:0::/64"}}},
			want: []string{
				`spec.loadBalancerIP: IPv6 address "2001:DB8::1" should be in RFC 5952 canonical format ("2001:db8::1")`,
				`spec.loadBalancerSourceRanges[0]: CIDR value "10.0.0.1/8" is ambiguous in this context (should be "10.0.0.0/8" or "10.0.0.1/32"?)`,
				`spec.loadBalancerSourceRanges[2]: IPv6 CIDR value "2001:db8:0::/64" should be in RFC 5952 canonical format ("2001:db8::/64")`,
			}},
		{name: "ExternalName service with external IPs", svc: &corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "x.example", ExternalIPs: []string{"10.0.0.1"}}},
			want: []string{`spec.externalIPs is ignored when spec.type is "ExternalName"`}},
		{name: "externalName on a ClusterIP service", svc: &corev1.Service{Spec: corev1.ServiceSpec{Ports: port, ExternalName: "x.example"}},
			want: []string{`spec.externalName is ignored when spec.type is not "ExternalName"`}},
		{name: "PreferClose traffic distribution", svc: &corev1.Service{Spec: corev1.ServiceSpec{Ports: port, TrafficDistribution: ptr.To(corev1.ServiceTrafficDistributionPreferClose)}},
			want: []string{`spec.trafficDistribution: "PreferClose" is deprecated; use "PreferSameZone"`}},
		{name: "PreferSameZone traffic distribution", svc: &corev1.Service{Spec: corev1.ServiceSpec{Ports: port, TrafficDistribution: ptr.To(corev1.ServiceTrafficDistributionPreferSameZone)}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			Strategy.Default(tc.svc)
			if got := Strategy.WarningsOnCreate(context.Background(), tc.svc); !slices.Equal(got, tc.want) {
				t.Errorf("create warnings:\n got %q\nwant %q", got, tc.want)
			}
			// An update warns of the same, whatever the stored service.
			if got := Strategy.WarningsOnUpdate(context.Background(), tc.svc, tc.svc.DeepCopy()); !slices.Equal(got, tc.want) {
				t.Errorf("update warnings:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestServiceStatusValidationAndWarnings(t *testing.T) {
	vip := ptr.To(corev1.LoadBalancerIPModeVIP)
	for _, tc := range []struct {
		name         string
		typ          corev1.ServiceType
		ingress, old []corev1.LoadBalancerIngress
		wantErrs     []string
		wantWarnings []string
	}{
		{name: "standard IPs and hostnames warn of nothing", ingress: []corev1.LoadBalancerIngress{{IP: "10.0.0.1", IPMode: vip}, {Hostname: "lb.example"}, {IP: "2001:db8::1", IPMode: vip}}},
		{name: "non-canonical IPv6 IP is warned about under the ingress point's path", ingress: []corev1.LoadBalancerIngress{{Hostname: "lb.example"}, {IP: "2001:db8:0::1", IPMode: vip}},
			wantWarnings: []string{`status.loadBalancer.ingress[1]: IPv6 address "2001:db8:0::1" should be in RFC 5952 canonical format ("2001:db8::1")`}},
		{name: "new IP with leading zeros is invalid (strict validation)", ingress: []corev1.LoadBalancerIngress{{IP: "010.0.0.1", IPMode: vip}},
			wantErrs: []string{`status.loadBalancer.ingress[0].ip: Invalid value: "010.0.0.1": must not have leading 0s`}},
		{name: "stored IP with leading zeros stays and is warned about", old: []corev1.LoadBalancerIngress{{IP: "010.0.0.1", IPMode: vip}},
			ingress:      []corev1.LoadBalancerIngress{{Hostname: "lb.example"}, {IP: "010.0.0.1", IPMode: vip}},
			wantWarnings: []string{`status.loadBalancer.ingress[1]: non-standard IP address "010.0.0.1" is invalid: use "10.0.0.1"`}},
		{name: "ingress points of a ClusterIP service", typ: corev1.ServiceTypeClusterIP, ingress: []corev1.LoadBalancerIngress{{IP: "10.0.0.1", IPMode: vip}},
			wantErrs: []string{"status.loadBalancer.ingress: Forbidden: may only be used when `spec.type` is 'LoadBalancer'"}},
		{name: "ipMode and hostname rules", ingress: []corev1.LoadBalancerIngress{
			{IP: "10.0.0.1"}, {Hostname: "lb.example", IPMode: vip}, {IP: "10.0.0.2", IPMode: ptr.To(corev1.LoadBalancerIPMode("Other"))}, {Hostname: "10.0.0.3"}},
			wantErrs: []string{
				"status.loadBalancer.ingress[0].ipMode: Required value: must be specified when `ip` is set",
				"status.loadBalancer.ingress[1].ipMode: Forbidden: may not be specified when `ip` is not set",
				`status.loadBalancer.ingress[2].ipMode: Unsupported value: "Other": supported values: "Proxy", "VIP"`,
				`status.loadBalancer.ingress[3].hostname: Invalid value: "10.0.0.3": must be a DNS name, not an IP address`,
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			typ := tc.typ
			if typ == "" {
				typ = corev1.ServiceTypeLoadBalancer
			}
			svc := &corev1.Service{Spec: corev1.ServiceSpec{Type: typ, Ports: []corev1.ServicePort{{Port: 80}}}}
			old := svc.DeepCopy()
			svc.Status.LoadBalancer.Ingress = tc.ingress
			old.Status.LoadBalancer.Ingress = tc.old
			validatetest.ExpectErrors(t, Strategy.ValidateStatusUpdate(context.Background(), svc, old), tc.wantErrs)
			if len(tc.wantErrs) > 0 {
				return // warnings go with valid writes only
			}
			if got := Strategy.WarningsOnStatusUpdate(context.Background(), svc, old); !slices.Equal(got, tc.wantWarnings) {
				t.Errorf("status warnings:\n got %q\nwant %q", got, tc.wantWarnings)
			}
			// A write to the service itself does not look at the status.
			if got := Strategy.WarningsOnUpdate(context.Background(), svc, old); len(got) != 0 {
				t.Errorf("update warnings: %q", got)
			}
		})
	}
}
