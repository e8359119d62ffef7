package server

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilnet "k8s.io/apimachinery/pkg/util/net"

	"github.com/fakeplane/fakeplane/registry"
)

// KubeletClientConfig is how the server reaches nodes' kubelets, as
// kube-apiserver's --kubelet-* flags configure it.
type KubeletClientConfig struct {
	// Certificate is the client certificate presented to kubelets
	// (--kubelet-client-certificate and --kubelet-client-key); none when
	// empty.
	Certificate *tls.Certificate
	// NewCertificate, when Certificate is nil, makes the client
	// certificate when a kubelet first asks for one (and must return the
	// same one every time): most control planes never reach a kubelet.
	NewCertificate func() (*tls.Certificate, error)
	// CAs verify kubelets' serving certificates
	// (--kubelet-certificate-authority); nil means they are not verified,
	// as kube-apiserver does without the flag.
	CAs *x509.CertPool
	// PreferredAddressTypes is the order in which a node's addresses are
	// tried (--kubelet-preferred-address-types); nil means
	// DefaultKubeletPreferredAddressTypes.
	PreferredAddressTypes []corev1.NodeAddressType
	// Port is used for nodes that report no kubelet port (--kubelet-port's
	// role; default 10250).
	Port int
}

// DefaultKubeletPreferredAddressTypes is kubeadm's
// --kubelet-preferred-address-types, fakeplane's default: a simulated
// node's Hostname (its name) resolves nowhere, its InternalIP is where its
// kubelet API listens.
var DefaultKubeletPreferredAddressTypes = []corev1.NodeAddressType{corev1.NodeInternalIP, corev1.NodeExternalIP, corev1.NodeHostName}

// kubeletConnection is where a node's kubelet answers, and the transports
// to it (upstream's client.ConnectionInfo).
type kubeletConnection struct {
	scheme, host, port string
	transport          http.RoundTripper
	// insecureTransport does not verify the kubelet's certificate
	// (PodLogOptions.insecureSkipTLSVerifyBackend).
	insecureTransport http.RoundTripper
}

// kubeletTransports are built once per server.
type kubeletTransports struct {
	once             sync.Once
	secure, insecure http.RoundTripper
}

var nodesGVR = schema.GroupVersionResource{Version: "v1", Resource: "nodes"}

// dialCluster is Config.DialCluster, or a plain dialer.
func (s *Server) dialCluster(ctx context.Context, network, addr string) (net.Conn, error) {
	if s.cfg.DialCluster != nil {
		return s.cfg.DialCluster(ctx, network, addr)
	}
	var d net.Dialer
	return d.DialContext(ctx, network, addr)
}

// clusterTransport is an HTTP transport whose connections go through
// dialCluster, with tlsConfig for https.
func (s *Server) clusterTransport(tlsConfig *tls.Config) *http.Transport {
	return utilnet.SetTransportDefaults(&http.Transport{
		DialContext:     s.dialCluster,
		TLSClientConfig: tlsConfig,
		// The upgrade-aware proxy dials upgrades itself; keep-alives for
		// the rest.
		MaxIdleConnsPerHost: 8,
	})
}

// kubeletTLSConfig is the TLS configuration toward kubelets; insecure
// skips verifying their certificates.
func (s *Server) kubeletTLSConfig(insecure bool) *tls.Config {
	kc := s.cfg.Kubelet
	c := &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: kc.CAs, InsecureSkipVerify: insecure || kc.CAs == nil} //nolint:gosec // as kube-apiserver without --kubelet-certificate-authority
	switch {
	case kc.Certificate != nil:
		c.Certificates = []tls.Certificate{*kc.Certificate}
	case kc.NewCertificate != nil:
		c.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
			return kc.NewCertificate()
		}
	}
	// HTTP/1.1 only: the streaming upgrades need it.
	c.NextProtos = []string{"http/1.1"}
	return c
}

// kubeletConnectionFor finds where nodeName's kubelet answers: the first
// of its addresses in the preferred order, on its reported kubelet port.
func (s *Server) kubeletConnectionFor(ctx context.Context, nodeName string) (*kubeletConnection, error) {
	obj, err := s.API().Get(ctx, nodesGVR, "", nodeName)
	if err != nil {
		return nil, err
	}
	node, ok := obj.(*corev1.Node)
	if !ok {
		return nil, apierrors.NewInternalError(fmt.Errorf("node %s decoded as %T", nodeName, obj))
	}
	host, err := preferredNodeAddress(node, s.kubeletAddressTypes())
	if err != nil {
		return nil, registry.ErrUnknown(err)
	}
	port := int(node.Status.DaemonEndpoints.KubeletEndpoint.Port)
	if port <= 0 {
		port = s.cfg.Kubelet.Port
		if port <= 0 {
			port = 10250
		}
	}
	t := &s.kubelets
	t.once.Do(func() {
		t.secure = s.clusterTransport(s.kubeletTLSConfig(false))
		t.insecure = s.clusterTransport(s.kubeletTLSConfig(true))
	})
	return &kubeletConnection{scheme: "https", host: host, port: strconv.Itoa(port), transport: t.secure, insecureTransport: t.insecure}, nil
}

func (s *Server) kubeletAddressTypes() []corev1.NodeAddressType {
	if len(s.cfg.Kubelet.PreferredAddressTypes) > 0 {
		return s.cfg.Kubelet.PreferredAddressTypes
	}
	return DefaultKubeletPreferredAddressTypes
}

// preferredNodeAddress is upstream's nodeutil.GetPreferredNodeAddress: the
// first address of the first preferred type the node has. A node without
// one is an error (a 500 to the client), whatever its labels say.
func preferredNodeAddress(node *corev1.Node, types []corev1.NodeAddressType) (string, error) {
	for _, t := range types {
		for _, a := range node.Status.Addresses {
			if a.Type == t {
				return a.Address, nil
			}
		}
	}
	return "", fmt.Errorf("no preferred addresses found; known addresses: %v", node.Status.Addresses)
}
