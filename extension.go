package fakeplane

import (
	"fmt"
	"net"
	"slices"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

// ExtensionAPIServer is an extension API server running outside the
// control plane (in the test process, say) that WithExtensionAPIServer
// registers behind the aggregation layer.
type ExtensionAPIServer struct {
	// Name and Namespace name the Service made for it (Namespace default
	// "default"; it is created when missing). Its serving certificate must
	// be valid for the DNS name <Name>.<Namespace>.svc, which the
	// aggregator verifies it against.
	Name, Namespace string
	// Address is the host:port it listens on with TLS, e.g.
	// 127.0.0.1:41234 or localhost:41234.
	Address string
	// CABundle is the PEM of the CA that signed its serving certificate
	// (the APIServices' spec.caBundle). Leave it empty only with
	// InsecureSkipTLSVerify.
	CABundle []byte
	// InsecureSkipTLSVerify skips the verification of its serving
	// certificate (spec.insecureSkipTLSVerify).
	InsecureSkipTLSVerify bool
	// GroupVersions are the group/versions it serves; each gets an
	// APIService <version>.<group>.
	GroupVersions []schema.GroupVersion
	// GroupPriorityMinimum and VersionPriority are the APIServices'
	// (default 1000 and 15, sample-apiserver's).
	GroupPriorityMinimum, VersionPriority int32
}

// WithExtensionAPIServer registers an extension API server when the control
// plane starts, in a way a kube-apiserver without kube-proxy accepts too:
// an ExternalName Service <Name> naming Address's host, and an APIService
// per group/version with spec.service naming that Service and Address's
// port. Requests under those group/versions then go to Address
// once the APIServices are Available. The server authenticates the
// aggregator with the request-header CA (ControlPlane.RequestHeaderClientCA,
// also published in kube-system/extension-apiserver-authentication) and
// other clients with ControlPlane.ClientCA.
func WithExtensionAPIServer(ext ExtensionAPIServer) Option {
	return func(o *options) { o.extensionServers = append(o.extensionServers, ext) }
}

// WithAPIServiceCheckInterval sets how often the availability of every
// APIService with a service is checked again (kube-aggregator checks every
// 30s, the default). Changes to APIServices, Services, Endpoints and
// EndpointSlices are checked at once regardless.
func WithAPIServiceCheckInterval(d time.Duration) Option {
	return func(o *options) { o.apiServiceCheckInterval = d }
}

// bootstrapNamespaces exist in every control plane from the start.
var bootstrapNamespaces = []string{"default", "kube-system", "kube-public", "kube-node-lease"}

// objects returns what registers the extension server.
func (ext ExtensionAPIServer) objects() ([]runtime.Object, error) {
	ns := ext.Namespace
	if ns == "" {
		ns = "default"
	}
	if ext.Name == "" || len(ext.GroupVersions) == 0 {
		return nil, fmt.Errorf("extension API server needs a name and group/versions")
	}
	host, portStr, err := net.SplitHostPort(ext.Address)
	if err != nil {
		return nil, fmt.Errorf("extension API server %s: address: %w", ext.Name, err)
	}
	port, err := strconv.Atoi(portStr)
	if err != nil || port <= 0 || port > 65535 || host == "" {
		return nil, fmt.Errorf("extension API server %s: address %q is not host:port", ext.Name, ext.Address)
	}
	gpm, vp := ext.GroupPriorityMinimum, ext.VersionPriority
	if gpm == 0 {
		gpm = 1000
	}
	if vp == 0 {
		vp = 15
	}
	var objs []runtime.Object
	if !slices.Contains(bootstrapNamespaces, ns) {
		objs = append(objs, &corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"}, ObjectMeta: metav1.ObjectMeta{Name: ns}})
	}
	// An ExternalName Service naming the host: the aggregator dials
	// <externalName>:<APIService port>, on fakeplane as on kube-apiserver
	// with --enable-aggregator-routing, which refuses loopback addresses in
	// Endpoints and EndpointSlices.
	objs = append(objs, &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Name: ext.Name, Namespace: ns},
		Spec: corev1.ServiceSpec{
			Type: corev1.ServiceTypeExternalName, ExternalName: host,
			Ports: []corev1.ServicePort{{Name: "https", Port: int32(port), Protocol: corev1.ProtocolTCP}},
		},
	})
	for _, gv := range ext.GroupVersions {
		svcPort := int32(port)
		objs = append(objs, &apiregistrationv1.APIService{
			TypeMeta:   metav1.TypeMeta{APIVersion: "apiregistration.k8s.io/v1", Kind: "APIService"},
			ObjectMeta: metav1.ObjectMeta{Name: gv.Version + "." + gv.Group},
			Spec: apiregistrationv1.APIServiceSpec{
				Group: gv.Group, Version: gv.Version,
				Service:               &apiregistrationv1.ServiceReference{Namespace: ns, Name: ext.Name, Port: &svcPort},
				CABundle:              ext.CABundle,
				InsecureSkipTLSVerify: ext.InsecureSkipTLSVerify,
				GroupPriorityMinimum:  gpm, VersionPriority: vp,
			},
		})
	}
	return objs, nil
}

// RequestHeaderClientCA returns the PEM of the CA that signs the
// front-proxy client certificate the aggregator presents to extension API
// servers (--requestheader-client-ca-file): an extension server trusts the
// X-Remote-* headers of a client whose certificate it verifies, with CN
// front-proxy-client. Empty when there is none (or only a pool was
// given); a CA file's content as last read. Call it after Start.
func (cp *ControlPlane) RequestHeaderClientCA() []byte { return slices.Clone(cp.requestHeader.pem()) }

// ClientCA returns the PEM bundle that verifies the client certificates
// users authenticate to the control plane with (--client-ca-file), which
// an extension API server may also accept from clients that reach it
// directly: the cluster CA, WithClientCA's bundles, and WithClientCAFile's
// file as last read. Call it after Start.
func (cp *ControlPlane) ClientCA() []byte { return slices.Clone(cp.clientCAs.Bundle().PEM) }
