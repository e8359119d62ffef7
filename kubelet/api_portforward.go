package kubelet

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"strconv"
	"sync"

	corev1 "k8s.io/api/core/v1"
	utilproxy "k8s.io/apimachinery/pkg/util/proxy"
	"k8s.io/apiserver/pkg/util/proxy"
	"k8s.io/cri-streaming/pkg/streaming/portforward"
	"k8s.io/streaming/pkg/httpstream/wsstream"
)

// This file serves /portForward with the kubelet's streaming library over
// SPDY, and over WebSocket-tunnelled SPDY through apiserver's tunneling
// handler as the kubelet does. A pod port reaches the local address (or
// command) a kwok PortForward/ClusterPortForward rule gives it; any other
// port is refused, as a port no process listens on in the pod.

// getPortForward serves /portForward/{namespace}/{pod}[/{uid}].
func (a *APIServer) getPortForward(w http.ResponseWriter, r *http.Request) {
	tunnel := wsstream.IsWebSocketRequestWithTunnelingProtocol(r)
	opts := &portforward.V4Options{}
	if !tunnel {
		var err error
		if opts, err = portforward.NewV4Options(r); err != nil {
			writeError(w, http.StatusBadRequest, err.Error())
			return
		}
	}
	pod, ok := a.pods.pod(r.PathValue("namespace"), r.PathValue("pod"))
	if !ok {
		writeError(w, http.StatusNotFound, "pod does not exist")
		return
	}
	if uid := r.PathValue("uid"); uid != "" && string(pod.UID) != uid {
		writeError(w, http.StatusNotFound, "pod not found")
		return
	}
	if tunnel {
		// As the kubelet: the WebSocket tunnel carries SPDY to the
		// streaming server.
		loc := &url.URL{Scheme: "http", Host: "streaming.invalid", Path: r.URL.Path, RawQuery: r.URL.RawQuery}
		proxy.NewTunnelingHandler(utilproxy.NewUpgradeAwareHandler(loc, a.stream.transport, false, true, responder{a})).ServeHTTP(w, r)
		return
	}
	a.servePortForward(w, r, pod, opts)
}

// servePortForward upgrades the request to SPDY and forwards the ports
// the client asks for.
func (a *APIServer) servePortForward(w http.ResponseWriter, r *http.Request, pod *corev1.Pod, opts *portforward.V4Options) {
	portforward.ServePortForward(w, r, forwarder{a, pod}, sandboxID(pod), "", opts,
		a.cfg.StreamIdleTimeout, a.cfg.StreamCreationTimeout, portforward.SupportedProtocols)
}

// responder answers a failed proxying to the streaming server, as the
// kubelet's does.
type responder struct{ a *APIServer }

func (r responder) Error(w http.ResponseWriter, _ *http.Request, err error) {
	r.a.cfg.Log.Debug("kubelet api: proxy to the streaming server", "err", err)
	http.Error(w, err.Error(), http.StatusInternalServerError)
}

// forwarder forwards one pod's ports.
type forwarder struct {
	a   *APIServer
	pod *corev1.Pod
}

// PortForward connects the stream to the port's target: a local address,
// or a local command's stdin and stdout.
func (f forwarder) PortForward(ctx context.Context, _, _ string, port int32, stream io.ReadWriteCloser) error {
	defer func() { _ = stream.Close() }()
	rule := f.a.cfg.Debug.forwardFor(f.pod.Namespace, f.pod.Name, port)
	switch {
	case rule != nil && len(rule.Command) > 0:
		c := exec.CommandContext(ctx, rule.Command[0], rule.Command[1:]...)
		c.Stdin, c.Stdout = stream, stream
		if err := c.Run(); err != nil {
			return fmt.Errorf("port forward command %q: %w", rule.Command[0], err)
		}
		return nil
	case rule != nil && rule.Target != nil:
		addr := net.JoinHostPort(rule.Target.Address, strconv.Itoa(int(rule.Target.Port)))
		var d net.Dialer
		conn, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			return fmt.Errorf("failed to connect to %s: %w", addr, err)
		}
		return pipe(ctx, conn, stream)
	}
	// Nothing listens on the port in the (simulated) pod: containerd's
	// error for a refused connection.
	return fmt.Errorf("failed to execute portforward in network namespace %q: failed to connect to localhost:%d inside namespace %q, IPv4: dial tcp4 127.0.0.1:%d: connect: connection refused IPv6 dial tcp6 [::1]:%d: connect: connection refused ",
		"/var/run/netns/cni-"+string(f.pod.UID), port, sandboxID(f.pod), port, port)
}

// sandboxID is the pod's sandbox ID, the name containerd's streaming
// server gives a pod: 64 hex digits, here derived from the pod's UID.
func sandboxID(pod *corev1.Pod) string {
	sum := sha256.Sum256([]byte(pod.UID))
	return hex.EncodeToString(sum[:])
}

// pipe copies both ways until either side ends or ctx is done, then
// closes both.
func pipe(ctx context.Context, conn net.Conn, stream io.ReadWriteCloser) error {
	var once sync.Once
	closeBoth := func() {
		once.Do(func() {
			_ = conn.Close()
			_ = stream.Close()
		})
	}
	stop := context.AfterFunc(ctx, closeBoth)
	defer stop()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = io.Copy(stream, conn)
		closeBoth()
	}()
	_, _ = io.Copy(conn, stream)
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.CloseWrite() // the client is done sending: let the target answer
	} else {
		closeBoth()
	}
	<-done
	closeBoth()
	return nil
}
