// Package proxies holds the walkthroughs of API access through proxies, run
// against fakeplane: "Use an HTTP Proxy to Access the Kubernetes API"
// (kubectl proxy, read with plain HTTP), "Use a SOCKS5 Proxy to Access the
// Kubernetes API" (kubectl through a SOCKS5 proxy given in the kubeconfig
// and in HTTPS_PROXY) and "Set up Konnectivity service" (the control
// plane's connections toward the cluster through a Konnectivity server in
// GRPC mode over a Unix socket). The proxies run in the test process
// (internal/testproxy) in place of ssh -D and the konnectivity-server pod.
package proxies

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
	"github.com/fakeplane/fakeplane/examples/internal/walkthrough"
	"github.com/fakeplane/fakeplane/internal/pki"
	"github.com/fakeplane/fakeplane/internal/testproxy"
)

type step = walkthrough.Step

// kubectl runs kubectl with a kubeconfig and extra environment variables,
// without the proxy variables of the test's own environment.
func kubectl(t *testing.T, kubeconfig string, env []string, args ...string) (string, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "kubectl", append([]string{"--kubeconfig", kubeconfig}, args...)...)
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch strings.ToUpper(name) {
		case "HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY", "ALL_PROXY", "KUBECONFIG":
			continue
		}
		cmd.Env = append(cmd.Env, kv)
	}
	cmd.Env = append(cmd.Env, env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	return out.String(), errOut.String(), err
}

// get GETs a URL with curl's User-Agent.
func get(t *testing.T, url string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("User-Agent", "curl/8.5.0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, body
}

func TestHTTPProxyViaKubectlProxy(t *testing.T) {
	cp := fakeplane.Start(t, fakeplane.WithNodes(1))
	// The app whose pods the walkthrough lists.
	walkthrough.Run(t, cp, []step{
		{Args: []string{"create", "deployment", "hello-app", "--image=gcr.io/google-samples/hello-app:2.0", "--port=8080"}, Stdout: `^deployment.apps/hello-app created$`},
	})

	// kubectl proxy --port=8080, on a port the kernel picks here.
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, "kubectl", "--kubeconfig", cp.KubeconfigPath(), "proxy", "--port=0")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if !strings.HasPrefix(line, "Starting to serve on 127.0.0.1:") {
		t.Fatalf("kubectl proxy printed %q (%v)", line, err)
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	base := "http://" + strings.TrimSpace(strings.TrimPrefix(line, "Starting to serve on "))

	// curl http://localhost:8080/api/
	code, body := get(t, base+"/api/")
	var versions metav1.APIVersions
	if err := json.Unmarshal(body, &versions); code != http.StatusOK || err != nil || !slices.Equal(versions.Versions, []string{"v1"}) ||
		len(versions.ServerAddressByClientCIDRs) != 1 || versions.ServerAddressByClientCIDRs[0].ClientCIDR != "0.0.0.0/0" ||
		"https://"+versions.ServerAddressByClientCIDRs[0].ServerAddress != cp.URL() {
		t.Errorf("GET /api/: %d %v\n%s", code, err, body)
	}
	if !bytes.HasPrefix(body, []byte("{\n  \"kind\": \"APIVersions\",\n")) {
		t.Errorf("GET /api/ is not indented for curl:\n%s", body)
	}

	// curl http://localhost:8080/api/v1/namespaces/default/pods: the
	// Deployment's pod, Running.
	if err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		code, body = get(t, base+"/api/v1/namespaces/default/pods")
		var pods corev1.PodList
		if code != http.StatusOK || json.Unmarshal(body, &pods) != nil {
			return false, nil
		}
		return slices.ContainsFunc(pods.Items, func(p corev1.Pod) bool {
			return strings.HasPrefix(p.GenerateName, "hello-app-") && p.Labels["pod-template-hash"] != "" && p.Status.Phase == corev1.PodRunning
		}), nil
	}); err != nil {
		t.Errorf("no Running hello-app pod in the PodList: %v\n%s", err, body)
	}
}

func TestSOCKS5Proxy(t *testing.T) {
	cp := fakeplane.Start(t)
	// ssh -D 1080 ... kubernetes-remote-server.example: a SOCKS5 proxy on
	// this side that reaches the server's host; the name resolves there.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	socks, err := testproxy.NewSOCKS5(ln, testproxy.Hosts{"kubernetes-remote-server.example": "127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(socks.Close)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(cp.URL(), "https://"))
	server := "https://kubernetes-remote-server.example:" + port

	// The kubeconfig of the walkthrough: the server as the remote host
	// names it (its certificate names "kubernetes"), and proxy-url.
	kc, err := clientcmd.LoadFromFile(cp.KubeconfigPath())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range kc.Clusters {
		c.Server, c.TLSServerName = server, "kubernetes"
	}
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.kubeconfig")
	if err := clientcmd.WriteToFile(*kc, plain); err != nil {
		t.Fatal(err)
	}
	for _, c := range kc.Clusters {
		c.ProxyURL = "socks5://" + socks.Addr()
	}
	withProxy := filepath.Join(dir, "proxy.kubeconfig")
	if err := clientcmd.WriteToFile(*kc, withProxy); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name       string
		kubeconfig string
		env        []string
	}{
		{"proxy-url in the kubeconfig", withProxy, nil},
		{"export HTTPS_PROXY=socks5://localhost:1080", plain, []string{"HTTPS_PROXY=socks5://" + socks.Addr()}},
		{"https_proxy", plain, []string{"https_proxy=socks5://" + socks.Addr()}},
	} {
		out, errOut, err := kubectl(t, tc.kubeconfig, tc.env, "get", "pods")
		if err != nil || out != "" || errOut != "No resources found in default namespace.\n" {
			t.Errorf("%s: kubectl get pods: %v\nstdout:\n%s\nstderr:\n%s", tc.name, err, out, errOut)
		}
	}
	if !slices.Contains(socks.Dials(), "kubernetes-remote-server.example:"+port) {
		t.Errorf("the SOCKS5 proxy did not carry kubectl's connections: %v", socks.Dials())
	}
	// unset https_proxy: the remote name does not resolve here.
	if _, errOut, err := kubectl(t, plain, nil, "get", "pods", "--request-timeout=10s"); err == nil || !strings.Contains(errOut, "kubernetes-remote-server.example") {
		t.Errorf("kubectl without the proxy: %v\n%s", err, errOut)
	}
}

func TestKonnectivity(t *testing.T) {
	// The Konnectivity server, listening on a Unix socket for the control
	// plane (GRPC mode). It stops after the control plane.
	dir, err := os.MkdirTemp("", "konnectivity-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	sock := filepath.Join(dir, "konnectivity-server.socket")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	konn := testproxy.NewKonnectivity(ln, nil)
	t.Cleanup(konn.Close)

	// --egress-selector-config-file with the walkthrough's configuration.
	tmpl, err := os.ReadFile("konnectivity/egress-selector-configuration.yaml.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(dir, "egress-selector-configuration.yaml")
	if err := os.WriteFile(config, bytes.ReplaceAll(tmpl, []byte("SOCKET"), []byte(sock)), 0o600); err != nil {
		t.Fatal(err)
	}
	cp := fakeplane.Start(t, fakeplane.WithEgressSelectorConfigFile(config))

	// The objects the walkthrough deploys.
	walkthrough.Run(t, cp, []step{
		{Args: []string{"apply", "-f", "konnectivity/konnectivity-rbac.yaml"},
			Stdout: `^clusterrolebinding.rbac.authorization.k8s.io/system:konnectivity-server created\nserviceaccount/konnectivity-agent created$`},
		{Args: []string{"apply", "-f", "konnectivity/konnectivity-server.yaml"}, Stdout: `^pod/konnectivity-server created$`},
		{Args: []string{"apply", "-f", "konnectivity/konnectivity-agent.yaml"}, Stdout: `^daemonset.apps/konnectivity-agent created$`},
	})

	// The Konnectivity server's own kubeconfig: a client certificate the
	// cluster CA signs, CN system:konnectivity-server, which the binding
	// above lets review tokens (the openssl and kubectl config steps).
	konnKubeconfig := filepath.Join(dir, "konnectivity-server.conf")
	if err := cp.WriteKubeconfig(konnKubeconfig, "system:konnectivity-server"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"auth", "whoami", "-o", "jsonpath={.status.userInfo.username}"}, "system:konnectivity-server"},
		{[]string{"auth", "can-i", "create", "tokenreviews.authentication.k8s.io"}, "yes\n"},
		{[]string{"auth", "can-i", "list", "pods"}, "no\n"},
	} {
		if out, errOut, _ := kubectl(t, konnKubeconfig, nil, tc.args...); out != tc.want {
			t.Errorf("kubectl %s as system:konnectivity-server: %q, want %q\n%s", strings.Join(tc.args, " "), out, tc.want, errOut)
		}
	}

	// A connection toward the cluster: an admission webhook given as a
	// Service, called through the Konnectivity server.
	ca, err := pki.NewCA("webhook-ca")
	if err != nil {
		t.Fatal(err)
	}
	kp, err := ca.NewServingCert("hook.default.svc", []string{"hook.default.svc"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := kp.TLSCertificate()
	if err != nil {
		t.Fatal(err)
	}
	hook := httptest.NewUnstartedServer(http.HandlerFunc(allow))
	hook.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	hook.StartTLS()
	t.Cleanup(hook.Close)
	_, portStr, _ := net.SplitHostPort(hook.Listener.Addr().String())
	port, _ := strconv.Atoi(portStr)

	cs := kubernetes.NewForConfigOrDie(cp.RESTConfig())
	ctx := t.Context()
	// The webhook runs on this machine: an ExternalName Service naming
	// localhost reaches it (kube-apiserver refuses loopback Endpoints), and
	// the reference names the server's port.
	servicePort := int32(port)
	if _, err := cs.CoreV1().Services("default").Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "hook"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "localhost",
			Ports: []corev1.ServicePort{{Name: "https", Port: servicePort}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	none, fail := admissionregistrationv1.SideEffectClassNone, admissionregistrationv1.Fail
	if _, err := cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "hook"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name: "hook.example.com", SideEffects: &none, FailurePolicy: &fail, AdmissionReviewVersions: []string{"v1"},
			ClientConfig: admissionregistrationv1.WebhookClientConfig{CABundle: ca.CertPEM,
				Service: &admissionregistrationv1.ServiceReference{Namespace: "default", Name: "hook", Path: ptr.To("/validate"), Port: &servicePort}},
			Rules: []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}}}},
		}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	hookAddr := "localhost:" + portStr
	if err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		name := "probe-" + strconv.FormatInt(time.Now().UnixNano(), 36)
		if _, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
			return false, nil
		}
		return slices.Contains(konn.Dials(), hookAddr), nil
	}); err != nil {
		t.Errorf("the webhook was not called through the Konnectivity server: %v; it dialed %v", err, konn.Dials())
	}
}

// allow answers an AdmissionReview with allowed.
func allow(w http.ResponseWriter, r *http.Request) {
	var review admissionv1.AdmissionReview
	if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Request == nil {
		http.Error(w, "no AdmissionReview", http.StatusBadRequest)
		return
	}
	review.Response = &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: true}
	review.Request = nil
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(review)
}
