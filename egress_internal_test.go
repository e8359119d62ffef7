package fakeplane

import (
	"context"
	"errors"
	"net"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// TestEgressDialInFlightEndsAtClose: a dial through a Konnectivity server
// (GRPC over a Unix socket) that accepts the connection and never answers
// is in flight when the control plane stops; closing the egress cancels
// it, so that nothing of it outlives the control plane (upstream's
// connector dials with a context of its own, for up to 30 s), and a dial
// after the close fails at once.
func TestEgressDialInFlightEndsAtClose(t *testing.T) {
	before := goleak.IgnoreCurrent()
	sock := filepath.Join(t.TempDir(), "konnectivity.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	accepted := make(chan struct{})
	var held []net.Conn
	var mu sync.Mutex
	serving := make(chan struct{})
	go func() {
		defer close(serving)
		for once := false; ; once = true {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c) // silent: no HTTP/2 settings, ever
			mu.Unlock()
			if !once {
				close(accepted)
			}
		}
	}()

	o := newOpenConns()
	// innerEnded is set when the Konnectivity dial itself returns, inside
	// track: before track counts the dial done, so before closeAll may
	// return (the goroutine below reports the dial's error only later).
	var innerEnded atomic.Bool
	konnectivity := o.grpcUDSDialer(sock)
	dial := o.track(func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := konnectivity(ctx, network, addr)
		innerEnded.Store(true)
		return c, err
	})
	dialed := make(chan error, 1)
	go func() {
		c, err := dial(context.Background(), "tcp", "10.0.0.1:443")
		if c != nil {
			_ = c.Close()
		}
		dialed <- err
	}()
	select {
	case <-accepted:
	case <-time.After(20 * time.Second):
		t.Fatal("the dial did not reach the Konnectivity socket")
	}
	closed := make(chan struct{})
	go func() { o.closeAll(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(20 * time.Second):
		t.Fatal("closing the egress did not end the dial in flight")
	}
	if !innerEnded.Load() {
		t.Fatal("closing the egress returned before the dial in flight ended")
	}
	select {
	case err := <-dialed:
		if err == nil {
			t.Fatal("a dial through a silent Konnectivity server succeeded")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the dial in flight did not return")
	}
	if _, err := dial(context.Background(), "tcp", "10.0.0.1:443"); !errors.Is(err, errEgressClosed) {
		t.Fatalf("a dial after the close: %v, want %v", err, errEgressClosed)
	}

	_ = ln.Close()
	<-serving
	mu.Lock()
	for _, c := range held {
		_ = c.Close()
	}
	mu.Unlock()
	goleak.VerifyNone(t, before)
}
