package fakeplane

// The egress selector (kube-apiserver's --egress-selector-config-file): which
// connections the control plane opens toward the cluster go through a
// Konnectivity server or an HTTP CONNECT proxy, and how.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"sigs.k8s.io/apiserver-network-proxy/konnectivity-client/pkg/client"

	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apiserver/pkg/apis/apiserver"
	"k8s.io/apiserver/pkg/server/egressselector"
	webhookutil "k8s.io/apiserver/pkg/util/webhook"
)

// WithEgressSelectorConfigFile reads an EgressSelectorConfiguration
// (apiserver.k8s.io/v1beta1, the one version kube-apiserver v1.37 reads)
// from a file at Start, as kube-apiserver's
// --egress-selector-config-file does, with the same validation and errors:
// a file that is missing, malformed or invalid makes Start fail. The
// selections are used where kube-apiserver uses them: "cluster" for the
// aggregator's connections to extension API servers (requests, the
// availability checks and discovery), for admission and CRD conversion
// webhooks given as a Service, for the proxy subresources and for the
// kubelet API; "controlplane" for webhooks given as a URL. "etcd" is
// accepted and unused: there is no etcd. A selection left out dials
// directly.
func WithEgressSelectorConfigFile(path string) Option {
	return func(o *options) { o.egressConfigFile = path; o.egressConfig = nil }
}

// WithEgressSelector is WithEgressSelectorConfigFile with the configuration
// given as a value: the internal type a file's apiserver.k8s.io/v1beta1
// decodes to (egressselector.ReadEgressSelectorConfiguration reads one). It
// is validated at Start in the same way.
func WithEgressSelector(cfg *apiserver.EgressSelectorConfiguration) Option {
	return func(o *options) { o.egressConfig = cfg.DeepCopy(); o.egressConfigFile = "" }
}

// egress holds the dialers of the egress selections; the zero value dials
// everything directly, as kube-apiserver without the flag.
type egress struct {
	selector *egressselector.EgressSelector
	// cluster is the "cluster" selection's dialer; nil dials directly.
	cluster utilnet.DialFunc
	// conns are the connections open through the selections, closed at
	// Stop: a Konnectivity tunnel's goroutines end with its connection.
	conns *openConns
}

// newEgress reads, validates and builds the egress selector of the options,
// with kube-apiserver's messages (its flag check, then
// EgressSelectorOptions.ApplyTo's).
func newEgress(o *options) (egress, error) {
	cfg := o.egressConfig
	if o.egressConfigFile != "" {
		if _, err := os.Stat(o.egressConfigFile); errors.Is(err, fs.ErrNotExist) {
			return egress{}, fmt.Errorf("egress-selector-config-file %s does not exist", o.egressConfigFile)
		}
		var err error
		if cfg, err = egressselector.ReadEgressSelectorConfiguration(o.egressConfigFile); err != nil {
			return egress{}, fmt.Errorf("failed to read egress selector config: %w", err)
		}
	}
	if cfg == nil {
		return egress{}, nil
	}
	if errs := egressselector.ValidateEgressSelectorConfiguration(cfg); len(errs) > 0 {
		return egress{}, fmt.Errorf("failed to validate egress selector configuration: %w", errs.ToAggregate())
	}
	for _, s := range cfg.EgressSelections {
		// Upstream's dialer for HTTPConnect over TCP reads the tlsConfig
		// that validation forbids with an http:// URL: kube-apiserver
		// v1.37 crashes (nil dereference) at start on such a selection.
		if c := s.Connection; c.ProxyProtocol == apiserver.ProtocolHTTPConnect && c.Transport != nil && c.Transport.UDS == nil &&
			c.Transport.TCP != nil && c.Transport.TCP.TLSConfig == nil {
			return egress{}, fmt.Errorf("failed to setup egress selector: egress selection %q: HTTPConnect over TCP to %s has no tlsConfig, which kube-apiserver v1.37 needs to dial it (and crashes without)", s.Name, c.Transport.TCP.URL)
		}
	}
	sel, err := egressselector.NewEgressSelector(cfg)
	if err != nil {
		return egress{}, fmt.Errorf("failed to setup egress selector with config %#v: %w", cfg, err)
	}
	if sel == nil {
		return egress{}, nil
	}
	// The same dialers, with their connections tracked; a Konnectivity
	// server over a Unix socket is dialed by grpcUDSDialer.
	e := egress{conns: newOpenConns()}
	dialers := map[egressselector.EgressType]utilnet.DialFunc{}
	for _, t := range []egressselector.EgressType{egressselector.ControlPlane, egressselector.Etcd, egressselector.Cluster} {
		d, err := sel.Lookup(t.AsNetworkContext())
		if err != nil {
			return egress{}, fmt.Errorf("egress selection %q: %w", t, err)
		}
		if uds := grpcUDSName(cfg, t); uds != "" && d != nil {
			d = e.conns.grpcUDSDialer(uds)
		}
		if d != nil {
			dialers[t] = e.conns.track(d)
		}
	}
	e.selector = egressselector.NewEgressSelectorWithMap(dialers)
	e.cluster = dialers[egressselector.Cluster]
	return e, nil
}

// close closes the connections still open through the selections.
func (e egress) close() {
	if e.conns != nil {
		e.conns.closeAll()
	}
}

// openConns tracks the connections the dialers opened until they are
// closed, and the dials in flight: at close, the dials are cancelled and
// awaited, and the connections closed, so that nothing of theirs outlives
// the control plane.
type openConns struct {
	// ctx is cancelled at close; every dial is made with it.
	ctx    context.Context
	cancel context.CancelFunc
	dials  sync.WaitGroup

	mu     sync.Mutex
	closed bool
	conns  map[*trackedConn]struct{}
}

// errEgressClosed is the error of a dial once the control plane stopped.
var errEgressClosed = errors.New("egress: the control plane stopped")

// newOpenConns returns an empty openConns.
func newOpenConns() *openConns {
	ctx, cancel := context.WithCancel(context.Background())
	return &openConns{ctx: ctx, cancel: cancel, conns: map[*trackedConn]struct{}{}}
}

// track returns dial with its connections tracked, its dials cancelled at
// close.
func (o *openConns) track(dial utilnet.DialFunc) utilnet.DialFunc {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		o.mu.Lock()
		if o.closed {
			o.mu.Unlock()
			return nil, errEgressClosed
		}
		o.dials.Add(1)
		o.mu.Unlock()
		defer o.dials.Done()
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(o.ctx, cancel)()
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		tc := &trackedConn{Conn: c, owner: o}
		o.mu.Lock()
		defer o.mu.Unlock()
		if o.closed {
			_ = c.Close()
			return nil, errEgressClosed
		}
		o.conns[tc] = struct{}{}
		return tc, nil
	}
}

// closeAll cancels the dials in flight and waits for them, then closes
// every tracked connection, in parallel: closing a Konnectivity connection
// waits for the server's CLOSE_RSP.
func (o *openConns) closeAll() {
	o.mu.Lock()
	o.closed = true
	o.mu.Unlock()
	o.cancel()
	o.dials.Wait()
	o.mu.Lock()
	conns := make([]*trackedConn, 0, len(o.conns))
	for c := range o.conns {
		conns = append(conns, c)
	}
	o.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Go(func() { _ = c.Close() })
	}
	wg.Wait()
}

// trackedConn is a connection that leaves its openConns when closed.
type trackedConn struct {
	net.Conn
	owner *openConns
	once  sync.Once
	err   error
}

// Close closes the connection once.
func (c *trackedConn) Close() error {
	c.once.Do(func() {
		c.owner.mu.Lock()
		delete(c.owner.conns, c)
		c.owner.mu.Unlock()
		c.err = c.Conn.Close()
	})
	return c.err
}

// webhookWrapper is what kube-apiserver gives its admission and CRD
// conversion webhook clients: a webhook given as the kubernetes Service is
// called through the loopback configuration, one given as another Service
// through the "cluster" selection, one given as a URL through
// "controlplane".
func (e egress) webhookWrapper(cp *ControlPlane) webhookutil.AuthenticationInfoResolverWrapper {
	return webhookutil.NewDefaultAuthenticationInfoResolverWrapper(nil, e.selector, cp.loopbackConfig(), cp.tracerProvider())
}

// grpcUDSName is the Unix socket of the Konnectivity server (GRPC) that
// cfg's selection of type t dials, or "" when it dials another way.
func grpcUDSName(cfg *apiserver.EgressSelectorConfiguration, t egressselector.EgressType) string {
	for _, s := range cfg.EgressSelections {
		c := s.Connection
		if strings.EqualFold(s.Name, t.String()) && c.ProxyProtocol == apiserver.ProtocolGRPC && c.Transport != nil && c.Transport.UDS != nil {
			return c.Transport.UDS.UDSName
		}
	}
	return ""
}

// grpcUDSDialer dials through the Konnectivity server (GRPC) on the Unix
// socket uds, as kube-apiserver's egress selector does (a tunnel per
// connection, a dial of at most 30 s), but with the dial's context:
// upstream's ignores it, so that a dial in flight when a control plane
// stops would outlive it. A tunnel ends with its connection, or at close.
func (o *openConns) grpcUDSDialer(uds string) utilnet.DialFunc {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		dialCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		tunnel, err := client.CreateSingleUseGrpcTunnelWithContext(dialCtx, o.ctx, uds,
			grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) {
				var d net.Dialer
				return d.DialContext(ctx, "unix", uds)
			}),
			grpc.WithBlock(),
			grpc.WithReturnConnectionError(),
			grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			return nil, err
		}
		return tunnel.DialContext(ctx, "tcp", addr)
	}
}
