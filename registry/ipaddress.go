package registry

import (
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/fakeplane/fakeplane/store"
)

// Each allocated ClusterIP is an IPAddress object named after the address,
// as kube-apiserver's IP allocator (MultiCIDRServiceAllocator, GA) records
// it: created with the Service and deleted with it. This stays in the write
// path rather than in a controller: kube-apiserver's allocator creates the
// IPAddress before a Service's create is answered and deletes it before its
// delete is, so a client finds it (or finds it gone) at once
// (TestClusterIPsAreIPAddressObjects); a controller would show it a moment
// later.

const ipAddressesBucket = "networking.k8s.io/ipaddresses"

// ipAddressFields returns the managedFields entries, without their time,
// of the IPAddress syncServiceIPAddresses creates for a ClusterIP: the same
// for every address and family, so a create need not compute them (which
// would load the merge schema of every built-in type, a millisecond or two,
// at the first start of a process, for the kubernetes Service's address).
// TestIPAddressFieldsAreWhatACreateRecords checks them against the field
// manager's.
func ipAddressFields() []metav1.ManagedFieldsEntry {
	return []metav1.ManagedFieldsEntry{{
		Manager:    serverManager,
		Operation:  metav1.ManagedFieldsOperationUpdate,
		APIVersion: "networking.k8s.io/v1",
		FieldsType: "FieldsV1",
		FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:labels":{".":{},"f:ipaddress.kubernetes.io/ip-family":{},"f:ipaddress.kubernetes.io/managed-by":{}}},` +
			`"f:spec":{"f:parentRef":{".":{},"f:name":{},"f:namespace":{},"f:resource":{}}}}`)},
	}}
}

// syncServiceIPAddresses creates or deletes the IPAddress objects of a
// committed Service.
func (s *Registry) syncServiceIPAddresses(bucket string, obj runtime.Object, data []byte, deleted bool) {
	if bucket != "/services" {
		return
	}
	svc, ok := obj.(*corev1.Service)
	if !ok {
		svc = &corev1.Service{}
		if err := json.Unmarshal(data, svc); err != nil {
			return
		}
	}
	if !deleted && svc.Spec.Type == corev1.ServiceTypeExternalName {
		// A Service turned ExternalName gives its addresses back.
		s.releaseIPAddresses(svc)
		return
	}
	for _, ip := range svc.Spec.ClusterIPs {
		if ip == "" || ip == corev1.ClusterIPNone {
			continue
		}
		if deleted {
			s.deleteIPAddress(ip, svc)
			continue
		}
		if _, err := s.store.Get(ipAddressesBucket, ip); err == nil {
			continue
		}
		family := "IPv4"
		if len(svc.Spec.IPFamilies) > 0 {
			family = string(svc.Spec.IPFamilies[0])
		}
		addr := &networkingv1.IPAddress{
			TypeMeta: metav1.TypeMeta{APIVersion: "networking.k8s.io/v1", Kind: "IPAddress"},
			ObjectMeta: metav1.ObjectMeta{Name: ip, Labels: map[string]string{
				networkingv1.LabelIPAddressFamily: family,
				networkingv1.LabelManagedBy:       "ipallocator.k8s.io",
			}},
			Spec: networkingv1.IPAddressSpec{ParentRef: &networkingv1.ParentReference{Resource: "services", Namespace: svc.Namespace, Name: svc.Name}},
		}
		b, err := json.Marshal(addr)
		if err != nil {
			continue
		}
		if err := s.createWithFields(b, serverManager, ipAddressFields()); err != nil {
			s.log.Warn("ip address", "ip", ip, "err", err)
		}
	}
}

// deleteIPAddress deletes the IPAddress of a deleted Service's ClusterIP.
func (s *Registry) deleteIPAddress(ip string, svc *corev1.Service) {
	if cur, err := s.store.Get(ipAddressesBucket, ip); err == nil {
		s.deleteIPAddressOf(ip, cur.Value, svc)
	}
}

// releaseIPAddresses deletes the IPAddresses a Service holds.
func (s *Registry) releaseIPAddresses(svc *corev1.Service) {
	lst, err := s.store.List(ipAddressesBucket, store.ListOptions{})
	if err != nil {
		return
	}
	for _, it := range lst.Items {
		s.deleteIPAddressOf(it.Key, it.Value, svc)
	}
}

// deleteIPAddressOf deletes a stored IPAddress when svc is its parent.
func (s *Registry) deleteIPAddressOf(ip string, stored []byte, svc *corev1.Service) {
	var addr networkingv1.IPAddress
	if err := json.Unmarshal(stored, &addr); err != nil || addr.Spec.ParentRef == nil ||
		addr.Spec.ParentRef.Namespace != svc.Namespace || addr.Spec.ParentRef.Name != svc.Name || addr.Spec.ParentRef.Resource != "services" {
		return
	}
	c := s.internalCall("networking.k8s.io", "v1", "ipaddresses", "", ip, "delete")
	if _, _, err := s.DeleteObject(c, ip, ip, &metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		s.log.Warn("ip address", "ip", ip, "err", err)
	}
}
