package testproxy

import (
	"context"
	"io"
	"log"
	"net"
	"sync"

	socks5 "github.com/armon/go-socks5"
)

// SOCKS5 is a SOCKS5 proxy (go-socks5) without authentication. It resolves
// the host names clients send (socks5h semantics: Go's clients always send
// the name) through its Hosts first.
type SOCKS5 struct {
	*dialer
	ln   net.Listener
	done chan struct{}
	once sync.Once
}

// NewSOCKS5 serves a SOCKS5 proxy on ln. Close stops it.
func NewSOCKS5(ln net.Listener, hosts Hosts) (*SOCKS5, error) {
	p := &SOCKS5{dialer: newDialer(hosts), done: make(chan struct{})}
	srv, err := socks5.New(&socks5.Config{
		// Names are resolved by the dialer, after it recorded them.
		Resolver: keepNames{},
		Dial:     p.dial,
		Logger:   log.New(io.Discard, "", 0),
	})
	if err != nil {
		return nil, err
	}
	p.ln = trackingListener{Listener: ln, d: p.dialer}
	go func() {
		defer close(p.done)
		_ = srv.Serve(p.ln)
	}()
	return p, nil
}

// Addr is the proxy's host:port.
func (p *SOCKS5) Addr() string { return p.ln.Addr().String() }

// Close stops the proxy and closes its connections.
func (p *SOCKS5) Close() {
	p.once.Do(func() {
		_ = p.ln.Close()
		<-p.done
		p.closeAll()
	})
}

// keepNames leaves host names to the dialer: go-socks5 dials the resolved
// IP when a resolver gives one, and the name when it gives none.
type keepNames struct{}

// Resolve implements socks5.NameResolver.
func (keepNames) Resolve(ctx context.Context, _ string) (context.Context, net.IP, error) {
	return ctx, nil, nil
}
