package fakeplane_test

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/fakeplane/fakeplane"
	"github.com/fakeplane/fakeplane/internal/pki"
)

// selfSubjectReviewAs posts a SelfSubjectReview presenting the client
// certificate certPEM/keyPEM and the given headers, and returns the status
// code and who the control plane took the client for.
func selfSubjectReviewAs(t *testing.T, cp *fakeplane.ControlPlane, certPEM, keyPEM []byte, headers map[string]string) (int, authenticationv1.UserInfo) {
	t.Helper()
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	tlsCfg, err := rest.TLSConfigFor(&rest.Config{TLSClientConfig: rest.TLSClientConfig{CAData: cp.RESTConfig().CAData}})
	if err != nil {
		t.Fatal(err)
	}
	tlsCfg.Certificates = []tls.Certificate{cert}
	tr := &http.Transport{TLSClientConfig: tlsCfg}
	defer tr.CloseIdleConnections()
	req, _ := http.NewRequest("POST", cp.URL()+"/apis/authentication.k8s.io/v1/selfsubjectreviews", strings.NewReader(`{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var ssr authenticationv1.SelfSubjectReview
	_ = jsonDecode(resp, &ssr)
	return resp.StatusCode, ssr.Status.UserInfo
}

// authConfigMap reads kube-system/extension-apiserver-authentication.
func authConfigMap(t *testing.T, cp *fakeplane.ControlPlane) (*corev1.ConfigMap, error) {
	t.Helper()
	return clientset(t, cp).CoreV1().ConfigMaps("kube-system").Get(ctxT(t), "extension-apiserver-authentication", metav1.GetOptions{})
}

// parseCerts parses a PEM bundle.
func parseCerts(t *testing.T, bundle string) []*x509.Certificate {
	t.Helper()
	var out []*x509.Certificate
	rest := []byte(bundle)
	for {
		var b *pem.Block
		if b, rest = pem.Decode(rest); b == nil {
			return out
		}
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
}

func TestExtensionAPIServerAuthenticationConfigMapIsPublishedAtStart(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cm, err := authConfigMap(t, cp) // no waiting: Start waited for it
	if err != nil {
		t.Fatal(err)
	}
	wantKeys := []string{
		"client-ca-file", "requestheader-allowed-names", "requestheader-client-ca-file",
		"requestheader-extra-headers-prefix", "requestheader-group-headers", "requestheader-username-headers",
	}
	if keys := slices.Sorted(maps.Keys(cm.Data)); !slices.Equal(keys, wantKeys) {
		t.Errorf("keys %v, want %v", keys, wantKeys)
	}
	for k, want := range map[string]string{
		"requestheader-allowed-names":        `["front-proxy-client"]`,
		"requestheader-username-headers":     `["X-Remote-User"]`,
		"requestheader-group-headers":        `["X-Remote-Group"]`,
		"requestheader-extra-headers-prefix": `["X-Remote-Extra-"]`,
	} {
		if cm.Data[k] != want {
			t.Errorf("%s = %q, want %q", k, cm.Data[k], want)
		}
	}
	if got, want := cm.Data["client-ca-file"], string(cp.RESTConfig().CAData); got != want {
		t.Errorf("client-ca-file is not the cluster CA:\n%s\nwant\n%s", got, want)
	}
	// The request-header CA is another CA, and it signed the proxy's
	// client certificate front-proxy-client.
	proxyCAs := parseCerts(t, cm.Data["requestheader-client-ca-file"])
	if len(proxyCAs) != 1 || cm.Data["requestheader-client-ca-file"] == cm.Data["client-ca-file"] {
		t.Fatalf("requestheader-client-ca-file: %d certificates, or the client CA", len(proxyCAs))
	}
	certPEM, _ := cp.ProxyClientCert()
	proxyCert := parseCerts(t, string(certPEM))
	if len(proxyCert) != 1 || proxyCert[0].Subject.CommonName != "front-proxy-client" {
		t.Fatalf("proxy client certificate: %+v", proxyCert)
	}
	pool := x509.NewCertPool()
	pool.AddCert(proxyCAs[0])
	if _, err := proxyCert[0].Verify(x509.VerifyOptions{Roots: pool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Errorf("the proxy client certificate does not verify against requestheader-client-ca-file: %v", err)
	}
	if len(cm.ManagedFields) != 1 || cm.ManagedFields[0].Manager != "kube-apiserver" {
		t.Errorf("managedFields: %+v", cm.ManagedFields)
	}

	// Deleted, it is back a moment later, the same.
	cs := clientset(t, cp)
	ctx := ctxT(t)
	if err := cs.CoreV1().ConfigMaps("kube-system").Delete(ctx, cm.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	var back *corev1.ConfigMap
	waitFor(t, func() bool {
		back, err = authConfigMap(t, cp)
		return err == nil
	})
	if back.UID == cm.UID || !maps.Equal(back.Data, cm.Data) {
		t.Errorf("recreated ConfigMap: uid %s (was %s), data equal: %v", back.UID, cm.UID, maps.Equal(back.Data, cm.Data))
	}

	// The Role extension API servers are bound to reads it.
	if _, err := cs.RbacV1().Roles("kube-system").Get(ctx, "extension-apiserver-authentication-reader", metav1.GetOptions{}); err != nil {
		t.Error(err)
	}
}

func TestFrontProxyClientCertificateAssertsTheUserInHeaders(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cp := fakeplane.Start(t, fakeplane.WithDataDir(dir))
	proxyCA, err := pki.LoadCAAs(filepath.Join(dir, "pki"), pki.FrontProxyCAName)
	if err != nil {
		t.Fatal(err)
	}
	clusterCA, err := pki.LoadCA(filepath.Join(dir, "pki"))
	if err != nil {
		t.Fatal(err)
	}
	proxyCert, proxyKey := cp.ProxyClientCert()
	otherCN, _ := proxyCA.NewClientCert("someone-else")
	clusterSigned, _ := clusterCA.NewClientCert("front-proxy-client")
	alice := map[string]string{"X-Remote-User": "alice", "X-Remote-Group": "devs", "X-Remote-Extra-Scopes": "read"}
	for _, tc := range []struct {
		name     string
		cert     pki.KeyPair
		headers  map[string]string
		wantCode int
		wantUser string
	}{
		{"the proxy's certificate names the user in headers", pki.KeyPair{CertPEM: proxyCert, KeyPEM: proxyKey}, alice, 201, "alice"},
		{"the proxy's certificate without a user header is refused", pki.KeyPair{CertPEM: proxyCert, KeyPEM: proxyKey}, nil, 401, ""},
		{"another CN from the front-proxy CA is refused", otherCN, alice, 401, ""},
		{"a cluster certificate is its own user, headers ignored", clusterSigned, alice, 201, "front-proxy-client"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, ui := selfSubjectReviewAs(t, cp, tc.cert.CertPEM, tc.cert.KeyPEM, tc.headers)
			if code != tc.wantCode || ui.Username != tc.wantUser {
				t.Fatalf("%d %+v, want %d %q", code, ui, tc.wantCode, tc.wantUser)
			}
			if tc.wantUser == "alice" && (strings.Join(ui.Groups, ",") != "devs,system:authenticated" || !slices.Equal(ui.Extra["scopes"], authenticationv1.ExtraValue{"read"})) {
				t.Errorf("groups %v, extra %v", ui.Groups, ui.Extra)
			}
		})
	}
}

func TestFrontProxyCASurvivesRestartWithDataDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	first, err := fakeplane.New(fakeplane.WithDataDir(dir), fakeplane.WithKubeconfigPath(filepath.Join(t.TempDir(), "kubeconfig")))
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Start(ctxDataDir(t)); err != nil {
		t.Fatal(err)
	}
	before, err := authConfigMap(t, first)
	if err != nil {
		t.Fatal(err)
	}
	oldCert, oldKey := first.ProxyClientCert()
	if err := first.Stop(); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"front-proxy-ca.crt", "front-proxy-ca.key"} {
		if _, err := os.Stat(filepath.Join(dir, "pki", f)); err != nil {
			t.Errorf("data dir: %v", err)
		}
	}

	second := fakeplane.Start(t, fakeplane.WithDataDir(dir))
	after, err := authConfigMap(t, second)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(after.Data, before.Data) || after.ResourceVersion != before.ResourceVersion {
		t.Errorf("the ConfigMap changed across the restart:\n%v\n%v", before.Data, after.Data)
	}
	// The certificate the first run's proxy held is still trusted.
	if code, ui := selfSubjectReviewAs(t, second, oldCert, oldKey, map[string]string{"X-Remote-User": "alice"}); code != 201 || ui.Username != "alice" {
		t.Errorf("the first run's proxy certificate: %d %+v", code, ui)
	}
}

func TestRequestHeaderGivenByTheUserIsPublishedAndNoneIsMade(t *testing.T) {
	t.Parallel()
	userCA, err := pki.NewCA("my-proxy-ca")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cp := fakeplane.Start(t, fakeplane.WithDataDir(dir), fakeplane.WithRequestHeader(fakeplane.RequestHeader{
		CABundle: userCA.CertPEM, AllowedNames: []string{"my-proxy"}, UIDHeaders: []string{"X-Remote-Uid"},
	}))
	if c, k := cp.ProxyClientCert(); c != nil || k != nil {
		t.Errorf("a proxy client certificate was made up")
	}
	if _, err := os.Stat(filepath.Join(dir, "pki", "front-proxy-ca.crt")); !os.IsNotExist(err) {
		t.Errorf("a front-proxy CA was made up: %v", err)
	}
	cm, err := authConfigMap(t, cp)
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{
		"requestheader-client-ca-file":       string(userCA.CertPEM),
		"requestheader-allowed-names":        `["my-proxy"]`,
		"requestheader-username-headers":     `["X-Remote-User"]`,
		"requestheader-uid-headers":          `["X-Remote-Uid"]`,
		"requestheader-group-headers":        `["X-Remote-Group"]`,
		"requestheader-extra-headers-prefix": `["X-Remote-Extra-"]`,
	} {
		if cm.Data[k] != want {
			t.Errorf("%s = %q, want %q", k, cm.Data[k], want)
		}
	}
	proxy, _ := userCA.NewClientCert("my-proxy")
	code, ui := selfSubjectReviewAs(t, cp, proxy.CertPEM, proxy.KeyPEM, map[string]string{"X-Remote-User": "bob", "X-Remote-Uid": "b-1"})
	if code != 201 || ui.Username != "bob" || ui.UID != "b-1" {
		t.Errorf("the user's proxy: %d %+v", code, ui)
	}
}

func TestProxyClientCertWithoutRequestHeaderPublishesTheClientCAAlone(t *testing.T) {
	t.Parallel()
	ca, _ := pki.NewCA("elsewhere")
	kp, _ := ca.NewClientCert("front-proxy-client")
	cp := fakeplane.Start(t, fakeplane.WithProxyClientCert(kp.CertPEM, kp.KeyPEM))
	if c, _ := cp.ProxyClientCert(); string(c) != string(kp.CertPEM) {
		t.Errorf("ProxyClientCert is not the given one")
	}
	cm, err := authConfigMap(t, cp)
	if err != nil {
		t.Fatal(err)
	}
	if keys := slices.Sorted(maps.Keys(cm.Data)); !slices.Equal(keys, []string{"client-ca-file"}) {
		t.Errorf("keys %v", keys)
	}
}

func TestRequestHeaderUIDHeadersMustIncludeXRemoteUid(t *testing.T) {
	t.Parallel()
	ca, _ := pki.NewCA("p")
	cp, err := fakeplane.New(fakeplane.WithRequestHeader(fakeplane.RequestHeader{CABundle: ca.CertPEM, UIDHeaders: []string{"X-Uid"}}))
	if err != nil {
		t.Fatal(err)
	}
	err = cp.Start(ctxT(t))
	if err == nil {
		_ = cp.Stop()
	}
	if err == nil || !strings.Contains(err.Error(), "X-Remote-Uid") {
		t.Errorf("Start: %v", err)
	}
}
