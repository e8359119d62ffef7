package etcdtest

import (
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"go.etcd.io/etcd/client/pkg/v3/transport"

	"github.com/fakeplane/fakeplane/internal/pki"
)

// TLSFiles names the PEM files of one side of a TLS connection to etcd:
// the CA it trusts, and its certificate and key.
type TLSFiles struct {
	CAFile, CertFile, KeyFile string
}

// StartTLS starts an etcd server for t as Start does, serving its clients
// over TLS and requiring their certificates (etcd's --client-cert-auth), as
// kubeadm runs it. The returned Server's TLS names the files a client
// presents and trusts.
func StartTLS(t testing.TB) *Server {
	t.Helper()
	srvFiles, clientFiles, err := writeTLSFiles(t.TempDir())
	if err != nil {
		t.Fatalf("etcd certificates: %v", err)
	}
	sec := &tlsPair{server: srvFiles, client: clientFiles}
	var srv *Server
	if bin, err := Binary(); err == nil {
		srv = startRetrying(t, bin+", over TLS", func(t testing.TB) (*Server, error) { return startBinary(t, bin, sec) })
	} else {
		srv = startRetrying(t, "in process, over TLS", func(t testing.TB) (*Server, error) { return startInProcess(t, sec) })
	}
	srv.TLS = &clientFiles
	return srv
}

// tlsPair is what a server started over TLS is given: its own files, and
// the client's, with which it checks that it serves.
type tlsPair struct {
	server, client TLSFiles
}

// scheme is the scheme of the client URLs of a server secured by p (nil:
// plain HTTP).
func (p *tlsPair) scheme() string {
	if p == nil {
		return "http"
	}
	return "https"
}

// httpClient returns an HTTP client of etcd secured by p, and a function
// closing its idle connections.
func (p *tlsPair) httpClient() (*http.Client, func(), error) {
	tr := &http.Transport{}
	if p != nil {
		cfg, err := p.client.ClientConfig()
		if err != nil {
			return nil, nil, err
		}
		tr.TLSClientConfig = cfg
	}
	return &http.Client{Transport: tr}, tr.CloseIdleConnections, nil
}

// ClientConfig returns the TLS configuration of an etcd client presenting
// the files' certificate and trusting their CA.
func (f TLSFiles) ClientConfig() (*tls.Config, error) {
	info := transport.TLSInfo{CertFile: f.CertFile, KeyFile: f.KeyFile, TrustedCAFile: f.CAFile}
	return info.ClientConfig()
}

// writeTLSFiles makes a CA, a serving certificate for 127.0.0.1 and a
// client certificate, and writes them in dir: the server's files and the
// client's (both trust the one CA).
func writeTLSFiles(dir string) (server, client TLSFiles, err error) {
	ca, err := pki.NewCA("etcdtest-ca")
	if err != nil {
		return server, client, err
	}
	serving, err := ca.NewServingCert("etcdtest", []string{"localhost"}, []net.IP{net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return server, client, err
	}
	cert, err := ca.NewClientCert("kube-apiserver-etcd-client")
	if err != nil {
		return server, client, err
	}
	write := func(name string, data []byte) (string, error) {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			return "", fmt.Errorf("write %s: %w", name, err)
		}
		return p, nil
	}
	caFile, err := write("ca.crt", ca.CertPEM)
	if err != nil {
		return server, client, err
	}
	server.CAFile, client.CAFile = caFile, caFile
	for _, f := range []struct {
		to   *string
		name string
		data []byte
	}{
		{&server.CertFile, "server.crt", serving.CertPEM},
		{&server.KeyFile, "server.key", serving.KeyPEM},
		{&client.CertFile, "client.crt", cert.CertPEM},
		{&client.KeyFile, "client.key", cert.KeyPEM},
	} {
		if *f.to, err = write(f.name, f.data); err != nil {
			return server, client, err
		}
	}
	return server, client, nil
}
