package fakeplane

import (
	"context"
	"net"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// TestAPIServerIDIsKubeAPIServers: the identity derived from a host name is
// the one kube-apiserver v1.37 derives (recorded from refplane, on host
// "vm").
func TestAPIServerIDIsKubeAPIServers(t *testing.T) {
	if got, want := apiserverID("vm"), "apiserver-wlv32tlttr4jl3gtroqexyxapa"; got != want {
		t.Fatalf("apiserverID(vm) = %s, want %s", got, want)
	}
}

// TestIdentityLeaseAsKubeAPIServer: a started control plane holds
// kube-apiserver's identity Lease in kube-system, as refplane's: named after
// the host, labelled with the identity and the host name, annotated with
// the server's address, held by the id and a UUID for 3600 s, written by
// kube-apiserver; it is renewed each period, keeping its holder.
func TestIdentityLeaseAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	cp := Start(t, WithIdentityLeaseRenewInterval(50*time.Millisecond))
	ctx := context.Background()
	leases := kubernetes.NewForConfigOrDie(cp.RESTConfig()).CoordinationV1().Leases(metav1.NamespaceSystem)
	list, err := leases.List(ctx, metav1.ListOptions{LabelSelector: "apiserver.kubernetes.io/identity=kube-apiserver"})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 {
		t.Fatalf("%d identity Leases, want 1", len(list.Items))
	}
	lease := list.Items[0]
	hostname, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(cp.URL())
	if err != nil {
		t.Fatal(err)
	}
	if lease.Name != apiserverID(hostname) || lease.Labels["kubernetes.io/hostname"] != hostname ||
		lease.Annotations["kubernetes.io/peer-advertise-address"] != u.Host {
		t.Errorf("lease %s labels %v annotations %v, want %s on %s at %s", lease.Name, lease.Labels, lease.Annotations, apiserverID(hostname), hostname, u.Host)
	}
	if h := lease.Spec.HolderIdentity; h == nil || !strings.HasPrefix(*h, lease.Name+"_") || len(*h) != len(lease.Name)+1+36 {
		t.Errorf("holderIdentity %v, want %s_<uuid>", h, lease.Name)
	}
	if d := lease.Spec.LeaseDurationSeconds; d == nil || *d != 3600 || lease.Spec.RenewTime == nil {
		t.Errorf("leaseDurationSeconds %v, renewTime %v", d, lease.Spec.RenewTime)
	}
	if mf := lease.ManagedFields; len(mf) != 1 || mf[0].Manager != "kube-apiserver" || mf[0].Operation != metav1.ManagedFieldsOperationUpdate {
		t.Errorf("managedFields %v, want kube-apiserver's Update", mf)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		cur, err := leases.Get(ctx, lease.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if cur.Spec.RenewTime.After(lease.Spec.RenewTime.Time) {
			if *cur.Spec.HolderIdentity != *lease.Spec.HolderIdentity {
				t.Errorf("renewed with holder %s, was %s", *cur.Spec.HolderIdentity, *lease.Spec.HolderIdentity)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the identity Lease was not renewed")
		}
	}
	// Deleted, it is created again at the next renewal.
	if err := leases.Delete(ctx, lease.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		cur, err := leases.Get(ctx, lease.Name, metav1.GetOptions{})
		if err == nil {
			if cur.UID == lease.UID {
				t.Fatal("the deleted Lease is still there")
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the identity Lease was not created again: %v", err)
		}
	}
}

// TestPeerAdvertiseAddressAsKubeAPIServer checks the identity Lease's
// kubernetes.io/peer-advertise-address as kube-apiserver v1.37 writes it
// (recorded on refplane): the advertise address given and the port served
// on.
func TestPeerAdvertiseAddressAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	cp := Start(t, WithAdvertiseAddress(net.ParseIP("192.0.2.10")))
	list, err := kubernetes.NewForConfigOrDie(cp.RESTConfig()).CoordinationV1().Leases(metav1.NamespaceSystem).List(context.Background(),
		metav1.ListOptions{LabelSelector: "apiserver.kubernetes.io/identity=kube-apiserver"})
	if err != nil || len(list.Items) != 1 {
		t.Fatalf("identity Leases: %v, %d", err, len(list.Items))
	}
	u, err := url.Parse(cp.URL())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := list.Items[0].Annotations["kubernetes.io/peer-advertise-address"], net.JoinHostPort("192.0.2.10", u.Port()); got != want {
		t.Errorf("peer-advertise-address %q, want %s", got, want)
	}
}
