package fakeplane_test

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/fakeplane/fakeplane"
)

// signServingCert signs a serving certificate for localhost and 127.0.0.1
// with the CA (the certificate itself when ca is nil: self-signed), and
// returns it and its key in PEM.
func signServingCert(t *testing.T, ca *x509.Certificate, caKey crypto.Signer, cn string) (certPEM, keyPEM []byte, cert *x509.Certificate) {
	t.Helper()
	return signCertFor(t, ca, caKey, cn, []string{"localhost"}, []net.IP{net.ParseIP("127.0.0.1")})
}

// signCertFor signs a serving certificate for dnsNames and ips with the CA
// (self-signed when ca is nil), and returns it and its key in PEM.
func signCertFor(t *testing.T, ca *x509.Certificate, caKey crypto.Signer, cn string, dnsNames []string, ips []net.IP) (certPEM, keyPEM []byte, cert *x509.Certificate) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: serialNumber(t), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames: dnsNames, IPAddresses: ips,
	}
	parent, parentKey := tmpl, crypto.Signer(key)
	if ca != nil {
		parent, parentKey = ca, caKey
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, key.Public(), parentKey)
	if err != nil {
		t.Fatal(err)
	}
	if cert, err = x509.ParseCertificate(der); err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), cert
}

// serialNumber is a random certificate serial number.
func serialNumber(t *testing.T) *big.Int {
	t.Helper()
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// presented is the leaf certificate the server at cp presents to a client
// asking for serverName ("" for none, as a client dialing an IP).
func presented(t *testing.T, cp *fakeplane.ControlPlane, serverName string) *x509.Certificate {
	t.Helper()
	conn, err := tls.Dial("tcp", strings.TrimPrefix(cp.URL(), "https://"), &tls.Config{ServerName: serverName, InsecureSkipVerify: true}) //nolint:gosec // the certificate is what is inspected
	if err != nil {
		t.Fatalf("handshake: %v", err)
	}
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0]
}

// checkServes checks that the admin kubeconfig and RESTConfig reach cp
// (they trust what it serves), and that its own components do too: the
// deployment controller makes a deployment's ReplicaSet, the scheduler
// binds its pod to the node.
func checkServes(t *testing.T, cp *fakeplane.ControlPlane) {
	t.Helper()
	ctx := context.Background()
	kc, err := clientcmd.BuildConfigFromFlags("", cp.KubeconfigPath())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kubernetes.NewForConfigOrDie(kc).CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{}); err != nil {
		t.Fatalf("through the admin kubeconfig: %v", err)
	}
	client := kubernetes.NewForConfigOrDie(cp.RESTConfig())
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: appsv1.DeploymentSpec{
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}}}
	if _, err := client.AppsV1().Deployments("default").Create(ctx, dep, metav1.CreateOptions{}); err != nil {
		t.Fatalf("through RESTConfig: %v", err)
	}
	deadline := time.Now().Add(time.Minute) // a hang guard
	for {
		pods, err := client.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
		if err != nil {
			t.Fatal(err)
		}
		if len(pods.Items) == 1 && pods.Items[0].Spec.NodeName != "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the deployment's pod is not made and bound: %d pods", len(pods.Items))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestSecureServingGivenCertificate serves the certificate of
// --tls-cert-file and --tls-private-key-file to clients, as kube-apiserver
// does: the admin kubeconfig and RESTConfig trust the certificates in the
// file, and the control plane's own components, asking for
// apiserver-loopback-client, get the one the cluster CA signs.
func TestSecureServingGivenCertificate(t *testing.T) {
	t.Parallel()
	ca, caKey := newTestCA(t, pkix.Name{CommonName: "operator-ca"})
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.Raw})
	signed, signedKey, signedCert := signServingCert(t, ca, caKey, "signed")
	self, selfKey, selfCert := signServingCert(t, nil, nil, "self-signed")
	for _, tc := range []struct {
		name      string
		cert, key []byte
		leaf      *x509.Certificate
	}{
		{"leaf and its CA", append(signed, caPEM...), signedKey, signedCert},
		{"self-signed", self, selfKey, selfCert},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
			if err := os.WriteFile(certFile, tc.cert, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(keyFile, tc.key, 0o600); err != nil {
				t.Fatal(err)
			}
			cp := fakeplane.Start(t, fakeplane.WithNodes(1), fakeplane.WithSecureServing(fakeplane.SecureServing{CertFile: certFile, KeyFile: keyFile}))
			if got := presented(t, cp, ""); !bytes.Equal(got.Raw, tc.leaf.Raw) {
				t.Errorf("presented %q issued by %q, want the file's %q", got.Subject, got.Issuer, tc.leaf.Subject)
			}
			if got := presented(t, cp, "apiserver-loopback-client"); got.Issuer.CommonName != "fakeplane-ca" {
				t.Errorf("presented %q issued by %q to the loopback name, want the cluster CA's", got.Subject, got.Issuer)
			}
			if got := cp.RESTConfig().CAData; !bytes.Equal(got, tc.cert) {
				t.Errorf("RESTConfig trusts\n%s\nwant the certificate file's\n%s", got, tc.cert)
			}
			checkServes(t, cp)
		})
	}
}

// TestSecureServingCertDir writes the serving pair to an empty --cert-dir,
// as kube-apiserver writes the one it makes (the certificate, then its
// CA; the key private), and serves the pair a --cert-dir holds.
func TestSecureServingCertDir(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "certs")
	first := fakeplane.Start(t, fakeplane.WithSecureServing(fakeplane.SecureServing{CertDir: dir}))
	certPEM, err := os.ReadFile(filepath.Join(dir, "apiserver.crt"))
	if err != nil {
		t.Fatal(err)
	}
	var certs []*x509.Certificate
	for rest := certPEM; ; {
		var b *pem.Block
		if b, rest = pem.Decode(rest); b == nil {
			break
		}
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		certs = append(certs, c)
	}
	if len(certs) != 2 || !certs[1].IsCA || certs[0].CheckSignatureFrom(certs[1]) != nil {
		t.Fatalf("apiserver.crt holds %d certificates, want the serving one and the CA that signed it", len(certs))
	}
	if got := presented(t, first, ""); !bytes.Equal(got.Raw, certs[0].Raw) {
		t.Errorf("serves %q, not the certificate written", got.Subject)
	}
	if st, err := os.Stat(filepath.Join(dir, "apiserver.key")); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("apiserver.key: %v, mode %v; want 0600", err, st.Mode().Perm())
	}
	if !bytes.Equal(first.RESTConfig().CAData, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: certs[1].Raw})) {
		t.Errorf("RESTConfig does not trust the cluster CA alone")
	}

	// A second control plane (another CA: no data directory) serves the
	// pair it finds there.
	second := fakeplane.Start(t, fakeplane.WithNodes(1), fakeplane.WithSecureServing(fakeplane.SecureServing{CertDir: dir}))
	if got := presented(t, second, ""); !bytes.Equal(got.Raw, certs[0].Raw) {
		t.Errorf("the second serves %q, not the pair in the directory", got.Subject)
	}
	checkServes(t, second)

	// Half a pair is refused, as kube-apiserver refuses it.
	half := t.TempDir()
	if err := os.WriteFile(filepath.Join(half, "apiserver.crt"), certPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	cp, err := fakeplane.New(fakeplane.WithSecureServing(fakeplane.SecureServing{CertDir: half}))
	if err != nil {
		t.Fatal(err)
	}
	err = cp.Start(context.Background())
	if err == nil {
		_ = cp.Stop()
		t.Fatal("started with apiserver.crt alone")
	}
	if want := "certificate and key must be supplied as a pair"; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q, want it to say %q", err, want)
	}
}

// TestSecureServingTLSOptions checks --tls-min-version,
// --tls-cipher-suites and --tls-curve-preferences, and kube-apiserver's
// errors for options it refuses.
func TestSecureServingTLSOptions(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithSecureServing(fakeplane.SecureServing{MinTLSVersion: "VersionTLS13"}))
	addr := strings.TrimPrefix(cp.URL(), "https://")
	if conn, err := tls.Dial("tcp", addr, &tls.Config{MaxVersion: tls.VersionTLS12, InsecureSkipVerify: true}); err == nil { //nolint:gosec // the version is under test
		conn.Close()
		t.Errorf("a TLS 1.2 handshake succeeded with VersionTLS13 the least")
	}

	suites := fakeplane.Start(t, fakeplane.WithSecureServing(fakeplane.SecureServing{CipherSuites: []string{"TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"}}))
	addr = strings.TrimPrefix(suites.URL(), "https://")
	for _, tc := range []struct {
		suite uint16
		ok    bool
	}{
		{tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, true},
		{tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, false},
	} {
		conn, err := tls.Dial("tcp", addr, &tls.Config{MaxVersion: tls.VersionTLS12, CipherSuites: []uint16{tc.suite}, InsecureSkipVerify: true}) //nolint:gosec // the suite is under test
		if err == nil {
			conn.Close()
		}
		if (err == nil) != tc.ok {
			t.Errorf("%s: handshake error %v, want success %v", tls.CipherSuiteName(tc.suite), err, tc.ok)
		}
	}

	curves := fakeplane.Start(t, fakeplane.WithSecureServing(fakeplane.SecureServing{CurvePreferences: []int32{int32(tls.CurveP384)}}))
	addr = strings.TrimPrefix(curves.URL(), "https://")
	for _, tc := range []struct {
		curve tls.CurveID
		ok    bool
	}{
		{tls.CurveP384, true},
		{tls.X25519, false},
		{tls.X25519MLKEM768, false},
	} {
		conn, err := tls.Dial("tcp", addr, &tls.Config{CurvePreferences: []tls.CurveID{tc.curve}, InsecureSkipVerify: true}) //nolint:gosec // the curve is under test
		if err == nil {
			if got := conn.ConnectionState().CurveID; got != tc.curve {
				t.Errorf("%s: the handshake used %s", tc.curve, got)
			}
			conn.Close()
		}
		if (err == nil) != tc.ok {
			t.Errorf("%s: handshake error %v, want success %v", tc.curve, err, tc.ok)
		}
	}
	// Without the option, Go's defaults: X25519MLKEM768 first.
	conn, err := tls.Dial("tcp", strings.TrimPrefix(cp.URL(), "https://"), &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // the curve is under test
	if err != nil {
		t.Fatal(err)
	}
	if got := conn.ConnectionState().CurveID; got != tls.X25519MLKEM768 {
		t.Errorf("without curve preferences the handshake used %s, want Go's default X25519MLKEM768", got)
	}
	conn.Close()

	for _, tc := range []struct {
		name    string
		serving fakeplane.SecureServing
		want    string
	}{
		{"cert without key", fakeplane.SecureServing{CertFile: "tls.crt"}, "fakeplane: missing filename for serving cert"},
		{"key without cert", fakeplane.SecureServing{KeyFile: "tls.key"}, "fakeplane: missing filename for serving cert"},
		{"unknown version", fakeplane.SecureServing{MinTLSVersion: "VersionTLS14"}, `fakeplane: unknown tls version "VersionTLS14"`},
		{"unknown suite", fakeplane.SecureServing{CipherSuites: []string{"TLS_NOPE"}}, "fakeplane: Cipher suite TLS_NOPE not supported or doesn't exist"},
		{"curve 0", fakeplane.SecureServing{CurvePreferences: []int32{0}}, "fakeplane: curve preference 0 is out of range (must be 1-65535)"},
		{"curve out of range", fakeplane.SecureServing{CurvePreferences: []int32{99999}}, "fakeplane: curve preference 99999 is out of range (must be 1-65535)"},
		{"curve twice", fakeplane.SecureServing{CurvePreferences: []int32{23, 23}}, "fakeplane: duplicate curve preference 23"},
		{"unknown curve", fakeplane.SecureServing{CurvePreferences: []int32{1}}, "fakeplane: curve preference 1 is not supported by the current Go version"},
		{"no suite HTTP/2 needs", fakeplane.SecureServing{CipherSuites: []string{"TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384"}},
			"fakeplane: error configuring http2: http2: TLSConfig.CipherSuites is missing an HTTP/2-required AES_128_GCM_SHA256 cipher (need at least one of TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256 or TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := fakeplane.New(fakeplane.WithSecureServing(tc.serving))
			if err == nil || err.Error() != tc.want {
				t.Errorf("New: %v, want %q", err, tc.want)
			}
		})
	}
}

// TestSecureServingUserKubeconfigTrustsTheGivenCertificate checks that
// WriteUserKubeconfig (`fakeplane kubeconfig`) of a control plane serving
// a certificate of its own files writes a kubeconfig that trusts it.
func TestSecureServingUserKubeconfigTrustsTheGivenCertificate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	certPEM, keyPEM, _ := signServingCert(t, nil, nil, "self-signed")
	certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	if err := os.WriteFile(certFile, certPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, keyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "data")
	fakeplane.Start(t, fakeplane.WithDataDir(data), fakeplane.WithSecureServing(fakeplane.SecureServing{CertFile: certFile, KeyFile: keyFile}))
	path := filepath.Join(dir, "alice.kubeconfig")
	if err := fakeplane.WriteUserKubeconfig(data, path, "alice", "devs"); err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(cfg.CAData, certPEM) {
		t.Errorf("alice's kubeconfig trusts\n%s\nwant the certificate file's", cfg.CAData)
	}
	review, err := kubernetes.NewForConfigOrDie(cfg).AuthenticationV1().SelfSubjectReviews().Create(context.Background(), &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("through alice's kubeconfig: %v", err)
	}
	if review.Status.UserInfo.Username != "alice" {
		t.Errorf("authenticated as %q, want alice", review.Status.UserInfo.Username)
	}
}

// TestPermitPortSharing binds two control planes to one port with
// SO_REUSEPORT (--permit-port-sharing): the kernel spreads the connections
// among them, so handshakes meet both one's and the other's serving
// certificate (each signed by its own CA). A third, without, is refused
// the port.
func TestPermitPortSharing(t *testing.T) {
	t.Parallel()
	sharing := fakeplane.WithSecureServing(fakeplane.SecureServing{PermitPortSharing: true})
	first := fakeplane.Start(t, sharing, fakeplane.WithListenAddress("127.0.0.1:0"))
	addr := strings.TrimPrefix(first.URL(), "https://")
	second := fakeplane.Start(t, sharing, fakeplane.WithListenAddress(addr))
	if second.URL() != first.URL() {
		t.Fatalf("the second control plane serves at %s, the first at %s", second.URL(), first.URL())
	}
	// With two listeners, 64 connections all reaching one would happen
	// with a probability of 2^-63.
	issuers := map[string]bool{}
	for range 64 {
		conn, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // which server answers is under test
		if err != nil {
			t.Fatal(err)
		}
		issuers[string(conn.ConnectionState().PeerCertificates[0].AuthorityKeyId)] = true
		conn.Close()
	}
	if len(issuers) != 2 {
		t.Fatalf("64 connections to %s met %d control planes, want both", addr, len(issuers))
	}
	err := startError(t, fakeplane.WithListenAddress(addr))
	if err == nil || !strings.Contains(err.Error(), "address already in use") {
		t.Fatalf("a control plane without port sharing on %s: %v, want address already in use", addr, err)
	}
}
