package fakeplane

// kube-apiserver's endpoint reconciler (--endpoint-reconciler-type lease,
// its default): the default/kubernetes Endpoints and EndpointSlice name the
// server's advertise address and secure port, written as it starts and
// every 10 s after, when they differ.

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane/registry"
)

// The endpoint reconciler types of kube-apiserver's
// --endpoint-reconciler-type.
const (
	// EndpointReconcilerLease keeps the kubernetes Service's endpoints
	// (the default).
	EndpointReconcilerLease = "lease"
	// EndpointReconcilerMasterCount is kube-apiserver's older
	// reconciler; with one server it keeps them as lease does.
	EndpointReconcilerMasterCount = "master-count"
	// EndpointReconcilerNone leaves them alone.
	EndpointReconcilerNone = "none"
)

// kubernetesEndpointsInterval is how often kube-apiserver's kubernetes
// Service controller reconciles the endpoints (its EndpointInterval).
const kubernetesEndpointsInterval = 10 * time.Second

// skipMirrorLabel keeps the EndpointSlice mirroring controller off the
// kubernetes Endpoints, whose slice the reconciler writes itself.
const skipMirrorLabel = "endpointslice.kubernetes.io/skip-mirror"

var (
	endpointsGVR      = schema.GroupVersionResource{Version: "v1", Resource: "endpoints"}
	endpointSlicesGVR = schema.GroupVersionResource{Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices"}
)

// validateEndpointReconcilerType checks --endpoint-reconciler-type as
// kube-apiserver does.
func validateEndpointReconcilerType(t string) error {
	switch t {
	case "", EndpointReconcilerLease, EndpointReconcilerMasterCount, EndpointReconcilerNone:
		return nil
	}
	return fmt.Errorf("Reconciler not implemented: %v", t) //nolint:staticcheck // kube-apiserver's message
}

// kubernetesServiceKey is the kubernetes Service's key in the
// precomputed bootstrap managedFields.
const kubernetesServiceKey = "v1/Service/default/kubernetes"

// checkKubernetesServiceNodePort checks --kubernetes-service-node-port
// against 0-65535 and the node port range (zero: kube-apiserver's
// default), with kube-apiserver's errors, both when both fail.
func checkKubernetesServiceNodePort(port int, nodePorts utilnet.PortRange) error {
	if nodePorts.Size == 0 {
		nodePorts = registry.DefaultServiceNodePortRange()
	}
	var errs []error
	if port < 0 || port > 65535 {
		errs = append(errs, fmt.Errorf("--kubernetes-service-node-port %v must be between 0 and 65535, inclusive. If 0, the Kubernetes master service will be of type ClusterIP", port))
	}
	if port > 0 && !nodePorts.Contains(port) {
		errs = append(errs, fmt.Errorf("kubernetes service node port range %v doesn't contain %v", nodePorts.String(), port))
	}
	return utilerrors.NewAggregate(errs)
}

// advertiseAddress is the address the control plane advertises: the one
// given, or, as kube-apiserver picks its default, the host's default
// address when it listens on a loopback or unspecified address. It is nil
// when the host has none (no default route) or the address is loopback,
// which kube-apiserver's reconciler cannot write (Endpoints refuse it).
// An IPv6 address is left out as well: the service range is IPv4, and
// kube-apiserver refuses to start with an advertise address of another
// family (New refuses one given).
func advertiseAddress(given, listen net.IP) net.IP {
	ip := given
	if ip == nil || ip.IsUnspecified() {
		var err error
		if ip, err = utilnet.ResolveBindAddressWithLogger(logr.Discard(), listen); err != nil {
			return nil
		}
	}
	if ip.IsLoopback() || ip.To4() == nil {
		return nil
	}
	return ip
}

// externalAddress is the host:port the control plane names itself by, as
// kube-apiserver's ExternalAddress: the external hostname, else the
// advertise address given, else, for an unspecified address listened on,
// the host's default address (as kube-apiserver's default advertise
// address), else the address listened on. (kube-apiserver also takes the
// host's default address for a loopback one, where a client of a server
// listening on loopback cannot reach it.)
func externalAddress(hostname string, given net.IP, listen *net.TCPAddr) string {
	port := strconv.Itoa(listen.Port)
	switch {
	case hostname != "":
		return net.JoinHostPort(hostname, port)
	case given != nil && !given.IsUnspecified():
		return net.JoinHostPort(given.String(), port)
	case listen.IP.IsUnspecified():
		if ip, err := utilnet.ResolveBindAddressWithLogger(logr.Discard(), listen.IP); err == nil {
			return net.JoinHostPort(ip.String(), port)
		}
	}
	return net.JoinHostPort(hostFor(listen.IP), port)
}

// peerAddress is the address the identity Lease gives peers
// (kubernetes.io/peer-advertise-address), as kube-apiserver v1.37's: the
// advertise address and the port served on (the address chosen as
// externalAddress chooses it without a hostname). Its getPeerAddress would
// take --peer-advertise-ip and --peer-advertise-port first, but v1.37 does
// not hand them to it (recorded on refplane: the annotation stays the
// advertise address with both flags given).
func peerAddress(advertise net.IP, listen *net.TCPAddr) string {
	return externalAddress("", advertise, listen)
}

// kubernetesEndpoints writes the kubernetes Service's Endpoints and
// EndpointSlice as kube-apiserver's lease reconciler does for one server.
type kubernetesEndpoints struct {
	reg  registry.Interface
	ip   net.IP
	port int32
	log  *slog.Logger
	periodic
}

// wantEndpoints is the Endpoints the reconciler writes.
func (k *kubernetesEndpoints) wantEndpoints() *corev1.Endpoints {
	return &corev1.Endpoints{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Endpoints"},
		ObjectMeta: metav1.ObjectMeta{Name: "kubernetes", Namespace: metav1.NamespaceDefault,
			Labels: map[string]string{skipMirrorLabel: "true"}},
		Subsets: []corev1.EndpointSubset{{
			Addresses: []corev1.EndpointAddress{{IP: k.ip.String()}},
			Ports:     []corev1.EndpointPort{{Name: "https", Port: k.port, Protocol: corev1.ProtocolTCP}},
		}},
	}
}

// wantSlice is the EndpointSlice the reconciler writes.
func (k *kubernetesEndpoints) wantSlice() *discoveryv1.EndpointSlice {
	addressType := discoveryv1.AddressTypeIPv4
	if k.ip.To4() == nil {
		addressType = discoveryv1.AddressTypeIPv6
	}
	return &discoveryv1.EndpointSlice{
		TypeMeta: metav1.TypeMeta{APIVersion: "discovery.k8s.io/v1", Kind: "EndpointSlice"},
		ObjectMeta: metav1.ObjectMeta{Name: "kubernetes", Namespace: metav1.NamespaceDefault,
			Labels: map[string]string{discoveryv1.LabelServiceName: "kubernetes"}},
		AddressType: addressType,
		Endpoints: []discoveryv1.Endpoint{{Addresses: []string{k.ip.String()},
			Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}}},
		Ports: []discoveryv1.EndpointPort{{Name: ptr.To("https"), Port: ptr.To(k.port), Protocol: ptr.To(corev1.ProtocolTCP)}},
	}
}

// ensure writes the Endpoints, then the EndpointSlice, where they are
// missing or name other addresses or ports.
func (k *kubernetesEndpoints) ensure(ctx context.Context) error {
	ctx = asKubeAPIServer(ctx)
	ep := k.wantEndpoints()
	if err := k.write(ctx, endpointsGVR, ep, func(cur runtime.Object) bool {
		c, ok := cur.(*corev1.Endpoints)
		return ok && c.Labels[skipMirrorLabel] == "true" && equality.Semantic.DeepEqual(c.Subsets, ep.Subsets)
	}, func(cur runtime.Object) (runtime.Object, error) {
		c := cur.(*corev1.Endpoints)
		if c.Labels == nil {
			c.Labels = map[string]string{}
		}
		c.Labels[skipMirrorLabel] = "true"
		c.Subsets = ep.Subsets
		return c, nil
	}); err != nil {
		return fmt.Errorf("kubernetes Endpoints: %w", err)
	}
	slice := k.wantSlice()
	if err := k.write(ctx, endpointSlicesGVR, slice, func(cur runtime.Object) bool {
		c, ok := cur.(*discoveryv1.EndpointSlice)
		return ok && c.AddressType == slice.AddressType && c.Labels[discoveryv1.LabelServiceName] == "kubernetes" &&
			equality.Semantic.DeepEqual(c.Endpoints, slice.Endpoints) && equality.Semantic.DeepEqual(c.Ports, slice.Ports)
	}, func(cur runtime.Object) (runtime.Object, error) {
		c := cur.(*discoveryv1.EndpointSlice)
		if c.Labels == nil {
			c.Labels = map[string]string{}
		}
		c.Labels[discoveryv1.LabelServiceName] = "kubernetes"
		c.AddressType, c.Endpoints, c.Ports = slice.AddressType, slice.Endpoints, slice.Ports
		return c, nil
	}); err != nil {
		return fmt.Errorf("kubernetes EndpointSlice: %w", err)
	}
	return nil
}

// write creates want, or updates the object there with update unless ok
// says it is as wanted.
func (k *kubernetesEndpoints) write(ctx context.Context, gvr schema.GroupVersionResource, want runtime.Object, ok func(runtime.Object) bool, update registry.UpdateFunc) error {
	cur, err := k.reg.Get(ctx, gvr, metav1.NamespaceDefault, "kubernetes")
	if apierrors.IsNotFound(err) {
		_, err = k.reg.Create(ctx, gvr, want)
		if !apierrors.IsAlreadyExists(err) {
			return err
		}
		// Written meanwhile (another server on the store): compare it.
		cur, err = k.reg.Get(ctx, gvr, metav1.NamespaceDefault, "kubernetes")
	}
	if err != nil || ok(cur) {
		return err
	}
	_, err = k.reg.Update(ctx, gvr, metav1.NamespaceDefault, "kubernetes", update)
	return err
}

// start reconciles every interval until close.
func (k *kubernetesEndpoints) start(interval time.Duration) {
	k.periodic.start(interval, k.ensure, k.log, "kubernetes service endpoints")
}
