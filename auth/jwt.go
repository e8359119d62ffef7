package auth

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	apiserverconfig "k8s.io/apiserver/pkg/apis/apiserver"
	apiserverconfiginstall "k8s.io/apiserver/pkg/apis/apiserver/install"
	apiserverconfigvalidation "k8s.io/apiserver/pkg/apis/apiserver/validation"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	authenticationcel "k8s.io/apiserver/pkg/authentication/cel"
	tokenunion "k8s.io/apiserver/pkg/authentication/token/union"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
	"k8s.io/apiserver/plugin/pkg/authenticator/token/oidc"
)

// LoadAuthenticationConfiguration reads an AuthenticationConfiguration
// (apiserver.config.k8s.io v1, v1beta1 or v1alpha1) from path, strictly, as
// kube-apiserver reads its --authentication-config, with its errors.
func LoadAuthenticationConfiguration(path string) (*apiserverconfig.AuthenticationConfiguration, error) {
	data, err := os.ReadFile(path)
	if err == nil {
		var cfg *apiserverconfig.AuthenticationConfiguration
		if cfg, err = decodeAuthenticationConfiguration(data); err == nil {
			return cfg, nil
		}
	}
	return nil, fmt.Errorf("failed to load authentication configuration from file %q: %w", path, err)
}

// decodeAuthenticationConfiguration decodes an AuthenticationConfiguration
// document into the internal type.
func decodeAuthenticationConfiguration(data []byte) (*apiserverconfig.AuthenticationConfiguration, error) {
	if len(data) == 0 {
		return nil, errors.New("empty config data")
	}
	// A scheme of its own per call: nothing global to share between
	// control planes, and a configuration is read once.
	scheme := runtime.NewScheme()
	apiserverconfiginstall.Install(scheme)
	obj, err := runtime.Decode(serializer.NewCodecFactory(scheme, serializer.EnableStrict).UniversalDecoder(), data)
	if err != nil {
		return nil, err
	}
	cfg, ok := obj.(*apiserverconfig.AuthenticationConfiguration)
	if !ok {
		return nil, fmt.Errorf("expected AuthenticationConfiguration, got %T", obj)
	}
	return cfg, nil
}

// ValidateAuthenticationConfiguration checks cfg as kube-apiserver does at
// start: upstream's validation, with the service-account issuers (which
// JWT authenticators may not claim) disallowed.
func ValidateAuthenticationConfiguration(cfg *apiserverconfig.AuthenticationConfiguration, serviceAccountIssuers []string) error {
	if err := apiserverconfigvalidation.ValidateAuthenticationConfiguration(authenticationcel.NewDefaultCompiler(), cfg, serviceAccountIssuers).ToAggregate(); err != nil {
		return fmt.Errorf("invalid authentication configuration: %w", err)
	}
	return nil
}

// NewJWTAuthenticator returns the token authenticator of cfg's JWT
// authenticators, built as kube-apiserver builds them: upstream's OIDC
// authenticator for each (the signing algorithms signingAlgs, or every one
// it knows when empty, as for an --authentication-config; the certificate
// authority given inline, the service-account issuers disallowed), the first to recognise
// a token deciding (an error is final), audience-agnostic towards the API
// audiences. Each fetches its issuer's discovery document and keys in the
// background until ctx ends; a token it cannot check yet is refused. It
// returns nil when cfg has no JWT authenticator.
func NewJWTAuthenticator(ctx context.Context, cfg *apiserverconfig.AuthenticationConfiguration, signingAlgs []string, apiAudiences authenticator.Audiences, serviceAccountIssuers []string) (authenticator.Token, error) {
	if len(signingAlgs) == 0 {
		signingAlgs = oidc.AllValidSigningAlgorithms()
	}
	if cfg == nil || len(cfg.JWT) == 0 {
		return nil, nil
	}
	var tokens []authenticator.Token
	var errs []error
	for _, jwt := range cfg.JWT {
		var ca oidc.CAContentProvider
		if jwt.Issuer.CertificateAuthority != "" {
			p, err := dynamiccertificates.NewStaticCAContent("oidc-authenticator", []byte(jwt.Issuer.CertificateAuthority))
			if err != nil {
				errs = append(errs, err)
				continue
			}
			ca = p
		}
		t, err := oidc.New(ctx, oidc.Options{
			JWTAuthenticator:     jwt,
			CAContentProvider:    ca,
			SupportedSigningAlgs: signingAlgs,
			DisallowedIssuers:    serviceAccountIssuers,
		})
		if err != nil {
			errs = append(errs, err)
			continue
		}
		tokens = append(tokens, t)
	}
	if len(errs) > 0 {
		return nil, utilerrors.NewAggregate(errs)
	}
	return authenticator.WrapAudienceAgnosticToken(apiAudiences, tokenunion.NewFailOnError(tokens...)), nil
}

// OIDCFlags are kube-apiserver's --oidc-* flags, the older way to configure
// one JWT authenticator.
type OIDCFlags struct {
	// IssuerURL (--oidc-issuer-url) and ClientID (--oidc-client-id, the
	// audience) are required together.
	IssuerURL, ClientID string
	// CAFile (--oidc-ca-file) holds the CA that verifies the issuer; the
	// host's roots when empty.
	CAFile string
	// UsernameClaim (--oidc-username-claim) is the claim of the user name
	// ("sub" when empty); UsernamePrefix (--oidc-username-prefix) its
	// prefix: when empty, the issuer URL and "#" for a claim other than
	// "email", and "-" for none.
	UsernameClaim, UsernamePrefix string
	// GroupsClaim (--oidc-groups-claim) and GroupsPrefix
	// (--oidc-groups-prefix) map the groups.
	GroupsClaim, GroupsPrefix string
	// RequiredClaims (--oidc-required-claim) must have these values.
	RequiredClaims map[string]string
	// SigningAlgs (--oidc-signing-algs) are the accepted algorithms
	// (RS256 when empty).
	SigningAlgs []string
}

// AuthenticationConfiguration is the configuration kube-apiserver makes
// of the flags, with its errors: one JWT authenticator.
func (f OIDCFlags) AuthenticationConfiguration() (*apiserverconfig.AuthenticationConfiguration, error) {
	if f.IssuerURL == "" || f.ClientID == "" {
		return nil, errors.New("oidc-issuer-url and oidc-client-id must be specified together when any oidc-* flags are set")
	}
	claim := f.UsernameClaim
	if claim == "" {
		claim = "sub"
	}
	prefix := f.UsernamePrefix
	switch {
	case prefix == "" && claim != "email":
		prefix = f.IssuerURL + "#"
	case prefix == "-":
		prefix = ""
	}
	jwt := apiserverconfig.JWTAuthenticator{
		Issuer:        apiserverconfig.Issuer{URL: f.IssuerURL, Audiences: []string{f.ClientID}},
		ClaimMappings: apiserverconfig.ClaimMappings{Username: apiserverconfig.PrefixedClaimOrExpression{Prefix: &prefix, Claim: claim}},
	}
	if f.GroupsClaim != "" {
		groupsPrefix := f.GroupsPrefix
		jwt.ClaimMappings.Groups = apiserverconfig.PrefixedClaimOrExpression{Prefix: &groupsPrefix, Claim: f.GroupsClaim}
	}
	if f.CAFile != "" {
		ca, err := os.ReadFile(f.CAFile)
		if err != nil {
			return nil, err
		}
		jwt.Issuer.CertificateAuthority = string(ca)
	}
	for _, k := range slices.Sorted(maps.Keys(f.RequiredClaims)) {
		jwt.ClaimValidationRules = append(jwt.ClaimValidationRules, apiserverconfig.ClaimValidationRule{Claim: k, RequiredValue: f.RequiredClaims[k]})
	}
	return &apiserverconfig.AuthenticationConfiguration{JWT: []apiserverconfig.JWTAuthenticator{jwt}}, nil
}
