package testproxy

import (
	"crypto/tls"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"sync"

	"github.com/elazarl/goproxy"
)

// HTTPConnect is an HTTP proxy that serves CONNECT tunnels (goproxy), on
// TCP (with TLS when given a tls.Config, as a Konnectivity server in
// HTTPConnect mode over TCP) or on a Unix socket.
type HTTPConnect struct {
	*dialer
	srv  *http.Server
	ln   net.Listener
	done chan struct{}
	once sync.Once
}

// NewHTTPConnect serves a CONNECT proxy on ln (TLS with tlsCfg when it is
// not nil) that reaches hosts through hosts. Close stops it.
func NewHTTPConnect(ln net.Listener, tlsCfg *tls.Config, hosts Hosts) *HTTPConnect {
	p := &HTTPConnect{dialer: newDialer(hosts), done: make(chan struct{})}
	gp := goproxy.NewProxyHttpServer()
	gp.Logger = log.New(io.Discard, "", 0)
	gp.ConnectDialWithReq = func(req *http.Request, network, addr string) (net.Conn, error) {
		return p.dial(req.Context(), network, addr)
	}
	p.ln = trackingListener{Listener: ln, d: p.dialer}
	if tlsCfg != nil {
		p.ln = tls.NewListener(p.ln, tlsCfg)
	}
	p.srv = &http.Server{Handler: gp, ErrorLog: log.New(io.Discard, "", 0)}
	go func() {
		defer close(p.done)
		if err := p.srv.Serve(p.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			return
		}
	}()
	return p
}

// Addr is the address the proxy listens on (a socket path for a Unix
// socket).
func (p *HTTPConnect) Addr() string { return p.ln.Addr().String() }

// Close stops the proxy and closes its tunnels.
func (p *HTTPConnect) Close() {
	p.once.Do(func() {
		_ = p.srv.Close()
		<-p.done
		p.closeAll()
	})
}
