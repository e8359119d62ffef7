package auth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	_ "crypto/sha512" // SHA-384 and SHA-512 for ES384 and ES512
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

// jwsAlgorithm is the JWS algorithm kube-apiserver signs with a key of
// pub's kind: RS256 for RSA, ES256, ES384 or ES512 by the ECDSA curve.
func jwsAlgorithm(pub crypto.PublicKey) (string, error) {
	switch k := pub.(type) {
	case *rsa.PublicKey:
		return "RS256", nil
	case *ecdsa.PublicKey:
		switch k.Curve {
		case elliptic.P256():
			return "ES256", nil
		case elliptic.P384():
			return "ES384", nil
		case elliptic.P521():
			return "ES512", nil
		}
		return "", errors.New("unknown private key curve, must be 256, 384, or 521")
	}
	return "", errors.New("unknown public key type, must be *rsa.PublicKey, *ecdsa.PublicKey, or jose.OpaqueSigner")
}

// SigningKey returns key (as keyutil.PrivateKeyFromFile parses
// --service-account-signing-key-file) as the signer of service-account
// tokens, or the error kube-apiserver gives when its token generator cannot
// sign with it: a key neither RSA nor ECDSA, or an ECDSA key on a curve
// other than P-256, P-384 and P-521.
func SigningKey(key any) (crypto.Signer, error) {
	switch k := key.(type) {
	case *rsa.PrivateKey:
		return k, nil
	case *ecdsa.PrivateKey:
		if _, err := jwsAlgorithm(k.Public()); err != nil {
			return nil, fmt.Errorf("failed to build token generator: could not generate signer for ECDSA keypair: %w", err)
		}
		return k, nil
	}
	return nil, fmt.Errorf("failed to build token generator: unknown private key type %T, must be *rsa.PrivateKey, *ecdsa.PrivateKey, or jose.OpaqueSigner", key)
}

// jwsHash is the hash of alg's signatures, and an ECDSA signature's half
// size in bytes (0 for RSA).
func jwsHash(alg string) (crypto.Hash, int) {
	switch alg {
	case "ES384":
		return crypto.SHA384, 48
	case "ES512":
		return crypto.SHA512, 66
	case "RS256":
		return crypto.SHA256, 0
	}
	return crypto.SHA256, 32
}

// signJWS returns the compact serialization of payload signed with key (an
// *rsa.PrivateKey or *ecdsa.PrivateKey), with kid.
func signJWS(key crypto.Signer, kid string, payload []byte) (string, error) {
	alg, err := jwsAlgorithm(key.Public())
	if err != nil {
		return "", err
	}
	hdr, err := json.Marshal(jwsHeader{Alg: alg, Kid: kid})
	if err != nil {
		return "", err
	}
	signingInput := base64.RawURLEncoding.EncodeToString(hdr) + "." + base64.RawURLEncoding.EncodeToString(payload)
	hash, half := jwsHash(alg)
	h := hash.New()
	h.Write([]byte(signingInput))
	digest := h.Sum(nil)
	var sig []byte
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		r, s, err := ecdsa.Sign(rand.Reader, k, digest)
		if err != nil {
			return "", err
		}
		// JWS ECDSA signatures are R || S, each left-padded.
		sig = make([]byte, 2*half)
		r.FillBytes(sig[:half])
		s.FillBytes(sig[half:])
	default:
		if sig, err = key.Sign(rand.Reader, digest, hash); err != nil {
			return "", err
		}
	}
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

// verify checks the signature of t against pub, which must be of the
// kind the header's algorithm names.
func (t *parsedJWS) verify(pub crypto.PublicKey) error {
	alg, err := jwsAlgorithm(pub)
	if err != nil || t.header.Alg != alg {
		return errCryptoFailure
	}
	hash, half := jwsHash(alg)
	h := hash.New()
	h.Write([]byte(t.signingInput))
	digest := h.Sum(nil)
	switch k := pub.(type) {
	case *ecdsa.PublicKey:
		if len(t.signature) != 2*half {
			return errCryptoFailure
		}
		r := new(big.Int).SetBytes(t.signature[:half])
		s := new(big.Int).SetBytes(t.signature[half:])
		if !ecdsa.Verify(k, digest, r, s) {
			return errCryptoFailure
		}
	case *rsa.PublicKey:
		if rsa.VerifyPKCS1v15(k, hash, digest, t.signature) != nil {
			return errCryptoFailure
		}
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
