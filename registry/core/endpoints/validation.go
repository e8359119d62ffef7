package endpoints

import (
	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate"
)

// validateSubsets is upstream's validateEndpointSubsets: every subset has
// an address, every address is a routable IP with a DNS-label hostname and
// a DNS-subdomain node name, and every port is valid (named when there are
// several).
func validateSubsets(subsets []corev1.EndpointSubset, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i := range subsets {
		ss := &subsets[i]
		idx := fld.Index(i)
		if len(ss.Addresses) == 0 && len(ss.NotReadyAddresses) == 0 {
			errs = append(errs, field.Required(idx, "must specify `addresses` or `notReadyAddresses`"))
		}
		for j := range ss.Addresses {
			errs = append(errs, validateAddress(&ss.Addresses[j], idx.Child("addresses").Index(j))...)
		}
		for j := range ss.NotReadyAddresses {
			errs = append(errs, validateAddress(&ss.NotReadyAddresses[j], idx.Child("notReadyAddresses").Index(j))...)
		}
		for j := range ss.Ports {
			errs = append(errs, validatePort(&ss.Ports[j], len(ss.Ports) > 1, idx.Child("ports").Index(j))...)
		}
	}
	return errs
}

// validateAddress is upstream's validateEndpointAddress.
func validateAddress(a *corev1.EndpointAddress, fld *field.Path) field.ErrorList {
	ipFld := fld.Child("ip")
	errs := validate.LegacyIP(ipFld, a.IP, nil)
	if a.Hostname != "" {
		errs = append(errs, validate.DNS1123Label(a.Hostname, fld.Child("hostname"))...)
	}
	if a.NodeName != nil {
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(*a.NodeName, false) {
			errs = append(errs, field.Invalid(fld.Child("nodeName"), *a.NodeName, msg))
		}
	}
	return append(errs, validate.EndpointIP(a.IP, ipFld)...)
}

// validatePort is upstream's validateEndpointPort.
func validatePort(p *corev1.EndpointPort, requireName bool, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch {
	case requireName && p.Name == "":
		errs = append(errs, field.Required(fld.Child("name"), ""))
	case p.Name != "":
		errs = append(errs, validate.DNS1123Label(p.Name, fld.Child("name"))...)
	}
	for _, msg := range validation.IsValidPortNum(int(p.Port)) {
		errs = append(errs, field.Invalid(fld.Child("port"), p.Port, msg))
	}
	if p.Protocol == "" {
		errs = append(errs, field.Required(fld.Child("protocol"), ""))
	} else {
		errs = append(errs, validate.SupportedValue(fld.Child("protocol"), string(p.Protocol), validate.ContainerPortProtocols...)...)
	}
	if p.AppProtocol != nil {
		for _, msg := range validation.IsQualifiedName(*p.AppProtocol) {
			errs = append(errs, field.Invalid(fld.Child("appProtocol"), *p.AppProtocol, msg))
		}
	}
	return errs
}

// managedByController is the label value upstream's endpoints controller
// sets on the Endpoints it writes; their IPs are not warned about.
const managedByController = "endpoint-controller"

// warnings is upstream's endpointsWarnings: a non-standard form of an
// address's IP, unless the endpoints controller wrote the object.
func warnings(ep *corev1.Endpoints) []string {
	if ep.Labels["endpoints.kubernetes.io/managed-by"] == managedByController {
		return nil
	}
	var out []string
	subsets := field.NewPath("subsets")
	for i, ss := range ep.Subsets {
		for j, a := range ss.Addresses {
			out = append(out, validate.IPWarnings(subsets.Index(i).Child("addresses").Index(j).Child("ip"), a.IP)...)
		}
		for j, a := range ss.NotReadyAddresses {
			out = append(out, validate.IPWarnings(subsets.Index(i).Child("notReadyAddresses").Index(j).Child("ip"), a.IP)...)
		}
	}
	return out
}
