package validate

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	netutils "k8s.io/utils/net"
)

// StrictIPCIDR is the v1.37 default of upstream's StrictIPCIDRValidation
// feature gate (beta, on since v1.36): the IPs and CIDRs of legacy fields
// may not have leading zeros or an IPv4-mapped IPv6 form, unless the old
// object had the same value.
const StrictIPCIDR = true

// LegacyIP is upstream's core IsValidIPForLegacyField: value is an IP,
// strictly parsed unless validOld holds it.
func LegacyIP(fld *field.Path, value string, validOld []string) field.ErrorList {
	return validation.IsValidIPForLegacyField(fld, value, StrictIPCIDR, validOld)
}

// LegacyCIDR is upstream's core IsValidCIDRForLegacyField: value is a
// CIDR, strictly parsed unless validOld holds it.
func LegacyCIDR(fld *field.Path, value string, validOld []string) field.ErrorList {
	return validation.IsValidCIDRForLegacyField(fld, value, StrictIPCIDR, validOld)
}

// EndpointIP is upstream's ValidateEndpointIP: an IP an endpoint may
// have, neither unspecified, loopback nor link-local.
func EndpointIP(value string, fld *field.Path) field.ErrorList {
	ip := netutils.ParseIPSloppy(value)
	if ip == nil {
		return field.ErrorList{field.Invalid(fld, value, "must be a valid IP address")}
	}
	var errs field.ErrorList
	if ip.IsUnspecified() {
		errs = append(errs, field.Invalid(fld, value, fmt.Sprintf("may not be unspecified (%v)", value)))
	}
	if ip.IsLoopback() {
		errs = append(errs, field.Invalid(fld, value, "may not be in the loopback range (127.0.0.0/8, ::1/128)"))
	}
	if ip.IsLinkLocalUnicast() {
		errs = append(errs, field.Invalid(fld, value, "may not be in the link-local range (169.254.0.0/16, fe80::/10)"))
	}
	if ip.IsLinkLocalMulticast() {
		errs = append(errs, field.Invalid(fld, value, "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"))
	}
	return errs
}

// LoadBalancerHostname is upstream's check of a load balancer ingress
// point's hostname (Services' and Ingresses' status): a DNS subdomain, and
// not an IP address.
func LoadBalancerHostname(fld *field.Path, hostname string) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Subdomain(hostname) {
		errs = append(errs, field.Invalid(fld, hostname, msg))
	}
	if netutils.ParseIPSloppy(hostname) != nil {
		errs = append(errs, field.Invalid(fld, hostname, "must be a DNS name, not an IP address"))
	}
	return errs
}
