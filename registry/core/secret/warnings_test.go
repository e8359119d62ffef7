package secret

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// keyPair returns a self-signed certificate and its key, PEM-encoded.
func keyPair(t *testing.T) (cert, key []byte) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "example"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder})
}

func TestSecretWarnings(t *testing.T) {
	cert, key := keyPair(t)
	_, otherKey := keyPair(t)
	for _, tc := range []struct {
		name string
		typ  corev1.SecretType
		data map[string][]byte
		want []string
	}{
		{name: "matching TLS key pair", typ: corev1.SecretTypeTLS, data: map[string][]byte{"tls.crt": cert, "tls.key": key}},
		{name: "TLS key of another certificate", typ: corev1.SecretTypeTLS, data: map[string][]byte{"tls.crt": cert, "tls.key": otherKey},
			want: []string{"tls: private key does not match public key"}},
		{name: "TLS certificate that is not PEM", typ: corev1.SecretTypeTLS, data: map[string][]byte{"tls.crt": []byte("x"), "tls.key": key},
			want: []string{"tls: failed to find any PEM data in certificate input"}},
		{name: "empty TLS key", typ: corev1.SecretTypeTLS, data: map[string][]byte{"tls.crt": cert, "tls.key": nil},
			want: []string{"tls: failed to find any PEM data in key input"}},
		{name: "opaque secret with TLS keys is not checked", typ: corev1.SecretTypeOpaque, data: map[string][]byte{"tls.crt": []byte("x"), "tls.key": []byte("y")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &corev1.Secret{Type: tc.typ, Data: tc.data}
			if got := Strategy.WarningsOnCreate(context.Background(), s); !slices.Equal(got, tc.want) {
				t.Errorf("create warnings:\n got %q\nwant %q", got, tc.want)
			}
			if got := Strategy.WarningsOnUpdate(context.Background(), s, s.DeepCopy()); !slices.Equal(got, tc.want) {
				t.Errorf("update warnings:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}
