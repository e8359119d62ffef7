package auth

import (
	"crypto/ecdsa"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/url"

	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/sets"
)

// OpenIDKeySetPath is where kube-apiserver serves the service-account
// issuer's key set, the path of the default jwks_uri.
const OpenIDKeySetPath = "/openid/v1/jwks"

// OpenIDMetadata are the service-account issuer's discovery documents
// (kube-apiserver's ServiceAccountIssuerDiscovery), rendered once at start
// as kube-apiserver renders them.
type OpenIDMetadata struct {
	// Configuration is the OpenID provider configuration served at
	// /.well-known/openid-configuration.
	Configuration []byte
	// KeySet is the JSON Web Key Set served at /openid/v1/jwks.
	KeySet []byte
}

// OpenIDMetadata renders the discovery documents: the configuration names
// the first issuer and jwksURI (--service-account-jwks-uri) or, when that is
// empty, https://externalAddress/openid/v1/jwks (externalAddress is the
// host:port clients reach the server at); the key set lists the keys that
// verify tokens. It fails where kube-apiserver's NewOpenIDMetadataProvider
// does, with its errors, and kube-apiserver then serves neither document:
// when the issuer is not an https URL without query and fragment (an issuer
// such as "api", which --service-account-issuer accepts), when the key
// set's URI is not https, or when a key has no JWK.
func (t *ServiceAccountTokens) OpenIDMetadata(jwksURI, externalAddress string) (*OpenIDMetadata, error) {
	issuerURL := t.issuer()
	if jwksURI == "" && externalAddress == "" {
		return nil, errors.New("either the JWKS URI or the default external address, or both, must be set")
	}
	iss, err := url.Parse(issuerURL)
	if err != nil {
		return nil, err
	}
	switch {
	case iss.Scheme != "https":
		return nil, fmt.Errorf("issuer URL must use https scheme, got: %s", issuerURL)
	case iss.RawQuery != "":
		return nil, fmt.Errorf("issuer URL may not include a query, got: %s", issuerURL)
	case iss.Fragment != "":
		return nil, fmt.Errorf("issuer URL may not include a fragment, got: %s", issuerURL)
	}
	if jwksURI == "" {
		const msg = "attempted to build jwks_uri from external address %s, but could not construct a valid URL. Error: %v"
		u := &url.URL{Scheme: "https", Host: externalAddress, Path: OpenIDKeySetPath}
		jwksURI = u.String()
		parsed, err := url.Parse(jwksURI)
		if err != nil {
			return nil, fmt.Errorf(msg, externalAddress, err)
		}
		if parsed.Scheme != u.Scheme || parsed.Host != u.Host || parsed.Path != u.Path {
			return nil, fmt.Errorf(msg, externalAddress, fmt.Errorf("got %v, expected %v", parsed, u))
		}
	} else if u, err := url.Parse(jwksURI); err != nil {
		return nil, err
	} else if u.Scheme != "https" {
		return nil, fmt.Errorf("jwksURI requires https scheme, parsed as: %v", u.String())
	}
	config, err := t.OpenIDConfiguration(jwksURI)
	if err != nil {
		return nil, fmt.Errorf("could not marshal issuer discovery JSON, error: %w", err)
	}
	keySet, err := t.JWKS()
	if err != nil {
		return nil, fmt.Errorf("could not marshal issuer keys JSON, error: %w", err)
	}
	return &OpenIDMetadata{Configuration: config, KeySet: keySet}, nil
}

// jwk is a public JSON Web Key, its fields in the order go-jose (which
// kube-apiserver uses) writes them.
type jwk struct {
	Use string `json:"use"`
	Kty string `json:"kty"`
	Kid string `json:"kid"`
	Crv string `json:"crv,omitempty"`
	Alg string `json:"alg"`
	X   string `json:"x,omitempty"`
	Y   string `json:"y,omitempty"`
	N   string `json:"n,omitempty"`
	E   string `json:"e,omitempty"`
}

// jwks is the key set of the keys that verify tokens, each with the
// algorithm kube-apiserver signs with such a key, its kid and use "sig", in
// their order (a key listed twice is there twice, as upstream's). A key
// without a JWK fails it with kube-apiserver's error.
func (t *ServiceAccountTokens) jwks() ([]jwk, error) {
	keys, kids, err := t.publicKeys()
	if err != nil {
		return nil, err
	}
	b64 := base64.RawURLEncoding.EncodeToString
	set := make([]jwk, 0, len(keys))
	var errs []error
	for i, k := range keys {
		alg, err := jwsAlgorithm(k)
		if err != nil {
			errs = append(errs, fmt.Errorf("error constructing JWK for key #%d: %v", i, err))
			continue
		}
		switch k := k.(type) {
		case *ecdsa.PublicKey:
			size := (k.Curve.Params().BitSize + 7) / 8
			coord := func(v *big.Int) string { return b64(v.FillBytes(make([]byte, size))) }
			set = append(set, jwk{Use: "sig", Kty: "EC", Kid: kids[i], Crv: k.Curve.Params().Name, Alg: alg, X: coord(k.X), Y: coord(k.Y)})
		case *rsa.PublicKey:
			set = append(set, jwk{Use: "sig", Kty: "RSA", Kid: kids[i], Alg: alg, N: b64(k.N.Bytes()), E: b64(big.NewInt(int64(k.E)).Bytes())})
		}
	}
	if len(errs) > 0 {
		return nil, utilerrors.NewAggregate(errs)
	}
	return set, nil
}

// JWKS returns the JSON Web Key Set kube-apiserver serves at
// /openid/v1/jwks for the keys that verify tokens, as go-jose writes it.
func (t *ServiceAccountTokens) JWKS() ([]byte, error) {
	set, err := t.jwks()
	if err != nil {
		return nil, err
	}
	return json.Marshal(struct {
		Keys []jwk `json:"keys"`
	}{Keys: set})
}

// OpenIDConfiguration returns the discovery document kube-apiserver serves
// at /.well-known/openid-configuration: the first issuer, jwksURI (for
// example "https://127.0.0.1:6443/openid/v1/jwks") and the keys'
// algorithms, sorted.
func (t *ServiceAccountTokens) OpenIDConfiguration(jwksURI string) ([]byte, error) {
	set, err := t.jwks()
	if err != nil {
		return nil, err
	}
	algs := sets.New[string]()
	for _, k := range set {
		algs.Insert(k.Alg)
	}
	return json.Marshal(struct {
		Issuer        string   `json:"issuer"`
		JWKSURI       string   `json:"jwks_uri"`
		ResponseTypes []string `json:"response_types_supported"`
		SubjectTypes  []string `json:"subject_types_supported"`
		SigningAlgs   []string `json:"id_token_signing_alg_values_supported"`
	}{t.issuer(), jwksURI, []string{"id_token"}, []string{"public"}, sets.List(algs)})
}
