package testproxy

import (
	"bufio"
	"context"
	"io"
	"net"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	konnectivity "sigs.k8s.io/apiserver-network-proxy/konnectivity-client/pkg/client"
)

// echoServer answers each line it reads with the same line.
func echoServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_, _ = io.Copy(c, c)
			}()
		}
	}()
	return ln.Addr().String()
}

func TestKonnectivityServerTunnelsADialedConnection(t *testing.T) {
	echo := echoServer(t)
	sock := filepath.Join(t.TempDir(), "k.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	k := NewKonnectivity(ln, Hosts{"echo.example": "127.0.0.1"})
	defer k.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tunnel, err := konnectivity.CreateSingleUseGrpcTunnel(ctx, sock,
		grpc.WithContextDialer(func(ctx context.Context, addr string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", addr)
		}), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(echo)
	c, err := tunnel.DialContext(ctx, "tcp", "echo.example:"+port)
	if err != nil {
		t.Fatalf("dial through the tunnel: %v", err)
	}
	if _, err := io.WriteString(c, "hello\n"); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil || line != "hello\n" {
		t.Errorf("echo through the tunnel: %q %v", line, err)
	}
	// Close waits for the server's CLOSE_RSP.
	if err := c.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if got := k.Dials(); !slices.Equal(got, []string{"echo.example:" + port}) {
		t.Errorf("dials %v", got)
	}
	// A dial the server cannot make answers the client with its error.
	tunnel2, err := konnectivity.CreateSingleUseGrpcTunnel(ctx, sock,
		grpc.WithContextDialer(func(ctx context.Context, addr string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", addr)
		}), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tunnel2.DialContext(ctx, "tcp", "127.0.0.1:1"); err == nil {
		t.Error("a refused dial succeeded")
	}
	<-tunnel2.Done()
}
