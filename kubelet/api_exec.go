package kubelet

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/creack/pty"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apiserver/pkg/util/proxy"
	"k8s.io/cri-streaming/pkg/streaming/portforward"
	"k8s.io/cri-streaming/pkg/streaming/remotecommand"
	"k8s.io/streaming/pkg/httpstream/wsstream"
	utilexec "k8s.io/utils/exec"
	"k8s.io/utils/ptr"
)

// This file serves /exec and /attach with the kubelet's streaming library
// (SPDY, and WebSocket up to v4.channel.k8s.io), and v5.channel.k8s.io
// WebSockets through apiserver's stream translator to that same SPDY
// server, as a kubelet with ExtendWebSocketsToKubelet does. Exec runs the
// command on this machine when a kwok Exec/ClusterExec rule has a local
// target for the container, and answers the runtime's exec error
// otherwise; attach streams the container's log from then on, as kwok's
// attach does.

// execRequest is one exec or attach of a pod's container.
type execRequest struct {
	a   *APIServer
	pod *corev1.Pod
}

// podFullName is the kubelet's name of a pod in its streaming server.
func podFullName(pod *corev1.Pod) string { return pod.Name + "_" + pod.Namespace }

// streamRequest checks an exec or attach request as the kubelet does
// before upgrading it: its options, the pod, a running container.
func (a *APIServer) streamRequest(w http.ResponseWriter, r *http.Request) (*corev1.Pod, *remotecommand.Options, bool) {
	opts, err := remotecommand.NewOptions(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return nil, nil, false
	}
	pod, ok := a.pods.pod(r.PathValue("namespace"), r.PathValue("pod"))
	if !ok {
		writeError(w, http.StatusNotFound, "pod does not exist")
		return nil, nil, false
	}
	container := r.PathValue("container")
	if !hasContainer(pod, container) || !a.containerRunning(pod.Namespace, pod.Name, container) {
		// The runtime knows no such running container.
		writeError(w, http.StatusInternalServerError, fmt.Sprintf("container not found (%q)", container))
		return nil, nil, false
	}
	return pod, opts, true
}

// getExec serves /exec/{namespace}/{pod}[/{uid}]/{container}.
func (a *APIServer) getExec(w http.ResponseWriter, r *http.Request) {
	pod, opts, ok := a.streamRequest(w, r)
	if !ok {
		return
	}
	if wsstream.IsWebSocketRequestWithStreamCloseProtocol(r) {
		a.translate(w, r, opts)
		return
	}
	a.serveExec(w, r, pod, opts)
}

func (a *APIServer) serveExec(w http.ResponseWriter, r *http.Request, pod *corev1.Pod, opts *remotecommand.Options) {
	remotecommand.ServeExec(w, r, execRequest{a, pod}, podFullName(pod), r.PathValue("uid"), r.PathValue("container"),
		r.URL.Query()[corev1.ExecCommandParam], opts, a.cfg.StreamIdleTimeout, a.cfg.StreamCreationTimeout, remotecommand.SupportedStreamingProtocols)
}

// getAttach serves /attach/{namespace}/{pod}[/{uid}]/{container}.
func (a *APIServer) getAttach(w http.ResponseWriter, r *http.Request) {
	pod, opts, ok := a.streamRequest(w, r)
	if !ok {
		return
	}
	if wsstream.IsWebSocketRequestWithStreamCloseProtocol(r) {
		a.translate(w, r, opts)
		return
	}
	a.serveAttach(w, r, pod, opts)
}

func (a *APIServer) serveAttach(w http.ResponseWriter, r *http.Request, pod *corev1.Pod, opts *remotecommand.Options) {
	remotecommand.ServeAttach(w, r, execRequest{a, pod}, podFullName(pod), r.PathValue("uid"), r.PathValue("container"),
		opts, a.cfg.StreamIdleTimeout, a.cfg.StreamCreationTimeout, remotecommand.SupportedStreamingProtocols)
}

// translate serves a v5.channel.k8s.io WebSocket by speaking SPDY to the
// in-process streaming server, as the kubelet's stream translator does.
func (a *APIServer) translate(w http.ResponseWriter, r *http.Request, opts *remotecommand.Options) {
	loc := &url.URL{Scheme: "http", Host: "streaming.invalid", Path: r.URL.Path, RawQuery: r.URL.RawQuery}
	proxy.NewStreamTranslatorHandler(loc, a.stream.transport, 0, proxy.Options{
		Stdin: opts.Stdin, Stdout: opts.Stdout, Stderr: opts.Stderr, Tty: opts.TTY,
	}).ServeHTTP(w, r)
}

// ExecInContainer runs cmd for a container a local exec target is set for,
// and answers the runtime's error for a missing executable otherwise.
func (e execRequest) ExecInContainer(ctx context.Context, _, _, container string, cmd []string, in io.Reader, out, errOut io.WriteCloser, tty bool, resize <-chan remotecommand.TerminalSize, _ time.Duration) error {
	target := e.a.cfg.Debug.execFor(e.pod.Namespace, e.pod.Name, container)
	if len(cmd) == 0 {
		return execError("", exec.ErrNotFound)
	}
	if target == nil || target.Local == nil {
		return execError(cmd[0], exec.ErrNotFound)
	}
	c := exec.CommandContext(ctx, cmd[0], cmd[1:]...)
	c.Dir = target.Local.WorkDir
	c.Env = os.Environ()
	for _, env := range target.Local.Envs {
		c.Env = append(c.Env, env.Name+"="+env.Value)
	}
	c.WaitDelay = time.Second
	if tty {
		return e.execWithTerminal(c, in, out, resize)
	}
	if out != nil {
		c.Stdout = out
	}
	if errOut != nil {
		c.Stderr = errOut
	}
	var stdin io.WriteCloser
	if in != nil {
		p, err := c.StdinPipe()
		if err != nil {
			return execError(cmd[0], err)
		}
		stdin = p
	}
	if err := c.Start(); err != nil {
		return startError(cmd[0], err)
	}
	if stdin != nil {
		// Not waited for: it ends when the client closes stdin or the
		// connection closes.
		go func() {
			_, _ = io.Copy(stdin, in)
			_ = stdin.Close()
		}()
	}
	return waitError(c.Wait())
}

// execWithTerminal runs the command on a new terminal, as a runtime does
// for tty=true: stdin is typed into it, its screen is stdout, and the
// client's resizes resize it.
func (e execRequest) execWithTerminal(c *exec.Cmd, in io.Reader, out io.WriteCloser, resize <-chan remotecommand.TerminalSize) error {
	term, err := pty.Start(c)
	if err != nil {
		return startError(c.Args[0], err)
	}
	var mu sync.Mutex // the terminal is not resized once closed
	closed := false
	defer func() {
		mu.Lock()
		defer mu.Unlock()
		closed = true
		_ = term.Close()
	}()
	if resize != nil {
		go func() { // ends when the client's resize stream does
			for size := range resize {
				mu.Lock()
				if !closed {
					_ = pty.Setsize(term, &pty.Winsize{Rows: size.Height, Cols: size.Width})
				}
				mu.Unlock()
			}
		}()
	}
	if in != nil {
		go func() { _, _ = io.Copy(term, in) }()
	}
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		if out != nil {
			_, _ = io.Copy(out, term) // ends with an error once the command's side closes
		}
	}()
	err = c.Wait()
	<-copied
	return waitError(err)
}

// startError is the runtime's error for a command that did not start.
func startError(command string, err error) error {
	var pe *exec.Error
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return execError(command, err)
}

// waitError turns a command's exit into the error ServeExec reports: its
// exit code, or an exec failure.
func waitError(err error) error {
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.Exited() {
		return utilexec.CodeExitError{Err: err, Code: ee.ExitCode()}
	}
	if err != nil {
		return fmt.Errorf("failed to exec in container: %w", err)
	}
	return nil
}

// execError is containerd's error for an exec whose process cannot
// start, e.g. `exec: "sh": executable file not found in $PATH`.
func execError(command string, cause error) error {
	id := make([]byte, 32)
	_, _ = rand.Read(id)
	return fmt.Errorf("failed to exec in container: failed to start exec %q: OCI runtime exec failed: exec failed: unable to start container process: exec: %q: %w: unknown",
		hex.EncodeToString(id), command, cause)
}

// AttachContainer streams the container's log from now on (the attach
// target's file when a kwok Attach/ClusterAttach rule names one) until
// the container stops or the client goes.
func (e execRequest) AttachContainer(ctx context.Context, _, _, container string, _ io.Reader, out, errOut io.WriteCloser, _ bool, _ <-chan remotecommand.TerminalSize) error {
	ns, name := e.pod.Namespace, e.pod.Name
	path := ""
	if rule := e.a.cfg.Debug.attachFor(ns, name, container); rule != nil && rule.LogsFile != nil && *rule.LogsFile != "" {
		path = *rule.LogsFile
	} else {
		p, err := e.a.logPath(ns, name, container, false)
		if err != nil {
			return err
		}
		path = p
	}
	var stdout, stderr io.Writer = io.Discard, io.Discard
	if out != nil {
		stdout = out
	}
	if errOut != nil {
		stderr = errOut
	}
	opts := &corev1.PodLogOptions{Follow: true, TailLines: ptr.To[int64](0)}
	return e.a.readLogs(ctx, path, containerRef(ns, name, container, false), opts, stdout, stderr)
}

// streamServer is the in-process SPDY streaming server the stream
// translator and the port-forward tunnel reach, as the kubelet reaches its
// runtime's: an http.Server on in-memory connections.
type streamServer struct {
	srv       *http.Server
	listener  *pipeListener
	transport *http.Transport
	done      chan struct{}
}

func newStreamServer(a *APIServer) *streamServer {
	mux := http.NewServeMux()
	stream := func(serve func(http.ResponseWriter, *http.Request, *corev1.Pod, *remotecommand.Options)) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if pod, opts, ok := a.streamRequest(w, r); ok {
				serve(w, r, pod, opts)
			}
		}
	}
	mux.Handle("POST /exec/{namespace}/{pod}/{container}", stream(a.serveExec))
	mux.Handle("POST /exec/{namespace}/{pod}/{uid}/{container}", stream(a.serveExec))
	mux.Handle("POST /attach/{namespace}/{pod}/{container}", stream(a.serveAttach))
	mux.Handle("POST /attach/{namespace}/{pod}/{uid}/{container}", stream(a.serveAttach))
	forward := func(w http.ResponseWriter, r *http.Request) {
		pod, ok := a.pods.pod(r.PathValue("namespace"), r.PathValue("pod"))
		if !ok {
			writeError(w, http.StatusNotFound, "pod does not exist")
			return
		}
		a.servePortForward(w, r, pod, &portforward.V4Options{})
	}
	mux.HandleFunc("POST /portForward/{namespace}/{pod}", forward)
	mux.HandleFunc("POST /portForward/{namespace}/{pod}/{uid}", forward)
	l := &pipeListener{conns: make(chan net.Conn), done: make(chan struct{})}
	s := &streamServer{listener: l, done: make(chan struct{})}
	s.srv = &http.Server{
		Handler:     a.track(mux),
		BaseContext: func(net.Listener) context.Context { return a.ctx },
		ConnContext: func(ctx context.Context, c net.Conn) context.Context { return context.WithValue(ctx, connKey{}, c) },
		ConnState:   a.connState,
	}
	s.transport = &http.Transport{DialContext: l.dial}
	go func() {
		defer close(s.done)
		_ = s.srv.Serve(l)
	}()
	return s
}

func (s *streamServer) close() {
	_ = s.srv.Close()
	s.transport.CloseIdleConnections()
}

func (s *streamServer) wait() { <-s.done }

// pipeListener hands the server the far ends of in-memory connections
// its dial makes.
type pipeListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *pipeListener) Addr() net.Addr { return pipeAddr{} }

func (l *pipeListener) dial(ctx context.Context, _, _ string) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.done:
	case <-ctx.Done():
	}
	_ = client.Close()
	_ = server.Close()
	return nil, net.ErrClosed
}

// pipeAddr is the address of in-memory connections.
type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "streaming" }
