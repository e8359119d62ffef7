package pki

import (
	"crypto/x509"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
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

// TestSecuritySecretFilesAndPrivateDirs checks the modes SaveAs,
// WriteSecretFile and MakePrivateDir give: a new directory 0700, an existing
// one kept (and reported loose when others may use it), keys 0600 whether
// the file is new or was 0644, the CA certificate 0644.
func TestSecuritySecretFilesAndPrivateDirs(t *testing.T) {
	mode := func(path string) os.FileMode {
		t.Helper()
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Mode().Perm()
	}
	root := t.TempDir()
	dir := filepath.Join(root, "a", "pki")
	if loose, err := MakePrivateDir(dir); err != nil || loose {
		t.Fatalf("MakePrivateDir(new) = %v, %v; want false, nil", loose, err)
	}
	for _, d := range []string{filepath.Join(root, "a"), dir} {
		if m := mode(d); m != 0o700 {
			t.Errorf("new directory %s is %v, want 0700", d, m)
		}
	}
	if loose, err := MakePrivateDir(dir); err != nil || loose {
		t.Errorf("MakePrivateDir(existing 0700) = %v, %v; want false, nil", loose, err)
	}
	open := filepath.Join(root, "open")
	if err := os.Mkdir(open, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o755); err != nil {
		t.Fatal(err)
	}
	if loose, err := MakePrivateDir(open); err != nil || !loose {
		t.Errorf("MakePrivateDir(existing 0755) = %v, %v; want true, nil", loose, err)
	}
	if m := mode(open); m != 0o755 {
		t.Errorf("existing directory is %v, want it kept 0755", m)
	}
	file := filepath.Join(root, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := MakePrivateDir(file); err == nil {
		t.Errorf("MakePrivateDir of a file: no error")
	}

	ca, err := NewCA("test-ca")
	if err != nil {
		t.Fatal(err)
	}
	keyPath := filepath.Join(dir, "ca.key")
	if err := os.WriteFile(keyPath, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(keyPath, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ca.Save(dir); err != nil {
		t.Fatal(err)
	}
	if m := mode(keyPath); m != 0o600 {
		t.Errorf("ca.key written over a 0644 file is %v, want 0600", m)
	}
	if m := mode(filepath.Join(dir, "ca.crt")); m&^0o644 != 0 {
		t.Errorf("ca.crt is %v, want at most 0644", m)
	}
	if _, err := LoadCA(dir); err != nil {
		t.Errorf("LoadCA after Save over an old key: %v", err)
	}
	secret := filepath.Join(root, "new-secret")
	if err := WriteSecretFile(secret, []byte("s")); err != nil {
		t.Fatal(err)
	}
	if m := mode(secret); m != 0o600 {
		t.Errorf("a new secret file is %v, want 0600", m)
	}
}
