package auth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	jose "gopkg.in/go-jose/go-jose.v2"

	"k8s.io/apiserver/pkg/authentication/authenticator"
)

// testKeys are one key of each kind kube-apiserver's token generator signs
// with, made once (RSA keys are slow to make).
var testKeys = func() map[string]crypto.Signer {
	keys := map[string]crypto.Signer{}
	r, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	keys["RS256"] = r
	for alg, curve := range map[string]elliptic.Curve{"ES256": elliptic.P256(), "ES384": elliptic.P384(), "ES512": elliptic.P521()} {
		k, err := ecdsa.GenerateKey(curve, rand.Reader)
		if err != nil {
			panic(err)
		}
		keys[alg] = k
	}
	return keys
}()

// goJoseJWK is the JWK kube-apiserver builds for a key (jwkFromPublicKey,
// signerFromRSAPrivateKey, signerFromECDSAPrivateKey): its key id, its
// algorithm and use "sig".
func goJoseJWK(t *testing.T, key any, alg string) jose.JSONWebKey {
	t.Helper()
	pub := key
	if s, ok := key.(crypto.Signer); ok {
		pub = s.Public()
	}
	kid, err := keyIDFromPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return jose.JSONWebKey{Key: key, KeyID: kid, Algorithm: alg, Use: "sig"}
}

// TestTokensAreSignedAndVerifiedAsKubeAPIServerWithGoJose: for each kind of
// signing key, a token fakeplane issues has the protected header go-jose
// writes for kube-apiserver's signer, verifies with go-jose and the public
// key, and a token go-jose signs with the same key and claims
// authenticates; the key set is what go-jose writes for the key.
func TestTokensAreSignedAndVerifiedAsKubeAPIServerWithGoJose(t *testing.T) {
	for _, alg := range []string{"RS256", "ES256", "ES384", "ES512"} {
		t.Run(alg, func(t *testing.T) {
			key := testKeys[alg]
			g := newFakeGetter()
			sa := g.addSA("ns", "robot", "sa-uid")
			tokens, err := NewServiceAccountTokens(key, g)
			if err != nil {
				t.Fatal(err)
			}
			token, _, err := tokens.Issue(sa, nil, 3600, nil)
			if err != nil {
				t.Fatal(err)
			}
			parsed, err := jose.ParseSigned(token)
			if err != nil {
				t.Fatal(err)
			}
			payload, err := parsed.Verify(key.Public())
			if err != nil {
				t.Fatalf("go-jose does not verify the token: %v", err)
			}
			signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.SignatureAlgorithm(alg), Key: goJoseJWK(t, key, alg)}, nil)
			if err != nil {
				t.Fatal(err)
			}
			signed, err := signer.Sign(payload)
			if err != nil {
				t.Fatal(err)
			}
			theirs, err := signed.CompactSerialize()
			if err != nil {
				t.Fatal(err)
			}
			if ours, theirs := strings.Split(token, ".")[0], strings.Split(theirs, ".")[0]; ours != theirs {
				t.Errorf("protected header %s, go-jose's %s", ours, theirs)
			}
			resp, ok, err := tokens.AuthenticateToken(authenticator.WithAudiences(context.Background(), tokens.Audiences()), theirs)
			if !ok || err != nil || resp.User.GetName() != "system:serviceaccount:ns:robot" {
				t.Errorf("the token go-jose signed: %v %v", ok, err)
			}

			got, err := tokens.JWKS()
			if err != nil {
				t.Fatal(err)
			}
			want, err := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{goJoseJWK(t, key.Public(), alg)}})
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("key set\n got %s\nwant %s", got, want)
			}
		})
	}
}

// TestKeySetListsEveryVerificationKeyAsKubeAPIServer: the key set lists the
// verification keys (--service-account-key-file) in their order, a key
// given twice twice, as kube-apiserver's static key set and go-jose; the
// discovery document lists their algorithms once each, sorted.
func TestKeySetListsEveryVerificationKeyAsKubeAPIServer(t *testing.T) {
	r, p256, p521 := testKeys["RS256"].Public(), testKeys["ES256"].Public(), testKeys["ES512"].Public()
	tokens, err := NewServiceAccountTokens(testKeys["RS256"], newFakeGetter())
	if err != nil {
		t.Fatal(err)
	}
	tokens.VerifyKeys = []crypto.PublicKey{p521, r, p256, r}
	got, err := tokens.JWKS()
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{
		goJoseJWK(t, p521, "ES512"), goJoseJWK(t, r, "RS256"), goJoseJWK(t, p256, "ES256"), goJoseJWK(t, r, "RS256"),
	}})
	if string(got) != string(want) {
		t.Errorf("key set\n got %s\nwant %s", got, want)
	}
	md, err := tokens.OpenIDMetadata("", "127.0.0.1:6443")
	if err != nil {
		t.Fatal(err)
	}
	if string(md.KeySet) != string(want) {
		t.Errorf("rendered key set %s", md.KeySet)
	}
	if want := `{"issuer":"https://kubernetes.default.svc.cluster.local","jwks_uri":"https://127.0.0.1:6443/openid/v1/jwks","response_types_supported":["id_token"],"subject_types_supported":["public"],"id_token_signing_alg_values_supported":["ES256","ES512","RS256"]}`; string(md.Configuration) != want {
		t.Errorf("configuration\n got %s\nwant %s", md.Configuration, want)
	}
}

// TestOpenIDMetadataIsRenderedWhereKubeAPIServerRendersIt: kube-apiserver
// serves the discovery documents only when its first issuer is an https
// URL without query or fragment, the key set's URI is https (by default
// the external address's /openid/v1/jwks) and every key has a JWK; its
// errors otherwise.
func TestOpenIDMetadataIsRenderedWhereKubeAPIServerRendersIt(t *testing.T) {
	p224, err := ecdsa.GenerateKey(elliptic.P224(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name             string
		issuers          []string
		verifyKeys       []crypto.PublicKey
		jwksURI, address string
		wantJWKSURI      string
		wantErr          string
	}{
		{name: "the default issuer and the server's address", address: "127.0.0.1:6443", wantJWKSURI: "https://127.0.0.1:6443/openid/v1/jwks"},
		{name: "an IPv6 address", address: "[::1]:6443", wantJWKSURI: "https://[::1]:6443/openid/v1/jwks"},
		{name: "the first of several issuers, with a path", issuers: []string{"https://issuer.example/cluster", "api"}, jwksURI: "https://keys.example/jwks", address: "127.0.0.1:6443", wantJWKSURI: "https://keys.example/jwks"},
		{name: "an issuer that is not a URL", issuers: []string{"api"}, address: "127.0.0.1:6443", wantErr: "issuer URL must use https scheme, got: api"},
		{name: "an http issuer", issuers: []string{"http://issuer.example"}, address: "127.0.0.1:6443", wantErr: "issuer URL must use https scheme, got: http://issuer.example"},
		{name: "an issuer with a query", issuers: []string{"https://issuer.example?a=b"}, address: "127.0.0.1:6443", wantErr: "issuer URL may not include a query, got: https://issuer.example?a=b"},
		{name: "an issuer with a fragment", issuers: []string{"https://issuer.example#a"}, address: "127.0.0.1:6443", wantErr: "issuer URL may not include a fragment, got: https://issuer.example#a"},
		{name: "only a later issuer is https", issuers: []string{"api", "https://issuer.example"}, address: "127.0.0.1:6443", wantErr: "issuer URL must use https scheme, got: api"},
		{name: "an http key set", jwksURI: "http://keys.example/jwks", address: "127.0.0.1:6443", wantErr: "jwksURI requires https scheme, parsed as: http://keys.example/jwks"},
		{name: "neither a key set URI nor an address", wantErr: "either the JWKS URI or the default external address, or both, must be set"},
		{name: "a key without a JWK", verifyKeys: []crypto.PublicKey{testKeys["ES256"].Public(), p224.Public()}, address: "127.0.0.1:6443",
			wantErr: "could not marshal issuer discovery JSON, error: error constructing JWK for key #1: unknown private key curve, must be 256, 384, or 521"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tokens, err := NewServiceAccountTokens(testKeys["ES256"], newFakeGetter())
			if err != nil {
				t.Fatal(err)
			}
			if len(tt.issuers) > 0 {
				tokens.Issuer, tokens.ExtraIssuers = tt.issuers[0], tt.issuers[1:]
			}
			tokens.VerifyKeys = tt.verifyKeys
			md, err := tokens.OpenIDMetadata(tt.jwksURI, tt.address)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("got %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Issuer  string `json:"issuer"`
				JWKSURI string `json:"jwks_uri"`
			}
			if err := json.Unmarshal(md.Configuration, &doc); err != nil {
				t.Fatal(err)
			}
			if doc.Issuer != tokens.Issuers()[0] || doc.JWKSURI != tt.wantJWKSURI {
				t.Errorf("configuration %s, want issuer %q and jwks_uri %q", md.Configuration, tokens.Issuers()[0], tt.wantJWKSURI)
			}
		})
	}
}

// TestSigningKeyIsOneKubeAPIServerSignsWith: RSA keys and ECDSA keys on
// P-256, P-384 and P-521 sign; other keys fail with kube-apiserver's
// errors, also when given to NewServiceAccountTokens.
func TestSigningKeyIsOneKubeAPIServerSignsWith(t *testing.T) {
	p224, err := ecdsa.GenerateKey(elliptic.P224(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	_, ed, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		key  crypto.Signer
		want string
	}{
		{name: "RSA", key: testKeys["RS256"]},
		{name: "ECDSA P-256", key: testKeys["ES256"]},
		{name: "ECDSA P-384", key: testKeys["ES384"]},
		{name: "ECDSA P-521", key: testKeys["ES512"]},
		{name: "ECDSA P-224", key: p224, want: "failed to build token generator: could not generate signer for ECDSA keypair: unknown private key curve, must be 256, 384, or 521"},
		{name: "Ed25519", key: ed, want: "failed to build token generator: unknown private key type ed25519.PrivateKey, must be *rsa.PrivateKey, *ecdsa.PrivateKey, or jose.OpaqueSigner"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := SigningKey(tt.key)
			_, newErr := NewServiceAccountTokens(tt.key, newFakeGetter())
			for _, err := range []error{err, newErr} {
				if got := errString(err); got != tt.want {
					t.Errorf("got %q, want %q", got, tt.want)
				}
			}
		})
	}
}

// TestCompleteServiceAccountFlagsAsKubeAPIServer: the longest token is
// checked first, then the signing key file is read, with kube-apiserver's
// errors.
func TestCompleteServiceAccountFlagsAsKubeAPIServer(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, block *pem.Block) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	pkcs8 := func(key any) []byte {
		der, err := x509.MarshalPKCS8PrivateKey(key)
		if err != nil {
			t.Fatal(err)
		}
		return der
	}
	ecDER, err := x509.MarshalECPrivateKey(testKeys["ES384"].(*ecdsa.PrivateKey))
	if err != nil {
		t.Fatal(err)
	}
	p224, err := ecdsa.GenerateKey(elliptic.P224(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	p224DER, err := x509.MarshalECPrivateKey(p224)
	if err != nil {
		t.Fatal(err)
	}
	_, ed, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	rsaFile := write("rsa.key", &pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(testKeys["RS256"].(*rsa.PrivateKey))})
	pkcs8File := write("pkcs8.key", &pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8(testKeys["ES256"])})
	ecFile := write("ec.key", &pem.Block{Type: "EC PRIVATE KEY", Bytes: ecDER})
	p224File := write("p224.key", &pem.Block{Type: "EC PRIVATE KEY", Bytes: p224DER})
	edFile := write("ed25519.key", &pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8(ed)})
	pubDER, _ := x509.MarshalPKIXPublicKey(testKeys["RS256"].Public())
	pubFile := write("sa.pub", &pem.Block{Type: "PUBLIC KEY", Bytes: pubDER})
	missing := filepath.Join(dir, "missing.key")
	tests := []struct {
		name    string
		max     time.Duration
		file    string
		wantKey crypto.Signer
		want    string
	}{
		{name: "no key file and no maximum"},
		{name: "a maximum of an hour", max: time.Hour},
		{name: "a maximum of 2^32 seconds", max: time.Duration(1<<32) * time.Second},
		{name: "a maximum under an hour", max: 59 * time.Minute, want: "the service-account-max-token-expiration must be between 1 hour and 2^32 seconds"},
		{name: "a maximum over 2^32 seconds", max: time.Duration(1<<32+1) * time.Second, want: "the service-account-max-token-expiration must be between 1 hour and 2^32 seconds"},
		{name: "a bad maximum is told before a bad key", max: time.Minute, file: missing, want: "the service-account-max-token-expiration must be between 1 hour and 2^32 seconds"},
		{name: "an RSA key (PKCS #1, kubeadm's sa.key)", file: rsaFile, wantKey: testKeys["RS256"]},
		{name: "an ECDSA key (PKCS #8)", file: pkcs8File, wantKey: testKeys["ES256"]},
		{name: "an ECDSA key (SEC 1)", file: ecFile, wantKey: testKeys["ES384"]},
		{name: "a missing file", file: missing, want: "failed to parse service-account-issuer-key-file: open " + missing + ": no such file or directory"},
		{name: "a public key", file: pubFile, want: "failed to parse service-account-issuer-key-file: error reading private key file " + pubFile + ": data does not contain a valid RSA or ECDSA private key"},
		{name: "an ECDSA key on P-224", file: p224File, want: "failed to build token generator: could not generate signer for ECDSA keypair: unknown private key curve, must be 256, 384, or 521"},
		{name: "an Ed25519 key", file: edFile, want: "failed to build token generator: unknown private key type ed25519.PrivateKey, must be *rsa.PrivateKey, *ecdsa.PrivateKey, or jose.OpaqueSigner"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key, err := CompleteServiceAccountFlags(tt.max, tt.file)
			if got := errString(err); got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
			if tt.wantKey != nil {
				if key == nil || !tt.wantKey.Public().(interface{ Equal(crypto.PublicKey) bool }).Equal(key.Public()) {
					t.Errorf("key %T is not the file's", key)
				}
			} else if key != nil {
				t.Errorf("key %T, want none", key)
			}
		})
	}
}

// TestServiceAccountExpirationWarningsAsKubeAPIServer: the start-up
// warnings about a longest token shorter than what kubelets request, or
// than the extended tokens, only while tokens are extended.
func TestServiceAccountExpirationWarningsAsKubeAPIServer(t *testing.T) {
	transition := "service-account-extend-token-expiration is true, in order to correctly trigger safe transition logic, service-account-max-token-expiration must be set longer than 3607 seconds (currently 1h0m0s)"
	tests := []struct {
		name   string
		extend bool
		max    time.Duration
		want   []string
	}{
		{name: "no maximum", extend: true},
		{name: "not extended", max: time.Hour},
		{name: "a maximum of a year", extend: true, max: 24 * 365 * time.Hour},
		{name: "a maximum under a year", extend: true, max: 2 * time.Hour,
			want: []string{"service-account-extend-token-expiration is true, enabling tokens valid up to 31536000 seconds, which is longer than service-account-max-token-expiration set to 2h0m0s"}},
		{name: "a maximum under kubelets' request", extend: true, max: time.Hour,
			want: []string{transition, "service-account-extend-token-expiration is true, enabling tokens valid up to 31536000 seconds, which is longer than service-account-max-token-expiration set to 1h0m0s"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ServiceAccountExpirationWarnings(tt.extend, tt.max)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
