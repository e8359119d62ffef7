// Package etcdtest starts an etcd server for tests: the etcd binary on
// PATH, or the one refplane keeps at $HOME/.cache/refplane/bin/etcd, on
// loopback with random free ports and a temporary data directory. A test
// that needs etcd is skipped when neither is there.
package etcdtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fakeplane/fakeplane/internal/syncbuf"
)

// startTimeout bounds how long Start waits for etcd to answer.
const startTimeout = 30 * time.Second

// Binary returns the path of the etcd binary to run, or an error saying
// where it looked.
func Binary() (string, error) {
	if p, err := exec.LookPath("etcd"); err == nil {
		return p, nil
	}
	home, err := os.UserHomeDir()
	if err == nil {
		p := filepath.Join(home, ".cache", "refplane", "bin", "etcd")
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", errors.New("no etcd on PATH nor at $HOME/.cache/refplane/bin/etcd")
}

// Server is a running etcd.
type Server struct {
	// Endpoints are its client URLs.
	Endpoints []string
	cmd       *exec.Cmd
	done      chan struct{}
	output    *syncbuf.Buffer
}

// Start starts an etcd server for t, stopped at cleanup, or skips t when
// there is no etcd binary: what the test checks is not run without one.
func Start(t testing.TB) *Server {
	t.Helper()
	bin, err := Binary()
	if err != nil {
		t.Skipf("etcd binary not found: %v; skipping %s, which runs against etcd", err, t.Name())
	}
	var lastErr error
	for range 3 { // a port picked free may be taken before etcd binds it
		srv, err := start(t, bin)
		if err == nil {
			return srv
		}
		lastErr = err
	}
	t.Fatalf("start etcd: %v", lastErr)
	return nil
}

// start runs one attempt of Start.
func start(t testing.TB, bin string) (*Server, error) {
	client, err := freePort()
	if err != nil {
		return nil, err
	}
	peer, err := freePort()
	if err != nil {
		return nil, err
	}
	clientURL := "http://127.0.0.1:" + strconv.Itoa(client)
	peerURL := "http://127.0.0.1:" + strconv.Itoa(peer)
	dir := t.TempDir()
	out := &syncbuf.Buffer{}
	cmd := exec.Command(bin,
		"--name", "etcdtest",
		"--data-dir", filepath.Join(dir, "data"),
		"--listen-client-urls", clientURL,
		"--advertise-client-urls", clientURL,
		"--listen-peer-urls", peerURL,
		"--initial-advertise-peer-urls", peerURL,
		"--initial-cluster", "etcdtest="+peerURL,
		"--unsafe-no-fsync",
		"--log-level", "error",
	)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("run %s: %w", bin, err)
	}
	s := &Server{Endpoints: []string{clientURL}, cmd: cmd, done: make(chan struct{}), output: out}
	go func() {
		cmd.Wait()
		close(s.done)
	}()
	if err := s.waitHealthy(clientURL); err != nil {
		s.stop()
		return nil, fmt.Errorf("%w; etcd's output:\n%s", err, out.String())
	}
	t.Cleanup(s.stop)
	return s, nil
}

// waitHealthy polls etcd's /health until it answers healthy.
func (s *Server) waitHealthy(url string) error {
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url+"/health", nil)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			var body bytes.Buffer
			body.ReadFrom(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK && bytes.Contains(body.Bytes(), []byte(`"health":"true"`)) {
				return nil
			}
		}
		select {
		case <-s.done:
			return errors.New("etcd exited")
		case <-ctx.Done():
			return fmt.Errorf("etcd at %s not healthy after %v", url, startTimeout)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// stop kills etcd and waits for it to exit.
func (s *Server) stop() {
	select {
	case <-s.done:
		return
	default:
	}
	s.cmd.Process.Kill()
	<-s.done
}

// freePort returns a loopback TCP port that was free a moment ago.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// Prefix returns a key prefix of t's own, so that the tests sharing one
// server do not see each other's keys: "/etcdtest/" and t's name with its
// slashes replaced (a prefix must not be the start of another's).
func Prefix(t testing.TB) string {
	return "/etcdtest/" + strings.ReplaceAll(t.Name(), "/", "_")
}
