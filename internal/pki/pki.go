// Package pki makes the certificates a control plane needs: a self-signed CA,
// a serving certificate for loopback, and client certificates whose subject
// names a Kubernetes user (CN) and its groups (O).
package pki

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// Base names of the CA files in a PKI directory, kubeadm's: the cluster CA
// (client certificates, serving certificate) and the front-proxy CA (the
// authenticating proxy's client certificate, --requestheader-client-ca-file).
const (
	ClusterCAName    = "ca"
	FrontProxyCAName = "front-proxy-ca"
)

// validity is how long generated certificates last.
const validity = 365 * 24 * time.Hour

// CA is a certificate authority that signs serving and client certificates.
type CA struct {
	Cert *x509.Certificate
	Key  crypto.Signer
	// CertPEM is Cert in PEM form, as written into kubeconfigs.
	CertPEM []byte
}

// KeyPair is a signed certificate and its private key, both PEM encoded.
type KeyPair struct {
	CertPEM []byte
	KeyPEM  []byte
}

// TLSCertificate parses the pair for use in a tls.Config.
func (k KeyPair) TLSCertificate() (tls.Certificate, error) {
	return tls.X509KeyPair(k.CertPEM, k.KeyPEM)
}

// NewCA makes a self-signed CA with the given common name.
func NewCA(commonName string) (*CA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate CA key: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: commonName},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(10 * validity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, fmt.Errorf("self-sign CA: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("parse CA: %w", err)
	}
	return &CA{Cert: cert, Key: key, CertPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}, nil
}

// Pool returns a cert pool holding only this CA.
func (ca *CA) Pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.Cert)
	return p
}

// NewServingCert signs a server certificate valid for the given host names and IPs.
func (ca *CA) NewServingCert(commonName string, hosts []string, ips []net.IP) (KeyPair, error) {
	return ca.sign(&x509.Certificate{
		Subject:     pkix.Name{CommonName: commonName},
		DNSNames:    hosts,
		IPAddresses: ips,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	})
}

// NewClientCert signs a client certificate for user (CN) in groups (O), the
// way kube-apiserver's x509 authenticator reads them.
func (ca *CA) NewClientCert(user string, groups ...string) (KeyPair, error) {
	return ca.sign(&x509.Certificate{
		Subject:     pkix.Name{CommonName: user, Organization: groups},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
}

func (ca *CA) sign(tmpl *x509.Certificate) (KeyPair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return KeyPair{}, fmt.Errorf("generate key: %w", err)
	}
	now := time.Now()
	tmpl.SerialNumber = serial()
	tmpl.NotBefore = now.Add(-time.Hour)
	tmpl.NotAfter = now.Add(validity)
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, key.Public(), ca.Key)
	if err != nil {
		return KeyPair{}, fmt.Errorf("sign certificate for %q: %w", tmpl.Subject.CommonName, err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return KeyPair{}, fmt.Errorf("marshal key: %w", err)
	}
	return KeyPair{
		CertPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		KeyPEM:  pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}),
	}, nil
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return big.NewInt(time.Now().UnixNano())
	}
	return n
}

// Save writes the CA certificate and key as ca.crt and ca.key in dir.
func (ca *CA) Save(dir string) error { return ca.SaveAs(dir, ClusterCAName) }

// SaveAs writes the CA certificate and key as NAME.crt and NAME.key in dir
// (kubeadm's names: ca, front-proxy-ca).
func (ca *CA) SaveAs(dir, name string) error {
	der, err := x509.MarshalPKCS8PrivateKey(ca.Key)
	if err != nil {
		return fmt.Errorf("marshal CA key: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".crt"), ca.CertPEM, 0o644); err != nil {
		return fmt.Errorf("write CA certificate: %w", err)
	}
	if err := WriteSecretFile(filepath.Join(dir, name+".key"), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})); err != nil {
		return fmt.Errorf("write CA key: %w", err)
	}
	return nil
}

// SecretFileMode and PrivateDirMode are the modes of what only the user
// running the control plane may read: private keys and kubeconfigs (0600,
// as kubeadm writes them) and the data directory (0700, etcd's for its
// data directory).
const (
	SecretFileMode os.FileMode = 0o600
	PrivateDirMode os.FileMode = 0o700
)

// WriteSecretFile writes data, a key or a kubeconfig, to path with mode
// 0600. A file already at path is first made 0600 as well: a secret is
// never written into a file others can read (os.WriteFile alone keeps an
// existing file's mode).
func WriteSecretFile(path string, data []byte) error {
	if err := os.Chmod(path, SecretFileMode); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("restrict %s to 0600: %w", path, err)
	}
	if err := os.WriteFile(path, data, SecretFileMode); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// MakePrivateDir makes dir, and any missing parent, with mode 0700. A
// directory that already exists keeps its mode, as etcd keeps its data
// directory's: loose is true when others may read or enter it, for the
// caller to warn about (etcd's "check file permission" warning).
func MakePrivateDir(dir string) (loose bool, err error) {
	fi, err := os.Stat(dir)
	switch {
	case err == nil && !fi.IsDir():
		return false, fmt.Errorf("%s is not a directory", dir)
	case err == nil:
		return fi.Mode().Perm()&^PrivateDirMode != 0, nil
	case !errors.Is(err, fs.ErrNotExist):
		return false, err
	}
	if err := os.MkdirAll(dir, PrivateDirMode); err != nil {
		return false, err
	}
	return false, nil
}

// LoadCA reads a CA written by Save. It returns an error wrapping
// fs.ErrNotExist when dir has none.
func LoadCA(dir string) (*CA, error) { return LoadCAAs(dir, ClusterCAName) }

// LoadCAAs reads a CA written by SaveAs with the same name. It returns an
// error wrapping fs.ErrNotExist when dir has none.
func LoadCAAs(dir, name string) (*CA, error) {
	certPEM, err := os.ReadFile(filepath.Join(dir, name+".crt"))
	if err != nil {
		return nil, err
	}
	keyPEM, err := os.ReadFile(filepath.Join(dir, name+".key"))
	if err != nil {
		return nil, err
	}
	cb, _ := pem.Decode(certPEM)
	kb, _ := pem.Decode(keyPEM)
	if cb == nil || kb == nil {
		return nil, fmt.Errorf("CA files %s.crt and %s.key in %s are not PEM", name, name, dir)
	}
	cert, err := x509.ParseCertificate(cb.Bytes)
	if err != nil {
		return nil, fmt.Errorf("parse CA certificate %s.crt: %w", name, err)
	}
	key, err := x509.ParsePKCS8PrivateKey(kb.Bytes)
	if err != nil {
		return nil, fmt.Errorf("parse CA key %s.key: %w", name, err)
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("CA key %s.key in %s cannot sign", name, dir)
	}
	return &CA{Cert: cert, Key: signer, CertPEM: certPEM}, nil
}

// ServiceAccountKeyName is kubeadm's name of the service-account signing
// key in a PKI directory: sa.key, with its public half in sa.pub.
const ServiceAccountKeyName = "sa"

// LoadOrCreateServiceAccountKey reads the service-account signing key
// (ECDSA P-256) kept in dir as sa.key, or makes one and writes it there
// with its public half as sa.pub (both 0600), so that the tokens a control plane issued
// still verify after a restart, as kube-apiserver's with kubeadm's sa.key.
func LoadOrCreateServiceAccountKey(dir string) (*ecdsa.PrivateKey, error) {
	path := filepath.Join(dir, ServiceAccountKeyName+".key")
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
		b, _ := pem.Decode(data)
		if b == nil {
			return nil, fmt.Errorf("%s is not PEM", path)
		}
		key, err := x509.ParsePKCS8PrivateKey(b.Bytes)
		if err != nil {
			return nil, fmt.Errorf("parse %s: %w", path, err)
		}
		ec, ok := key.(*ecdsa.PrivateKey)
		if !ok || ec.Curve != elliptic.P256() {
			return nil, fmt.Errorf("%s is not an ECDSA P-256 key", path)
		}
		return ec, nil
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate service account key: %w", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("marshal service account key: %w", err)
	}
	pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return nil, fmt.Errorf("marshal service account public key: %w", err)
	}
	if err := WriteSecretFile(path, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})); err != nil {
		return nil, err
	}
	// 0600, as kubeadm writes it.
	if err := WriteSecretFile(filepath.Join(dir, ServiceAccountKeyName+".pub"), pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub})); err != nil {
		return nil, err
	}
	return key, nil
}
