package main

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	certutil "k8s.io/client-go/util/cert"
	"k8s.io/utils/ptr"
)

// TestServingFlagsAreChecked checks kube-apiserver's serving flags' usage
// errors: --bind-address and --secure-port set the address --listen sets,
// and the port cannot be 0.
func TestServingFlagsAreChecked(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"--listen with --secure-port", []string{"--listen", "127.0.0.1:0", "--secure-port", "6443"}, "--listen goes with neither --bind-address nor --secure-port, which set the address in two parts (see --help)"},
		{"--listen with --bind-address", []string{"--listen", "127.0.0.1:0", "--bind-address", "127.0.0.1"}, "--listen goes with neither --bind-address nor --secure-port, which set the address in two parts (see --help)"},
		{"port 0", []string{"--secure-port", "0"}, "--secure-port 0 must be between 1 and 65535, inclusive. It cannot be turned off with 0"},
		{"port out of range", []string{"--secure-port", "70000"}, "--secure-port 70000 must be between 1 and 65535, inclusive. It cannot be turned off with 0"},
		{"not an IP", []string{"--bind-address", "localhost"}, `invalid argument "localhost" for "--bind-address" flag: failed to parse IP: "localhost"`},
		{"a curve that is not a number", []string{"--tls-curve-preferences", "23,x"}, `invalid value "23,x" for flag -tls-curve-preferences: strconv.ParseInt: parsing "x": invalid syntax (see --help)`},
		{"an advertise address that is not an IP", []string{"--advertise-address", "x"}, `invalid argument "x" for "--advertise-address" flag: failed to parse IP: "x"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := run(append([]string{"--kubeconfig", filepath.Join(t.TempDir(), "k")}, tc.args...))
			var ue usageError
			if err == nil || err.Error() != tc.want || !errors.As(err, &ue) {
				t.Errorf("%v, want the usage error %q", err, tc.want)
			}
		})
	}
}

// TestServingFlags serves on --bind-address and --secure-port, writes the
// serving pair to --cert-dir, refuses TLS below --tls-min-version, and
// with --allow-privileged=false refuses a privileged pod.
func TestServingFlags(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	dir := t.TempDir()
	kubeconfig, certDir := filepath.Join(dir, "kubeconfig"), filepath.Join(dir, "certs")
	p := startFakeplane(t, nil, "--bind-address", "127.0.0.1", "--secure-port", strconv.Itoa(port), "--cert-dir", certDir,
		"--tls-min-version", "VersionTLS13", "--allow-privileged=false", "--advertise-address", "192.0.2.77", "--kubeconfig", kubeconfig)
	if want := "https://127.0.0.1:" + strconv.Itoa(port); p.url != want {
		t.Errorf("serving %s, want %s", p.url, want)
	}
	for _, name := range []string{"apiserver.crt", "apiserver.key"} {
		if _, err := os.Stat(filepath.Join(certDir, name)); err != nil {
			t.Errorf("--cert-dir: %v", err)
		}
	}
	addr := strings.TrimPrefix(p.url, "https://")
	if conn, err := tls.Dial("tcp", addr, &tls.Config{MaxVersion: tls.VersionTLS12, InsecureSkipVerify: true}); err == nil { //nolint:gosec // the version is under test
		conn.Close()
		t.Errorf("a TLS 1.2 handshake succeeded with --tls-min-version VersionTLS13")
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	client := kubernetes.NewForConfigOrDie(cfg)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox",
		SecurityContext: &corev1.SecurityContext{Privileged: ptr.To(true)}}}}}
	_, err = client.CoreV1().Pods("kube-system").Create(context.Background(), pod, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	if want := `Pod "p" is invalid: spec.containers[0].securityContext.privileged: Forbidden: disallowed by cluster policy`; !apierrors.IsInvalid(err) || err.Error() != want {
		t.Errorf("privileged pod: %v, want %q", err, want)
	}
	ep, err := client.CoreV1().Endpoints("default").Get(context.Background(), "kubernetes", metav1.GetOptions{})
	if err != nil || len(ep.Subsets) != 1 || len(ep.Subsets[0].Addresses) != 1 || ep.Subsets[0].Addresses[0].IP != "192.0.2.77" || ep.Subsets[0].Ports[0].Port != int32(port) {
		t.Errorf("kubernetes Endpoints %+v (%v), want 192.0.2.77:%d", ep, err, port)
	}
	if code, stderr := runToExit(t, "--listen", "127.0.0.1:0", "--kubeconfig", filepath.Join(dir, "k2"), "--endpoint-reconciler-type", "foo"); code != 1 || stderr != "fakeplane: Reconciler not implemented: foo\n" {
		t.Errorf("--endpoint-reconciler-type foo: exit %d, %q", code, stderr)
	}
}

// TestTLSSNICertKeyFlag serves a --tls-sni-cert-key pair to clients asking
// for its name, and refuses a malformed value as a usage error (exit 2).
func TestTLSSNICertKeyFlag(t *testing.T) {
	dir := t.TempDir()
	certPEM, keyPEM, err := certutil.GenerateSelfSignedCertKey("sni.example.com", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile := filepath.Join(dir, "sni.crt"), filepath.Join(dir, "sni.key")
	if err := os.WriteFile(certFile, certPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, keyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	p := startFakeplane(t, nil, "--listen", "127.0.0.1:0", "--kubeconfig", filepath.Join(dir, "kubeconfig"),
		"--tls-sni-cert-key", certFile+","+keyFile+":sni.example.com,*.sni.example.com")
	for _, name := range []string{"sni.example.com", "a.sni.example.com", "localhost"} {
		conn, err := tls.Dial("tcp", strings.TrimPrefix(p.url, "https://"), &tls.Config{ServerName: name, InsecureSkipVerify: true}) //nolint:gosec // the certificate is what is inspected
		if err != nil {
			t.Fatal(err)
		}
		cn := conn.ConnectionState().PeerCertificates[0].Subject.CommonName
		conn.Close()
		if sni := strings.HasPrefix(cn, "sni.example.com@"); sni != (name != "localhost") {
			t.Errorf("asking for %s: presented %q", name, cn)
		}
	}
	if code, stderr := runToExit(t, "--listen", "127.0.0.1:0", "--kubeconfig", filepath.Join(dir, "k2"), "--tls-sni-cert-key", certFile); code != 2 ||
		!strings.Contains(stderr, "expected comma separated certificate and key file paths") {
		t.Errorf("--tls-sni-cert-key without a key: exit %d, %q", code, stderr)
	}
}
