package pki

import (
	"crypto/x509"
	"errors"
	"io/fs"
	"testing"
)

func TestClientCertNamesUserAndGroups(t *testing.T) {
	ca, err := NewCA("test-ca")
	if err != nil {
		t.Fatal(err)
	}
	kp, err := ca.NewClientCert("alice", "devs", "qa")
	if err != nil {
		t.Fatal(err)
	}
	tc, err := kp.TLSCertificate()
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(tc.Certificate[0])
	if cert.Subject.CommonName != "alice" || len(cert.Subject.Organization) != 2 {
		t.Errorf("subject: %+v", cert.Subject)
	}
	if _, err := cert.Verify(x509.VerifyOptions{Roots: ca.Pool(), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Errorf("client certificate does not verify: %v", err)
	}
}

func TestSaveAndLoadCA(t *testing.T) {
	dir := t.TempDir()
	if _, err := LoadCA(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("empty dir: %v", err)
	}
	ca, _ := NewCA("test-ca")
	if err := ca.Save(dir); err != nil {
		t.Fatal(err)
	}
	loaded, err := LoadCA(dir)
	if err != nil || !loaded.Cert.Equal(ca.Cert) {
		t.Fatalf("load: %v", err)
	}
	kp, err := loaded.NewClientCert("bob")
	if err != nil {
		t.Fatal(err)
	}
	tc, _ := kp.TLSCertificate()
	cert, _ := x509.ParseCertificate(tc.Certificate[0])
	if _, err := cert.Verify(x509.VerifyOptions{Roots: ca.Pool(), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Errorf("a certificate signed by the reloaded CA does not verify against the original: %v", err)
	}
}

func TestCAsSavedUnderTheirNamesLiveSideBySide(t *testing.T) {
	dir := t.TempDir()
	cluster, _ := NewCA("fakeplane-ca")
	proxy, _ := NewCA("front-proxy-ca")
	if err := cluster.Save(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadCAAs(dir, FrontProxyCAName); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("front-proxy CA before it was saved: %v", err)
	}
	if err := proxy.SaveAs(dir, FrontProxyCAName); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		want *CA
	}{
		{ClusterCAName, cluster},
		{FrontProxyCAName, proxy},
	} {
		got, err := LoadCAAs(dir, tc.name)
		if err != nil || !got.Cert.Equal(tc.want.Cert) {
			t.Errorf("%s: %v, or another certificate", tc.name, err)
		}
	}
}
