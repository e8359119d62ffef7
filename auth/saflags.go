package auth

import (
	"crypto"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/client-go/util/keyutil"
)

// CompleteServiceAccountFlags checks the service-account flags
// kube-apiserver checks as it completes its options, in its order and with
// its errors, before any other (ValidateServiceAccountFlags): the longest
// token (--service-account-max-token-expiration: 0, or between an hour and
// 2^32 seconds), then the signing key (--service-account-signing-key-file:
// a PEM RSA or ECDSA private key, see SigningKey), which it returns (nil
// when signingKeyFile is empty).
func CompleteServiceAccountFlags(maxExpiration time.Duration, signingKeyFile string) (crypto.Signer, error) {
	if maxExpiration != 0 && (maxExpiration < time.Hour || maxExpiration > time.Duration(1<<32)*time.Second) {
		return nil, errors.New("the service-account-max-token-expiration must be between 1 hour and 2^32 seconds")
	}
	if signingKeyFile == "" {
		return nil, nil
	}
	key, err := keyutil.PrivateKeyFromFile(signingKeyFile)
	if err != nil {
		return nil, fmt.Errorf("failed to parse service-account-issuer-key-file: %w", err)
	}
	return SigningKey(key)
}

// ValidateServiceAccountFlags checks the service-account flags
// kube-apiserver validates once its options are complete, with its errors,
// all of them: the issuers (--service-account-issuer: not empty, URLs when
// they contain ':', not repeated) and the key set's URI
// (--service-account-jwks-uri: an https URL).
func ValidateServiceAccountFlags(issuers []string, jwksURI string) error {
	var errs []error
	seen := map[string]bool{}
	for _, issuer := range issuers {
		if strings.Contains(issuer, ":") {
			if _, err := url.Parse(issuer); err != nil {
				errs = append(errs, fmt.Errorf("service-account-issuer %q contained a ':' but was not a valid URL: %v", issuer, err))
				continue
			}
		}
		if issuer == "" {
			errs = append(errs, errors.New("service-account-issuer should not be an empty string"))
			continue
		}
		if seen[issuer] {
			errs = append(errs, fmt.Errorf("service-account-issuer %q is already specified", issuer))
			continue
		}
		seen[issuer] = true
	}
	if jwksURI != "" {
		if u, err := url.Parse(jwksURI); err != nil {
			errs = append(errs, fmt.Errorf("service-account-jwks-uri must be a valid URL: %v", err))
		} else if u.Scheme != "https" {
			errs = append(errs, fmt.Errorf("service-account-jwks-uri requires https scheme, parsed as: %v", u.String()))
		}
	}
	return utilerrors.NewAggregate(errs)
}

// ServiceAccountExpirationWarnings are the warnings kube-apiserver logs at
// start about token lifetimes when the tokens kubelets request are
// extended (--service-account-extend-token-expiration, extend) and a
// longest token is set (--service-account-max-token-expiration,
// maxExpiration): a maximum under WarnOnlyBoundTokenExpirationSeconds
// shortens kubelets' requests so that they are not extended, and one under
// a year is exceeded by the extended tokens.
func ServiceAccountExpirationWarnings(extend bool, maxExpiration time.Duration) []string {
	if !extend || maxExpiration == 0 {
		return nil
	}
	var warnings []string
	if maxExpiration < WarnOnlyBoundTokenExpirationSeconds*time.Second {
		warnings = append(warnings, fmt.Sprintf("service-account-extend-token-expiration is true, in order to correctly trigger safe transition logic, service-account-max-token-expiration must be set longer than %d seconds (currently %s)", WarnOnlyBoundTokenExpirationSeconds, maxExpiration))
	}
	if maxExpiration < ExpirationExtensionSeconds*time.Second {
		warnings = append(warnings, fmt.Sprintf("service-account-extend-token-expiration is true, enabling tokens valid up to %d seconds, which is longer than service-account-max-token-expiration set to %s", ExpirationExtensionSeconds, maxExpiration))
	}
	return warnings
}
