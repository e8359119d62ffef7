package etcdtest

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/goleak"
	"go.uber.org/zap"

	"github.com/fakeplane/fakeplane/internal/syncbuf"
)

// TestMain runs etcd instead of the tests when asked (TestMainIsEtcd's
// child), and fails the package when a goroutine is left after them.
func TestMain(m *testing.M) {
	MainIfAsked()
	goleak.VerifyTestMain(m)
}

// putGet writes a key through a client of endpoints and reads it back.
func putGet(t *testing.T, endpoints []string) { putGetTLS(t, endpoints, nil) }

// putGetTLS is putGet with a client secured by tlsConfig (nil: none).
func putGetTLS(t *testing.T, endpoints []string, tlsConfig *tls.Config) {
	t.Helper()
	cli, err := clientv3.New(clientv3.Config{Endpoints: endpoints, DialTimeout: startTimeout, Logger: zap.NewNop(), TLS: tlsConfig})
	if err != nil {
		t.Fatalf("client of %v: %v", endpoints, err)
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	key := Prefix(t) + "/k"
	if _, err := cli.Put(ctx, key, "v"); err != nil {
		t.Fatalf("put %s: %v", key, err)
	}
	resp, err := cli.Get(ctx, key)
	if err != nil {
		t.Fatalf("get %s: %v", key, err)
	}
	if len(resp.Kvs) != 1 || string(resp.Kvs[0].Value) != "v" {
		t.Fatalf("get %s = %v, want v", key, resp.Kvs)
	}
}

// TestStartInProcess starts etcd in process ($FAKEPLANE_ETCD_BINARY=none)
// and writes and reads a key through it.
func TestStartInProcess(t *testing.T) {
	t.Setenv(BinaryEnv, "none")
	putGet(t, Start(t).Endpoints)
}

// TestStartBinary starts the etcd binary when there is one, else etcd in
// process, and writes and reads a key through it.
func TestStartBinary(t *testing.T) {
	putGet(t, Start(t).Endpoints)
}

// TestStartTLS starts etcd over TLS, in process and as the binary when
// there is one: a client with the certificate StartTLS made writes and
// reads a key, one trusting the CA but without a certificate is refused.
func TestStartTLS(t *testing.T) {
	modes := map[string]string{"in process": "none"}
	if bin, err := Binary(); err == nil {
		modes["binary"] = bin
	}
	for name, binary := range modes {
		t.Run(name, func(t *testing.T) {
			t.Setenv(BinaryEnv, binary)
			srv := StartTLS(t)
			if srv.TLS == nil || !strings.HasPrefix(srv.Endpoints[0], "https://") {
				t.Fatalf("StartTLS gave %v with TLS %v, want https endpoints and client files", srv.Endpoints, srv.TLS)
			}
			cfg, err := srv.TLS.ClientConfig()
			if err != nil {
				t.Fatal(err)
			}
			putGetTLS(t, srv.Endpoints, cfg)

			anonymous := TLSFiles{CAFile: srv.TLS.CAFile}
			noCert, err := anonymous.ClientConfig()
			if err != nil {
				t.Fatal(err)
			}
			cli, err := clientv3.New(clientv3.Config{Endpoints: srv.Endpoints, DialTimeout: startTimeout, Logger: zap.NewNop(), TLS: noCert})
			if err != nil {
				t.Fatal(err)
			}
			defer cli.Close()
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			if _, err := cli.Get(ctx, Prefix(t)); err == nil {
				t.Fatal("a client without a certificate read from etcd, want it refused (--client-cert-auth)")
			}
		})
	}
}

// TestInProcessLeavesNoGoroutine starts etcd in process, uses it and stops
// it (at its subtest's cleanup): no goroutine started meanwhile is left.
func TestInProcessLeavesNoGoroutine(t *testing.T) {
	// Not parallel: goleak compares with the goroutines from before.
	before := goleak.IgnoreCurrent()
	t.Run("serve", func(t *testing.T) {
		putGet(t, startRetrying(t, "in process", func(t testing.TB) (*Server, error) { return startInProcess(t, nil) }).Endpoints)
	})
	if err := goleak.Find(before); err != nil {
		t.Fatalf("etcd in process left goroutines once stopped: %v", err)
	}
}

// TestMainIsEtcd runs this test binary as etcd (Main, through TestMain),
// as envtest runs an etcd binary: --help lists --unsafe-no-fsync (envtest
// checks for it), etcd started with envtest's flags serves a put and a
// get, and SIGTERM stops it as it stops the etcd binary.
func TestMainIsEtcd(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), MainEnv+"=1")

	help := exec.Command(exe, "--help")
	help.Env = env
	out, err := help.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--unsafe-no-fsync") {
		t.Fatalf("etcd --help: %v; its output does not list --unsafe-no-fsync:\n%s", err, out)
	}

	var (
		cmd       *exec.Cmd
		done      chan struct{}
		clientURL string
		lastErr   error
		output    = &syncbuf.Buffer{}
	)
	for range 3 { // a port picked free may be taken before etcd binds it
		cmd, done, clientURL, lastErr = runMain(t, exe, env, output)
		if lastErr == nil {
			break
		}
	}
	if lastErr != nil {
		t.Fatalf("run %s as etcd: %v; its output:\n%s", exe, lastErr, output)
	}
	putGet(t, []string{clientURL})

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatalf("SIGTERM etcd: %v", err)
	}
	<-done
	st := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !(st.Exited() && st.ExitStatus() == 0) && !(st.Signaled() && st.Signal() == syscall.SIGTERM) {
		t.Fatalf("etcd ended with %v on SIGTERM, want exit 0 or SIGTERM re-raised; its output:\n%s", cmd.ProcessState, output)
	}
	if !strings.Contains(output.String(), "received signal; shutting down") {
		t.Fatalf("etcd did not shut down on SIGTERM; its output:\n%s", output)
	}
}

// runMain starts exe as etcd with envtest's flags, killed at t's cleanup
// unless stopped before, and waits until it is healthy at clientURL; done
// is closed when it has exited.
func runMain(t *testing.T, exe string, env []string, output *syncbuf.Buffer) (cmd *exec.Cmd, done chan struct{}, clientURL string, err error) {
	client, peer, err := loopbackURLs()
	if err != nil {
		return nil, nil, "", err
	}
	clientURL, peerURL := client.String(), peer.String()
	cmd = exec.Command(exe,
		"--data-dir="+filepath.Join(t.TempDir(), "data"),
		"--listen-peer-urls="+peerURL,
		"--initial-advertise-peer-urls="+peerURL,
		"--initial-cluster=default="+peerURL,
		"--unsafe-no-fsync=true",
		"--advertise-client-urls="+clientURL,
		"--listen-client-urls="+clientURL,
	)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = output, output
	if err := cmd.Start(); err != nil {
		return nil, nil, "", fmt.Errorf("start: %w", err)
	}
	done = make(chan struct{})
	go func() {
		cmd.Wait()
		close(done)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-done
	})
	if err := waitHealthy(clientURL, nil, done); err != nil {
		cmd.Process.Kill()
		<-done
		return nil, nil, "", errors.Join(err, fmt.Errorf("etcd ended with %v", cmd.ProcessState))
	}
	return cmd, done, clientURL, nil
}
