package fakeplane_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/fakeplane/fakeplane"
	"github.com/fakeplane/fakeplane/internal/pki"
)

// acceptableCAs returns the common names of the CAs the control plane
// names when it asks a client for its certificate.
func acceptableCAs(t *testing.T, cp *fakeplane.ControlPlane) []string {
	t.Helper()
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(cp.RESTConfig().CAData)
	var names []string
	conn, err := tls.Dial("tcp", strings.TrimPrefix(cp.URL(), "https://"), &tls.Config{
		RootCAs: roots,
		GetClientCertificate: func(cri *tls.CertificateRequestInfo) (*tls.Certificate, error) {
			for _, raw := range cri.AcceptableCAs {
				var rdn pkix.RDNSequence
				if _, err := asn1.Unmarshal(raw, &rdn); err != nil {
					return nil, err
				}
				var name pkix.Name
				name.FillFromRDNSequence(&rdn)
				names = append(names, name.CommonName)
			}
			return &tls.Certificate{}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	_ = conn.Close()
	return names
}

// certUser returns the user the control plane takes a client-go client
// with the client certificate kp for, on a new connection: "" when the
// client was not authenticated (a 401, or anonymous), and the error of
// any other failure.
func certUser(t *testing.T, cp *fakeplane.ControlPlane, kp pki.KeyPair) (string, error) {
	t.Helper()
	cfg := &rest.Config{Host: cp.URL(), TLSClientConfig: rest.TLSClientConfig{CAData: cp.RESTConfig().CAData, CertData: kp.CertPEM, KeyData: kp.KeyPEM}}
	// A dialer of its own keeps client-go from sharing a transport, so
	// that each call makes a TLS handshake of its own.
	cfg.Dial = (&net.Dialer{}).DialContext
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ssr, err := c.AuthenticationV1().SelfSubjectReviews().Create(ctxT(t), &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	switch {
	case apierrors.IsUnauthorized(err):
		return "", nil
	case apierrors.IsForbidden(err) && strings.Contains(err.Error(), `User "system:anonymous"`):
		return "", nil
	case err != nil:
		return "", err
	}
	return ssr.Status.UserInfo.Username, nil
}

// awaitCertUser waits until the control plane takes a client with kp for
// want ("" for nobody).
func awaitCertUser(t *testing.T, cp *fakeplane.ControlPlane, kp pki.KeyPair, want string) {
	t.Helper()
	var got string
	err := wait.PollUntilContextTimeout(ctxT(t), 20*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		var err error
		got, err = certUser(t, cp, kp)
		return got == want, err
	})
	if err != nil {
		t.Fatalf("the client certificate's user is %q, want %q: %v", got, want, err)
	}
}

// awaitPublishedCA waits until the extension-apiserver-authentication
// ConfigMap's key holds a certificate named cn.
func awaitPublishedCA(t *testing.T, cp *fakeplane.ControlPlane, key, cn string) {
	t.Helper()
	err := wait.PollUntilContextTimeout(ctxT(t), 20*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		cm, err := authConfigMap(t, cp)
		if err != nil {
			return false, err
		}
		return slices.ContainsFunc(parseCerts(t, cm.Data[key]), func(c *x509.Certificate) bool { return c.Subject.CommonName == cn }), nil
	})
	if err != nil {
		t.Fatalf("%s never held %s: %v", key, cn, err)
	}
}

// TestClientCAFileIsReadAgainWhenItChanges follows --client-ca-file as
// kube-apiserver does (as recorded on refplane's kube-apiserver v1.37 with
// curl and openssl): a CA added to the file verifies client certificates
// from the next connection on, is named to clients in the TLS handshake
// and is published in extension-apiserver-authentication; a content that
// does not load is logged and changes nothing; a CA removed stops
// verifying but stays published.
func TestClientCAFileIsReadAgainWhenItChanges(t *testing.T) {
	t.Parallel()
	first, err := pki.NewCA("first-ca")
	if err != nil {
		t.Fatal(err)
	}
	second, err := pki.NewCA("second-ca")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "client-ca.pem")
	write := func(data []byte) {
		t.Helper()
		if err := os.WriteFile(file, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(first.CertPEM)
	logs := &logged{level: slog.LevelError}
	cp := fakeplane.Start(t, fakeplane.WithClientCAFile(file), fakeplane.WithLogger(slog.New(logs)))
	bob, _ := first.NewClientCert("bob")
	alice, _ := second.NewClientCert("alice", "devs")

	if got, want := acceptableCAs(t, cp), []string{"fakeplane-ca", "first-ca", "front-proxy-ca"}; !slices.Equal(got, want) {
		t.Errorf("CAs named in the handshake: %q, want %q", got, want)
	}
	awaitCertUser(t, cp, bob, "bob")
	awaitCertUser(t, cp, alice, "")
	if code, _ := selfSubjectReviewAs(t, cp, alice.CertPEM, alice.KeyPEM, nil); code != 403 {
		t.Errorf("alice's certificate, not sent by a Go client: %d, want 403 (anonymous)", code)
	}

	write(append(append([]byte{}, first.CertPEM...), second.CertPEM...))
	awaitCertUser(t, cp, alice, "alice")
	awaitPublishedCA(t, cp, "client-ca-file", "second-ca")
	if got, want := acceptableCAs(t, cp), []string{"fakeplane-ca", "first-ca", "second-ca", "front-proxy-ca"}; !slices.Equal(got, want) {
		t.Errorf("CAs named in the handshake after the change: %q, want %q", got, want)
	}
	if got := cp.ClientCA(); !strings.Contains(string(got), string(second.CertPEM)) {
		t.Errorf("ClientCA does not hold the CA added to the file:\n%s", got)
	}

	write([]byte("not a certificate\n"))
	err = wait.PollUntilContextTimeout(ctxT(t), 20*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		return logs.has("Reading the CA file failed, the last good bundle stays in use"), nil
	})
	if err != nil {
		t.Fatal("a CA file that does not load was not logged")
	}
	if got, err := certUser(t, cp, alice); got != "alice" || err != nil {
		t.Errorf("after a content that does not load, alice is %q (%v), want the last good bundle to verify her", got, err)
	}

	write(first.CertPEM)
	awaitCertUser(t, cp, alice, "")
	awaitCertUser(t, cp, bob, "bob")
	cm, err := authConfigMap(t, cp)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(parseCerts(t, cm.Data["client-ca-file"]), func(c *x509.Certificate) bool { return c.Subject.CommonName == "second-ca" }) {
		t.Errorf("a CA removed from the file left the ConfigMap; kube-apiserver keeps it until it expires")
	}
}

// TestRequestHeaderCAFileIsReadAgainWhenItChanges follows
// --requestheader-client-ca-file as kube-apiserver does: a proxy whose
// CA is added may assert users from the next connection on, and the CA is
// published.
func TestRequestHeaderCAFileIsReadAgainWhenItChanges(t *testing.T) {
	t.Parallel()
	first, err := pki.NewCA("first-proxy-ca")
	if err != nil {
		t.Fatal(err)
	}
	second, err := pki.NewCA("second-proxy-ca")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "requestheader-ca.pem")
	if err := os.WriteFile(file, first.CertPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	cp := fakeplane.Start(t, fakeplane.WithRequestHeader(fakeplane.RequestHeader{CAFile: file, AllowedNames: []string{"my-proxy"}}))
	proxy, _ := second.NewClientCert("my-proxy")
	asBob := map[string]string{"X-Remote-User": "bob"}
	if got, want := acceptableCAs(t, cp), []string{"fakeplane-ca", "first-proxy-ca"}; !slices.Equal(got, want) {
		t.Errorf("CAs named in the handshake: %q, want %q", got, want)
	}
	if code, ui := selfSubjectReviewAs(t, cp, proxy.CertPEM, proxy.KeyPEM, asBob); code != 403 {
		t.Errorf("a proxy of a CA not in the file: %d %+v, want 403 (anonymous)", code, ui)
	}
	if err := os.WriteFile(file, append(append([]byte{}, first.CertPEM...), second.CertPEM...), 0o600); err != nil {
		t.Fatal(err)
	}
	err = wait.PollUntilContextTimeout(ctxT(t), 20*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		code, ui := selfSubjectReviewAs(t, cp, proxy.CertPEM, proxy.KeyPEM, asBob)
		return code == 201 && ui.Username == "bob", nil
	})
	if err != nil {
		t.Fatal("the proxy of the CA added to the file never asserted its user")
	}
	awaitPublishedCA(t, cp, "requestheader-client-ca-file", "second-proxy-ca")
	if got := cp.RequestHeaderClientCA(); !strings.Contains(string(got), string(second.CertPEM)) {
		t.Errorf("RequestHeaderClientCA does not hold the CA added to the file:\n%s", got)
	}
}

func TestRequestHeaderTakesOneCASource(t *testing.T) {
	t.Parallel()
	ca, err := pki.NewCA("proxy-ca")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(file, ca.CertPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	err = startError(t, fakeplane.WithRequestHeader(fakeplane.RequestHeader{CABundle: ca.CertPEM, CAFile: file}))
	if want := "fakeplane: a RequestHeader gives one of CA, CABundle and CAFile"; err == nil || err.Error() != want {
		t.Fatalf("Start: %v, want %q", err, want)
	}
}
