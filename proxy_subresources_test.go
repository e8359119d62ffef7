package fakeplane_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/fakeplane/fakeplane"
)

// echoBackend answers each request on ip with its method, path, query
// and forwarded-host header.
func echoBackend(t *testing.T, ip string) int {
	t.Helper()
	ln, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		t.Fatal(err)
	}
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/page.html" {
			w.Header().Set("Content-Type", "text/html")
			_, _ = fmt.Fprint(w, `<html><body><a href="/foo/bar">link</a></body></html>`)
			return
		}
		_, _ = fmt.Fprintf(w, "%s %s ?%s xfh=%s", r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Get("X-Forwarded-Host"))
	})}}
	srv.Start()
	t.Cleanup(srv.Close)
	return ln.Addr().(*net.TCPAddr).Port
}

// machineIP is a global unicast IPv4 address of this machine:
// EndpointSlices, as upstream validates them, refuse loopback addresses,
// so a Service's local backend listens here.
func machineIP(t *testing.T) string {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && n.IP.IsGlobalUnicast() {
			return n.IP.String()
		}
	}
	t.Fatalf("this machine has no global unicast IPv4 address for a Service's backend to listen on (addresses %v)", addrs)
	return ""
}

// localPod creates a pod on node-0 whose IP is ip (a test writes its
// status, no kubelet runs it), serving port.
func localPod(t *testing.T, client kubernetes.Interface, name, ip string, port int) {
	t.Helper()
	ctx := ctxT(t)
	p := boundPod(name, "node-0")
	p.Labels = map[string]string{"app": name}
	p.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "http", ContainerPort: int32(port)}}
	created, err := client.CoreV1().Pods("default").Create(ctx, p, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	created.Status.Phase = corev1.PodRunning
	created.Status.PodIP, created.Status.PodIPs = ip, []corev1.PodIP{{IP: ip}}
	created.Status.HostIP, created.Status.HostIPs = "127.0.0.1", []corev1.HostIP{{IP: "127.0.0.1"}}
	created.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	if _, err := client.CoreV1().Pods("default").UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// proxyGet sends method to the API path (its query as parameters) and
// returns the status code and the body, or the message of the Status.
func proxyGet(t *testing.T, client kubernetes.Interface, method, path string) (int, string) {
	t.Helper()
	path, query, _ := strings.Cut(path, "?")
	req := client.CoreV1().RESTClient().Verb(method).AbsPath(path)
	q, err := url.ParseQuery(query)
	if err != nil {
		t.Fatal(err)
	}
	for k, vs := range q {
		for _, v := range vs {
			req = req.Param(k, v)
		}
	}
	var code int
	res := req.Do(ctxT(t)).StatusCode(&code)
	if st, ok := res.Error().(apierrors.APIStatus); ok {
		return code, st.Status().Message
	}
	body, _ := res.Raw()
	return code, string(body)
}

// TestProxySubresources: pods/, services/ and nodes/<name>/proxy reach a
// local backend (a pod whose IP is loopback, a Service's EndpointSlice of
// it) and the node's kubelet API, with upstream's paths, redirects and
// errors.
func TestProxySubresources(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithNodes(1), fakeplane.WithoutPodLifecycle())
	client := clientset(t, cp)
	ctx := ctxT(t)
	ip := machineIP(t)
	port := echoBackend(t, ip)
	loopPort := echoBackend(t, "127.0.0.1")
	localPod(t, client, "backend", ip, port)
	// A pod whose IP is loopback: upstream refuses it ("address not
	// allowed"), fakeplane proxies to it (see server/proxy.go).
	localPod(t, client, "loopback", "127.0.0.1", loopPort)
	localPod(t, client, "linklocal", "169.254.0.9", port)
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "backend", Namespace: "default"}, Spec: corev1.ServiceSpec{
		Selector: map[string]string{"app": "backend"},
		Ports:    []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(int32(port))}},
	}}
	if _, err := client.CoreV1().Services("default").Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		l, err := client.DiscoveryV1().EndpointSlices("default").List(ctx, metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=backend"})
		return err == nil && len(l.Items) == 1 && len(l.Items[0].Endpoints) == 1 && l.Items[0].Endpoints[0].Addresses[0] == ip, err
	})
	if err != nil {
		l, _ := client.DiscoveryV1().EndpointSlices("default").List(ctx, metav1.ListOptions{})
		t.Fatalf("the Service's EndpointSlice: %v (slices %+v)", err, l.Items)
	}
	// A node without addresses: upstream's kubelet connection finds none
	// of the preferred types, and its hostname label does not stand in.
	bare := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "bare", Labels: map[string]string{corev1.LabelHostname: "bare"}}}
	if _, err := client.CoreV1().Nodes().Create(ctx, bare, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ns := "/api/v1/namespaces/default/"
	for _, tc := range []struct {
		name, method, path string
		code               int
		body               string
	}{
		{"a pod, its first container port", "GET", ns + "pods/backend/proxy/hello", 200, "GET /hello ?"},
		{"a pod and a port, with a trailing slash", "GET", ns + "pods/backend:" + strconv.Itoa(port) + "/proxy/a/b/", 200, "GET /a/b/ ?"},
		{"a pod with a scheme", "GET", ns + "pods/http:backend:" + strconv.Itoa(port) + "/proxy/s", 200, "GET /s ?"},
		{"a pod on loopback, with a query", "GET", ns + "pods/loopback/proxy/q?a=1", 200, "GET /q ?a=1"},
		// Links in HTML are rewritten under the proxy path, as upstream's
		// proxy transport rewrites them.
		{"HTML links rewritten", "GET", ns + "pods/loopback/proxy/page.html", 200, `<html><body><a href="` + ns + `pods/loopback/proxy/foo/bar">link</a></body></html>`},
		// Without a port, the endpoint port named "" is looked for, as
		// upstream does: this Service's only port is named.
		{"a service without its port's name", "GET", ns + "services/backend/proxy/x", 503, `no endpoints available for service "backend"`},
		{"a service port by number", "POST", ns + "services/backend:80/proxy/posted", 200, "POST /posted ?"},
		{"a service port by name", "PUT", ns + "services/http:backend:http/proxy/", 200, "PUT / ?"},
		{"a node's kubelet", "GET", "/api/v1/nodes/node-0/proxy/healthz", 200, "ok"},
		{"an unknown service", "GET", ns + "services/nope/proxy/", 503, `no endpoints available for service "nope"`},
		{"a service port that is not", "GET", ns + "services/backend:81/proxy/", 503, `no service port 81 found for service "backend"`},
		{"an unknown pod", "GET", ns + "pods/nope/proxy/", 404, `pods "nope" not found`},
		{"a link-local pod IP", "GET", ns + "pods/linklocal/proxy/", 400, "address not allowed"},
		{"a malformed name", "GET", ns + "pods/a:b:c:d/proxy/", 400, `invalid pod request "a:b:c:d"`},
		{"an unknown node", "GET", "/api/v1/nodes/nope/proxy/healthz", 404, `nodes "nope" not found`},
		{"a node without addresses", "GET", "/api/v1/nodes/bare/proxy/healthz", 500, "no preferred addresses found; known addresses: []"},
		// Ports that are not numbers: kube-apiserver's proxy panics on
		// the location it cannot parse (the stream is reset); fakeplane
		// answers as for a backend it cannot reach.
		{"a pod port by name", "GET", ns + "pods/backend:http/proxy/", 503, `error trying to reach service: parse "//` + ip + `:http/": invalid port ":http" after host`},
		{"a node port that is not a number", "GET", "/api/v1/nodes/node-0:abc/proxy/", 503, `error trying to reach service: parse "//127.0.0.1:abc/": invalid port ":abc" after host`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := proxyGet(t, client, tc.method, tc.path)
			if code != tc.code || !strings.HasPrefix(body, tc.body) {
				t.Errorf("%s %s = %d %q, want %d %q", tc.method, tc.path, code, body, tc.code, tc.body)
			}
		})
	}

	// The bare proxy root redirects to its slash, as upstream's proxy does.
	rt, err := restTransport(cp)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequestWithContext(ctx, "GET", cp.URL()+ns+"services/backend:http/proxy", nil)
	resp, err := rt.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != ns+"services/backend:http/proxy/" {
		t.Errorf("bare proxy root: %d Location %q", resp.StatusCode, resp.Header.Get("Location"))
	}
}

// restTransport is the admin's transport to the control plane, which does
// not follow redirects.
func restTransport(cp *fakeplane.ControlPlane) (http.RoundTripper, error) {
	return rest.TransportFor(cp.RESTConfig())
}
