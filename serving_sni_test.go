package fakeplane_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	cliflag "k8s.io/component-base/cli/flag"

	"github.com/fakeplane/fakeplane"
)

// writeCertFiles writes a self-signed certificate for cn and dnsNames, and
// its key, to name.crt and name.key in dir, and returns their paths.
func writeCertFiles(t *testing.T, dir, name, cn string, dnsNames ...string) (certFile, keyFile string) {
	t.Helper()
	certPEM, keyPEM, _ := signCertFor(t, nil, nil, cn, dnsNames, nil)
	certFile, keyFile = filepath.Join(dir, name+".crt"), filepath.Join(dir, name+".key")
	if err := os.WriteFile(certFile, certPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, keyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile
}

// TestSecureServingSNICertificates serves --tls-sni-cert-key certificates
// as kube-apiserver chooses them: by the name the client asks for (its
// case aside), exactly and then as a wildcard of its first label; by the
// names given with the pair, or without them by the certificate's common
// name and DNS names; earlier pairs first, given names over a
// certificate's own; by the dialed address for a client asking for no
// name; otherwise the first certificate valid for the name, the default
// (--tls-cert-file's) first, as Go's TLS server picks; otherwise the
// default. The control plane's own clients still get the cluster CA's.
func TestSecureServingSNICertificates(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	defPEM, defKeyPEM, _ := signServingCert(t, nil, nil, "default")
	defCert, defKey := filepath.Join(dir, "default.crt"), filepath.Join(dir, "default.key")
	if err := os.WriteFile(defCert, defPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(defKey, defKeyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	pair := func(name, cn string, dnsNames []string, names ...string) cliflag.NamedCertKey {
		c, k := writeCertFiles(t, dir, name, cn, dnsNames...)
		return cliflag.NamedCertKey{CertFile: c, KeyFile: k, Names: names}
	}
	sni := []cliflag.NamedCertKey{
		pair("foo", "foo", []string{"ignored.example.com"}, "foo.example.com"),
		pair("bar", "bar.example.com", []string{"*.bar.example.com"}),
		pair("first", "first", nil, "dup.example.com"),
		pair("second", "second", nil, "dup.example.com", "x.bar.example.com"),
		pair("given", "given", nil, "bar.example.com"),
	}
	cp := fakeplane.Start(t, fakeplane.WithNodes(1), fakeplane.WithSecureServing(fakeplane.SecureServing{CertFile: defCert, KeyFile: defKey, SNICertKeys: sni}))
	for _, tc := range []struct{ serverName, want string }{
		{"foo.example.com", "foo"},
		{"FOO.Example.com", "foo"},
		// No name selects it, but it is the one valid for the name.
		{"ignored.example.com", "foo"},
		{"a.bar.example.com", "bar.example.com"},
		{"x.bar.example.com", "second"},
		{"bar.example.com", "given"},
		{"dup.example.com", "first"},
		{"other.example.com", "default"},
		{"", "default"},
	} {
		if got := presented(t, cp, tc.serverName); got.Subject.CommonName != tc.want {
			t.Errorf("asking for %q: presented %q, want %q", tc.serverName, got.Subject.CommonName, tc.want)
		}
	}
	if got := presented(t, cp, "apiserver-loopback-client"); got.Issuer.CommonName != "fakeplane-ca" {
		t.Errorf("presented %q issued by %q to the loopback name, want the cluster CA's", got.Subject, got.Issuer)
	}
	checkServes(t, cp)
}

// TestSecureServingSNICertificateForAnAddress serves a pair named for an
// IP address to the clients that dial it asking for no name, as
// kube-apiserver does, while the control plane's own clients keep working.
func TestSecureServingSNICertificateForAnAddress(t *testing.T) {
	t.Parallel()
	c, k := writeCertFiles(t, t.TempDir(), "ip", "by-address")
	cp := fakeplane.Start(t, fakeplane.WithNodes(1), fakeplane.WithSecureServing(fakeplane.SecureServing{
		SNICertKeys: []cliflag.NamedCertKey{{CertFile: c, KeyFile: k, Names: []string{"127.0.0.1"}}}}))
	if got := presented(t, cp, ""); got.Subject.CommonName != "by-address" {
		t.Errorf("dialing 127.0.0.1 without a name: presented %q, want by-address", got.Subject.CommonName)
	}
	if got := presented(t, cp, "localhost"); got.Issuer.CommonName != "fakeplane-ca" {
		t.Errorf("asking for localhost: presented %q issued by %q, want the default, the cluster CA's", got.Subject, got.Issuer)
	}
	if got := presented(t, cp, "apiserver-loopback-client"); got.Issuer.CommonName != "fakeplane-ca" {
		t.Errorf("presented %q issued by %q to the loopback name, want the cluster CA's", got.Subject, got.Issuer)
	}
}

// TestSecureServingSNIErrors refuses to start, with kube-apiserver's
// message, on an SNI pair that does not load.
func TestSecureServingSNIErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c, k := writeCertFiles(t, dir, "ok", "ok")
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, otherKey := writeCertFiles(t, dir, "other", "other")
	for _, tc := range []struct {
		name string
		pair cliflag.NamedCertKey
		want string
	}{
		{"a missing file", cliflag.NamedCertKey{CertFile: filepath.Join(dir, "missing.crt"), KeyFile: k},
			"fakeplane: failed to load SNI cert and key: open " + filepath.Join(dir, "missing.crt") + ": no such file or directory"},
		{"no key named", cliflag.NamedCertKey{CertFile: c}, "fakeplane: failed to load SNI cert and key: missing filename for serving cert"},
		{"an empty file", cliflag.NamedCertKey{CertFile: c, KeyFile: empty},
			`fakeplane: failed to load SNI cert and key: missing content for serving cert "sni-serving-cert::` + c + "::" + empty + `"`},
		{"another certificate's key", cliflag.NamedCertKey{CertFile: c, KeyFile: otherKey},
			"fakeplane: failed to load SNI cert and key: tls: private key does not match public key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cp, err := fakeplane.New(fakeplane.WithSecureServing(fakeplane.SecureServing{SNICertKeys: []cliflag.NamedCertKey{tc.pair}}))
			if err != nil {
				t.Fatal(err)
			}
			err = cp.Start(context.Background())
			if err == nil {
				_ = cp.Stop()
				t.Fatal("started")
			}
			if err.Error() != tc.want {
				t.Errorf("Start: %q, want %q", err, tc.want)
			}
		})
	}
}

// logged is a slog handler that keeps the messages of records at level
// or above.
type logged struct {
	level slog.Level
	mu    sync.Mutex
	msgs  []string
}

func (w *logged) Enabled(_ context.Context, l slog.Level) bool { return l >= w.level }
func (w *logged) Handle(_ context.Context, r slog.Record) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.msgs = append(w.msgs, r.Message)
	return nil
}
func (w *logged) WithAttrs([]slog.Attr) slog.Handler { return w }
func (w *logged) WithGroup(string) slog.Handler      { return w }

// take returns the messages kept and forgets them.
func (w *logged) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	m := w.msgs
	w.msgs = nil
	return m
}

// has reports whether a message kept (and not taken) is msg.
func (w *logged) has(msg string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Contains(w.msgs, msg)
}

// TestSecureServingReloadsCertificateFiles serves new contents of the
// serving and SNI certificate files once they change, as kube-apiserver
// does, and keeps serving the last pair that loaded when a change does not
// load.
func TestSecureServingReloadsCertificateFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	defCert, defKey := writeCertFiles(t, dir, "default", "default-1", "localhost")
	sniCert, sniKey := writeCertFiles(t, dir, "sni", "sni-1", "sni.example.com")
	logs := &logged{level: slog.LevelWarn}
	cp := fakeplane.Start(t, fakeplane.WithLogger(slog.New(logs)), fakeplane.WithSecureServing(fakeplane.SecureServing{CertFile: defCert, KeyFile: defKey,
		SNICertKeys: []cliflag.NamedCertKey{{CertFile: sniCert, KeyFile: sniKey}}}))
	waitPresented := func(serverName, want string) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second) // a hang guard
		for {
			got := presented(t, cp, serverName).Subject.CommonName
			if got == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("asking for %q: presented %q, want %q", serverName, got, want)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	waitPresented("", "default-1")
	waitPresented("sni.example.com", "sni-1")

	writeCertFiles(t, dir, "default", "default-2", "localhost")
	writeCertFiles(t, dir, "sni", "sni-2", "sni.example.com")
	waitPresented("", "default-2")
	waitPresented("sni.example.com", "sni-2")

	// A certificate file that does not load: the last pair stays.
	logs.take()
	if err := os.WriteFile(defCert, []byte("not a certificate"), 0o644); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second) // a hang guard
	for {
		if got := presented(t, cp, "").Subject.CommonName; got != "default-2" {
			t.Fatalf("after a bad certificate file: presented %q, want default-2 still", got)
		}
		if msgs := logs.take(); strings.Contains(strings.Join(msgs, "\n"), "serving certificate not reloaded") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the bad certificate file was not read again")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got := presented(t, cp, "sni.example.com").Subject.CommonName; got != "sni-2" {
		t.Errorf("the SNI certificate: presented %q, want sni-2", got)
	}
}
