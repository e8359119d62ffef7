package server

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/util/proxy"
	"k8s.io/apimachinery/pkg/util/validation"
	apiproxy "k8s.io/apiserver/pkg/util/proxy"
)

// The proxy subresources (pods/<name>[:port]/proxy,
// services/<[scheme:]name[:port]>/proxy, nodes/<name>[:port]/proxy) as
// upstream's ProxyREST serves them: every method upstream allows, the path
// after /proxy joined to the backend's (a trailing slash kept), a redirect
// of the bare root to its slash, X-Forwarded headers, and upgrades.
//
// Where kube-apiserver refuses a backend address that is not global
// unicast (a pod IP, a node address: "address not allowed"), fakeplane
// also takes loopback addresses, because every backend a test runs is a
// process on this machine and the simulated nodes' kubelet API listens on
// 127.0.0.1. Link-local, multicast and unspecified addresses are still
// refused.

// proxyMethods are the methods upstream's ProxyREST connects.
var proxyMethods = []string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"}

var (
	servicesGVR       = schema.GroupVersionResource{Version: "v1", Resource: "services"}
	endpointSlicesGVR = schema.GroupVersionResource{Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices"}
)

// proxyTransport is the transport to pods and services (kube-apiserver's
// proxy transport): their certificates are not verified, the front-proxy
// client certificate is presented, connections go through DialCluster.
func (s *Server) proxyTransport() http.RoundTripper {
	s.proxyOnce.Do(func() {
		c := &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"http/1.1"}} //nolint:gosec // as kube-apiserver's proxy transport
		if s.cfg.ProxyClientCertificate != nil {
			c.Certificates = []tls.Certificate{*s.cfg.ProxyClientCertificate}
		}
		s.proxyRT = s.clusterTransport(c)
	})
	return s.proxyRT
}

// proxyableIP reports whether a backend address may be proxied to:
// upstream's IsGlobalUnicast, and loopback.
func proxyableIP(addr string) bool {
	ip, err := netip.ParseAddr(addr)
	if err != nil {
		return false
	}
	return ip.IsGlobalUnicast() || ip.IsLoopback()
}

// proxySubpath is the path after .../proxy, with a leading slash and the
// request's trailing slash (upstream's getRequestOptions).
func proxySubpath(c *call) string {
	p := strings.Join(c.Info.Parts[min(3, len(c.Info.Parts)):], "/")
	if p != "" && !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	if strings.HasSuffix(c.Info.Path, "/") && !strings.HasSuffix(p, "/") {
		p += "/"
	}
	return p
}

// serveProxy serves a proxy subresource.
func (s *Server) serveProxy(c *call) error {
	var location *url.URL
	var transport http.RoundTripper
	var err error
	var opts runtime.Object
	switch c.Info.Resource {
	case "pods":
		opts = &corev1.PodProxyOptions{Path: proxySubpath(c)}
	case "services":
		opts = &corev1.ServiceProxyOptions{Path: proxySubpath(c)}
	case "nodes":
		opts = &corev1.NodeProxyOptions{Path: proxySubpath(c)}
	}
	if opts != nil {
		// CONNECT admission with the proxy options, as upstream's
		// ConnectResource handler.
		if err := s.AdmitConnect(c.Request, opts, connectKind(opts), c.Info.Name); err != nil {
			return err
		}
	}
	switch c.Info.Resource {
	case "pods":
		location, transport, err = s.podProxyLocation(c)
	case "services":
		location, transport, err = s.serviceProxyLocation(c)
	case "nodes":
		location, transport, err = s.nodeProxyLocation(c)
	default:
		return c.ErrMethodNotSupported()
	}
	if err != nil {
		return err
	}
	location.Path = utilnet.JoinPreservingTrailingSlash(location.Path, proxySubpath(c))
	if _, err := url.Parse(location.String()); err != nil {
		// A port that is not a number ("pod:web", "node:abc"): upstream's
		// proxy handler dereferences the failed parse of the location and
		// its panic resets the stream; fakeplane answers as for a backend
		// it cannot reach.
		return apierrors.NewServiceUnavailable(fmt.Sprintf("error trying to reach service: %v", err))
	}
	h := proxy.NewUpgradeAwareHandler(location, transport, true, false, proxy.NewErrorResponder(&streamResponder{w: c.w, r: c.r}))
	h.MaxBytesPerSec = s.cfg.MaxConnectionBytesPerSec
	h.ServeHTTP(c.w, c.r)
	return nil
}

// podProxyLocation is upstream's pod ResourceLocation: "name",
// "name:port" or "scheme:name:port", the first container port by default,
// at the pod's IP.
func (s *Server) podProxyLocation(c *call) (*url.URL, http.RoundTripper, error) {
	scheme, name, port, ok := utilnet.SplitSchemeNamePort(c.Info.Name)
	if !ok {
		return nil, nil, apierrors.NewBadRequest(fmt.Sprintf("invalid pod request %q", c.Info.Name))
	}
	obj, err := s.API().Get(c.Request.GoCtx, podsGVR, c.Namespace, name)
	if err != nil {
		return nil, nil, err
	}
	pod := obj.(*corev1.Pod)
	if port == "" {
		for _, ctr := range pod.Spec.Containers {
			if len(ctr.Ports) > 0 {
				port = strconv.Itoa(int(ctr.Ports[0].ContainerPort))
				break
			}
		}
	}
	ip := pod.Status.PodIP
	if len(pod.Status.PodIPs) > 0 {
		ip = pod.Status.PodIPs[0].IP
	}
	if !proxyableIP(ip) {
		return nil, nil, apierrors.NewBadRequest("address not allowed")
	}
	loc := &url.URL{Scheme: scheme, Host: ip}
	if strings.Contains(ip, ":") {
		loc.Host = "[" + ip + "]"
	}
	if port != "" {
		loc.Host = net.JoinHostPort(ip, port)
	}
	return loc, s.proxyTransport(), nil
}

// serviceProxyLocation is upstream's service ResourceLocation: the port
// given by name or number, a ready endpoint of the Service's
// EndpointSlices that serves it and is one of its pods.
func (s *Server) serviceProxyLocation(c *call) (*url.URL, http.RoundTripper, error) {
	ctx := c.Request.GoCtx
	scheme, name, port, ok := utilnet.SplitSchemeNamePort(c.Info.Name)
	if !ok {
		return nil, nil, apierrors.NewBadRequest(fmt.Sprintf("invalid service request %q", c.Info.Name))
	}
	if n, err := strconv.ParseInt(port, 10, 64); err == nil {
		obj, err := s.API().Get(ctx, servicesGVR, c.Namespace, name)
		if err != nil {
			return nil, nil, err
		}
		found := false
		for _, sp := range obj.(*corev1.Service).Spec.Ports {
			if int64(sp.Port) == n {
				port, found = sp.Name, true
				break
			}
		}
		if !found {
			return nil, nil, apierrors.NewServiceUnavailable(fmt.Sprintf("no service port %d found for service %q", n, name))
		}
	}
	// Upstream selects the slices with a selector built from a set, which
	// checks nothing: a name no label can hold ("..") selects none.
	var sl []*discoveryv1.EndpointSlice
	if len(validation.IsValidLabelValue(name)) == 0 {
		list, err := s.API().List(ctx, endpointSlicesGVR, c.Namespace, metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=" + name})
		if err != nil {
			return nil, nil, apierrors.NewInternalError(err)
		}
		for i := range list.(*discoveryv1.EndpointSliceList).Items {
			sl = append(sl, &list.(*discoveryv1.EndpointSliceList).Items[i])
		}
	}
	if len(sl) == 0 {
		return nil, nil, apierrors.NewServiceUnavailable(fmt.Sprintf("no endpoints available for service %q", name))
	}
	hostPort, err := apiproxy.RandomEndpoint(name, sl, port, corev1.IPv4Protocol, func(ep *discoveryv1.Endpoint) bool {
		return s.endpointIsPod(ctx, c.Namespace, ep)
	})
	if err != nil {
		return nil, nil, err
	}
	return &url.URL{Scheme: scheme, Host: hostPort}, s.proxyTransport(), nil
}

// endpointIsPod is upstream's isValidAddress: only endpoints that are pods
// of the namespace with that IP are proxied to.
func (s *Server) endpointIsPod(ctx context.Context, namespace string, ep *discoveryv1.Endpoint) bool {
	if ep.TargetRef == nil || ep.TargetRef.Namespace != namespace || len(ep.Addresses) == 0 {
		return false
	}
	obj, err := s.API().Get(ctx, podsGVR, namespace, ep.TargetRef.Name)
	if err != nil {
		return false
	}
	return slices.ContainsFunc(obj.(*corev1.Pod).Status.PodIPs, func(ip corev1.PodIP) bool { return ip.IP == ep.Addresses[0] })
}

// nodeProxyLocation is upstream's node ResourceLocation: the kubelet (its
// transport) when no port or the kubelet's is asked for, else the port
// asked for through the proxy transport.
func (s *Server) nodeProxyLocation(c *call) (*url.URL, http.RoundTripper, error) {
	scheme, name, port, ok := utilnet.SplitSchemeNamePort(c.Info.Name)
	if !ok {
		return nil, nil, apierrors.NewBadRequest(fmt.Sprintf("invalid node request %q", c.Info.Name))
	}
	conn, err := s.kubeletConnectionFor(c.Request.GoCtx, name)
	if err != nil {
		return nil, nil, err
	}
	if err := proxyableHost(c.Request.GoCtx, conn.host); err != nil {
		return nil, nil, apierrors.NewBadRequest(err.Error())
	}
	if port == "" || port == conn.port {
		return &url.URL{Scheme: conn.scheme, Host: net.JoinHostPort(conn.host, conn.port)}, conn.transport, nil
	}
	return &url.URL{Scheme: scheme, Host: net.JoinHostPort(conn.host, port)}, s.proxyTransport(), nil
}

// proxyableHost is upstream's isProxyableHostname, loopback allowed.
func proxyableHost(ctx context.Context, host string) error {
	addrs, err := net.DefaultResolver.LookupIPAddr(ctx, host)
	if err != nil {
		return err
	}
	if len(addrs) == 0 {
		return fmt.Errorf("no addresses for hostname")
	}
	for _, a := range addrs {
		if !a.IP.IsGlobalUnicast() && !a.IP.IsLoopback() {
			return fmt.Errorf("address not allowed")
		}
	}
	return nil
}
