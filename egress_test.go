package fakeplane_test

// Tests of --egress-selector-config-file (WithEgressSelectorConfigFile):
// the connections the control plane opens toward the cluster go through
// the Konnectivity server or HTTP CONNECT proxy the configuration names,
// started by the test (internal/testproxy), which records each dial. The
// error messages are kube-apiserver's (k8s.io/apiserver v0.37.2:
// pkg/server/options/egress_selector.go, pkg/server/egressselector).

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/server/egressselector"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
	"github.com/fakeplane/fakeplane/internal/pki"
	"github.com/fakeplane/fakeplane/internal/testproxy"
)

// dialRecorder is a proxy that records the addresses it was asked to reach.
type dialRecorder interface{ Dials() []string }

// shortTempDir is a temporary directory with a path short enough for Unix
// sockets (at most 107 bytes), removed when the test ends.
func shortTempDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "fp-egress-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

// egressProxy starts a proxy of a kind ("HTTPConnect-UDS", "HTTPConnect-TCP"
// with mTLS, "GRPC-UDS") and returns it with the connection part of an
// egress selection that names it (YAML, indented for a selection). It
// stops when the test ends, after the control plane (start it first).
func egressProxy(t testing.TB, kind string) (dialRecorder, string) {
	t.Helper()
	dir := shortTempDir(t)
	switch kind {
	case "HTTPConnect-UDS", "GRPC-UDS":
		sock := filepath.Join(dir, "proxy.sock")
		ln, err := net.Listen("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		protocol := "HTTPConnect"
		var p interface {
			dialRecorder
			Close()
		}
		if kind == "GRPC-UDS" {
			protocol = "GRPC"
			p = testproxy.NewKonnectivity(ln, nil)
		} else {
			p = testproxy.NewHTTPConnect(ln, nil, nil)
		}
		t.Cleanup(p.Close)
		return p, fmt.Sprintf("    proxyProtocol: %s\n    transport:\n      uds:\n        udsName: %s\n", protocol, sock)
	case "HTTPConnect-TCP":
		// As a Konnectivity server in HTTPConnect mode over TCP: TLS with
		// a client certificate it verifies.
		ca, err := pki.NewCA("konnectivity-ca")
		if err != nil {
			t.Fatal(err)
		}
		serving, err := ca.NewServingCert("konnectivity-server", nil, []net.IP{net.ParseIP("127.0.0.1")})
		if err != nil {
			t.Fatal(err)
		}
		servingCert, err := serving.TLSCertificate()
		if err != nil {
			t.Fatal(err)
		}
		client, err := ca.NewClientCert("system:konnectivity-client")
		if err != nil {
			t.Fatal(err)
		}
		for name, b := range map[string][]byte{"ca.crt": ca.CertPEM, "client.crt": client.CertPEM, "client.key": client.KeyPEM} {
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		p := testproxy.NewHTTPConnect(ln, &tls.Config{Certificates: []tls.Certificate{servingCert},
			ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: ca.Pool(), MinVersion: tls.VersionTLS12}, nil)
		t.Cleanup(p.Close)
		return p, fmt.Sprintf("    proxyProtocol: HTTPConnect\n    transport:\n      tcp:\n        url: https://%s\n        tlsConfig:\n          caBundle: %s\n          clientCert: %s\n          clientKey: %s\n",
			p.Addr(), filepath.Join(dir, "ca.crt"), filepath.Join(dir, "client.crt"), filepath.Join(dir, "client.key"))
	}
	t.Fatalf("unknown proxy kind %q", kind)
	return nil, ""
}

// writeEgressConfig writes an EgressSelectorConfiguration of apiVersion
// with a selection per name (connection YAML from egressProxy).
func writeEgressConfig(t testing.TB, apiVersion string, selections map[string]string) string {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: %s\nkind: EgressSelectorConfiguration\negressSelections:\n", apiVersion)
	names := make([]string, 0, len(selections))
	for n := range selections {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		fmt.Fprintf(&b, "- name: %s\n  connection:\n%s", n, selections[n])
	}
	path := filepath.Join(t.TempDir(), "egress-selector.yaml")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// portOf is the port of a host:port or URL.
func portOf(t testing.TB, addr string) string {
	t.Helper()
	addr = strings.TrimPrefix(strings.TrimPrefix(addr, "https://"), "http://")
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	return port
}

// dialedPort reports whether the proxy was asked for a connection to port.
func dialedPort(p dialRecorder, port string) bool {
	return slices.ContainsFunc(p.Dials(), func(d string) bool { return strings.HasSuffix(d, ":"+port) })
}

// serviceWebhookCert is a serving certificate for <name>.default.svc, the
// name kube-apiserver verifies a webhook given as a Service against.
func serviceWebhookCert(t testing.TB, name string) (*tls.Certificate, []byte) {
	t.Helper()
	ca, err := pki.NewCA(name + "-ca")
	if err != nil {
		t.Fatal(err)
	}
	kp, err := ca.NewServingCert(name+".default.svc", []string{name + ".default.svc"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := kp.TLSCertificate()
	if err != nil {
		t.Fatal(err)
	}
	return &cert, ca.CertPEM
}

// serviceAt creates a Service default/<name> for a server on this
// machine at port: an ExternalName Service naming localhost, its port
// ("https") the server's. kube-apiserver refuses loopback addresses in
// Endpoints, so this is how a cluster reaches such a server; a reference
// to the Service names the port, which serviceAt returns.
func serviceAt(t testing.TB, cs kubernetes.Interface, name, port string) int32 {
	t.Helper()
	n, err := strconv.Atoi(port)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Services("default").Create(ctxT(t), &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "localhost",
			Ports: []corev1.ServicePort{{Name: "https", Port: int32(n)}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return int32(n)
}

func TestEgressSelectionsCarryTheControlPlanesConnections(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		apiVersion string
		// cluster and controlplane are the proxies' kinds ("" for none).
		cluster, controlplane string
	}{
		{name: "HTTPConnect over a Unix socket", apiVersion: "apiserver.k8s.io/v1beta1", cluster: "HTTPConnect-UDS", controlplane: "HTTPConnect-UDS"},
		{name: "HTTPConnect over TCP with mTLS", apiVersion: "apiserver.k8s.io/v1beta1", cluster: "HTTPConnect-TCP"},
		{name: "GRPC over a Unix socket", apiVersion: "apiserver.k8s.io/v1beta1", cluster: "GRPC-UDS", controlplane: "GRPC-UDS"},
		{name: "no egress selector", cluster: "HTTPConnect-UDS"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cluster, clusterConn := egressProxy(t, tc.cluster)
			selections := map[string]string{"cluster": clusterConn}
			var controlplane dialRecorder
			if tc.controlplane != "" {
				var conn string
				controlplane, conn = egressProxy(t, tc.controlplane)
				selections["controlplane"] = conn
			}
			var opts []fakeplane.Option
			if tc.apiVersion != "" {
				opts = append(opts, fakeplane.WithEgressSelectorConfigFile(writeEgressConfig(t, tc.apiVersion, selections)))
			}
			// The aggregator: wardle's APIService becomes Available
			// through the proxy, and a request reaches it.
			cp, ext := startWardle(t, opts...)
			ctx := ctxT(t)
			dyn := dynamic.NewForConfigOrDie(cp.RESTConfig())
			if _, err := dyn.Resource(flundersGVR).Namespace("default").Create(ctx, flunder("f"), metav1.CreateOptions{}); err != nil {
				t.Fatalf("create a flunder through the aggregator: %v", err)
			}

			// An admission webhook given as a Service.
			cert, caPEM := serviceWebhookCert(t, "hook")
			hook := serveWebhookWith(t, allow, cert)
			hookPort := portOf(t, hook.URL)
			cs := clientset(t, cp)
			hookServicePort := serviceAt(t, cs, "hook", hookPort)
			ignore := admissionregistrationv1.Ignore
			none := admissionregistrationv1.SideEffectClassNone
			createValidatingWebhook(t, cs, &admissionregistrationv1.ValidatingWebhookConfiguration{
				ObjectMeta: metav1.ObjectMeta{Name: "hook"},
				Webhooks: []admissionregistrationv1.ValidatingWebhook{{
					Name: "hook.example.com", SideEffects: &none, FailurePolicy: &ignore, AdmissionReviewVersions: []string{"v1"},
					ClientConfig: admissionregistrationv1.WebhookClientConfig{CABundle: caPEM,
						Service: &admissionregistrationv1.ServiceReference{Namespace: "default", Name: "hook", Path: ptr.To("/validate"), Port: &hookServicePort}},
					Rules: []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
						Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}}}},
				}},
			}, func() error {
				name := "probe-" + strconv.FormatInt(time.Now().UnixNano(), 36)
				if _, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
					return err
				}
				if len(hook.Reviews()) == 0 {
					return fmt.Errorf("the webhook was not called")
				}
				return nil
			})

			// A CRD conversion webhook given as a Service.
			convCert, convCA := serviceWebhookCert(t, "conv")
			convHook := &conversionWebhook{}
			conv := httptest.NewUnstartedServer(convHook)
			conv.TLS = &tls.Config{Certificates: []tls.Certificate{*convCert}}
			conv.StartTLS()
			t.Cleanup(conv.Close)
			convPort := portOf(t, conv.URL)
			convServicePort := serviceAt(t, cs, "conv", convPort)
			convertThroughWebhook(t, cp, convHook, apiextensionsv1.WebhookClientConfig{CABundle: convCA,
				Service: &apiextensionsv1.ServiceReference{Namespace: "default", Name: "conv", Path: ptr.To("/convert"), Port: &convServicePort}})

			proxied := map[string]string{"wardle": portOf(t, ext.Address()), "admission webhook": hookPort, "conversion webhook": convPort}
			for what, port := range proxied {
				if got := dialedPort(cluster, port); got != (tc.apiVersion != "") {
					t.Errorf("%s (port %s) dialed through the cluster proxy: %v, want %v; the proxy dialed %v", what, port, got, tc.apiVersion != "", cluster.Dials())
				}
			}
			if tc.apiVersion == "" && len(cluster.Dials()) > 0 {
				t.Errorf("without an egress selector the proxy was dialed: %v", cluster.Dials())
			}
			if controlplane == nil {
				return
			}
			// Webhooks given as a URL go through "controlplane".
			if got := controlplane.Dials(); len(got) > 0 {
				t.Errorf("the controlplane proxy was dialed before any URL webhook: %v", got)
			}
			urlHook := &conversionWebhook{}
			byURL := httptest.NewTLSServer(urlHook)
			t.Cleanup(byURL.Close)
			convertThroughWebhook(t, cp, urlHook, apiextensionsv1.WebhookClientConfig{URL: ptr.To(byURL.URL + "/convert"), CABundle: pemOf(byURL.Certificate().Raw)})
			if !dialedPort(controlplane, portOf(t, byURL.URL)) {
				t.Errorf("the URL conversion webhook was not dialed through the controlplane proxy: %v", controlplane.Dials())
			}
			urlAdmission := serveWebhook(t, allow)
			createValidatingWebhook(t, cs, &admissionregistrationv1.ValidatingWebhookConfiguration{
				ObjectMeta: metav1.ObjectMeta{Name: "by-url"},
				Webhooks: []admissionregistrationv1.ValidatingWebhook{{
					Name: "by-url.example.com", SideEffects: &none, FailurePolicy: &ignore, AdmissionReviewVersions: []string{"v1"},
					ClientConfig: urlWebhookConfig(urlAdmission, "/validate"),
					Rules: []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
						Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"secrets"}}}},
				}},
			}, func() error {
				name := "probe-" + strconv.FormatInt(time.Now().UnixNano(), 36)
				if _, err := cs.CoreV1().Secrets("default").Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
					return err
				}
				if len(urlAdmission.Reviews()) == 0 {
					return fmt.Errorf("the webhook was not called")
				}
				return nil
			})
			if !dialedPort(controlplane, portOf(t, urlAdmission.URL)) {
				t.Errorf("the URL admission webhook was not dialed through the controlplane proxy: %v", controlplane.Dials())
			}
		})
	}
}

// convertThroughWebhook sets the CronTab CRD (v1 stored, v2 converted by
// the webhook cc) up, or points it at cc when it exists, then writes
// CronTabs in v2 until hook converted one, and reads the last back in v1.
func convertThroughWebhook(t testing.TB, cp *fakeplane.ControlPlane, hook *conversionWebhook, cc apiextensionsv1.WebhookClientConfig) {
	t.Helper()
	ctx := ctxT(t)
	crds := apiextensionsclient.NewForConfigOrDie(cp.RESTConfig()).ApiextensionsV1().CustomResourceDefinitions()
	crd := conversionCRD(cc, "v1")
	cur, err := crds.Get(ctx, crd.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		if _, err := crds.Create(ctx, crd, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	case err != nil:
		t.Fatal(err)
	default:
		cur.Spec.Conversion = crd.Spec.Conversion
		if _, err := crds.Update(ctx, cur, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	dyn := dynamic.NewForConfigOrDie(cp.RESTConfig())
	v1 := dyn.Resource(schema.GroupVersionResource{Group: "stable.example.com", Version: "v1", Resource: "crontabs"}).Namespace("default")
	v2 := dyn.Resource(schema.GroupVersionResource{Group: "stable.example.com", Version: "v2", Resource: "crontabs"}).Namespace("default")
	var name string
	if err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		name = "c" + strconv.FormatInt(time.Now().UnixNano(), 36)
		if _, err := v2.Create(ctx, crontab("v2", name, map[string]any{"host": "h", "port": "9"}), metav1.CreateOptions{}); err != nil {
			return false, nil
		}
		hook.mu.Lock()
		defer hook.mu.Unlock()
		return len(hook.reviews) > 0, nil
	}); err != nil {
		t.Fatalf("create a CronTab in v2 converted by the webhook: %v", err)
	}
	got, err := v1.Get(ctx, name, metav1.GetOptions{})
	if err != nil || got.Object["spec"].(map[string]any)["hostPort"] != "h:9" {
		t.Fatalf("read back in v1 through the conversion webhook: %v %v", err, got)
	}
}

// TestEgressSelectionCarriesTheConversionWebhookOfAStoredCRD checks that a
// CRD with webhook conversion kept in a data directory is served, after a
// restart with an egress selector (given as a value), with webhook clients
// that use it.
func TestEgressSelectionCarriesTheConversionWebhookOfAStoredCRD(t *testing.T) {
	t.Parallel()
	proxy, conn := egressProxy(t, "HTTPConnect-UDS")
	dir := t.TempDir()
	ctx := ctxDataDir(t)
	cert, caPEM := serviceWebhookCert(t, "conv")
	hook := &conversionWebhook{}
	ts := httptest.NewUnstartedServer(hook)
	ts.TLS = &tls.Config{Certificates: []tls.Certificate{*cert}}
	ts.StartTLS()
	t.Cleanup(ts.Close)
	port := portOf(t, ts.URL)

	cp1, err := fakeplane.New(fakeplane.WithDataDir(dir))
	if err != nil {
		t.Fatal(err)
	}
	if err := cp1.Start(ctx); err != nil {
		t.Fatal(err)
	}
	servicePort := serviceAt(t, clientset(t, cp1), "conv", port)
	convertThroughWebhook(t, cp1, hook, apiextensionsv1.WebhookClientConfig{CABundle: caPEM,
		Service: &apiextensionsv1.ServiceReference{Namespace: "default", Name: "conv", Path: ptr.To("/convert"), Port: &servicePort}})
	if err := cp1.Stop(); err != nil {
		t.Fatal(err)
	}
	if got := proxy.Dials(); len(got) > 0 {
		t.Fatalf("the proxy was dialed before it was configured: %v", got)
	}

	// Given as a value this time (WithEgressSelector).
	cfg, err := egressselector.ReadEgressSelectorConfiguration(writeEgressConfig(t, "apiserver.k8s.io/v1beta1", map[string]string{"cluster": conn}))
	if err != nil {
		t.Fatal(err)
	}
	cp2, err := fakeplane.New(fakeplane.WithDataDir(dir), fakeplane.WithEgressSelector(cfg))
	if err != nil {
		t.Fatal(err)
	}
	if err := cp2.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer cp2.Stop()
	l, err := dynamic.NewForConfigOrDie(cp2.RESTConfig()).Resource(schema.GroupVersionResource{Group: "stable.example.com", Version: "v2", Resource: "crontabs"}).
		Namespace("default").List(ctx, metav1.ListOptions{})
	if err != nil || len(l.Items) != 1 || l.Items[0].Object["spec"].(map[string]any)["host"] != "h" {
		t.Fatalf("list in v2 after the restart: %v %v", err, l)
	}
	if !dialedPort(proxy, port) {
		t.Errorf("the stored CRD's conversion webhook was not dialed through the proxy: %v", proxy.Dials())
	}
}
