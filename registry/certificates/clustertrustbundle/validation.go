package clustertrustbundle

import (
	"crypto/x509"
	"encoding/pem"
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate"
)

// MaxTrustBundleSize is upstream's certificates.MaxTrustBundleSize, the
// longest spec.trustBundle accepted.
const MaxTrustBundleSize = 1 << 20

// omitted is the value upstream's trust bundle errors show instead of the
// bundle.
const omitted = "<value omitted>"

var (
	signerNamePath  = field.NewPath("spec", "signerName")
	trustBundlePath = field.NewPath("spec", "trustBundle")
)

// validateSpec is upstream's ValidateClusterTrustBundle less the metadata
// (which the server checks with NameRule): the signer's name when there is
// one, then the trust bundle unless parse is false.
func validateSpec(signerName, trustBundle string, parse bool) field.ErrorList {
	var errs field.ErrorList
	if signerName != "" {
		errs = append(errs, validate.SignerName(signerNamePath, signerName)...)
	}
	if parse {
		errs = append(errs, validateTrustBundle(trustBundle)...)
	}
	return errs
}

// validateTrustBundle is upstream's check of spec.trustBundle: at most
// MaxTrustBundleSize bytes of PEM blocks, each a header-less CERTIFICATE
// block holding an X.509 CA certificate; then, if every block passed, at
// least one of them and none twice. Text outside PEM blocks is ignored.
func validateTrustBundle(in string) field.ErrorList {
	if len(in) > MaxTrustBundleSize {
		return field.ErrorList{field.TooLong(trustBundlePath, "", MaxTrustBundleSize)}
	}
	var errs field.ErrorList
	invalid := func(format string, a ...any) {
		errs = append(errs, field.Invalid(trustBundlePath, omitted, fmt.Sprintf(format, a...)))
	}
	seen := map[string][]int{}
	var order []string
	rest := []byte(in)
	for i := 0; ; i++ {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			break
		}
		if b.Type != "CERTIFICATE" {
			invalid("entry %d has bad block type: %v", i, b.Type)
			continue
		}
		if len(b.Headers) != 0 {
			invalid("entry %d has PEM block headers", i)
			continue
		}
		cert, err := x509.ParseCertificate(b.Bytes)
		switch {
		case err != nil:
			invalid("entry %d does not parse as X.509", i)
			continue
		case !cert.IsCA:
			invalid("entry %d does not have the CA bit set", i)
			continue
		case !cert.BasicConstraintsValid:
			invalid("entry %d has invalid basic constraints", i)
			continue
		}
		k := string(b.Bytes)
		if _, ok := seen[k]; !ok {
			order = append(order, k)
		}
		seen[k] = append(seen[k], i)
	}
	if len(errs) > 0 {
		return errs
	}
	if len(seen) == 0 {
		invalid("at least one trust anchor must be provided")
	}
	// Upstream reports the duplicates in map order, that is in no order;
	// fakeplane reports them by their first index.
	for _, k := range order {
		if idx := seen[k]; len(idx) > 1 {
			invalid("duplicate trust anchor (indices %v)", idx)
		}
	}
	return errs
}
