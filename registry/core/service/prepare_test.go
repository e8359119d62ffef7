package service

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestPrepareForUpdateDropsTypeDependentFields(t *testing.T) {
	local := corev1.ServiceInternalTrafficPolicyCluster
	old := &corev1.Service{Spec: corev1.ServiceSpec{
		Type: corev1.ServiceTypeNodePort, ClusterIP: "10.0.0.1", ClusterIPs: []string{"10.0.0.1"},
		IPFamilies: []corev1.IPFamily{corev1.IPv4Protocol}, InternalTrafficPolicy: &local,
		Ports:                 []corev1.ServicePort{{Port: 80, NodePort: 30080}},
		ExternalTrafficPolicy: corev1.ServiceExternalTrafficPolicyCluster,
	}}
	// To ExternalName, with the old type's fields left as they were.
	svc := old.DeepCopy()
	svc.Spec.Type = corev1.ServiceTypeExternalName
	svc.Spec.ExternalName = "example.com"
	Strategy.PrepareForUpdate(context.Background(), svc, old)
	if svc.Spec.ClusterIP != "" || svc.Spec.ClusterIPs != nil || svc.Spec.IPFamilies != nil || svc.Spec.InternalTrafficPolicy != nil {
		t.Errorf("cluster IP fields kept: %+v", svc.Spec)
	}
	if svc.Spec.Ports[0].NodePort != 0 || svc.Spec.ExternalTrafficPolicy != "" {
		t.Errorf("node port fields kept: %+v", svc.Spec)
	}

	// To ClusterIP with a node port the client changed: it stays.
	svc = old.DeepCopy()
	svc.Spec.Type = corev1.ServiceTypeClusterIP
	svc.Spec.Ports[0].NodePort = 30081
	Strategy.PrepareForUpdate(context.Background(), svc, old)
	if svc.Spec.Ports[0].NodePort != 30081 || svc.Spec.ClusterIP != "10.0.0.1" {
		t.Errorf("fields the client set were dropped: %+v", svc.Spec)
	}

	// The same type: nothing changes but a load balancer status.
	svc = old.DeepCopy()
	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "1.2.3.4"}}
	Strategy.PrepareForUpdate(context.Background(), svc, old)
	if svc.Spec.Ports[0].NodePort != 30080 || svc.Spec.ClusterIP != "10.0.0.1" || svc.Status.LoadBalancer.Ingress != nil {
		t.Errorf("same type: %+v", svc)
	}
}
