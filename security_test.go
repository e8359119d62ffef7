package fakeplane_test

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/fakeplane/fakeplane"
	"github.com/fakeplane/fakeplane/internal/pki"

	"github.com/fakeplane/fakeplane/internal/syncbuf"
)

// TestSecurityListensOnLoopbackByDefault checks that a control plane told
// nothing about addresses serves its API, and its simulated nodes their
// kubelet API, on loopback only.
func TestSecurityListensOnLoopbackByDefault(t *testing.T) {
	t.Parallel()
	host, _, err := net.SplitHostPort(fakeplane.DefaultListenAddress)
	if err != nil {
		t.Fatal(err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		t.Errorf("DefaultListenAddress %q is not a loopback address", fakeplane.DefaultListenAddress)
	}
	cp := fakeplane.Start(t, fakeplane.WithNodes(1))
	u, err := url.Parse(cp.URL())
	if err != nil {
		t.Fatal(err)
	}
	if ip := net.ParseIP(u.Hostname()); ip == nil || !ip.IsLoopback() {
		t.Errorf("Start serves on %s, want a loopback address", cp.URL())
	}
	if ip := cp.Kubelet().Addr().IP; !ip.IsLoopback() {
		t.Errorf("the kubelet API listens on %s, want a loopback address", cp.Kubelet().Addr())
	}
}

// TestSecurityTLSVersions checks that the API server and the simulated
// nodes' kubelet API refuse a client limited to TLS 1.1 in the handshake
// and accept TLS 1.2 and 1.3. refplane's kube-apiserver v1.37.2 answers a
// TLS 1.1 client hello with the "protocol version" alert too (curl
// --tls-max 1.1).
func TestSecurityTLSVersions(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithNodes(1))
	apiHost := strings.TrimPrefix(cp.URL(), "https://")
	for _, target := range []struct{ name, addr string }{
		{"API server", apiHost},
		{"kubelet API", cp.Kubelet().Addr().String()},
	} {
		for _, tc := range []struct {
			name     string
			min, max uint16
			ok       bool
		}{
			{"TLS 1.0", tls.VersionTLS10, tls.VersionTLS10, false},
			{"TLS 1.1", tls.VersionTLS10, tls.VersionTLS11, false},
			{"TLS 1.2", tls.VersionTLS12, tls.VersionTLS12, true},
			{"TLS 1.3", tls.VersionTLS13, tls.VersionTLS13, true},
		} {
			t.Run(target.name+"/"+tc.name, func(t *testing.T) {
				// MinVersion is set: Go clients refuse to offer less than
				// TLS 1.2 unless told to.
				conn, err := tls.Dial("tcp", target.addr, &tls.Config{MinVersion: tc.min, MaxVersion: tc.max, InsecureSkipVerify: true}) //nolint:gosec // the version is under test, not the certificate
				if conn != nil {
					defer conn.Close()
				}
				switch {
				case tc.ok && err != nil:
					t.Fatalf("handshake: %v", err)
				case tc.ok && conn.ConnectionState().Version != tc.max:
					t.Errorf("negotiated %s, want %s", tls.VersionName(conn.ConnectionState().Version), tls.VersionName(tc.max))
				case !tc.ok && err == nil:
					t.Fatalf("handshake succeeded with %s, want it refused", tls.VersionName(conn.ConnectionState().Version))
				case !tc.ok && !strings.Contains(err.Error(), "protocol version not supported"):
					t.Errorf("handshake error %q, want the server's protocol version alert", err)
				}
			})
		}
	}
}

// fileMode is the permission bits of path.
func fileMode(t *testing.T, path string) fs.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

// checkTreeModes checks every directory under root (root itself excepted)
// is 0700, every certificate (*.crt, public) at most 0644, and every other
// file (keys, kubeconfigs, the database, the server URL) 0600.
func checkTreeModes(t *testing.T, root string) {
	t.Helper()
	seen := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == root {
			return err
		}
		seen++
		mode := fileMode(t, path)
		switch {
		case d.IsDir():
			if mode != 0o700 {
				t.Errorf("directory %s is %v, want 0700", path, mode)
			}
		case strings.HasSuffix(path, ".crt"):
			if mode&^0o644 != 0 {
				t.Errorf("certificate %s is %v, want at most 0644", path, mode)
			}
		default:
			if mode != 0o600 {
				t.Errorf("%s is %v, want 0600", path, mode)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen == 0 {
		t.Fatalf("nothing was written under %s", root)
	}
}

// TestSecurityFileModes checks the modes of everything a control plane
// writes: with a new data directory, the directory and its subdirectories
// are 0700 and the keys, kubeconfigs, database and server URL 0600 (the CA
// certificates are 0644, as kubeadm writes them). With a data directory,
// kubeconfig and webhook certificate directory that exist with looser
// modes, fakeplane does as etcd does with its data directory: an existing
// directory keeps its mode, with a warning ("check file permission"), while
// every file it writes a secret into is made 0600 before the secret is
// written (os.WriteFile, and so kubeadm's and clientcmd's writers, would
// keep a 0644 file 0644); the subdirectories it creates are 0700.
func TestSecurityFileModes(t *testing.T) {
	t.Parallel()
	t.Run("new directories", func(t *testing.T) {
		t.Parallel()
		dataDir := filepath.Join(t.TempDir(), "data")
		kcDir := filepath.Join(t.TempDir(), "kube")
		kc := filepath.Join(kcDir, "admin.kubeconfig")
		var log syncbuf.Buffer
		cp := fakeplane.Start(t, fakeplane.WithDataDir(dataDir), fakeplane.WithKubeconfigPath(kc),
			fakeplane.WithWebhooks(fakeplane.WebhookInstallOptions{}),
			fakeplane.WithLogger(slog.New(slog.NewTextHandler(&log, nil))))
		alice := filepath.Join(kcDir, "alice.kubeconfig")
		if err := cp.WriteKubeconfig(alice, "alice"); err != nil {
			t.Fatal(err)
		}
		if m := fileMode(t, dataDir); m != 0o700 {
			t.Errorf("data directory is %v, want 0700", m)
		}
		checkTreeModes(t, dataDir)
		for _, f := range []string{kc, alice} {
			if m := fileMode(t, f); m != 0o600 {
				t.Errorf("kubeconfig %s is %v, want 0600", f, m)
			}
		}
		w, _ := cp.WebhookServing()
		if w.CertDir != filepath.Join(dataDir, "webhook-serving") {
			t.Errorf("webhook certificates in %s, want them in the data directory", w.CertDir)
		}
		for _, f := range []string{"pki/ca.key", "pki/front-proxy-ca.key", "fakeplane.db", "server-url", "webhook-serving/tls.key"} {
			if _, err := os.Stat(filepath.Join(dataDir, f)); err != nil {
				t.Errorf("%s was not written: %v", f, err)
			}
		}
		if strings.Contains(log.String(), "check file permission") {
			t.Errorf("warned about a directory fakeplane made itself:\n%s", log.String())
		}
	})
	t.Run("existing with looser modes", func(t *testing.T) {
		t.Parallel()
		dataDir := filepath.Join(t.TempDir(), "data")
		certDir := filepath.Join(t.TempDir(), "webhook-certs")
		kc := filepath.Join(t.TempDir(), "admin.kubeconfig")
		for _, d := range []string{dataDir, certDir} {
			if err := os.Mkdir(d, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(d, 0o755); err != nil { // whatever the umask
				t.Fatal(err)
			}
		}
		loose := []string{kc, filepath.Join(dataDir, "server-url"), filepath.Join(certDir, "tls.key"), filepath.Join(certDir, "tls.crt")}
		for _, f := range loose {
			if err := os.WriteFile(f, []byte("left over\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(f, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		var log syncbuf.Buffer
		fakeplane.Start(t, fakeplane.WithDataDir(dataDir), fakeplane.WithKubeconfigPath(kc),
			fakeplane.WithWebhooks(fakeplane.WebhookInstallOptions{LocalServingCertDir: certDir}),
			fakeplane.WithLogger(slog.New(slog.NewTextHandler(&log, nil))))
		for _, f := range loose {
			if m := fileMode(t, f); m != 0o600 {
				t.Errorf("%s, 0644 before, is %v, want 0600", f, m)
			}
			if b, err := os.ReadFile(f); err != nil || string(b) == "left over\n" {
				t.Errorf("%s was not rewritten (%v)", f, err)
			}
		}
		for _, d := range []string{dataDir, certDir} {
			if m := fileMode(t, d); m != 0o755 {
				t.Errorf("existing directory %s is %v, want it kept 0755", d, m)
			}
			if want := "directory=" + d + " permission=-rwxr-xr-x recommended=-rwx------"; !strings.Contains(log.String(), want) {
				t.Errorf("no warning with %q in the log:\n%s", want, log.String())
			}
		}
		checkTreeModes(t, dataDir)
		checkTreeModes(t, certDir)
	})
}

// newTestCA is a self-signed CA made here, with the subject of the
// cluster's: a certificate it signs names the right issuer but does not
// chain to the cluster CA.
func newTestCA(t *testing.T, subject pkix.Name) (*x509.Certificate, crypto.Signer) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: subject,
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert, key
}

// signClientCert signs a certificate for CN user in O groups with the given
// validity and extended key usages, and returns it and its key in PEM.
func signClientCert(t *testing.T, ca *x509.Certificate, caKey crypto.Signer, notBefore, notAfter time.Time, usages []x509.ExtKeyUsage, user string, groups ...string) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial, Subject: pkix.Name{CommonName: user, Organization: groups},
		NotBefore: notBefore, NotAfter: notAfter,
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: usages,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, key.Public(), caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
}

// TestSecurityClientCertificatesAreVerified checks that a client
// certificate the cluster CA signed for client auth and still valid
// authenticates, while one that does not chain to the cluster CA (a CA of
// the same name but another key), an expired one, one not valid yet, and
// one whose extended key usages leave out client auth are refused with
// kube-apiserver's 401 Status "Unauthorized" (anonymous access being on:
// a presented certificate that fails is an error, not anonymity).
func TestSecurityClientCertificatesAreVerified(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	cp := fakeplane.Start(t, fakeplane.WithDataDir(dataDir))
	clusterCA, err := pki.LoadCA(filepath.Join(dataDir, "pki"))
	if err != nil {
		t.Fatal(err)
	}
	otherCA, otherKey := newTestCA(t, clusterCA.Cert.Subject)
	now := time.Now()
	clientAuth := []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	for _, tc := range []struct {
		name      string
		ca        *x509.Certificate
		key       crypto.Signer
		from, to  time.Time
		usages    []x509.ExtKeyUsage
		refused   bool
		wantError string
	}{
		{name: "valid", ca: clusterCA.Cert, key: clusterCA.Key, from: now.Add(-time.Hour), to: now.Add(time.Hour), usages: clientAuth},
		{name: "another CA of the same name", ca: otherCA, key: otherKey, from: now.Add(-time.Hour), to: now.Add(time.Hour), usages: clientAuth, refused: true},
		{name: "expired", ca: clusterCA.Cert, key: clusterCA.Key, from: now.Add(-2 * time.Hour), to: now.Add(-time.Hour), usages: clientAuth, refused: true},
		{name: "not valid yet", ca: clusterCA.Cert, key: clusterCA.Key, from: now.Add(time.Hour), to: now.Add(2 * time.Hour), usages: clientAuth, refused: true},
		{name: "server auth only", ca: clusterCA.Cert, key: clusterCA.Key, from: now.Add(-time.Hour), to: now.Add(time.Hour), usages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, refused: true},
		// Without any extended key usage a certificate is good for every
		// usage (crypto/x509's rule, which kube-apiserver's x509
		// authenticator applies too): it authenticates.
		{name: "no extended key usage", ca: clusterCA.Cert, key: clusterCA.Key, from: now.Add(-time.Hour), to: now.Add(time.Hour)},
		{name: "code signing only", ca: clusterCA.Cert, key: clusterCA.Key, from: now.Add(-time.Hour), to: now.Add(time.Hour), usages: []x509.ExtKeyUsage{x509.ExtKeyUsageCodeSigning}, refused: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			certPEM, keyPEM := signClientCert(t, tc.ca, tc.key, tc.from, tc.to, tc.usages, "mallory", "system:masters")
			cfg := &rest.Config{Host: cp.URL(), TLSClientConfig: rest.TLSClientConfig{CAData: cp.RESTConfig().CAData, CertData: certPEM, KeyData: keyPEM}}
			cs, err := kubernetes.NewForConfig(cfg)
			if err != nil {
				t.Fatal(err)
			}
			_, err = cs.CoreV1().Namespaces().List(context.Background(), metav1.ListOptions{})
			if !tc.refused {
				if err != nil {
					t.Fatalf("list namespaces: %v", err)
				}
				review, err := cs.AuthenticationV1().SelfSubjectReviews().Create(context.Background(), &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if got := review.Status.UserInfo.Username; got != "mallory" {
					t.Errorf("authenticated as %q, want mallory", got)
				}
				return
			}
			var status apierrors.APIStatus
			if !errors.As(err, &status) {
				t.Fatalf("list namespaces: %v, want 401", err)
			}
			got := status.Status()
			if got.Code != http.StatusUnauthorized || got.Reason != metav1.StatusReasonUnauthorized || got.Message != "Unauthorized" || got.Status != metav1.StatusFailure {
				t.Errorf("status %d %s %q (%s), want kube-apiserver's 401 Unauthorized %q", got.Code, got.Reason, got.Message, got.Status, "Unauthorized")
			}
		})
	}
}

// TestSecurityAnonymousReadsOnlyPublicInfo checks what system:anonymous
// may do under RBAC: the paths of system:public-info-viewer (/healthz,
// /livez, /readyz, /version, exact), and nothing else. Each row is what
// refplane's kube-apiserver v1.37.2 answers to curl without credentials.
func TestSecurityAnonymousReadsOnlyPublicInfo(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	anon := rest.AnonymousClientConfig(cp.RESTConfig())
	transport, err := rest.TransportFor(anon)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Transport: transport}
	const selfReview = `{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`
	for _, tc := range []struct {
		method, path, body string
		code               int
		message            string // the Status message of a refusal
	}{
		{method: "GET", path: "/healthz", code: 200},
		{method: "GET", path: "/healthz?verbose=1", code: 200},
		{method: "GET", path: "/livez", code: 200},
		{method: "GET", path: "/readyz", code: 200},
		{method: "GET", path: "/readyz?verbose", code: 200},
		{method: "GET", path: "/version", code: 200},
		{method: "GET", path: "/version/", code: 200},
		{method: "POST", path: "/healthz", code: 403, message: `forbidden: User "system:anonymous" cannot post path "/healthz"`},
		{method: "GET", path: "/healthz/ping", code: 403, message: `forbidden: User "system:anonymous" cannot get path "/healthz/ping"`},
		{method: "GET", path: "/livez/ping", code: 403, message: `forbidden: User "system:anonymous" cannot get path "/livez/ping"`},
		{method: "GET", path: "/readyz/ping", code: 403, message: `forbidden: User "system:anonymous" cannot get path "/readyz/ping"`},
		{method: "GET", path: "/api", code: 403, message: `forbidden: User "system:anonymous" cannot get path "/api"`},
		{method: "GET", path: "/apis", code: 403, message: `forbidden: User "system:anonymous" cannot get path "/apis"`},
		{method: "GET", path: "/openapi/v2", code: 403, message: `forbidden: User "system:anonymous" cannot get path "/openapi/v2"`},
		{method: "GET", path: "/openapi/v3", code: 403, message: `forbidden: User "system:anonymous" cannot get path "/openapi/v3"`},
		{method: "GET", path: "/metrics", code: 403, message: `forbidden: User "system:anonymous" cannot get path "/metrics"`},
		{method: "GET", path: "/.well-known/openid-configuration", code: 403, message: `forbidden: User "system:anonymous" cannot get path "/.well-known/openid-configuration"`},
		{method: "GET", path: "/openid/v1/jwks", code: 403, message: `forbidden: User "system:anonymous" cannot get path "/openid/v1/jwks"`},
		{method: "GET", path: "/api/v1/namespaces", code: 403, message: `namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" in API group "" at the cluster scope`},
		{method: "GET", path: "/api/v1/namespaces/default/pods", code: 403, message: `pods is forbidden: User "system:anonymous" cannot list resource "pods" in API group "" in the namespace "default"`},
		{method: "POST", path: "/apis/authentication.k8s.io/v1/selfsubjectreviews", body: selfReview, code: 403,
			message: `selfsubjectreviews.authentication.k8s.io is forbidden: User "system:anonymous" cannot create resource "selfsubjectreviews" in API group "authentication.k8s.io" at the cluster scope`},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			req, err := http.NewRequest(tc.method, cp.URL()+tc.path, strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tc.code {
				t.Fatalf("%d %s, want %d", resp.StatusCode, body, tc.code)
			}
			if tc.code != 403 {
				return
			}
			var status metav1.Status
			if err := json.Unmarshal(body, &status); err != nil {
				t.Fatalf("body %s: %v", body, err)
			}
			if status.Message != tc.message || status.Reason != metav1.StatusReasonForbidden {
				t.Errorf("status %s %q, want Forbidden %q", status.Reason, status.Message, tc.message)
			}
		})
	}
	// The same refusal through a typed client.
	_, err = kubernetes.NewForConfigOrDie(anon).CoreV1().Namespaces().List(context.Background(), metav1.ListOptions{})
	if want := `namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" in API group "" at the cluster scope`; !apierrors.IsForbidden(err) || err.Error() != want {
		t.Errorf("anonymous list namespaces: %v, want 403 %q", err, want)
	}
}

// tokenLogChild marks the process TestSecurityTokensNeverLogged runs in.
const tokenLogChild = "FAKEPLANE_TOKEN_LOG_TEST"

// TestSecurityTokensNeverLogged runs a control plane logging at debug
// level into a buffer, sends it requests with bearer tokens (a static
// token, valid and not, a service-account token from a TokenRequest,
// valid and with its signature broken, one through a WebSocket protocol
// header) including a write that a failing admission webhook refuses, and
// checks that no token appears in what it logged. The upstream libraries
// fakeplane serves with (authentication filter, webhook dispatcher) log
// through klog, the process's logger, not WithLogger's: the test sends
// klog to the same buffer, and so runs in a test process of its own
// (klog's logger is global).
func TestSecurityTokensNeverLogged(t *testing.T) {
	// klog's logger is process-wide, and goroutines of other tests (event
	// broadcasters, informers) read it at any time: the test runs alone in
	// a process of its own, the test binary run again for it.
	if os.Getenv(tokenLogChild) == "" {
		t.Parallel()
		cmd := exec.Command(os.Args[0], "-test.run=^TestSecurityTokensNeverLogged$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), tokenLogChild+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestSecurityTokensNeverLogged") {
			t.Fatalf("the test in its own process: %v\n%s", err, out)
		}
		return
	}
	const staticToken = "static-token-0123456789abcdef"
	const badToken = "wrong-token-fedcba9876543210"
	var log syncbuf.Buffer
	logger := slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	klog.SetSlogLogger(logger)
	t.Cleanup(klog.ClearLogger)
	cp, err := fakeplane.New(
		fakeplane.WithKubeconfigPath(filepath.Join(t.TempDir(), "kubeconfig")),
		fakeplane.WithLogger(logger),
		fakeplane.WithTokens(fakeplane.StaticToken{Token: staticToken, User: "token-user", Groups: []string{"system:masters"}}),
	)
	if err != nil {
		t.Fatal(err)
	}
	if err := cp.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			_ = cp.Stop()
		}
	})
	ctx := context.Background()
	admin := kubernetes.NewForConfigOrDie(cp.RESTConfig())
	tokenClient := func(token string) *kubernetes.Clientset {
		cfg := rest.AnonymousClientConfig(cp.RESTConfig())
		cfg.BearerToken = token
		return kubernetes.NewForConfigOrDie(cfg)
	}

	// A TokenRequest, and the token it returns, used and broken.
	exp := int64(3600)
	tr, err := admin.CoreV1().ServiceAccounts("default").CreateToken(ctx, "default",
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &exp}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	saToken := tr.Status.Token
	if saToken == "" {
		t.Fatal("TokenRequest returned no token")
	}
	brokenSA := saToken[:len(saToken)-4] + "AAAA"
	if brokenSA == saToken {
		brokenSA = saToken[:len(saToken)-4] + "BBBB"
	}
	if _, err := tokenClient(saToken).CoreV1().Pods("default").List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("service account lists pods: %v, want 403", err)
	}
	for _, tok := range []string{badToken, brokenSA} {
		if _, err := tokenClient(tok).CoreV1().Namespaces().List(ctx, metav1.ListOptions{}); !apierrors.IsUnauthorized(err) {
			t.Errorf("an invalid token: %v, want 401", err)
		}
	}
	if _, err := tokenClient(staticToken).CoreV1().Namespaces().List(ctx, metav1.ListOptions{}); err != nil {
		t.Errorf("the static token: %v", err)
	}
	// A token as a WebSocket subprotocol, and one that is not valid.
	for _, tok := range []string{staticToken, badToken} {
		req, err := http.NewRequest("GET", cp.URL()+"/api/v1/namespaces/default/pods?watch=true", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Connection", "Upgrade")
		req.Header.Set("Upgrade", "websocket")
		req.Header.Set("Sec-WebSocket-Version", "13")
		req.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
		req.Header.Set("Sec-WebSocket-Protocol", "v4.channel.k8s.io, base64url.bearer.authorization.k8s.io."+base64.RawURLEncoding.EncodeToString([]byte(tok)))
		transport, err := rest.TransportFor(rest.AnonymousClientConfig(cp.RESTConfig()))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := (&http.Client{Transport: transport}).Do(req)
		if err == nil {
			resp.Body.Close()
		}
	}

	// An admission webhook that fails, called for a write a token made.
	down, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	downURL := "https://" + down.Addr().String() + "/validate"
	down.Close()
	fail := admissionregistrationv1.Fail
	none := admissionregistrationv1.SideEffectClassNone
	if _, err := admin.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "down"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:                    "down.fakeplane.test",
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: &downURL},
			Rules:                   []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create}, Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}}}},
			FailurePolicy:           &fail,
			SideEffects:             &none,
			AdmissionReviewVersions: []string{"v1"},
		}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the webhook refuses a ConfigMap", func() error {
		_, err := tokenClient(staticToken).CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "cm-"}}, metav1.CreateOptions{})
		if err == nil || !strings.Contains(err.Error(), "down.fakeplane.test") {
			return errors.New("not refused by the webhook yet")
		}
		return nil
	})

	stopped = true
	if err := cp.Stop(); err != nil {
		t.Fatal(err)
	}
	out := log.String()
	for _, want := range []string{"down.fakeplane.test", "invalid bearer token"} {
		if !strings.Contains(out, want) {
			t.Errorf("nothing with %q was logged; the check below would see nothing:\n%s", want, out)
		}
	}
	for name, tok := range map[string]string{"static": staticToken, "invalid": badToken, "service account": saToken, "broken service account": brokenSA} {
		if strings.Contains(out, tok) {
			t.Errorf("the %s token appears in the log", name)
		}
	}
	// A JWT's signature alone is enough to replay it on some verifiers.
	if sig := saToken[strings.LastIndex(saToken, ".")+1:]; strings.Contains(out, sig) {
		t.Errorf("the service account token's signature appears in the log")
	}
}
