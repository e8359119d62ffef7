package fakeplane_test

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/remotecommand"

	"github.com/fakeplane/fakeplane"
)

// streamingConfig is a kwok configuration for the kubelet API: pod
// "shell" runs exec'd commands on this machine in workDir, and its port
// 8080 forwards to target.
func streamingConfig(t *testing.T, workDir, target string) string {
	t.Helper()
	_, port, err := net.SplitHostPort(target)
	if err != nil {
		t.Fatal(err)
	}
	return writeFile(t, t.TempDir(), "kwok.yaml", fmt.Sprintf(`apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterExec
metadata: {name: shell}
spec:
  selector: {matchNamespaces: [default], matchNames: [shell]}
  execs:
  - local: {workDir: %q}
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterPortForward
metadata: {name: shell}
spec:
  selector: {matchNamespaces: [default], matchNames: [shell]}
  forwards:
  - ports: [8080]
    target: {port: %s, address: 127.0.0.1}
`, workDir, port))
}

// startShellPod starts a control plane whose simulated node runs pod
// "shell" with the streaming configuration, and waits for it to run.
func startShellPod(t *testing.T, opts ...fakeplane.Option) (*fakeplane.ControlPlane, string, string) {
	t.Helper()
	backend := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// /bytes/N answers N bytes.
		if n, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/bytes/")); err == nil {
			_, _ = w.Write(bytes.Repeat([]byte{'x'}, n))
			return
		}
		_, _ = fmt.Fprintf(w, "backend saw %s", r.URL.Path)
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = backend.Serve(ln) }()
	t.Cleanup(func() { _ = backend.Close() })
	workDir := t.TempDir()
	cp := fakeplane.Start(t, append([]fakeplane.Option{fakeplane.WithNodes(1), fakeplane.WithKubeletConfig(streamingConfig(t, workDir, ln.Addr().String()))}, opts...)...)
	client := clientset(t, cp)
	p := boundPod("shell", "node-0")
	p.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 8080}}
	if _, err := client.CoreV1().Pods("default").Create(ctxT(t), p, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitPod(t, client, "shell", running)
	return cp, workDir, ln.Addr().String()
}

// TestKubectlLogsOfASimulatedPod: kubectl logs reads what a test appended
// to a container's log through kube-apiserver's pods/log and the node's
// kubelet API, with --tail, --timestamps and -f.
func TestKubectlLogsOfASimulatedPod(t *testing.T) {
	t.Parallel()
	cp, _, _ := startShellPod(t)
	if err := cp.Kubelet().AppendLog("default", "shell", "web", "one", "two", "three"); err != nil {
		t.Fatal(err)
	}
	if out := mustKubectl(t, cp, "logs", "shell"); out != "one\ntwo\nthree\n" {
		t.Errorf("kubectl logs = %q", out)
	}
	if out := mustKubectl(t, cp, "logs", "shell", "--tail=1"); out != "three\n" {
		t.Errorf("kubectl logs --tail=1 = %q", out)
	}
	stamped := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z one$`)
	if out := mustKubectl(t, cp, "logs", "shell", "--timestamps", "--tail=3"); !stamped.MatchString(strings.Split(out, "\n")[0]) {
		t.Errorf("kubectl logs --timestamps = %q", out)
	}
	follow := startKubectl(t, cp, time.Minute, "logs", "-f", "shell")
	follow.waitFor(t, "three", 30*time.Second)
	if err := cp.Kubelet().AppendLog("default", "shell", "web", "four"); err != nil {
		t.Fatal(err)
	}
	follow.waitFor(t, "four", 30*time.Second)
	follow.stop()
}

// TestPodLogErrorsAsKubeAPIServers: the options and pods kube-apiserver
// refuses, with its status codes and messages (checked against refplane).
func TestPodLogErrorsAsKubeAPIServers(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithNodes(1))
	client := clientset(t, cp)
	ctx := ctxT(t)
	two := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "two", Namespace: "default"}, Spec: corev1.PodSpec{
		InitContainers: []corev1.Container{{Name: "init", Image: "x"}},
		Containers:     []corev1.Container{{Name: "a", Image: "x"}, {Name: "b", Image: "x"}},
		// Unschedulable: the pod stays on no node.
		NodeSelector: map[string]string{"nowhere": "true"},
	}}
	if _, err := client.CoreV1().Pods("default").Create(ctx, two, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, pod, query string
		code             int
		message          string
	}{
		{"several containers and none named", "two", "", http.StatusBadRequest, "a container name must be specified for pod two, choose one of: [init a b]"},
		{"an unknown container", "two", "container=c", http.StatusBadRequest, "container c is not valid for pod two"},
		{"invalid options", "two", "container=a&sinceSeconds=0&limitBytes=0&tailLines=-2", http.StatusUnprocessableEntity,
			`PodLogOptions "two" is invalid: [tailLines: Invalid value: -2: must be greater than or equal to 0, limitBytes: Invalid value: 0: must be greater than 0, sinceSeconds: Invalid value: 0: must be greater than 0]`},
		{"a number that is not one", "two", "container=a&tailLines=x", http.StatusBadRequest, `strconv.ParseInt: parsing "x": invalid syntax`},
		{"an unknown pod", "nope", "", http.StatusNotFound, `pods "nope" not found`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := client.CoreV1().RESTClient().Get().Namespace("default").Resource("pods").Name(tc.pod).SubResource("log")
			q, err := url.ParseQuery(tc.query)
			if err != nil {
				t.Fatal(err)
			}
			for k, vs := range q {
				for _, v := range vs {
					req = req.Param(k, v)
				}
			}
			var code int
			// Error, not Raw, decodes the Status the server answered.
			err = req.Do(ctx).StatusCode(&code).Error()
			var st apierrors.APIStatus
			if err == nil || code != tc.code || !errorsAs(err, &st) || st.Status().Message != tc.message {
				t.Errorf("got %d %v, want %d %q", code, err, tc.code, tc.message)
			}
		})
	}
	// A pod on no node has no logs yet: 204, as upstream.
	var code int
	if _, err := client.CoreV1().Pods("default").GetLogs("two", &corev1.PodLogOptions{Container: "a"}).Do(ctx).StatusCode(&code).Raw(); err != nil || code != http.StatusNoContent {
		t.Errorf("logs of an unscheduled pod: %d %v, want 204", code, err)
	}
	if _, err := client.CoreV1().Pods("default").GetLogs("two", &corev1.PodLogOptions{Container: "a"}).Stream(ctx); err != nil {
		t.Errorf("log stream of an unscheduled pod: %v", err)
	}
	_, stderr, err := kubectl(t, cp, "exec", "two", "-c", "a", "--", "ls")
	if err == nil || !strings.Contains(stderr, "pod two does not have a host assigned") {
		t.Errorf("exec in an unscheduled pod: %v %s", err, stderr)
	}
}

// errorsAs is errors.As for an API status.
func errorsAs(err error, st *apierrors.APIStatus) bool {
	s, ok := err.(apierrors.APIStatus)
	if ok {
		*st = s
	}
	return ok
}

// TestKubectlExecAttachCpAndPortForward: kubectl's streaming commands
// against a simulated pod, through kube-apiserver to the kubelet API, over
// WebSocket (kubectl's default) and SPDY (client-go's executor).
func TestKubectlExecAttachCpAndPortForward(t *testing.T) {
	t.Parallel()
	cp, workDir, _ := startShellPod(t)
	ctx := ctxT(t)

	// exec: stdout, stderr and the exit code of a command run locally.
	stdout, stderr, err := kubectl(t, cp, "exec", "shell", "--", "sh", "-c", "echo out; echo err >&2; exit 3")
	if stdout != "out\n" || !strings.Contains(stderr, "err") || !strings.Contains(stderr, "command terminated with exit code 3") {
		t.Errorf("exec: %v stdout %q stderr %q", err, stdout, stderr)
	}
	// exec -i: stdin reaches the command.
	cmd := exec.CommandContext(ctx, kubectlBinary(t), kubectlArgs(cp, []string{"exec", "-i", "shell", "--", "cat"})...)
	cmd.Env = kubectlEnv()
	cmd.Stdin = strings.NewReader("piped in\n")
	if out, err := cmd.Output(); err != nil || string(out) != "piped in\n" {
		t.Errorf("exec -i cat: %v %q", err, out)
	}

	// cp: kubectl runs tar in the pod, here in workDir.
	local := writeFile(t, t.TempDir(), "greeting.txt", "hello from the test\n")
	mustKubectl(t, cp, "cp", local, "shell:"+filepath.Join(workDir, "copied.txt"))
	if b, err := os.ReadFile(filepath.Join(workDir, "copied.txt")); err != nil || string(b) != "hello from the test\n" {
		t.Errorf("kubectl cp into the pod: %v %q", err, b)
	}
	back := filepath.Join(t.TempDir(), "back.txt")
	mustKubectl(t, cp, "cp", "shell:"+filepath.Join(workDir, "copied.txt"), back)
	if b, err := os.ReadFile(back); err != nil || string(b) != "hello from the test\n" {
		t.Errorf("kubectl cp out of the pod: %v %q", err, b)
	}

	// The SPDY executor of client-go, through the server.
	rc := cp.RESTConfig()
	req := clientset(t, cp).CoreV1().RESTClient().Post().Resource("pods").Namespace("default").Name("shell").SubResource("exec").
		VersionedParams(&corev1.PodExecOptions{Command: []string{"pwd"}, Stdout: true}, scheme.ParameterCodec)
	spdy, err := remotecommand.NewSPDYExecutor(rc, "POST", req.URL())
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := spdy.StreamWithContext(ctx, remotecommand.StreamOptions{Stdout: &out}); err != nil || strings.TrimSpace(out.String()) != workDir {
		t.Errorf("SPDY exec pwd: %v %q, want %s", err, out.String(), workDir)
	}

	// attach: lines written after attaching.
	attach := startKubectl(t, cp, time.Minute, "attach", "shell")
	deadline := time.Now().Add(30 * time.Second)
	for i := 0; ; i++ {
		if err := cp.Kubelet().AppendLog("default", "shell", "web", fmt.Sprintf("attached %d", i)); err != nil {
			t.Fatal(err)
		}
		if attachSaw(attach, 200*time.Millisecond) || time.Now().After(deadline) {
			break
		}
	}
	attach.stop()
	if !slicesContainsPrefix(attach.seen, "attached ") {
		t.Errorf("kubectl attach printed %q, stderr %s", attach.seen, attach.stderr)
	}

	// port-forward: a local port reaches the pod's 8080, mapped to the
	// backend.
	pf, port := portForwardShell(t, cp)
	resp, err := http.Get("http://127.0.0.1:" + port + "/through/the/forward")
	if err != nil {
		t.Fatalf("GET through the port-forward: %v (stderr %s)", err, pf.stderr)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if string(body) != "backend saw /through/the/forward" {
		t.Errorf("through the port-forward: %q", body)
	}
	pf.stop()
}

// attachSaw reports whether the stream printed a line within d.
func attachSaw(s *kubectlStream, d time.Duration) bool {
	select {
	case l, ok := <-s.lines:
		if ok {
			s.seen = append(s.seen, l)
		}
		return ok
	case <-time.After(d):
		return false
	}
}

func slicesContainsPrefix(lines []string, prefix string) bool {
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			return true
		}
	}
	return false
}

// TestExecNeedsCreateOnAWebSocket: a WebSocket exec is a GET, which
// kube-apiserver v1.37 also authorizes as create; its 403 carries the
// authorizer's reason alone (RBAC gives none), as refplane's does.
func TestExecNeedsCreateOnAWebSocket(t *testing.T) {
	t.Parallel()
	cp, _, _ := startShellPod(t)
	ctx := ctxT(t)
	admin := clientset(t, cp)
	for _, obj := range []string{
		`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"exec-get","namespace":"default"},"rules":[{"apiGroups":[""],"resources":["pods","pods/exec"],"verbs":["get"]}]}`,
		`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"exec-get","namespace":"default"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"exec-get"},"subjects":[{"kind":"User","name":"getter"}]}`,
	} {
		res := "roles"
		if strings.Contains(obj, `"RoleBinding"`) {
			res = "rolebindings"
		}
		if err := admin.RbacV1().RESTClient().Post().AbsPath("/apis/rbac.authorization.k8s.io/v1/namespaces/default/" + res).Body([]byte(obj)).Do(ctx).Error(); err != nil {
			t.Fatal(err)
		}
	}
	rc, err := cp.AddUser("getter")
	if err != nil {
		t.Fatal(err)
	}
	req := admin.CoreV1().RESTClient().Get().Resource("pods").Namespace("default").Name("shell").SubResource("exec").
		VersionedParams(&corev1.PodExecOptions{Command: []string{"true"}, Stdout: true}, scheme.ParameterCodec)
	ws, err := remotecommand.NewWebSocketExecutor(rc, "GET", req.URL().String())
	if err != nil {
		t.Fatal(err)
	}
	err = ws.StreamWithContext(ctx, remotecommand.StreamOptions{Stdout: io.Discard})
	want := `unable to upgrade streaming request: pods "shell" is forbidden: `
	if err == nil || err.Error() != want {
		t.Errorf("WebSocket exec with get alone: %v, want %s", err, want)
	}
}

// TestKubeletConnectionsGoThroughKonnectivity: with a cluster egress
// selection, pods/log, exec and nodes/proxy reach the kubelet through the
// Konnectivity server, as kube-apiserver's kubelet connections do.
func TestKubeletConnectionsGoThroughKonnectivity(t *testing.T) {
	t.Parallel()
	proxyRec, conn := egressProxy(t, "GRPC-UDS")
	cp := fakeplane.Start(t, fakeplane.WithNodes(1),
		fakeplane.WithEgressSelectorConfigFile(writeEgressConfig(t, "apiserver.k8s.io/v1beta1", map[string]string{"cluster": conn})))
	client := clientset(t, cp)
	ctx := ctxT(t)
	if _, err := client.CoreV1().Pods("default").Create(ctx, boundPod("logger", "node-0"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitPod(t, client, "logger", running)
	kubeletPort := fmt.Sprint(cp.Kubelet().Addr().Port)
	if dialedPort(proxyRec, kubeletPort) {
		t.Fatalf("the kubelet was dialed through the proxy before any request: %v", proxyRec.Dials())
	}
	body, err := client.CoreV1().RESTClient().Get().AbsPath("/api/v1/nodes/node-0/proxy/healthz").DoRaw(ctx)
	if err != nil || string(body) != "ok" {
		t.Fatalf("nodes/proxy/healthz: %v %q", err, body)
	}
	if !dialedPort(proxyRec, kubeletPort) {
		t.Errorf("nodes/proxy did not go through the Konnectivity server: dials %v", proxyRec.Dials())
	}
	if err := cp.Kubelet().AppendLog("default", "logger", "web", "through the tunnel"); err != nil {
		t.Fatal(err)
	}
	if out := mustKubectl(t, cp, "logs", "logger"); out != "through the tunnel\n" {
		t.Errorf("kubectl logs = %q", out)
	}
	// An exec upgrades a connection of its own: one more dial.
	before := len(proxyRec.Dials())
	_, stderr, _ := kubectl(t, cp, "exec", "logger", "--", "ls")
	if !strings.Contains(stderr, "executable file not found") {
		t.Errorf("kubectl exec through the tunnel: %s", stderr)
	}
	if len(proxyRec.Dials()) == before {
		t.Errorf("exec did not open a connection through the Konnectivity server")
	}
}

// portForwardShell runs kubectl port-forward to the shell pod's 8080 and
// returns it with the local port it forwards from.
func portForwardShell(t *testing.T, cp *fakeplane.ControlPlane) (*kubectlStream, string) {
	t.Helper()
	pf := startKubectl(t, cp, time.Minute, "port-forward", "pod/shell", ":8080")
	pf.waitFor(t, `Forwarding from 127\.0\.0\.1:\d+ -> 8080`, 30*time.Second)
	var port string
	for _, l := range pf.seen {
		if m := regexp.MustCompile(`127\.0\.0\.1:(\d+) -> 8080`).FindStringSubmatch(l); m != nil {
			port = m[1]
		}
	}
	return pf, port
}

// TestMaxConnectionBytesPerSecThrottlesPortForward forwards a port of a
// pod with --max-connection-bytes-per-sec at 16 KiB/s: 48 KiB through it
// arrive whole, and no sooner than the limit allows. kube-apiserver's
// throttle (flowrate, in upstream's upgrade-aware proxy) lets through a
// tenth of a second's worth at a time, so the 48 KiB take about 3 s; the
// test asks for half of that, a bound a slow machine only makes safer.
func TestMaxConnectionBytesPerSecThrottlesPortForward(t *testing.T) {
	t.Parallel()
	const limit, size = 16 << 10, 48 << 10
	cp, _, _ := startShellPod(t, fakeplane.WithMaxConnectionBytesPerSec(limit))
	pf, port := portForwardShell(t, cp)
	start := time.Now()
	resp, err := http.Get("http://127.0.0.1:" + port + "/bytes/" + strconv.Itoa(size))
	if err != nil {
		t.Fatalf("GET through the port-forward: %v (stderr %s)", err, pf.stderr)
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	elapsed := time.Since(start)
	if err != nil || len(body) != size {
		t.Fatalf("through the throttled port-forward: %d bytes, %v; want %d", len(body), err, size)
	}
	if floor := time.Duration(size/limit) * time.Second / 2; elapsed < floor {
		t.Errorf("%d bytes at %d bytes/s came in %v, sooner than %v: not throttled", size, limit, elapsed, floor)
	}
	pf.stop()
}
