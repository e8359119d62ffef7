package service

import (
	"context"
	"github.com/fakeplane/fakeplane/internal/validate/validatetest"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

func TestServiceStrategy(t *testing.T) {
	port := []corev1.ServicePort{{Port: 80}}
	for _, tc := range []struct {
		name     string
		svc, old *corev1.Service
		want     []string
	}{
		{name: "defaulted ClusterIP", svc: &corev1.Service{Spec: corev1.ServiceSpec{Ports: port}}},
		{name: "no ports", svc: &corev1.Service{}, want: []string{"spec.ports: Required value"}},
		{name: "ExternalName with IP families", svc: &corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "x.example", IPFamilies: []corev1.IPFamily{"IPv4"}}},
			want: []string{"spec.ipFamilies: Forbidden: may not be set for ExternalName services"}},
		{name: "duplicate ports", svc: &corev1.Service{Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "a", Port: 80}, {Name: "b", Port: 80}}}},
			want: []string{`spec.ports[1]: Duplicate value: {"Name":"","Protocol":"TCP","AppProtocol":null,"Port":80,"TargetPort":0,"NodePort":0}`}},
		{name: "ClusterIP changed", old: &corev1.Service{Spec: corev1.ServiceSpec{Ports: port, ClusterIP: "10.0.0.1", ClusterIPs: []string{"10.0.0.1"}}},
			svc:  &corev1.Service{Spec: corev1.ServiceSpec{Ports: port, ClusterIP: "10.0.0.2", ClusterIPs: []string{"10.0.0.2"}}},
			want: []string{`spec.clusterIPs[0]: Invalid value: ["10.0.0.2"]: may not change once set`}},
		{name: "external IP with leading zeros (strict validation)", svc: &corev1.Service{Spec: corev1.ServiceSpec{Ports: port, ExternalIPs: []string{"010.0.0.1"}}},
			want: []string{`spec.externalIPs[0]: Invalid value: "010.0.0.1": must not have leading 0s`}},
		{name: "stored external IP with leading zeros may stay", old: &corev1.Service{Spec: corev1.ServiceSpec{Ports: port, ExternalIPs: []string{"010.0.0.1"}}},
			svc: &corev1.Service{Spec: corev1.ServiceSpec{Ports: port, ExternalIPs: []string{"010.0.0.1"}}}},
		{name: "IPv4-mapped cluster IP (strict validation)", svc: &corev1.Service{Spec: corev1.ServiceSpec{Ports: port, ClusterIP: "::ffff:10.0.0.1", ClusterIPs: []string{"::ffff:10.0.0.1"}}},
			want: []string{`spec.clusterIPs[0]: Invalid value: "::ffff:10.0.0.1": must not be an IPv4-mapped IPv6 address`}},
		{name: "source range with host bits (strict validation)", svc: &corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Ports: port, LoadBalancerSourceRanges: []string{"10.0.0.1/8"}}},
			want: []string{`spec.LoadBalancerSourceRanges[0]: Invalid value: "10.0.0.1/8": must not have bits set beyond the prefix length`}},
		{name: "LoadBalancer class changed", old: &corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Ports: port, LoadBalancerClass: ptr.To("a.io/x")}},
			svc:  &corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Ports: port, LoadBalancerClass: ptr.To("a.io/y")}},
			want: []string{`spec.loadBalancerClass: Invalid value: "a.io/y": may not change once set`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			Strategy.Default(tc.svc)
			errs := Strategy.Validate(context.Background(), tc.svc)
			if tc.old != nil {
				Strategy.Default(tc.old)
				errs = Strategy.ValidateUpdate(context.Background(), tc.svc, tc.old)
			}
			validatetest.ExpectErrors(t, errs, tc.want)
		})
	}
}

func TestServiceDefaults(t *testing.T) {
	svc := &corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Ports: []corev1.ServicePort{{Port: 80}}}}
	Strategy.Default(svc)
	s := svc.Spec
	if s.SessionAffinity != corev1.ServiceAffinityNone || s.Ports[0].Protocol != corev1.ProtocolTCP || s.Ports[0].TargetPort.IntValue() != 80 ||
		s.ExternalTrafficPolicy != corev1.ServiceExternalTrafficPolicyCluster || *s.InternalTrafficPolicy != corev1.ServiceInternalTrafficPolicyCluster ||
		!*s.AllocateLoadBalancerNodePorts {
		t.Errorf("defaults: %+v", s)
	}
	if !ExternallyAccessible(svc) || NeedsHealthCheck(svc) {
		t.Errorf("a Cluster-policy LoadBalancer: accessible %v, health check %v", ExternallyAccessible(svc), NeedsHealthCheck(svc))
	}
}
