package fakeplane

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"time"

	"golang.org/x/net/http2"
	certutil "k8s.io/client-go/util/cert"
	cliflag "k8s.io/component-base/cli/flag"

	"github.com/fakeplane/fakeplane/internal/pki"
)

// SecureServing is how the control plane serves HTTPS, as kube-apiserver's
// serving flags set it. Its zero value serves a certificate the cluster CA
// signs, kept nowhere but in memory, with TLS 1.2 or later and Go's cipher
// suites.
type SecureServing struct {
	// CertFile and KeyFile are --tls-cert-file and
	// --tls-private-key-file: the serving certificate (with its chain,
	// if any, after it) and its key, served to every client. Both or
	// neither. The kubeconfig the control plane writes, and RESTConfig,
	// trust the certificates in CertFile.
	CertFile, KeyFile string
	// CertDir is --cert-dir, read when CertFile and KeyFile are not set:
	// its apiserver.crt and apiserver.key are served when both are
	// there (as CertFile and KeyFile would be); otherwise the serving
	// certificate the cluster CA signs is written there, followed by the
	// CA, as kube-apiserver writes the self-signed pair it makes.
	CertDir string
	// MinTLSVersion is --tls-min-version: VersionTLS12 (the default) or
	// VersionTLS13.
	MinTLSVersion string
	// CipherSuites is --tls-cipher-suites: the names of the TLS 1.2
	// cipher suites offered (default: Go's).
	CipherSuites []string
	// CurvePreferences is --tls-curve-preferences: the key exchange
	// mechanisms allowed, as numeric crypto/tls CurveIDs (23 for P-256, 29
	// for X25519, 4588 for X25519MLKEM768; default: Go's). Go orders them
	// by its own preference, as for kube-apiserver.
	CurvePreferences []int32
	// SNICertKeys are --tls-sni-cert-key: more certificates, each served
	// to the clients that ask (by TLS server name) for one of its Names,
	// or without Names for its own DNS names or common name. An exact name
	// wins over a wildcard ("*.example.com"), earlier pairs over later
	// ones, given names over a certificate's own. A client asking for no
	// name gets the pair named for the address it dialed, if any.
	SNICertKeys []cliflag.NamedCertKey
	// DisableHTTP2 is --disable-http2-serving: HTTP/1.1 alone is offered.
	DisableHTTP2 bool
	// PermitPortSharing is --permit-port-sharing: the port is bound with
	// SO_REUSEPORT, so that other processes (or control planes) binding it
	// the same way listen on it too, the kernel spreading the connections
	// among them.
	PermitPortSharing bool
	// PermitAddressSharing is --permit-address-sharing: the port is bound
	// with SO_REUSEADDR, which Go sets on every listener anyway.
	PermitAddressSharing bool
	// HTTP2MaxStreamsPerConnection is --http2-max-streams-per-connection:
	// the streams a client may have open on one HTTP/2 connection; 0 or
	// less for kube-apiserver's 100.
	HTTP2MaxStreamsPerConnection int
}

// WithSecureServing serves HTTPS as s says: the serving certificate and
// key files, the directory for them, the SNI certificates, and the TLS
// version, cipher suites and curves. New refuses what kube-apiserver refuses
// (one of the files without the other, unknown versions, suites or curves); Start,
// files that do not load. As kube-apiserver, the server reads the
// certificate files again when they change (checked at a handshake, at
// most once a second), and keeps the last pair that loaded.
func WithSecureServing(s SecureServing) Option {
	return func(o *options) { o.serving = s }
}

// servingPairName is the name kube-apiserver gives the serving pair it
// keeps in --cert-dir (apiserver.crt, apiserver.key).
const servingPairName = "apiserver"

// loopbackServerName is the TLS server name the control plane's own
// clients ask for when the serving certificate is not the cluster CA's:
// they are served the one it signs, as kube-apiserver's loopback clients
// are served its apiserver-loopback-client certificate.
const loopbackServerName = "apiserver-loopback-client"

// tlsParams are the TLS version and cipher suites WithSecureServing names,
// parsed.
type tlsParams struct {
	minVersion uint16
	suites     []uint16
	curves     []tls.CurveID
	http1Only  bool
}

// parseSecureServing checks s as kube-apiserver checks its flags, and
// parses its TLS version and cipher suites.
func parseSecureServing(s SecureServing) (tlsParams, error) {
	if (s.CertFile == "") != (s.KeyFile == "") {
		return tlsParams{}, errors.New("fakeplane: missing filename for serving cert")
	}
	minVersion, err := tlsVersion(s.MinTLSVersion)
	if err != nil {
		return tlsParams{}, fmt.Errorf("fakeplane: %w", err)
	}
	suites, err := cliflag.TLSCipherSuites(s.CipherSuites)
	if err != nil {
		return tlsParams{}, fmt.Errorf("fakeplane: %w", err)
	}
	curves, err := cliflag.TLSCurvePreferences(s.CurvePreferences)
	if err != nil {
		return tlsParams{}, fmt.Errorf("fakeplane: %w", err)
	}
	// HTTP/2 is served, and it needs one of these below TLS 1.3:
	// kube-apiserver refuses to start without, as http2.ConfigureServer
	// refuses.
	if !s.DisableHTTP2 && len(suites) > 0 && minVersion < tls.VersionTLS13 &&
		!slices.Contains(suites, tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256) && !slices.Contains(suites, tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256) {
		return tlsParams{}, errors.New("fakeplane: error configuring http2: http2: TLSConfig.CipherSuites is missing an HTTP/2-required AES_128_GCM_SHA256 cipher (need at least one of TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256 or TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256)")
	}
	return tlsParams{minVersion: minVersion, suites: suites, curves: curves, http1Only: s.DisableHTTP2}, nil
}

// tlsVersion is --tls-min-version's value: TLS 1.2 unless set.
func tlsVersion(name string) (uint16, error) {
	if name == "" {
		return tls.VersionTLS12, nil
	}
	return cliflag.TLSVersion(name)
}

// servingTLS is what the server presents: the certificate the cluster CA
// signs and, when the options give them, the certificates from files that
// every other client gets, or those asking for their names.
type servingTLS struct {
	// own is the certificate the cluster CA signs.
	own tls.Certificate
	// given is the certificate from --tls-cert-file (or --cert-dir);
	// nil when the cluster CA's is the default.
	given *certFiles
	// sni are the --tls-sni-cert-key certificates.
	sni []*certFiles
	// trustPEM is what clients outside the control plane trust: the
	// cluster CA, or the certificates of the given file.
	trustPEM []byte
}

// fromFiles reports whether any certificate served comes from files: the
// control plane's own clients then ask for loopbackServerName.
func (s servingTLS) fromFiles() bool { return s.given != nil || len(s.sni) > 0 }

// givenServingCertificate reads the serving certificate the options name
// in files (--tls-cert-file, or --cert-dir's pair), before the server
// serves. Without one, it says where in --cert-dir the cluster CA's is to
// be written (writeDir), if anywhere, and the certificate is the cluster
// CA's.
func (cp *ControlPlane) givenServingCertificate() (s servingTLS, writeDir string, err error) {
	o := cp.opts.serving
	s.trustPEM = cp.ca.CertPEM
	certFile, keyFile := o.CertFile, o.KeyFile
	for _, nck := range o.SNICertKeys {
		f, err := loadCertFiles(sniPurpose, nck.CertFile, nck.KeyFile, nck.Names)
		if err != nil {
			return servingTLS{}, "", fmt.Errorf("fakeplane: failed to load SNI cert and key: %w", err)
		}
		s.sni = append(s.sni, f)
	}
	if certFile == "" && o.CertDir != "" {
		certFile, keyFile = servingPairFiles(o.CertDir)
		readable, err := certutil.CanReadCertAndKey(certFile, keyFile)
		if err != nil {
			return servingTLS{}, "", fmt.Errorf("fakeplane: cert-dir: %w", err)
		}
		if !readable {
			return s, o.CertDir, nil
		}
	}
	if certFile == "" {
		return s, "", nil
	}
	given, certPEM, err := loadServingPair(certFile, keyFile)
	if err != nil {
		return servingTLS{}, "", err
	}
	s.given, s.trustPEM = given, certPEM
	return s, "", nil
}

// servingPairFiles are the serving pair's files in a --cert-dir.
func servingPairFiles(dir string) (certFile, keyFile string) {
	return filepath.Join(dir, servingPairName+".crt"), filepath.Join(dir, servingPairName+".key")
}

// loadServingPair reads a serving certificate and its key as
// kube-apiserver does, and returns them and the PEM of the certificates
// alone.
func loadServingPair(certFile, keyFile string) (*certFiles, []byte, error) {
	certPEM, err := os.ReadFile(certFile)
	if err != nil {
		return nil, nil, fmt.Errorf("fakeplane: tls-cert-file: %w", err)
	}
	keyPEM, err := os.ReadFile(keyFile)
	if err != nil {
		return nil, nil, fmt.Errorf("fakeplane: tls-private-key-file: %w", err)
	}
	if len(certPEM) == 0 || len(keyPEM) == 0 {
		return nil, nil, fmt.Errorf("fakeplane: missing content for serving cert %q", "serving-cert::"+certFile+"::"+keyFile)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, nil, fmt.Errorf("fakeplane: serving cert %s and key %s: %w", certFile, keyFile, err)
	}
	pair := &certFiles{certFile: certFile, keyFile: keyFile, certPEM: certPEM, keyPEM: keyPEM, cert: &cert}
	var certs []byte
	for rest := certPEM; ; {
		var b *pem.Block
		if b, rest = pem.Decode(rest); b == nil {
			break
		}
		if b.Type == "CERTIFICATE" {
			certs = append(certs, pem.EncodeToMemory(b)...)
		}
	}
	return pair, certs, nil
}

// writeServingPair writes the serving pair to --cert-dir as kube-apiserver
// writes its self-signed one: the directory made if missing, the key
// private.
func writeServingPair(dir string, certPEM, keyPEM []byte) error {
	certFile, keyFile := servingPairFiles(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("fakeplane: cert-dir: %w", err)
	}
	if err := os.WriteFile(certFile, certPEM, 0o644); err != nil {
		return fmt.Errorf("fakeplane: cert-dir: %w", err)
	}
	if err := pki.WriteSecretFile(keyFile, keyPEM); err != nil {
		return fmt.Errorf("fakeplane: cert-dir: %w", err)
	}
	return nil
}

// tlsConfig is the server's TLS configuration: the certificates from files
// for every client but the control plane's own (which ask for
// loopbackServerName), as servingCerts chooses them; the TLS version and
// cipher suites p gives; and a client certificate asked for, as
// kube-apiserver does, for the authenticators to verify (client CA or
// front-proxy CA), naming the CAs clientCAs returns at the handshake.
func (s servingTLS) tlsConfig(p tlsParams, clientCAs func() *x509.CertPool, log *slog.Logger) (*tls.Config, error) {
	cfg := &tls.Config{
		Certificates: []tls.Certificate{s.own},
		ClientAuth:   tls.RequestClientCert,
		MinVersion:   p.minVersion,
		CipherSuites: p.suites,
		// As kube-apiserver's: nil (Go's) unless --tls-curve-preferences.
		CurvePreferences: p.curves,
		// Set here, not left to http.Server: the configuration a
		// handshake gets (GetConfigForClient's) is a copy of this one.
		NextProtos: []string{"h2", "http/1.1"},
	}
	if p.http1Only {
		cfg.NextProtos = []string{"http/1.1"}
	}
	if s.fromFiles() {
		certs, err := newServingCerts(s.own, s.given, s.sni, log)
		if err != nil {
			return nil, fmt.Errorf("fakeplane: %w", err)
		}
		cfg.Certificates = nil
		cfg.GetCertificate = certs.getCertificate
	}
	// As kube-apiserver's DynamicServingCertificateController, a
	// configuration for the CAs of the time: made again when they change.
	type forCAs struct {
		pool *x509.CertPool
		cfg  *tls.Config
	}
	var last atomic.Pointer[forCAs]
	base := cfg.Clone()
	cfg.GetConfigForClient = func(*tls.ClientHelloInfo) (*tls.Config, error) {
		pool := clientCAs()
		if l := last.Load(); l != nil && l.pool == pool {
			return l.cfg, nil
		}
		c := base.Clone()
		c.ClientCAs = pool
		last.Store(&forCAs{pool: pool, cfg: c})
		return c, nil
	}
	return cfg, nil
}

// servingHosts and servingIPs are the names and addresses the cluster CA's
// serving certificate is for: kube-apiserver's service names, loopback,
// the first service IP and the address served on.
func servingHosts() []string {
	return []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local", loopbackServerName}
}

// servingIPs: see servingHosts.
func servingIPs(serviceIP, listenIP net.IP) []net.IP {
	return []net.IP{net.ParseIP("127.0.0.1"), net.IPv6loopback, serviceIP, listenIP}
}

// HTTP/2 as kube-apiserver serves it (its SecureServingInfo.Serve): frames
// and per-stream buffers of 256 KiB (most objects fit one), 100 concurrent
// streams a connection unless --http2-max-streams-per-connection says
// otherwise, idle connections closed after 90 s.
const (
	http2FrameSize           = 256 * 1024
	defaultHTTP2MaxStreams   = 100
	servingIdleTimeout       = 90 * time.Second
	servingReadHeaderTimeout = 32 * time.Second
)

// configureHTTP sets up srv's protocols as kube-apiserver's secure server,
// with golang.org/x/net/http2 as there: HTTP/1.1 alone with DisableHTTP2,
// otherwise HTTP/2 with its limits.
func configureHTTP(srv *http.Server, s SecureServing) error {
	srv.IdleTimeout = servingIdleTimeout
	srv.ReadHeaderTimeout = servingReadHeaderTimeout
	srv.MaxHeaderBytes = 1 << 20
	if s.DisableHTTP2 {
		var p http.Protocols
		p.SetHTTP1(true)
		srv.Protocols = &p
		return nil
	}
	streams := s.HTTP2MaxStreamsPerConnection
	if streams <= 0 {
		streams = defaultHTTP2MaxStreams
	}
	if err := http2.ConfigureServer(srv, &http2.Server{
		IdleTimeout:                  servingIdleTimeout,
		MaxConcurrentStreams:         uint32(streams),
		MaxReadFrameSize:             http2FrameSize,
		MaxUploadBufferPerStream:     http2FrameSize,
		MaxUploadBufferPerConnection: http2FrameSize * int32(streams),
	}); err != nil {
		return fmt.Errorf("fakeplane: error configuring http2: %w", err)
	}
	return nil
}
