package fakeplane_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"

	"github.com/fakeplane/fakeplane"
)

// kubeletGet GETs path from the node's kubelet API at the address and port
// the node reports, with client as kube-apiserver would.
func kubeletGet(t *testing.T, client *http.Client, node *corev1.Node, path string) (int, string) {
	t.Helper()
	host := net.JoinHostPort(node.Status.Addresses[0].Address, strconv.Itoa(int(node.Status.DaemonEndpoints.KubeletEndpoint.Port)))
	resp, err := client.Get("https://" + host + path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

func TestSimulatedNodesPointAtTheirKubeletAPI(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithNodes(1))
	ctx := ctxT(t)
	client := clientset(t, cp)
	node, err := client.CoreV1().Nodes().Get(ctx, "node-0", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "127.0.0.1"}, {Type: corev1.NodeHostName, Address: "node-0"}}
	if got := node.Status.Addresses; len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("addresses %+v, want %+v", got, want)
	}
	if port := node.Status.DaemonEndpoints.KubeletEndpoint.Port; int(port) != cp.Kubelet().Addr().Port {
		t.Errorf("kubelet port %d, want the kubelet API's %d", port, cp.Kubelet().Addr().Port)
	}

	// kube-apiserver's kubelet client certificate is of the cluster CA.
	rc, err := cp.AddUser("kube-apiserver-kubelet-client", "kubeadm:cluster-admins")
	if err != nil {
		t.Fatal(err)
	}
	withCert, err := rest.HTTPClientFor(rc)
	if err != nil {
		t.Fatal(err)
	}
	if code, body := kubeletGet(t, withCert, node, "/healthz"); code != http.StatusOK || body != "ok" {
		t.Errorf("/healthz = %d %q, want 200 ok", code, body)
	}
	noCert := rest.CopyConfig(rc)
	noCert.CertData, noCert.KeyData = nil, nil
	anonymous, err := rest.HTTPClientFor(noCert)
	if err != nil {
		t.Fatal(err)
	}
	if code, body := kubeletGet(t, anonymous, node, "/healthz"); code != http.StatusUnauthorized || body != "Unauthorized" {
		t.Errorf("/healthz without a client certificate = %d %q, want 401 Unauthorized", code, body)
	}

	if _, err := client.CoreV1().Pods("default").Create(ctx, boundPod("logger", "node-0"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitPod(t, client, "logger", running)
	if err := cp.Kubelet().AppendLog("default", "logger", "web", "hello", "world"); err != nil {
		t.Fatal(err)
	}
	if code, body := kubeletGet(t, withCert, node, "/containerLogs/default/logger/web"); code != http.StatusOK || body != "hello\nworld\n" {
		t.Errorf("container logs = %d %q, want the appended lines", code, body)
	}
	code, body := kubeletGet(t, withCert, node, "/pods")
	var pods corev1.PodList
	if err := json.Unmarshal([]byte(body), &pods); code != http.StatusOK || err != nil || len(pods.Items) != 1 || pods.Items[0].Name != "logger" {
		t.Errorf("/pods = %d %.200s (%v), want a PodList of the pod logger", code, body, err)
	}
}

func TestKubeletConfigFilesConfigureTheKubeletAPI(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	logs := filepath.Join(dir, "web.log")
	if err := os.WriteFile(logs, []byte("2026-01-02T03:04:05Z stdout F from kwok's logsFile\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(dir, "kwok.yaml")
	if err := os.WriteFile(config, []byte(`apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterLogs
metadata:
  name: web-logs
spec:
  selector:
    matchNamespaces: [default]
  logs:
  - containers: [web]
    logsFile: `+logs+`
`), 0o600); err != nil {
		t.Fatal(err)
	}
	cp := fakeplane.Start(t, fakeplane.WithNodes(1), fakeplane.WithKubeletConfig(config))
	ctx := ctxT(t)
	client := clientset(t, cp)
	if _, err := client.CoreV1().Pods("default").Create(ctx, boundPod("web", "node-0"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitPod(t, client, "web", running)
	node, err := client.CoreV1().Nodes().Get(ctx, "node-0", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rc, err := cp.AddUser("kube-apiserver-kubelet-client", "kubeadm:cluster-admins")
	if err != nil {
		t.Fatal(err)
	}
	hc, err := rest.HTTPClientFor(rc)
	if err != nil {
		t.Fatal(err)
	}
	if code, body := kubeletGet(t, hc, node, "/containerLogs/default/web/web?timestamps=true"); code != http.StatusOK || body != "2026-01-02T03:04:05.000000000Z from kwok's logsFile\n" {
		t.Errorf("container logs = %d %q, want the logsFile's line", code, body)
	}
}

func TestWithoutKubeletAPINodesKeepMadeUpAddresses(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithNodes(1), fakeplane.WithoutKubeletAPI())
	node, err := clientset(t, cp).CoreV1().Nodes().Get(ctxT(t), "node-0", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := node.Status.Addresses[0]; got.Type != corev1.NodeInternalIP || got.Address != "10.89.0.2" {
		t.Errorf("first address %+v, want InternalIP 10.89.0.2", got)
	}
	if port := node.Status.DaemonEndpoints.KubeletEndpoint.Port; port != 10250 {
		t.Errorf("kubelet port %d, want 10250", port)
	}
	if cp.Kubelet() != nil {
		t.Error("Kubelet() is not nil with the kubelet API off")
	}
}

func TestKubeletAPIFindsPodsWithoutThePodLifecycle(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithNodes(1), fakeplane.WithoutPodLifecycle())
	ctx := ctxT(t)
	client := clientset(t, cp)
	if _, err := client.CoreV1().Pods("default").Create(ctx, boundPod("idle", "node-0"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	node, err := client.CoreV1().Nodes().Get(ctx, "node-0", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rc, err := cp.AddUser("kube-apiserver-kubelet-client", "kubeadm:cluster-admins")
	if err != nil {
		t.Fatal(err)
	}
	hc, err := rest.HTTPClientFor(rc)
	if err != nil {
		t.Fatal(err)
	}
	// The pod stays as bound, with no container started: the kubelet's
	// answer for a container it has no status of.
	var code int
	var body string
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		code, body = kubeletGet(t, hc, node, "/containerLogs/default/idle/web")
		return code != http.StatusNotFound, nil
	})
	if err != nil || code != http.StatusBadRequest || body != `container "web" in pod "idle" is not available` {
		t.Errorf("container logs = %d %q (%v), want 400 not available", code, body, err)
	}
}

// TestKubeletPortReachesNodesWithoutOne checks kube-apiserver's
// (deprecated) --kubelet-port: a Node that reports no kubelet port
// (status.daemonEndpoints.kubeletEndpoint.port 0) is reached at it, here by
// a pod's log request; the default is 10250, where nothing answers here.
func TestKubeletPortReachesNodesWithoutOne(t *testing.T) {
	t.Parallel()
	kubelet := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "from the kubelet port at "+r.URL.Path+"\n")
	}))
	t.Cleanup(kubelet.Close)
	port := kubelet.Listener.Addr().(*net.TCPAddr).Port
	ctx := context.Background()
	for _, tc := range []struct {
		opts []fakeplane.Option
		want string
	}{
		{[]fakeplane.Option{fakeplane.WithKubeletPort(port)}, "from the kubelet port at /containerLogs/default/p/c\n"},
		{nil, ""},
	} {
		cs := clientset(t, fakeplane.Start(t, append(tc.opts, fakeplane.WithEnvtestShape())...))
		node, err := cs.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "portless"}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		node.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "127.0.0.1"}}
		if _, err := cs.CoreV1().Nodes().UpdateStatus(ctx, node, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"},
			Spec: corev1.PodSpec{NodeName: "portless", Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}
		if _, err := cs.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		got, err := cs.CoreV1().Pods("default").GetLogs("p", &corev1.PodLogOptions{}).DoRaw(ctx)
		if tc.want == "" {
			if err == nil {
				t.Errorf("without WithKubeletPort: logs %q from port 10250, want an error", got)
			}
			continue
		}
		if err != nil || string(got) != tc.want {
			t.Errorf("WithKubeletPort(%d): logs %q, %v; want %q", port, got, err, tc.want)
		}
	}
}
