package server

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	utilerrors "k8s.io/apimachinery/pkg/util/errors"
)

// HeadersConfig is what kube-apiserver adds to its answers' headers when
// told: CORS (--cors-allowed-origins: upstream's filter, answering a
// preflight OPTIONS itself, before authentication) and HSTS
// (--strict-transport-security-directives). The zero value adds neither.
type HeadersConfig struct {
	// CORSAllowedOrigins are regular expressions of the origins allowed;
	// each must pin the host's start (^ or //) and end ($ or :).
	CORSAllowedOrigins []string
	// HSTSDirectives are the Strict-Transport-Security header's
	// directives: max-age=N, includeSubDomains, preload.
	HSTSDirectives []string
}

// corsAllowedOriginsHelp is kube-apiserver's help for --cors-allowed-origins,
// which its errors repeat.
const corsAllowedOriginsHelp = "List of allowed origins for CORS, comma separated. " +
	"An allowed origin can be a regular expression to support subdomain matching. " +
	"If this list is empty CORS will not be enabled. " +
	"Please ensure each expression matches the entire hostname by anchoring " +
	"to the start with '^' or including the '//' prefix, and by anchoring to the " +
	"end with '$' or including the ':' port separator suffix. " +
	"Examples of valid expressions are '//example\\.com(:|$)' and '^https://example\\.com(:|$)'"

// Validate checks the origins and directives as kube-apiserver checks its
// flags, with its errors (written after k8s.io/apiserver's server run
// options, whose package would bring the generic server into the binary).
func (c HeadersConfig) Validate() error {
	var errs []error
	for _, d := range c.HSTSDirectives {
		if strings.TrimSpace(d) == "" {
			errs = append(errs, errors.New("empty value in strict-transport-security-directives"))
			continue
		}
		if d == "includeSubDomains" || d == "preload" {
			continue
		}
		if kv := strings.Split(d, "="); len(kv) != 2 || kv[0] != "max-age" {
			errs = append(errs, errors.New("--strict-transport-security-directives invalid, allowed values: max-age=expireTime, includeSubDomains, preload. see https://tools.ietf.org/html/rfc6797#section-6.1 for more information"))
		}
	}
	for _, origin := range c.CORSAllowedOrigins {
		if origin == "" {
			errs = append(errs, fmt.Errorf("empty value in --cors-allowed-origins, help: %s", corsAllowedOriginsHelp))
			continue
		}
		if err := validateOriginPattern(origin); err != nil {
			errs = append(errs, fmt.Errorf("--cors-allowed-origins has an invalid regular expression: %v, help: %s", err, corsAllowedOriginsHelp))
		}
	}
	return utilerrors.NewAggregate(errs)
}

// validateOriginPattern checks that an origin pattern compiles and pins the
// host's start and end, so that it cannot match another host (as
// kube-apiserver does since CVE-2022-1996).
func validateOriginPattern(pattern string) error {
	if _, err := regexp.Compile(pattern); err != nil {
		return err
	}
	pinStart := strings.Contains(pattern, "^") || strings.Contains(pattern, "//")
	pinEnd := strings.Contains(pattern, "$") || strings.Contains(pattern, ":")
	if !pinStart || !pinEnd {
		return errors.New("regular expression does not pin to start/end of host in the origin header")
	}
	return nil
}
