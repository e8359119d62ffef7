package validate

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// SignerName is upstream's ValidateSignerName: a certificate signer's name
// is a domain of at least two DNS labels, a slash, and a path of DNS
// subdomains joined by dots, as "example.com/signer-name".
func SignerName(fld *field.Path, name string) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(fld, "")}
	}
	segments := strings.Split(name, "/")
	if len(segments) != 2 {
		return field.ErrorList{field.Invalid(fld, name, "must be a fully qualified domain and path of the form 'example.com/signer-name'")}
	}
	var errs field.ErrorList
	domain, path := segments[0], segments[1]
	maxDomain := validation.DNS1123SubdomainMaxLength
	if len(domain) > maxDomain {
		errs = append(errs, field.TooLong(fld, "", maxDomain))
	}
	labels := strings.Split(domain, ".")
	for _, l := range labels {
		if msgs := validation.IsDNS1123Label(l); len(msgs) > 0 {
			for _, msg := range msgs {
				errs = append(errs, field.Invalid(fld, domain, fmt.Sprintf("validating label %q: %s", l, msg)))
			}
			break
		}
	}
	if len(labels) < 2 {
		errs = append(errs, field.Invalid(fld, domain, "should be a domain with at least two segments separated by dots"))
	}
	for _, l := range strings.Split(path, ".") {
		if msgs := validation.IsDNS1123Subdomain(l); len(msgs) > 0 {
			for _, msg := range msgs {
				errs = append(errs, field.Invalid(fld, path, fmt.Sprintf("validating label %q: %s", l, msg)))
			}
			break
		}
	}
	if max := maxDomain + validation.DNS1123SubdomainMaxLength + validation.DNS1123LabelMaxLength + 2; len(name) > max {
		errs = append(errs, field.TooLong(fld, "", max))
	}
	return errs
}
