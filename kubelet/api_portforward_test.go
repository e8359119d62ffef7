package kubelet

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/httpstream"
	"k8s.io/client-go/tools/portforward"
	"k8s.io/client-go/transport/spdy"
)

// dialers are the client-go port-forward dialers kubectl uses, by
// transport.
var dialers = map[string]func(t *testing.T, ta *testAPI, u string) httpstream.Dialer{
	"SPDY": func(t *testing.T, ta *testAPI, u string) httpstream.Dialer {
		rt, upgrader, err := spdy.RoundTripperFor(ta.rest)
		if err != nil {
			t.Fatal(err)
		}
		return spdy.NewDialer(upgrader, &http.Client{Transport: rt}, http.MethodPost, mustURL(u))
	},
	"WebSocket": func(t *testing.T, ta *testAPI, u string) httpstream.Dialer {
		d, err := portforward.NewSPDYOverWebsocketDialer(mustURL(u), ta.rest)
		if err != nil {
			t.Fatal(err)
		}
		return d
	},
}

// echoServer answers each line it reads with the line, until the test
// ends.
func echoServer(t *testing.T) *net.TCPAddr {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { _ = l.Close(); <-done })
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer func() { _ = c.Close() }()
				_, _ = io.Copy(c, c)
			}()
		}
	}()
	return l.Addr().(*net.TCPAddr)
}

func TestPortForwardReachesTheConfiguredAddress(t *testing.T) {
	t.Parallel()
	echo := echoServer(t)
	var debug DebugConfig
	pf := PortForward{Metadata: ObjectMeta{Namespace: "default", Name: "web"}}
	pf.Spec.Forwards = []Forward{{Ports: []int32{80}, Target: &ForwardTarget{Address: "127.0.0.1", Port: int32(echo.Port)}}}
	debug.PortForwards = append(debug.PortForwards, pf)
	ta := startTestAPI(t, debug, nil, runningPod("default", "web", "app"))

	for transport, dial := range dialers {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			stop, ready := make(chan struct{}), make(chan struct{})
			fw, err := portforward.NewOnAddresses(dial(t, ta, ta.api.URL()+"/portForward/default/web"),
				[]string{"127.0.0.1"}, []string{"0:80"}, stop, ready, io.Discard, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- fw.ForwardPorts() }()
			select {
			case <-ready:
				defer func() { close(stop); <-done }()
			case err := <-done:
				t.Fatalf("port-forward ended: %v", err)
			}
			ports, err := fw.GetPorts()
			if err != nil {
				t.Fatal(err)
			}
			conn, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(int(ports[0].Local))))
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = conn.Close() }()
			for _, msg := range []string{"ping\n", "again via " + transport + "\n"} {
				if _, err := io.WriteString(conn, msg); err != nil {
					t.Fatal(err)
				}
				got, err := bufio.NewReader(conn).ReadString('\n')
				if err != nil || got != msg {
					t.Fatalf("echo %q, %v; want %q", got, err, msg)
				}
			}
		})
	}
}

func TestPortForwardToAnUnmappedPortIsRefused(t *testing.T) {
	t.Parallel()
	pod := runningPod("default", "web", "app")
	ta := startTestAPI(t, DebugConfig{}, nil, pod)
	for transport, dial := range dialers {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			conn, proto, err := dial(t, ta, ta.api.URL()+"/portForward/default/web").Dial(portforward.PortForwardProtocolV1Name)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = conn.Close() }()
			if proto != portforward.PortForwardProtocolV1Name {
				t.Fatalf("protocol %q", proto)
			}
			headers := http.Header{}
			headers.Set(corev1.PortHeader, "8080")
			headers.Set(corev1.PortForwardRequestIDHeader, "0")
			headers.Set(corev1.StreamType, corev1.StreamTypeError)
			errStream, err := conn.CreateStream(headers)
			if err != nil {
				t.Fatal(err)
			}
			_ = errStream.Close()
			headers.Set(corev1.StreamType, corev1.StreamTypeData)
			if _, err := conn.CreateStream(headers); err != nil {
				t.Fatal(err)
			}
			msg, err := io.ReadAll(errStream)
			if err != nil {
				t.Fatal(err)
			}
			want := "error forwarding port 8080 to pod " + sandboxID(pod) + ", uid : failed to execute portforward in network namespace"
			if !strings.HasPrefix(string(msg), want) || !strings.Contains(string(msg), "dial tcp4 127.0.0.1:8080: connect: connection refused") {
				t.Errorf("error stream %q, want %q... connection refused", msg, want)
			}
		})
	}
}

func TestPortForwardOfAnUnknownPodIsNotFound(t *testing.T) {
	t.Parallel()
	ta := startTestAPI(t, DebugConfig{}, nil, runningPod("default", "web", "app"))
	for transport, dial := range dialers {
		t.Run(transport, func(t *testing.T) {
			_, _, err := dial(t, ta, ta.api.URL()+"/portForward/default/nope").Dial(portforward.PortForwardProtocolV1Name)
			if err == nil || !strings.Contains(err.Error(), "pod does not exist") && !errors.Is(err, io.EOF) {
				t.Fatalf("dial: %v, want pod does not exist", err)
			}
		})
	}
}
