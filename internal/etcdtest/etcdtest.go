// Package etcdtest starts an etcd server for tests, on loopback with random
// free ports and a temporary data directory, stopped at the test's cleanup.
// It runs the etcd binary on PATH, or the one refplane keeps at
// $HOME/.cache/refplane/bin/etcd, when there is one, and otherwise etcd in
// the test's own process (go.etcd.io/etcd/server/v3/embed), so that no test
// goes without etcd. $FAKEPLANE_ETCD_BINARY overrides the lookup: the path
// of the binary to run, or "none" for etcd in process.
//
// Main is etcd's command line run in the calling process, for a test binary
// that must stand in for the etcd binary of another program (envtest).
package etcdtest

import (
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
	"testing"
	"time"
)

// startTimeout bounds how long Start waits for etcd to answer.
const startTimeout = 30 * time.Second

// BinaryEnv is the environment variable that overrides where Binary looks:
// the path of an etcd binary, or "none" to run etcd in process even when a
// binary is there.
const BinaryEnv = "FAKEPLANE_ETCD_BINARY"

// Binary returns the path of the etcd binary to run, or an error saying
// where it looked: $FAKEPLANE_ETCD_BINARY when set, else etcd on PATH, else
// $HOME/.cache/refplane/bin/etcd.
func Binary() (string, error) {
	switch p := os.Getenv(BinaryEnv); p {
	case "":
	case "none":
		return "", fmt.Errorf("%s=none", BinaryEnv)
	default:
		return p, nil
	}
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
	// TLS, for a server StartTLS started, names the files its clients
	// present and trust; nil for one Start started (plain HTTP).
	TLS *TLSFiles
	// stop stops etcd and returns once it has stopped.
	stop     func()
	stopOnce sync.Once
}

// Stop stops etcd and returns once it has stopped, before the test's
// cleanup would (which then has nothing left to do).
func (s *Server) Stop() { s.stopOnce.Do(s.stop) }

// Start starts an etcd server for t, stopped at cleanup: the binary Binary
// finds, or etcd in this process when there is none.
func Start(t testing.TB) *Server {
	t.Helper()
	if bin, err := Binary(); err == nil {
		return startRetrying(t, bin, func(t testing.TB) (*Server, error) { return startBinary(t, bin, nil) })
	}
	return startRetrying(t, "in process", func(t testing.TB) (*Server, error) { return startInProcess(t, nil) })
}

// startRetrying starts etcd with run, which says how in failures, retrying
// a failed start, and stops it at t's cleanup.
func startRetrying(t testing.TB, how string, run func(testing.TB) (*Server, error)) *Server {
	t.Helper()
	var lastErr error
	for range 3 { // a port picked free may be taken before etcd binds it
		srv, err := run(t)
		if err == nil {
			t.Cleanup(srv.Stop)
			t.Logf("etcd (%s) at %s", how, strings.Join(srv.Endpoints, ","))
			return srv
		}
		lastErr = err
	}
	t.Fatalf("start etcd (%s): %v", how, lastErr)
	return nil
}

// loopbackURLs returns a client and a peer URL on loopback ports that were
// free a moment ago.
func loopbackURLs() (client, peer url.URL, err error) {
	c, err := freePort()
	if err != nil {
		return url.URL{}, url.URL{}, err
	}
	p, err := freePort()
	if err != nil {
		return url.URL{}, url.URL{}, err
	}
	at := func(port int) url.URL {
		return url.URL{Scheme: "http", Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(port))}
	}
	return at(c), at(p), nil
}

// freePort returns a loopback TCP port that was free a moment ago.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pick a free port: %w", err)
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
