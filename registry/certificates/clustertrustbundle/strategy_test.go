package clustertrustbundle

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"testing"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// testCert is a PEM certificate for a fresh key, a CA or not.
func testCert(t *testing.T, ca bool) string {
	t.Helper()
	_, key, _ := ed25519.GenerateKey(rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "t"}, NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour), IsCA: ca, BasicConstraintsValid: ca}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

func bundle(signer, trust string) *certificatesv1.ClusterTrustBundle {
	return &certificatesv1.ClusterTrustBundle{ObjectMeta: metav1.ObjectMeta{Name: "b"}, Spec: certificatesv1.ClusterTrustBundleSpec{SignerName: signer, TrustBundle: trust}}
}

func TestValidateChecksTheSignerAndTheTrustBundle(t *testing.T) {
	ca, ca2, leaf := testCert(t, true), testCert(t, true), testCert(t, false)
	key := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte("k")}))
	for _, tc := range []struct {
		name, signer, trust string
		want                []string
	}{
		{"one CA", "", ca, nil},
		{"two CAs and a signer", "example.com/s", ca + ca2 + "text", nil},
		{"a bad signer", "foo", ca, []string{`spec.signerName: Invalid value: "foo": must be a fully qualified domain and path of the form 'example.com/signer-name'`}},
		{"no anchor", "", "text", []string{`spec.trustBundle: Invalid value: "<value omitted>": at least one trust anchor must be provided`}},
		{"bad blocks, no duplicate check", "", key + leaf + ca + ca, []string{
			`spec.trustBundle: Invalid value: "<value omitted>": entry 0 has bad block type: PRIVATE KEY`,
			`spec.trustBundle: Invalid value: "<value omitted>": entry 1 does not have the CA bit set`}},
		{"duplicates by first index", "", ca + ca2 + ca2 + ca, []string{
			`spec.trustBundle: Invalid value: "<value omitted>": duplicate trust anchor (indices [0 3])`,
			`spec.trustBundle: Invalid value: "<value omitted>": duplicate trust anchor (indices [1 2])`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errs := Strategy.Validate(context.Background(), bundle(tc.signer, tc.trust))
			if len(errs) != len(tc.want) {
				t.Fatalf("got %v, want %v", errs, tc.want)
			}
			for i, e := range errs {
				if e.Error() != tc.want[i] {
					t.Errorf("error %d: got %s, want %s", i, e.Error(), tc.want[i])
				}
			}
		})
	}
}

func TestValidateUpdateKeepsTheSignerAndParsesAChangedBundleOnly(t *testing.T) {
	ca := testCert(t, true)
	// An unchanged bundle is not parsed again, even when it would fail now.
	if errs := Strategy.ValidateUpdate(context.Background(), bundle("", "text"), bundle("", "text")); len(errs) != 0 {
		t.Errorf("unchanged bundle: %v", errs)
	}
	errs := Strategy.ValidateUpdate(context.Background(), bundle("example.com/s", "text"), bundle("", ca))
	want := []string{
		`spec.trustBundle: Invalid value: "<value omitted>": at least one trust anchor must be provided`,
		`spec.signerName: Invalid value: "example.com/s": field is immutable`,
	}
	if len(errs) != len(want) {
		t.Fatalf("got %v, want %v", errs, want)
	}
	for i, e := range errs {
		if e.Error() != want[i] {
			t.Errorf("error %d: got %s, want %s", i, e.Error(), want[i])
		}
	}
}

func TestTrustBundleTooLong(t *testing.T) {
	errs := validateTrustBundle(string(make([]byte, MaxTrustBundleSize+1)))
	if len(errs) != 1 || errs[0].Error() != "spec.trustBundle: Too long: may not be more than 1048576 bytes" {
		t.Errorf("got %v", errs)
	}
}
