package kubelet

import (
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	"go.uber.org/goleak"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/portforward"
	"k8s.io/client-go/tools/remotecommand"
)

func TestStopEndsEveryStreamAndLeavesNoGoroutine(t *testing.T) {
	// Not parallel: goleak compares with the goroutines from before.
	before := goleak.IgnoreCurrent()
	echo := echoServer(t)
	var debug DebugConfig
	ce := ClusterExec{}
	ce.Spec.Execs = []ExecTarget{{Local: &ExecTargetLocal{}}}
	pf := ClusterPortForward{}
	pf.Spec.Forwards = []Forward{{Target: &ForwardTarget{Address: "127.0.0.1", Port: int32(echo.Port)}}}
	debug.ClusterExecs, debug.ClusterPortForwards = []ClusterExec{ce}, []ClusterPortForward{pf}
	ta := startTestAPI(t, debug, nil, runningPod("default", "web", "app"))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	// A followed log.
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ta.api.URL()+"/containerLogs/default/web/app?follow=true", nil)
	resp, err := ta.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	ended := make(chan struct{})
	go func() { defer close(ended); _, _ = io.Copy(io.Discard, resp.Body) }()

	// An exec of a long command and an attach, over each transport.
	streams := make(chan error, 4)
	for _, newExecutor := range executors {
		ex, err := newExecutor(ta, "POST", ta.api.URL()+"/exec/default/web/app?command=sleep&command=600&output=1")
		if err != nil {
			t.Fatal(err)
		}
		go func() { streams <- ex.StreamWithContext(ctx, remotecommand.StreamOptions{Stdout: io.Discard}) }()
		at, err := newExecutor(ta, "POST", ta.api.URL()+"/attach/default/web/app?output=1")
		if err != nil {
			t.Fatal(err)
		}
		go func() { streams <- at.StreamWithContext(ctx, remotecommand.StreamOptions{Stdout: io.Discard}) }()
	}

	// A port-forward with a connection open.
	stop, ready := make(chan struct{}), make(chan struct{})
	fw, err := portforward.NewOnAddresses(dialers["SPDY"](t, ta, ta.api.URL()+"/portForward/default/web"),
		[]string{"127.0.0.1"}, []string{"0:80"}, stop, ready, io.Discard, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	forwarded := make(chan error, 1)
	go func() { forwarded <- fw.ForwardPorts() }()
	<-ready
	ports, err := fw.GetPorts()
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(int(ports[0].Local))))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(conn, "x"); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(conn, make([]byte, 1)); err != nil {
		t.Fatal(err)
	}

	ta.api.stop()
	<-ended
	for range 4 {
		<-streams
	}
	if err := <-forwarded; err == nil {
		t.Error("the port-forward did not lose its connection at stop")
	}
	_ = conn.Close()
	ta.client.CloseIdleConnections()
	if ctx.Err() != nil {
		t.Fatal("the streams ended only at the test's deadline")
	}
	// SPDY connections finish closing within a second of their close,
	// client-go's WebSocket heartbeats at their next beat: wait for them.
	opts := []goleak.Option{before,
		goleak.IgnoreAnyFunction("net/http.(*persistConn).readLoop"),
		goleak.IgnoreAnyFunction("net/http.(*persistConn).writeLoop"),
		goleak.IgnoreTopFunction("k8s.io/klog/v2.(*loggingT).flushDaemon"),
		goleak.IgnoreAnyFunction("github.com/fakeplane/fakeplane/kubelet.echoServer.func2"),
		goleak.IgnoreAnyFunction("github.com/fakeplane/fakeplane/kubelet.echoServer.func2.1"),
	}
	var leaked error
	_ = wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		leaked = goleak.Find(opts...)
		return leaked == nil, nil
	})
	if leaked != nil {
		t.Fatal(leaked)
	}
}
