package fakeplane

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"

	"github.com/fakeplane/fakeplane/server"
)

// debugSocket serves server.DebugSocketHandler on a Unix socket, as
// kube-apiserver's --debug-socket-path.
type debugSocket struct {
	srv  *http.Server
	done chan struct{}
}

// startDebugSocket listens on the Unix socket at path (removing a file
// left there, as kube-apiserver does) and serves the debug endpoints on
// it until close.
func startDebugSocket(path string) (*debugSocket, error) {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("failed to remove (%v): %v", path, err)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("listen error (%v): %v", path, err)
	}
	d := &debugSocket{srv: &http.Server{Handler: server.DebugSocketHandler()}, done: make(chan struct{})}
	go func() {
		defer close(d.done)
		_ = d.srv.Serve(ln)
	}()
	return d, nil
}

// close stops serving and waits for the server to end.
func (d *debugSocket) close() {
	if d == nil {
		return
	}
	_ = d.srv.Close()
	<-d.done
}
