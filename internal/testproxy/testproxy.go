// Package testproxy runs, inside a test process, the proxies that
// fakeplane's tests put between clients and the control plane, and between
// the control plane and the cluster: an HTTP CONNECT proxy (goproxy), a
// SOCKS5 proxy (go-socks5) and a minimal Konnectivity server (the GRPC
// ProxyService of sigs.k8s.io/apiserver-network-proxy/konnectivity-client).
// Each records the addresses it was asked to reach, resolves host names
// through a map the test gives (as a proxy that resolves names itself, so
// that a client can name a host its own resolver does not know), and
// closes every connection it opened when it stops.
package testproxy

import (
	"context"
	"net"
	"slices"
	"sync"
)

// Hosts maps host names (without port) to the addresses a proxy dials for
// them, e.g. {"kubernetes.default.svc": "127.0.0.1"}; names not in it are
// dialed as they are.
type Hosts map[string]string

// dialer dials for a proxy: it maps host names, records the dials and
// tracks the connections until the proxy stops.
type dialer struct {
	hosts Hosts

	mu     sync.Mutex
	dials  []string
	conns  map[net.Conn]struct{}
	closed bool
}

func newDialer(hosts Hosts) *dialer {
	return &dialer{hosts: hosts, conns: map[net.Conn]struct{}{}}
}

// dial records addr (as the client named it) and dials it.
func (d *dialer) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	d.mu.Lock()
	d.dials = append(d.dials, addr)
	d.mu.Unlock()
	if host, port, err := net.SplitHostPort(addr); err == nil {
		if to, ok := d.hosts[host]; ok {
			addr = net.JoinHostPort(to, port)
		}
	}
	var nd net.Dialer
	c, err := nd.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	if !d.keep(c) {
		_ = c.Close()
		return nil, net.ErrClosed
	}
	return c, nil
}

// keep tracks c; false once the proxy stopped.
func (d *dialer) keep(c net.Conn) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return false
	}
	d.conns[c] = struct{}{}
	return true
}

// Dials returns the addresses the proxy was asked to reach, in order.
func (d *dialer) Dials() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.dials)
}

// closeAll closes every connection the proxy opened or accepted.
func (d *dialer) closeAll() {
	d.mu.Lock()
	d.closed = true
	conns := d.conns
	d.conns = map[net.Conn]struct{}{}
	d.mu.Unlock()
	for c := range conns {
		_ = c.Close()
	}
}

// trackingListener tracks the connections it accepts in a dialer.
type trackingListener struct {
	net.Listener
	d *dialer
}

// Accept accepts a connection and tracks it.
func (l trackingListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.d.keep(c) {
			return c, nil
		}
		_ = c.Close()
	}
}
