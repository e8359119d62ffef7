package fakeplane

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"
	netutils "k8s.io/utils/net"
)

// certReloadInterval is how often, at most, the serving certificates' files
// are read again: at a handshake at least this long after the last read.
// kube-apiserver watches the files and also reads them every minute; a
// handshake within a second of a change may still get the old pair.
const certReloadInterval = time.Second

// certFiles is a certificate and key served from files, read again when
// they change, as kube-apiserver's DynamicCertKeyPairContent keeps them.
type certFiles struct {
	certFile, keyFile string
	// names are the SNI names given with --tls-sni-cert-key (none: the
	// certificate's own names serve).
	names []string
	// certPEM and keyPEM are the last contents read that made a pair,
	// and cert that pair, parsed.
	certPEM, keyPEM []byte
	cert            *tls.Certificate
}

// loadCertFiles reads certFile and keyFile as kube-apiserver's
// DynamicCertKeyPairContent does: both must be named and have content,
// and make a pair. purpose names the pair in the errors.
func loadCertFiles(purpose, certFile, keyFile string, names []string) (*certFiles, error) {
	if certFile == "" || keyFile == "" {
		return nil, fmt.Errorf("missing filename for serving cert")
	}
	f := &certFiles{certFile: certFile, keyFile: keyFile, names: names}
	if _, err := f.reload(purpose); err != nil {
		return nil, err
	}
	return f, nil
}

// reload reads f's files again and keeps what they hold when it is a
// pair; it reports whether that differs from what f had. On an error f
// keeps what it had, as kube-apiserver keeps serving the last good pair.
func (f *certFiles) reload(purpose string) (changed bool, err error) {
	certPEM, err := os.ReadFile(f.certFile)
	if err != nil {
		return false, err
	}
	keyPEM, err := os.ReadFile(f.keyFile)
	if err != nil {
		return false, err
	}
	if len(certPEM) == 0 || len(keyPEM) == 0 {
		return false, fmt.Errorf("missing content for serving cert %q", purpose+"::"+f.certFile+"::"+f.keyFile)
	}
	if bytes.Equal(certPEM, f.certPEM) && bytes.Equal(keyPEM, f.keyPEM) {
		return false, nil
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return false, err
	}
	f.certPEM, f.keyPEM, f.cert = certPEM, keyPEM, &cert
	return true, nil
}

// servingCerts chooses the certificate each handshake gets, as
// kube-apiserver's DynamicServingCertificateController and Go's TLS server
// choose it, from the control plane's own certificate (for its own clients,
// which ask for loopbackServerName), the default one (--tls-cert-file, or
// the own one) and the SNI ones (--tls-sni-cert-key). The files are read
// again, at most every certReloadInterval, as handshakes come.
type servingCerts struct {
	own tls.Certificate
	// def is the default certificate's files; nil: own is the default.
	def *certFiles
	sni []*certFiles
	log *slog.Logger

	mu      sync.Mutex
	checked time.Time
	served  *servedCerts
}

// servedCerts are the certificates served now, parsed.
type servedCerts struct {
	def *tls.Certificate
	// all is the default and then the SNI certificates in flag order:
	// the order a handshake that matches no name tries them in.
	all []*tls.Certificate
	// byName is the SNI certificates by the names that select them.
	byName map[string]*tls.Certificate
}

// newServingCerts serves own, def and sni (loaded already).
func newServingCerts(own tls.Certificate, def *certFiles, sni []*certFiles, log *slog.Logger) (*servingCerts, error) {
	s := &servingCerts{own: own, def: def, sni: sni, log: log, checked: time.Now()}
	served, err := s.build()
	if err != nil {
		return nil, err
	}
	s.served = served
	return s, nil
}

// build parses the certificates' current contents and maps the SNI names
// as kube-apiserver's BuildNamedCertificates does: a certificate's explicit
// names, or without them its common name (unless an IP or not a DNS name)
// and DNS names; earlier certificates win a name, explicit names win over
// the certificates' own.
func (s *servingCerts) build() (*servedCerts, error) {
	out := &servedCerts{def: &s.own, byName: map[string]*tls.Certificate{}}
	if s.def != nil {
		out.def = s.def.cert
	}
	out.all = append(out.all, out.def)
	for _, f := range s.sni {
		out.all = append(out.all, f.cert)
	}
	explicit := map[string]*tls.Certificate{}
	for i := len(s.sni) - 1; i >= 0; i-- {
		f := s.sni[i]
		for _, name := range f.names {
			explicit[name] = f.cert
		}
		if len(f.names) > 0 {
			continue
		}
		leaf, err := x509.ParseCertificate(f.cert.Certificate[0])
		if err != nil {
			return nil, fmt.Errorf("invalid SNI cert [%d]: %w", i, err)
		}
		for _, name := range certificateNames(leaf) {
			out.byName[name] = f.cert
		}
	}
	for name, c := range explicit {
		out.byName[name] = c
	}
	return out, nil
}

// certificateNames are the SNI names a certificate without explicit ones
// is chosen by: its common name when that is a DNS name (a wildcard
// included) and not an IP, then its DNS names. IP addresses in it are not
// names: SNI carries none.
func certificateNames(c *x509.Certificate) []string {
	var names []string
	cn := c.Subject.CommonName
	if netutils.ParseIPSloppy(cn) == nil && (cn == "*" || len(validation.IsDNS1123Subdomain(strings.TrimPrefix(cn, "*."))) == 0) {
		names = append(names, cn)
	}
	return append(names, c.DNSNames...)
}

// sniPurpose names the SNI pairs in errors, as kube-apiserver names them.
const sniPurpose = "sni-serving-cert"

// current is what is served now, once the files were read again if the
// last read is certReloadInterval old. A change that does not load is
// logged and the last good certificates are kept.
func (s *servingCerts) current() *servedCerts {
	s.mu.Lock()
	defer s.mu.Unlock()
	if now := time.Now(); now.Sub(s.checked) >= certReloadInterval {
		s.checked = now
		changed := false
		if s.def != nil {
			c, err := s.def.reload("serving-cert")
			if err != nil {
				s.log.Warn("fakeplane: serving certificate not reloaded", "cert", s.def.certFile, "key", s.def.keyFile, "err", err)
			}
			changed = changed || c
		}
		for _, f := range s.sni {
			c, err := f.reload(sniPurpose)
			if err != nil {
				s.log.Warn("fakeplane: SNI certificate not reloaded", "cert", f.certFile, "key", f.keyFile, "err", err)
			}
			changed = changed || c
		}
		if changed {
			served, err := s.build()
			if err != nil {
				s.log.Warn("fakeplane: serving certificates not reloaded", "err", err)
			} else {
				s.served = served
			}
		}
	}
	return s.served
}

// getCertificate is the tls.Config hook: the control plane's own clients
// get its own certificate; others the certificate of the name they ask for
// (exactly, then with its first label a wildcard), or of the address they
// dialed when they ask for none; otherwise the first of the default and
// the SNI certificates that the client supports and that is valid for the
// name (Go's TLS server's fallback, which kube-apiserver's goes through),
// or the default.
func (s *servingCerts) getCertificate(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	if hello.ServerName == loopbackServerName {
		return &s.own, nil
	}
	served := s.current()
	name := strings.ToLower(hello.ServerName)
	if name == "" && hello.Conn != nil {
		if host, _, err := net.SplitHostPort(hello.Conn.LocalAddr().String()); err == nil {
			if c := served.byName[host]; c != nil {
				return c, nil
			}
		}
	}
	if c := served.byName[name]; c != nil {
		return c, nil
	}
	if name != "" {
		labels := strings.Split(name, ".")
		labels[0] = "*"
		if c := served.byName[strings.Join(labels, ".")]; c != nil {
			return c, nil
		}
	}
	for _, c := range served.all {
		if hello.SupportsCertificate(c) == nil {
			return c, nil
		}
	}
	return served.def, nil
}
