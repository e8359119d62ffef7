package etcdtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/fakeplane/fakeplane/internal/syncbuf"
)

// startBinary runs one attempt of Start with the etcd binary bin, or of
// StartTLS when sec is not nil.
func startBinary(t testing.TB, bin string, sec *tlsPair) (*Server, error) {
	client, peer, err := loopbackURLs()
	if err != nil {
		return nil, err
	}
	client.Scheme = sec.scheme()
	clientURL, peerURL := client.String(), peer.String()
	out := &syncbuf.Buffer{}
	args := []string{
		"--name", "etcdtest",
		"--data-dir", filepath.Join(t.TempDir(), "data"),
		"--listen-client-urls", clientURL,
		"--advertise-client-urls", clientURL,
		"--listen-peer-urls", peerURL,
		"--initial-advertise-peer-urls", peerURL,
		"--initial-cluster", "etcdtest=" + peerURL,
		"--unsafe-no-fsync",
		"--log-level", "error",
	}
	if sec != nil {
		args = append(args, "--cert-file", sec.server.CertFile, "--key-file", sec.server.KeyFile,
			"--trusted-ca-file", sec.server.CAFile, "--client-cert-auth")
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("run %s: %w", bin, err)
	}
	done := make(chan struct{})
	go func() {
		cmd.Wait()
		close(done)
	}()
	stop := func() { // kill etcd and wait for it to exit
		select {
		case <-done:
			return
		default:
		}
		cmd.Process.Kill()
		<-done
	}
	if err := waitHealthy(clientURL, sec, done); err != nil {
		stop()
		return nil, fmt.Errorf("%w; etcd's output:\n%s", err, out.String())
	}
	return &Server{Endpoints: []string{clientURL}, stop: stop}, nil
}

// waitHealthy polls the /health of the etcd at url (secured by sec, when
// not nil) until it answers healthy, or done is closed (etcd exited), or
// startTimeout has passed.
func waitHealthy(url string, sec *tlsPair, done <-chan struct{}) error {
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	// A transport of its own, its connections closed on return: none is
	// left open to an etcd that stops later.
	client, closeIdle, err := sec.httpClient()
	if err != nil {
		return err
	}
	defer closeIdle()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url+"/health", nil)
		resp, err := client.Do(req)
		if err == nil {
			var body bytes.Buffer
			body.ReadFrom(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK && bytes.Contains(body.Bytes(), []byte(`"health":"true"`)) {
				return nil
			}
		}
		select {
		case <-done:
			return errors.New("etcd exited")
		case <-ctx.Done():
			return fmt.Errorf("etcd at %s not healthy after %v", url, startTimeout)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
