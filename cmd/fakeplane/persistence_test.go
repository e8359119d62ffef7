package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/fakeplane/fakeplane/internal/etcdtest"
	"github.com/fakeplane/fakeplane/internal/syncbuf"
)

// runMainEnv makes the test binary behave as the fakeplane command, so the
// tests can run it as a separate process and kill it.
const runMainEnv = "FAKEPLANE_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) == "1" {
		if filepath.Base(os.Args[0]) == "etcd" {
			// Linked as envtest's etcd (envtestAssets).
			etcdtest.Main(os.Args)
			os.Exit(0)
		}
		os.Exit(exitCode(run(os.Args[1:]), os.Stderr))
	}
	os.Exit(m.Run())
}

// proc is the fakeplane command running as a child process.
type proc struct {
	cmd    *exec.Cmd
	url    string
	stdout *syncbuf.Buffer
	stderr *syncbuf.Buffer
	done   chan struct{} // closed when the process has exited
	err    error         // Wait's result, set before done is closed
}

// startFakeplane runs the command with args and extra environment variables
// and waits for its "serving https://..." line. The process is killed when
// the test ends if it still runs.
func startFakeplane(t *testing.T, env []string, args ...string) *proc {
	t.Helper()
	p := &proc{stdout: &syncbuf.Buffer{}, stderr: &syncbuf.Buffer{}, done: make(chan struct{})}
	p.cmd = exec.Command(os.Args[0], args...)
	p.cmd.Env = append(append(os.Environ(), runMainEnv+"=1"), env...)
	p.cmd.Stdout = p.stdout
	p.cmd.Stderr = p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start fakeplane: %v", err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			// SIGTERM, so that it stops as a user's Ctrl-C stops it and
			// removes its temporary data directory; SIGKILL if it hangs.
			_ = p.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-p.done:
			case <-time.After(30 * time.Second):
				_ = p.cmd.Process.Kill()
				<-p.done
			}
		}
		if t.Failed() {
			t.Logf("fakeplane %v\nstdout:\n%s\nstderr:\n%s", args, p.stdout, p.stderr)
		}
	})

	deadline := time.After(60 * time.Second)
	for {
		if u, ok := servingURL(p.stdout.String()); ok {
			p.url = u
			return p
		}
		select {
		case <-p.done:
			t.Fatalf("fakeplane exited before serving (%v)\nstdout:\n%s\nstderr:\n%s", p.err, p.stdout, p.stderr)
		case <-deadline:
			t.Fatalf("fakeplane did not print its serving line within 60s\nstdout:\n%s\nstderr:\n%s", p.stdout, p.stderr)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// servingURL finds the URL in "fakeplane is serving https://HOST:PORT; ...".
func servingURL(out string) (string, bool) {
	i := strings.Index(out, "serving https://")
	if i < 0 {
		return "", false
	}
	rest := out[i+len("serving "):]
	j := strings.IndexAny(rest, "; \t\n")
	if j < 0 {
		return "", false // the line is not complete yet
	}
	return rest[:j], true
}

// signal sends sig and waits (up to timeout) for the process to exit.
func (p *proc) signal(t *testing.T, sig os.Signal, timeout time.Duration) error {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatalf("signal %v: %v", sig, err)
	}
	select {
	case <-p.done:
		return p.err
	case <-time.After(timeout):
		t.Fatalf("fakeplane still running %v after %v", timeout, sig)
		return nil
	}
}

// clientFor builds a typed clientset from a kubeconfig's bytes, unthrottled.
func clientFor(t *testing.T, kubeconfig []byte) *kubernetes.Clientset {
	t.Helper()
	cfg, err := clientcmd.RESTConfigFromKubeConfig(kubeconfig)
	if err != nil {
		t.Fatalf("kubeconfig: %v", err)
	}
	return newClient(t, cfg)
}

// clientForFile is clientFor of the kubeconfig file at path.
func clientForFile(t *testing.T, path string) *kubernetes.Clientset {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return clientFor(t, b)
}

func newClient(t *testing.T, cfg *rest.Config) *kubernetes.Clientset {
	t.Helper()
	cfg.QPS = -1
	cfg.Timeout = 30 * time.Second
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	return c
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func parseRV(t *testing.T, what, rv string) uint64 {
	t.Helper()
	n, err := strconv.ParseUint(rv, 10, 64)
	if err != nil {
		t.Fatalf("%s: resourceVersion %q is not a number: %v", what, rv, err)
	}
	return n
}

const (
	persistWorkers = 8
	persistAckGoal = 200
	persistLabel   = "fakeplane-test/persist"
)

// TestPersistAcknowledgedWritesSurviveSIGKILL kills the command with SIGKILL
// while clients are creating ConfigMaps, restarts it on the same data
// directory and checks that every write it acknowledged is still there.
func TestPersistAcknowledgedWritesSurviveSIGKILL(t *testing.T) {
	dir := t.TempDir()
	kcPath := filepath.Join(dir, "kc")
	dataDir := filepath.Join(dir, "data")

	p := startFakeplane(t, nil, "--listen", "127.0.0.1:0", "--data-dir", dataDir, "--kubeconfig", kcPath)
	oldKubeconfig := readFile(t, kcPath)
	client := clientFor(t, oldKubeconfig)
	ctx := context.Background()

	// Writers: each creates ConfigMaps until one fails after the kill.
	var (
		mu       sync.Mutex
		acked    = map[string]string{} // name -> resourceVersion returned by the create
		nAcked   atomic.Int64
		inFlight atomic.Int64 // creates sent and not yet answered
		killed   atomic.Bool
		reached  = make(chan struct{})
		reachOne sync.Once
		wg       sync.WaitGroup
		errsMu   sync.Mutex
		errs     []error
	)
	for w := range persistWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				cm := &corev1.ConfigMap{
					ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%d-%d", w, i), Labels: map[string]string{persistLabel: "1"}},
					Data:       map[string]string{"worker": strconv.Itoa(w), "i": strconv.Itoa(i), "pad": strings.Repeat("x", 200)},
				}
				inFlight.Add(1)
				got, err := client.CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{})
				inFlight.Add(-1)
				if err != nil {
					if !killed.Load() {
						errsMu.Lock()
						errs = append(errs, fmt.Errorf("create %s before the kill: %w", cm.Name, err))
						errsMu.Unlock()
					}
					return
				}
				mu.Lock()
				acked[got.Name] = got.ResourceVersion
				mu.Unlock()
				if nAcked.Add(1) >= persistAckGoal {
					reachOne.Do(func() { close(reached) })
				}
			}
		}()
	}

	select {
	case <-reached:
	case <-time.After(2 * time.Minute):
		t.Fatalf("only %d creates acknowledged after 2m; errors: %v", nAcked.Load(), errs)
	}
	// The writers keep going: several creates are in flight now.
	killed.Store(true)
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatalf("SIGKILL: %v", err)
	}
	inFlightAtKill := inFlight.Load()
	<-p.done
	wg.Wait()
	if len(errs) > 0 {
		t.Fatalf("creates failed before the kill: %v", errors.Join(errs...))
	}
	mu.Lock()
	defer mu.Unlock()
	t.Logf("%d creates acknowledged, %d in flight at SIGKILL (%v)", len(acked), inFlightAtKill, p.err)
	if len(acked) < persistAckGoal {
		t.Fatalf("%d acknowledged creates, want >= %d", len(acked), persistAckGoal)
	}

	// Restart on the same directory and, so that the old kubeconfig's server
	// address stays valid, on the same port.
	u, err := url.Parse(p.url)
	if err != nil {
		t.Fatalf("serving URL %q: %v", p.url, err)
	}
	listen := net.JoinHostPort("127.0.0.1", u.Port())
	p2 := startFakeplane(t, nil, "--listen", listen, "--data-dir", dataDir, "--kubeconfig", kcPath)
	if p2.url != p.url {
		t.Fatalf("restarted at %s, want %s", p2.url, p.url)
	}

	// The kubeconfig written before the crash (old client certificate, old
	// CA bundle) still works: the CA was kept in the data directory.
	oldClient := clientFor(t, oldKubeconfig)
	list, err := oldClient.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{LabelSelector: persistLabel})
	if err != nil {
		t.Fatalf("list with the kubeconfig written before the crash: %v", err)
	}
	found := make(map[string]string, len(list.Items))
	var maxOld uint64
	for _, cm := range list.Items {
		found[cm.Name] = cm.ResourceVersion
		maxOld = max(maxOld, parseRV(t, cm.Name, cm.ResourceVersion))
	}
	lost := 0
	for name, rv := range acked {
		got, ok := found[name]
		switch {
		case !ok:
			lost++
			if lost <= 10 {
				t.Errorf("acknowledged ConfigMap %s (resourceVersion %s) is gone after the restart", name, rv)
			}
		case got != rv:
			t.Errorf("ConfigMap %s has resourceVersion %s after the restart, the create returned %s", name, got, rv)
		}
		maxOld = max(maxOld, parseRV(t, name, rv))
	}
	if lost > 0 {
		t.Errorf("%d of %d acknowledged creates lost", lost, len(acked))
	}
	t.Logf("%d ConfigMaps after the restart (%d acknowledged, %d committed but unacknowledged)", len(found), len(acked), len(found)-len(acked)+lost)
	if listRV := parseRV(t, "list", list.ResourceVersion); listRV < maxOld {
		t.Errorf("list resourceVersion %d is older than stored objects (max %d)", listRV, maxOld)
	}

	// A new write gets a resourceVersion newer than everything before.
	created, err := oldClient.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "after-restart"},
		Data:       map[string]string{"k": "v"},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create after restart: %v", err)
	}
	if rv := parseRV(t, created.Name, created.ResourceVersion); rv <= maxOld {
		t.Errorf("create after restart got resourceVersion %d, not greater than the newest old one %d", rv, maxOld)
	}

	// The restarted process rewrote the kubeconfig with the same CA.
	newCfg, err := clientcmd.Load(readFile(t, kcPath))
	if err != nil {
		t.Fatal(err)
	}
	oldCfg, err := clientcmd.Load(oldKubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range newCfg.Clusters {
		if old, ok := oldCfg.Clusters[name]; !ok || !bytes.Equal(old.CertificateAuthorityData, c.CertificateAuthorityData) {
			t.Errorf("cluster %q: CA in the kubeconfig changed across the restart", name)
		}
	}

	if err := p2.signal(t, os.Interrupt, 30*time.Second); err != nil {
		t.Errorf("restarted fakeplane exited with %v after SIGINT", err)
	}
}

// TestSIGINTExitsCleanly checks that Ctrl-C stops the command with exit code
// 0 while a client holds a watch open, and that the data directory then
// opens again at once (the store was closed).
func TestSIGINTExitsCleanly(t *testing.T) {
	dir := t.TempDir()
	kcPath := filepath.Join(dir, "kc")
	dataDir := filepath.Join(dir, "data")
	p := startFakeplane(t, nil, "--listen", "127.0.0.1:0", "--data-dir", dataDir, "--kubeconfig", kcPath)
	client := clientFor(t, readFile(t, kcPath))
	ctx := context.Background()
	if _, err := client.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "before-sigint"}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create: %v", err)
	}
	w, err := client.CoreV1().ConfigMaps("default").Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("watch: %v", err)
	}
	defer w.Stop()

	start := time.Now()
	if err := p.signal(t, os.Interrupt, 30*time.Second); err != nil {
		t.Fatalf("fakeplane exited with %v after SIGINT, want exit code 0", err)
	}
	t.Logf("exited %v after SIGINT", time.Since(start).Round(time.Millisecond))
	if code := p.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("exit code %d, want 0", code)
	}

	p2 := startFakeplane(t, nil, "--listen", "127.0.0.1:0", "--data-dir", dataDir, "--kubeconfig", kcPath)
	client = clientFor(t, readFile(t, kcPath))
	if _, err := client.CoreV1().ConfigMaps("default").Get(ctx, "before-sigint", metav1.GetOptions{}); err != nil {
		t.Errorf("get after a clean restart: %v", err)
	}
	if err := p2.signal(t, syscall.SIGTERM, 30*time.Second); err != nil {
		t.Errorf("fakeplane exited with %v after SIGTERM, want exit code 0", err)
	}
}

// TestTempDirRemovedAtExit checks that without --data-dir the command keeps
// its state in a temporary directory that is gone after it exits.
func TestTempDirRemovedAtExit(t *testing.T) {
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			tmp := t.TempDir()
			kcPath := filepath.Join(t.TempDir(), "kc")
			p := startFakeplane(t, []string{"TMPDIR=" + tmp}, "--listen", "127.0.0.1:0", "--kubeconfig", kcPath)

			dirs, _ := filepath.Glob(filepath.Join(tmp, "fakeplane-*"))
			if len(dirs) != 1 {
				t.Fatalf("while running, TMPDIR holds %v, want one fakeplane-* directory", dirs)
			}
			if _, err := os.Stat(filepath.Join(dirs[0], "fakeplane.db")); err != nil {
				t.Errorf("store not in the temporary directory: %v", err)
			}
			client := clientFor(t, readFile(t, kcPath))
			if _, err := client.CoreV1().ConfigMaps("default").Create(context.Background(),
				&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x"}}, metav1.CreateOptions{}); err != nil {
				t.Fatalf("create: %v", err)
			}

			if err := p.signal(t, sig, 30*time.Second); err != nil {
				t.Fatalf("fakeplane exited with %v after %v, want exit code 0", err, sig)
			}
			entries, err := os.ReadDir(tmp)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				if strings.HasPrefix(e.Name(), "fakeplane-") {
					t.Errorf("temporary directory %s left behind after exit", filepath.Join(tmp, e.Name()))
				}
			}
		})
	}
}
