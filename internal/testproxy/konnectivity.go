package testproxy

import (
	"errors"
	"net"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	client "sigs.k8s.io/apiserver-network-proxy/konnectivity-client/proto/client"
)

// Konnectivity is a minimal Konnectivity server: the GRPC ProxyService of
// the konnectivity-client protocol, answering DIAL_REQ with a connection it
// dials itself (DIAL_RSP), passing DATA both ways, and answering CLOSE_REQ
// (or the end of a connection) with CLOSE_RSP. The real server forwards to
// agents in the cluster; this one dials from the test process, which is
// where fakeplane's cluster is.
type Konnectivity struct {
	*dialer
	srv  *grpc.Server
	ln   net.Listener
	done chan struct{}
	once sync.Once
}

// NewKonnectivity serves the ProxyService on ln (a Unix socket, as
// kube-apiserver's GRPC mode dials one). Close stops it.
func NewKonnectivity(ln net.Listener, hosts Hosts) *Konnectivity {
	k := &Konnectivity{dialer: newDialer(hosts), ln: ln, done: make(chan struct{})}
	k.srv = grpc.NewServer(grpc.Creds(insecure.NewCredentials()))
	client.RegisterProxyServiceServer(k.srv, proxyService{k})
	go func() {
		defer close(k.done)
		_ = k.srv.Serve(ln)
	}()
	return k
}

// Addr is the address the server listens on (the socket's path).
func (k *Konnectivity) Addr() string { return k.ln.Addr().String() }

// Close stops the server and closes its connections.
func (k *Konnectivity) Close() {
	k.once.Do(func() {
		k.closeAll()
		k.srv.Stop()
		<-k.done
	})
}

// proxyService implements client.ProxyServiceServer.
type proxyService struct{ k *Konnectivity }

// Proxy serves one tunnel (a GRPC stream), for as many connections as the
// client dials over it.
func (s proxyService) Proxy(stream client.ProxyService_ProxyServer) error {
	t := &tunnel{stream: stream, conns: map[int64]*tunnelConn{}}
	defer t.closeAll()
	for {
		pkt, err := stream.Recv()
		if err != nil {
			return nil // the client closed the tunnel
		}
		switch pkt.Type {
		case client.PacketType_DIAL_REQ:
			req := pkt.GetDialRequest()
			c, err := s.k.dial(stream.Context(), req.Protocol, req.Address)
			if err != nil {
				t.send(&client.Packet{Type: client.PacketType_DIAL_RSP, Payload: &client.Packet_DialResponse{
					DialResponse: &client.DialResponse{Random: req.Random, Error: err.Error()}}})
				continue
			}
			tc := t.add(c)
			t.send(&client.Packet{Type: client.PacketType_DIAL_RSP, Payload: &client.Packet_DialResponse{
				DialResponse: &client.DialResponse{Random: req.Random, ConnectID: tc.id}}})
			t.wg.Go(func() { t.pump(tc) })
		case client.PacketType_DATA:
			d := pkt.GetData()
			if tc := t.get(d.ConnectID); tc != nil {
				if _, err := tc.Write(d.Data); err != nil {
					t.close(tc)
				}
			}
		case client.PacketType_CLOSE_REQ:
			id := pkt.GetCloseRequest().ConnectID
			if tc := t.get(id); tc != nil {
				t.close(tc)
			} else {
				t.sendCloseResponse(id)
			}
		}
	}
}

// tunnel is one ProxyService stream and the connections opened over it.
type tunnel struct {
	stream client.ProxyService_ProxyServer
	sendMu sync.Mutex
	wg     sync.WaitGroup

	mu     sync.Mutex
	nextID int64
	conns  map[int64]*tunnelConn
}

// tunnelConn is a connection a client dialed through the tunnel.
type tunnelConn struct {
	net.Conn
	id   int64
	once sync.Once
}

// send sends a packet; a stream is not safe for concurrent sends.
func (t *tunnel) send(p *client.Packet) {
	t.sendMu.Lock()
	defer t.sendMu.Unlock()
	_ = t.stream.Send(p)
}

func (t *tunnel) sendCloseResponse(id int64) {
	t.send(&client.Packet{Type: client.PacketType_CLOSE_RSP, Payload: &client.Packet_CloseResponse{
		CloseResponse: &client.CloseResponse{ConnectID: id}}})
}

func (t *tunnel) add(c net.Conn) *tunnelConn {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.nextID++
	tc := &tunnelConn{Conn: c, id: t.nextID}
	t.conns[tc.id] = tc
	return tc
}

func (t *tunnel) get(id int64) *tunnelConn {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.conns[id]
}

// close closes a connection once and tells the client (CLOSE_RSP).
func (t *tunnel) close(tc *tunnelConn) {
	tc.once.Do(func() {
		t.mu.Lock()
		delete(t.conns, tc.id)
		t.mu.Unlock()
		_ = tc.Conn.Close()
		t.sendCloseResponse(tc.id)
	})
}

// pump sends what the connection reads to the client as DATA packets, and
// closes it when it ends.
func (t *tunnel) pump(tc *tunnelConn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := tc.Read(buf)
		if n > 0 {
			t.send(&client.Packet{Type: client.PacketType_DATA, Payload: &client.Packet_Data{
				Data: &client.Data{ConnectID: tc.id, Data: append([]byte(nil), buf[:n]...)}}})
		}
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				t.close(tc)
			}
			return
		}
	}
}

// closeAll closes the tunnel's connections and waits for their pumps.
func (t *tunnel) closeAll() {
	t.mu.Lock()
	conns := make([]*tunnelConn, 0, len(t.conns))
	for _, tc := range t.conns {
		conns = append(conns, tc)
	}
	t.mu.Unlock()
	for _, tc := range conns {
		tc.once.Do(func() { _ = tc.Conn.Close() })
	}
	t.wg.Wait()
}
