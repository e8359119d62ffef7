package controllers

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

func endpointTestPod(name, ip string, ready bool) *corev1.Pod {
	st := corev1.ConditionFalse
	if ready {
		st = corev1.ConditionTrue
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID("uid-" + name)},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Ports: []corev1.ContainerPort{
			{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP},
			{Name: "dns", ContainerPort: 53, Protocol: corev1.ProtocolUDP},
		}}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: ip, PodIPs: []corev1.PodIP{{IP: ip}},
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: st}}},
	}
}

func TestEndpointPortsResolveTargetPorts(t *testing.T) {
	svc := &corev1.Service{Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{
		{Name: "web", Port: 80, TargetPort: intstr.FromString("http"), Protocol: corev1.ProtocolTCP},
		{Name: "num", Port: 81, TargetPort: intstr.FromInt32(9090), Protocol: corev1.ProtocolTCP},
		{Name: "wrong-protocol", Port: 82, TargetPort: intstr.FromString("dns"), Protocol: corev1.ProtocolTCP},
		{Name: "missing", Port: 83, TargetPort: intstr.FromString("nope"), Protocol: corev1.ProtocolTCP},
	}}}
	got := endpointSlicePorts(svc, endpointTestPod("a", "10.244.0.1", true))
	if len(got) != 2 || *got[0].Name != "web" || *got[0].Port != 8080 || *got[1].Name != "num" || *got[1].Port != 9090 {
		t.Errorf("ports %+v, want web:8080 and num:9090", got)
	}
}

func TestEndpointSubsetsPackReadyAndNotReady(t *testing.T) {
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "ns"},
		Spec: corev1.ServiceSpec{ClusterIP: "10.96.0.10", Selector: map[string]string{"a": "b"}, Ports: []corev1.ServicePort{
			{Name: "web", Port: 80, TargetPort: intstr.FromString("http"), Protocol: corev1.ProtocolTCP},
			{Name: "alt", Port: 81, TargetPort: intstr.FromInt32(8081), Protocol: corev1.ProtocolTCP},
		}},
	}
	pods := []*corev1.Pod{
		endpointTestPod("b", "10.244.0.2", true),
		endpointTestPod("a", "10.244.0.1", true),
		endpointTestPod("c", "10.244.0.3", false),
		{ObjectMeta: metav1.ObjectMeta{Name: "no-ip"}, Status: corev1.PodStatus{Phase: corev1.PodPending}},
	}
	subsets := endpointSubsets(svc, pods)
	if len(subsets) != 1 {
		t.Fatalf("subsets %+v, want one (all pods offer both ports)", subsets)
	}
	s := subsets[0]
	if len(s.Ports) != 2 || len(s.Addresses) != 2 || s.Addresses[0].IP != "10.244.0.1" || s.Addresses[1].IP != "10.244.0.2" ||
		len(s.NotReadyAddresses) != 1 || s.NotReadyAddresses[0].TargetRef.Name != "c" {
		t.Errorf("subset %+v", s)
	}
	if s.Addresses[0].NodeName == nil || *s.Addresses[0].NodeName != "" {
		t.Errorf("nodeName %v, want a pointer to the pod's (empty) node name", s.Addresses[0].NodeName)
	}
	// Pods that offer different ports land in different subsets.
	other := endpointTestPod("d", "10.244.0.4", true)
	other.Spec.Containers[0].Ports = nil
	if subsets := endpointSubsets(svc, append(pods, other)); len(subsets) != 2 {
		t.Errorf("subsets %+v, want two", subsets)
	}
}

func TestEndpointRepackNotReadyWins(t *testing.T) {
	addr := corev1.EndpointAddress{IP: "10.0.0.1", TargetRef: &corev1.ObjectReference{UID: "u"}}
	port := corev1.EndpointPort{Name: "p", Port: 80}
	out := endpointRepack([]corev1.EndpointSubset{
		{Addresses: []corev1.EndpointAddress{addr}, Ports: []corev1.EndpointPort{port}},
		{NotReadyAddresses: []corev1.EndpointAddress{addr}, Ports: []corev1.EndpointPort{port}},
	})
	if len(out) != 1 || len(out[0].Addresses) != 0 || len(out[0].NotReadyAddresses) != 1 {
		t.Errorf("repacked %+v, want the address not ready", out)
	}
}

func TestEndpointSliceEndpointConditions(t *testing.T) {
	c := NewEndpointSlice(nil, nil)
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "ns"}}
	terminating := endpointTestPod("t", "10.244.0.9", true)
	terminating.DeletionTimestamp = ptr.To(metav1.Now())
	tests := []struct {
		name                          string
		pod                           *corev1.Pod
		publishNotReady               bool
		ready, serving, isTerminating bool
	}{
		{"ready", endpointTestPod("a", "10.244.0.1", true), false, true, true, false},
		{"not ready", endpointTestPod("b", "10.244.0.2", false), false, false, false, false},
		{"terminating", terminating, false, false, true, true},
		{"not ready, published", endpointTestPod("b", "10.244.0.2", false), true, true, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			svc.Spec.PublishNotReadyAddresses = tc.publishNotReady
			ep := c.podEndpoint(tc.pod, svc, discoveryv1.AddressTypeIPv4)
			if *ep.Conditions.Ready != tc.ready || *ep.Conditions.Serving != tc.serving || *ep.Conditions.Terminating != tc.isTerminating {
				t.Errorf("conditions %+v", ep.Conditions)
			}
			if len(ep.Addresses) != 1 || ep.TargetRef.Name != tc.pod.Name || ep.NodeName != nil {
				t.Errorf("endpoint %+v", ep)
			}
		})
	}
	if ep := c.podEndpoint(endpointTestPod("a", "10.244.0.1", true), svc, discoveryv1.AddressTypeIPv6); len(ep.Addresses) != 0 {
		t.Errorf("IPv6 addresses of an IPv4 pod: %v", ep.Addresses)
	}
}

func TestEndpointSliceLabels(t *testing.T) {
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "s", Labels: map[string]string{"app": "x", discoveryv1.LabelManagedBy: "me"}},
		Spec: corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone}}
	got := endpointSliceLabels(nil, svc)
	want := map[string]string{"app": "x", discoveryv1.LabelServiceName: "s", discoveryv1.LabelManagedBy: endpointSliceControllerName, corev1.IsHeadlessService: ""}
	if len(got) != len(want) {
		t.Fatalf("labels %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("label %s = %q, want %q", k, got[k], v)
		}
	}
}

func TestEndpointTruncate(t *testing.T) {
	addrs := func(n int) []corev1.EndpointAddress {
		out := make([]corev1.EndpointAddress, n)
		for i := range out {
			out[i].IP = "10.0.0.1"
		}
		return out
	}
	tests := []struct {
		name                    string
		subsets                 []corev1.EndpointSubset
		cut                     bool
		wantReady, wantNotReady []int
	}{
		{"within capacity", []corev1.EndpointSubset{{Addresses: addrs(600), NotReadyAddresses: addrs(400)}}, false, []int{600}, []int{400}},
		{"not ready cut first", []corev1.EndpointSubset{{Addresses: addrs(900), NotReadyAddresses: addrs(300)}}, true, []int{900}, []int{100}},
		{"ready cut in proportion", []corev1.EndpointSubset{{Addresses: addrs(1500), NotReadyAddresses: addrs(10)}, {Addresses: addrs(500)}}, true, []int{750, 250}, []int{0, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ep := &corev1.Endpoints{Subsets: tc.subsets}
			if got := endpointTruncate(ep); got != tc.cut {
				t.Fatalf("cut = %v, want %v", got, tc.cut)
			}
			for i, s := range ep.Subsets {
				if len(s.Addresses) != tc.wantReady[i] || len(s.NotReadyAddresses) != tc.wantNotReady[i] {
					t.Errorf("subset %d: %d ready, %d not ready; want %d, %d", i, len(s.Addresses), len(s.NotReadyAddresses), tc.wantReady[i], tc.wantNotReady[i])
				}
			}
		})
	}
}
