package fakeplane_test

import (
	"context"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/client-go/kubernetes"

	"github.com/fakeplane/fakeplane"
)

// kubernetesEndpointsFields are the managedFields of the kubernetes
// Service's Endpoints and EndpointSlice, as a real v1.37 kube-apiserver
// started by envtest (its lease reconciler) wrote them.
const (
	kubernetesEndpointsFields = `{"f:metadata":{"f:labels":{".":{},"f:endpointslice.kubernetes.io/skip-mirror":{}}},"f:subsets":{}}`
	kubernetesSliceFields     = `{"f:addressType":{},"f:endpoints":{},"f:metadata":{"f:labels":{".":{},"f:kubernetes.io/service-name":{}}},"f:ports":{}}`
)

// checkKubernetesEndpoints checks that the kubernetes Service's Endpoints
// and EndpointSlice name ip and the port cp serves on, as kube-apiserver
// writes them.
func checkKubernetesEndpoints(t *testing.T, cp *fakeplane.ControlPlane, ip string) {
	t.Helper()
	ctx := context.Background()
	client := kubernetes.NewForConfigOrDie(cp.RESTConfig())
	port, err := strconv.Atoi(cp.URL()[strings.LastIndex(cp.URL(), ":")+1:])
	if err != nil {
		t.Fatal(err)
	}
	ep, err := client.CoreV1().Endpoints("default").Get(ctx, "kubernetes", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("kubernetes Endpoints: %v", err)
	}
	want := []corev1.EndpointSubset{{Addresses: []corev1.EndpointAddress{{IP: ip}}, Ports: []corev1.EndpointPort{{Name: "https", Port: int32(port), Protocol: corev1.ProtocolTCP}}}}
	if got := toJSON(ep.Subsets); got != toJSON(want) || ep.Labels["endpointslice.kubernetes.io/skip-mirror"] != "true" {
		t.Errorf("Endpoints subsets %s labels %v, want %s and skip-mirror", got, ep.Labels, toJSON(want))
	}
	checkManagedBy(t, ep.ManagedFields, "v1", kubernetesEndpointsFields)
	slice, err := client.DiscoveryV1().EndpointSlices("default").Get(ctx, "kubernetes", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("kubernetes EndpointSlice: %v", err)
	}
	if slice.AddressType != discoveryv1.AddressTypeIPv4 || len(slice.Endpoints) != 1 || strings.Join(slice.Endpoints[0].Addresses, ",") != ip ||
		slice.Endpoints[0].Conditions.Ready == nil || !*slice.Endpoints[0].Conditions.Ready ||
		len(slice.Ports) != 1 || *slice.Ports[0].Name != "https" || *slice.Ports[0].Port != int32(port) || slice.Labels[discoveryv1.LabelServiceName] != "kubernetes" {
		t.Errorf("EndpointSlice %s, want %s:%d ready, labelled for the kubernetes Service", toJSON(slice), ip, port)
	}
	checkManagedBy(t, slice.ManagedFields, "discovery.k8s.io/v1", kubernetesSliceFields)
}

// checkManagedBy checks that kube-apiserver alone manages fields.
func checkManagedBy(t *testing.T, mf []metav1.ManagedFieldsEntry, apiVersion, fields string) {
	t.Helper()
	if len(mf) != 1 || mf[0].Manager != "kube-apiserver" || mf[0].Operation != metav1.ManagedFieldsOperationUpdate || mf[0].APIVersion != apiVersion || string(mf[0].FieldsV1.Raw) != fields {
		t.Errorf("managedFields %s, want kube-apiserver's Update of %s", toJSON(mf), fields)
	}
}

// TestKubernetesServiceEndpoints checks kube-apiserver's endpoint
// reconciler: the kubernetes Service's Endpoints and EndpointSlice name
// the advertise address (by default the host's, as kube-apiserver picks it
// when it listens on loopback) and the secure port, and come back when
// deleted.
func TestKubernetesServiceEndpoints(t *testing.T) {
	t.Parallel()
	t.Run("the host's default address", func(t *testing.T) {
		t.Parallel()
		host, err := utilnet.ResolveBindAddressWithLogger(logr.Discard(), net.ParseIP("127.0.0.1"))
		if err != nil || host.IsLoopback() || host.To4() == nil {
			t.Skipf("this host has no IPv4 default route (%v, %v): kube-apiserver would not start with its default advertise address", host, err)
		}
		checkKubernetesEndpoints(t, fakeplane.Start(t), host.String())
	})
	t.Run("an advertise address, reconciled", func(t *testing.T) {
		t.Parallel()
		cp := fakeplane.Start(t, fakeplane.WithAdvertiseAddress(net.ParseIP("192.0.2.10")), fakeplane.WithKubernetesEndpointsInterval(20*time.Millisecond))
		checkKubernetesEndpoints(t, cp, "192.0.2.10")
		client := kubernetes.NewForConfigOrDie(cp.RESTConfig())
		ctx := context.Background()
		if err := client.CoreV1().Endpoints("default").Delete(ctx, "kubernetes", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := client.DiscoveryV1().EndpointSlices("default").Delete(ctx, "kubernetes", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(time.Minute) // a hang guard
		for {
			_, err1 := client.CoreV1().Endpoints("default").Get(ctx, "kubernetes", metav1.GetOptions{})
			_, err2 := client.DiscoveryV1().EndpointSlices("default").Get(ctx, "kubernetes", metav1.GetOptions{})
			if err1 == nil && err2 == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("not written again: %v, %v", err1, err2)
			}
			time.Sleep(10 * time.Millisecond)
		}
		checkKubernetesEndpoints(t, cp, "192.0.2.10")
	})
	for _, tc := range []struct {
		name string
		opts []fakeplane.Option
	}{
		{"the none reconciler", []fakeplane.Option{fakeplane.WithEndpointReconcilerType(fakeplane.EndpointReconcilerNone)}},
		{"a loopback advertise address", []fakeplane.Option{fakeplane.WithAdvertiseAddress(net.ParseIP("127.0.0.1"))}},
	} {
		t.Run(tc.name+" writes none", func(t *testing.T) {
			t.Parallel()
			cp := fakeplane.Start(t, tc.opts...)
			client := kubernetes.NewForConfigOrDie(cp.RESTConfig())
			if _, err := client.CoreV1().Endpoints("default").Get(context.Background(), "kubernetes", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				t.Errorf("kubernetes Endpoints: %v, want 404", err)
			}
			if _, err := client.DiscoveryV1().EndpointSlices("default").Get(context.Background(), "kubernetes", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				t.Errorf("kubernetes EndpointSlice: %v, want 404", err)
			}
		})
	}
	t.Run("kube-apiserver's errors", func(t *testing.T) {
		for _, tc := range []struct {
			opt  fakeplane.Option
			want string
		}{
			{fakeplane.WithEndpointReconcilerType("foo"), "fakeplane: Reconciler not implemented: foo"},
			{fakeplane.WithAdvertiseAddress(net.ParseIP("2001:db8::1")), `fakeplane: service IP family "10.0.0.0/24" must match public address family "2001:db8::1"`},
		} {
			if _, err := fakeplane.New(tc.opt); err == nil || err.Error() != tc.want {
				t.Errorf("New: %v, want %q", err, tc.want)
			}
		}
	})
}
