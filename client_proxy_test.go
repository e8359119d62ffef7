package fakeplane_test

// Clients reaching the control plane through a SOCKS5 proxy and an HTTP
// CONNECT proxy ("Use a SOCKS5 Proxy to Access the Kubernetes API"): given
// as the kubeconfig's proxy-url or as HTTPS_PROXY, with client-go (typed
// client, a watch, an informer) and kubectl. The kubeconfigs name the
// server kubernetes.default.svc (a name of the serving certificate), which
// only the proxies resolve (to 127.0.0.1), as with socks5h or an SSH
// tunnel: Go never sends a loopback address to a proxy from the
// environment. HTTPS_PROXY is read once per process, so those cases run
// kubectl.

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/fakeplane/fakeplane"
	"github.com/fakeplane/fakeplane/internal/testproxy"
)

// proxiedHost is the name the proxied kubeconfigs give the server: one of
// its certificate's names, which only the test proxies resolve.
const proxiedHost = "kubernetes.default.svc"

// clientProxy starts a proxy for clients ("socks5" or "http" CONNECT) that
// resolves proxiedHost to 127.0.0.1, and returns its URL. It stops when the
// test ends.
func clientProxy(t testing.TB, kind string) (dialRecorder, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hosts := testproxy.Hosts{proxiedHost: "127.0.0.1"}
	switch kind {
	case "socks5":
		p, err := testproxy.NewSOCKS5(ln, hosts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(p.Close)
		return p, "socks5://" + p.Addr()
	case "http":
		p := testproxy.NewHTTPConnect(ln, nil, hosts)
		t.Cleanup(p.Close)
		return p, "http://" + p.Addr()
	}
	t.Fatalf("unknown proxy kind %q", kind)
	return nil, ""
}

// proxiedKubeconfig writes the admin kubeconfig of cp with the server named
// https://kubernetes.default.svc:<port> and, unless proxyURL is empty, the
// cluster's proxy-url set, as the seed's kubeconfig.
func proxiedKubeconfig(t testing.TB, cp *fakeplane.ControlPlane, proxyURL string) string {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(cp.KubeconfigPath())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cfg.Clusters {
		c.Server = "https://" + net.JoinHostPort(proxiedHost, portOf(t, cp.URL()))
		c.ProxyURL = proxyURL
	}
	path := filepath.Join(t.TempDir(), "proxied.kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// proxiedThrough reports whether the proxy carried a connection to the
// control plane.
func proxiedThrough(p dialRecorder, cp *fakeplane.ControlPlane) bool {
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(cp.URL(), "https://"))
	for _, d := range p.Dials() {
		if d == net.JoinHostPort(proxiedHost, port) {
			return true
		}
	}
	return false
}

func TestClientGoThroughAProxyInTheKubeconfig(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"socks5", "http"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			proxy, proxyURL := clientProxy(t, kind)
			cp := fakeplane.Start(t)
			cfg, err := clientcmd.BuildConfigFromFlags("", proxiedKubeconfig(t, cp, proxyURL))
			if err != nil {
				t.Fatal(err)
			}
			cs := kubernetes.NewForConfigOrDie(cfg)
			ctx := ctxT(t)

			// A typed client.
			if _, err := cs.CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{}); err != nil {
				t.Fatalf("get namespace default through the %s proxy: %v", kind, err)
			}
			// A watch.
			w, err := cs.CoreV1().ConfigMaps("default").Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=watched"})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			if _, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "watched"}}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			select {
			case ev := <-w.ResultChan():
				if cm, ok := ev.Object.(*corev1.ConfigMap); ev.Type != watch.Added || !ok || cm.Name != "watched" {
					t.Errorf("watch event %s %v, want ADDED watched", ev.Type, ev.Object)
				}
			case <-ctx.Done():
				t.Fatal("no watch event through the proxy")
			}
			// An informer.
			factory := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace("default"))
			lister := factory.Core().V1().ConfigMaps().Lister()
			stop := make(chan struct{})
			defer factory.Shutdown()
			defer close(stop)
			factory.Start(stop)
			factory.WaitForCacheSync(stop)
			if _, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "informed"}}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			if err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
				_, err := lister.ConfigMaps("default").Get("informed")
				return err == nil, nil
			}); err != nil {
				l, _ := lister.List(labels.Everything())
				t.Fatalf("the informer did not see the ConfigMap: %v (it has %d)", err, len(l))
			}
			if !proxiedThrough(proxy, cp) {
				t.Errorf("the %s proxy carried no connection to %s: %v", kind, cp.URL(), proxy.Dials())
			}
		})
	}
}

// runKubectlWith runs kubectl with a kubeconfig of its own and extra
// environment variables (and none of the proxy variables of the test's
// environment).
func runKubectlWith(t *testing.T, kubeconfig string, env []string, args ...string) (string, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), kubectlTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, kubectlBinary(t), append([]string{"--kubeconfig", kubeconfig, "--cache-dir", filepath.Join(t.TempDir(), "cache")}, args...)...)
	for _, kv := range kubectlEnv() {
		name, _, _ := strings.Cut(kv, "=")
		switch strings.ToUpper(name) {
		case "HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY", "ALL_PROXY":
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

func TestKubectlThroughAProxy(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	for i, tc := range []struct {
		name string
		kind string
		// inKubeconfig gives the proxy as proxy-url; otherwise it is in
		// the environment variable env.
		inKubeconfig bool
		env          string
	}{
		{name: "socks5 proxy-url", kind: "socks5", inKubeconfig: true},
		{name: "HTTPS_PROXY=socks5://", kind: "socks5", env: "HTTPS_PROXY"},
		{name: "https_proxy=socks5://", kind: "socks5", env: "https_proxy"},
		{name: "http CONNECT proxy-url", kind: "http", inKubeconfig: true},
		{name: "HTTPS_PROXY=http://", kind: "http", env: "HTTPS_PROXY"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			proxy, proxyURL := clientProxy(t, tc.kind)
			var env []string
			kubeconfig := proxiedKubeconfig(t, cp, proxyURL)
			if !tc.inKubeconfig {
				kubeconfig = proxiedKubeconfig(t, cp, "")
				env = []string{tc.env + "=" + proxyURL}
			}
			// The seed's command, and one that writes.
			out, errOut, err := runKubectlWith(t, kubeconfig, env, "get", "pods", "-A")
			if err != nil || out != "" || errOut != "No resources found\n" {
				t.Errorf("kubectl get pods -A: %v\nstdout:\n%s\nstderr:\n%s", err, out, errOut)
			}
			name := fmt.Sprintf("through-proxy-%d", i)
			out, errOut, err = runKubectlWith(t, kubeconfig, env, "create", "configmap", name)
			if want := fmt.Sprintf("configmap/%s created\n", name); err != nil || out != want {
				t.Errorf("kubectl create configmap: %v\nstdout:\n%s\nstderr:\n%s", err, out, errOut)
			}
			out, errOut, err = runKubectlWith(t, kubeconfig, env, "get", "namespace", "default")
			if err != nil || !regexp.MustCompile(`^NAME\s+STATUS\s+AGE\ndefault\s+Active\s+`+age+`\n$`).MatchString(out) {
				t.Errorf("kubectl get namespace default: %v\nstdout:\n%s\nstderr:\n%s", err, out, errOut)
			}
			if !proxiedThrough(proxy, cp) {
				t.Errorf("the %s proxy carried no connection to %s: %v", tc.kind, cp.URL(), proxy.Dials())
			}
		})
	}
}

// TestKubectlWithoutTheProxyCannotResolveTheServer checks the set-up of
// the proxy tests: without the proxy, the server's name does not resolve,
// so a kubectl that succeeds went through the proxy.
func TestKubectlWithoutTheProxyCannotResolveTheServer(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	_, errOut, err := runKubectlWith(t, proxiedKubeconfig(t, cp, ""), nil, "get", "namespace", "default", "--request-timeout=10s")
	if err == nil || !strings.Contains(errOut, proxiedHost) {
		t.Errorf("kubectl without the proxy: %v\nstderr:\n%s", err, errOut)
	}
}

// TestKubectlExecAndLogsThroughASocks5Proxy: the streaming commands work
// through a SOCKS5 tunnel too (the seed's note that kubectl exec did not,
// before kubectl 1.24): exec's upgrade and a followed log.
func TestKubectlExecAndLogsThroughASocks5Proxy(t *testing.T) {
	t.Parallel()
	cp, workDir, _ := startShellPod(t)
	proxy, proxyURL := clientProxy(t, "socks5")
	kubeconfig := proxiedKubeconfig(t, cp, proxyURL)
	out, errOut, err := runKubectlWith(t, kubeconfig, nil, "exec", "shell", "--", "pwd")
	if err != nil || out != workDir+"\n" {
		t.Errorf("kubectl exec through SOCKS5: %v\nstdout:\n%s\nstderr:\n%s", err, out, errOut)
	}
	if err := cp.Kubelet().AppendLog("default", "shell", "web", "tunnelled"); err != nil {
		t.Fatal(err)
	}
	out, errOut, err = runKubectlWith(t, kubeconfig, nil, "logs", "shell")
	if err != nil || out != "tunnelled\n" {
		t.Errorf("kubectl logs through SOCKS5: %v\nstdout:\n%s\nstderr:\n%s", err, out, errOut)
	}
	if !proxiedThrough(proxy, cp) {
		t.Errorf("the SOCKS5 proxy carried no connection to %s: %v", cp.URL(), proxy.Dials())
	}
}
