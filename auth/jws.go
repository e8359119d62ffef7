package auth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
)

// errCryptoFailure is the text go-jose (which kube-apiserver uses) reports
// when a signature does not verify.
var errCryptoFailure = errors.New("go-jose/go-jose: error in cryptographic primitive")

// jwsHeader is the protected header of a compact JWS, as go-jose writes it
// for kube-apiserver's signer (alg, then kid).
type jwsHeader struct {
	Alg string `json:"alg"`
	Kid string `json:"kid,omitempty"`
}

// keyIDFromPublicKey derives the key id kube-apiserver puts in the "kid"
// header: the unpadded base64url SHA-256 of the PKIX DER public key.
func keyIDFromPublicKey(pub crypto.PublicKey) (string, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return "", fmt.Errorf("failed to serialize public key to DER format: %v", err)
	}
	sum := sha256.Sum256(der)
	return base64.RawURLEncoding.EncodeToString(sum[:]), nil
}

// signES256 returns the compact serialization of payload signed with key.
func signES256(key *ecdsa.PrivateKey, kid string, payload []byte) (string, error) {
	hdr, err := json.Marshal(jwsHeader{Alg: "ES256", Kid: kid})
	if err != nil {
		return "", err
	}
	signingInput := base64.RawURLEncoding.EncodeToString(hdr) + "." + base64.RawURLEncoding.EncodeToString(payload)
	digest := sha256.Sum256([]byte(signingInput))
	r, s, err := ecdsa.Sign(rand.Reader, key, digest[:])
	if err != nil {
		return "", err
	}
	// JWS ES256 signatures are R || S, each left-padded to 32 bytes.
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	return signingInput + "." + base64.RawURLEncoding.EncodeToString(sig), nil
}

// parsedJWS is a compact JWS split into its parts, not yet verified.
type parsedJWS struct {
	header       jwsHeader
	payload      []byte
	signature    []byte
	signingInput string
}

// parseJWS splits and decodes a compact JWS. It fails where go-jose's
// ParseSigned would, which kube-apiserver treats as "not my token".
func parseJWS(token string) (*parsedJWS, error) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil, errors.New("compact JWS format must have three parts")
	}
	hdrBytes, err := base64.RawURLEncoding.DecodeString(parts[0])
	if err != nil {
		return nil, err
	}
	var hdr jwsHeader
	if err := json.Unmarshal(hdrBytes, &hdr); err != nil {
		return nil, err
	}
	if hdr.Alg == "" {
		return nil, errors.New("missing alg header")
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return nil, err
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return nil, err
	}
	return &parsedJWS{header: hdr, payload: payload, signature: sig, signingInput: parts[0] + "." + parts[1]}, nil
}

// verifyES256 checks the signature of t against pub.
func (t *parsedJWS) verifyES256(pub *ecdsa.PublicKey) error {
	if t.header.Alg != "ES256" || len(t.signature) != 64 {
		return errCryptoFailure
	}
	digest := sha256.Sum256([]byte(t.signingInput))
	r := new(big.Int).SetBytes(t.signature[:32])
	s := new(big.Int).SetBytes(t.signature[32:])
	if !ecdsa.Verify(pub, digest[:], r, s) {
		return errCryptoFailure
	}
	return nil
}

// unverifiedIssuer reads the "iss" claim of a compact JWT without checking
// anything, the way kube-apiserver picks the authenticator for a token.
func unverifiedIssuer(token string) (string, bool) {
	if strings.HasPrefix(strings.TrimSpace(token), "{") {
		return "", false
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return "", false
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return "", false
	}
	var claims struct {
		Issuer string `json:"iss"`
	}
	if err := json.Unmarshal(payload, &claims); err != nil {
		return "", false
	}
	return claims.Issuer, true
}
