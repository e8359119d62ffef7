package auth

import (
	"context"
	"errors"
	"fmt"
	"os"

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
// authenticators, built as kube-apiserver builds them from an
// --authentication-config: upstream's OIDC authenticator for each (every
// signing algorithm it knows allowed, the certificate authority given
// inline, the service-account issuers disallowed), the first to recognise
// a token deciding (an error is final), audience-agnostic towards the API
// audiences. Each fetches its issuer's discovery document and keys in the
// background until ctx ends; a token it cannot check yet is refused. It
// returns nil when cfg has no JWT authenticator.
func NewJWTAuthenticator(ctx context.Context, cfg *apiserverconfig.AuthenticationConfiguration, apiAudiences authenticator.Audiences, serviceAccountIssuers []string) (authenticator.Token, error) {
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
			SupportedSigningAlgs: oidc.AllValidSigningAlgorithms(),
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
