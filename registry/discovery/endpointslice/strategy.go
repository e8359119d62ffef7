// Package endpointslice holds the EndpointSlice strategy: kube-apiserver's
// pkg/registry/discovery/endpointslice rules.
package endpointslice

import (
	"context"
	"slices"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	netutils "k8s.io/utils/net"

	"github.com/fakeplane/fakeplane/internal/validate"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the EndpointSlice strategy.
var Strategy = endpointSliceStrategy{strategy.Base{Namespaced: true, UnconditionalUpdate: true, Generation: true}}

type endpointSliceStrategy struct{ strategy.Base }

// Default sets the ports' name and protocol.
func (endpointSliceStrategy) Default(obj runtime.Object) {
	o := obj.(*discoveryv1.EndpointSlice)
	for i := range o.Ports {
		if o.Ports[i].Name == nil {
			empty := ""
			o.Ports[i].Name = &empty
		}
		if o.Ports[i].Protocol == nil {
			tcp := corev1.ProtocolTCP
			o.Ports[i].Protocol = &tcp
		}
	}
}

// Validate checks a new slice's address type, endpoints and ports.
func (endpointSliceStrategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validateEndpointSlice(obj.(*discoveryv1.EndpointSlice), nil)
}

// ValidateUpdate also keeps the address type; endpoints kept unchanged are
// not checked again.
func (endpointSliceStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validateEndpointSlice(obj.(*discoveryv1.EndpointSlice), old.(*discoveryv1.EndpointSlice))
}

// validateEndpointSlice is upstream's ValidateEndpointSlice(Update) less
// the metadata. Errors of endpoints kept
// unchanged by an update are not reported, as upstream does.
func validateEndpointSlice(es, old *discoveryv1.EndpointSlice) field.ErrorList {
	// Upstream checks the address type (required, known, unchanged) and
	// the addresses' count declaratively: those errors come last, in the
	// v1 type's order.
	var errs, declarative field.ErrorList
	at := field.NewPath("addressType")
	switch es.AddressType {
	case "":
		declarative = append(declarative, field.Required(at, ""))
	case discoveryv1.AddressTypeIPv4, discoveryv1.AddressTypeIPv6, discoveryv1.AddressTypeFQDN:
	default:
		declarative = append(declarative, field.NotSupported(at, es.AddressType, []string{"FQDN", "IPv4", "IPv6"}))
	}
	if old != nil && es.AddressType != old.AddressType {
		// Its immutability too, whose error names no value.
		declarative = append(declarative, field.Invalid(at, nil, "field is immutable"))
	}
	pf := field.NewPath("ports")
	if len(es.Ports) > 20000 {
		errs = append(errs, field.TooMany(pf, len(es.Ports), 20000))
	} else {
		var names []string
		for i, p := range es.Ports {
			idx := pf.Index(i)
			name := ""
			if p.Name != nil {
				name = *p.Name
			}
			if name != "" {
				errs = append(errs, validate.DNS1123Label(name, idx.Child("name"))...)
			}
			if slices.Contains(names, name) {
				errs = append(errs, field.Duplicate(idx.Child("name"), p.Name))
			} else {
				names = append(names, name)
			}
			if p.Protocol == nil {
				errs = append(errs, field.Required(idx.Child("protocol"), ""))
			} else if pr := *p.Protocol; pr != corev1.ProtocolTCP && pr != corev1.ProtocolUDP && pr != corev1.ProtocolSCTP {
				errs = append(errs, field.NotSupported(idx.Child("protocol"), pr, []string{"SCTP", "TCP", "UDP"}))
			}
			if p.AppProtocol != nil {
				for _, msg := range validation.IsQualifiedName(*p.AppProtocol) {
					errs = append(errs, field.Invalid(idx.Child("appProtocol"), *p.AppProtocol, msg))
				}
			}
		}
	}
	var eerrs, edecl field.ErrorList
	ef := field.NewPath("endpoints")
	if len(es.Endpoints) > 1000 {
		eerrs = append(eerrs, field.TooMany(ef, len(es.Endpoints), 1000))
	} else {
		for i, e := range es.Endpoints {
			idx := ef.Index(i)
			ap := idx.Child("addresses")
			if len(e.Addresses) == 0 {
				edecl = append(edecl, field.Required(ap, ""))
			} else if len(e.Addresses) > 100 {
				edecl = append(edecl, field.TooMany(ap, len(e.Addresses), 100))
			}
			for j, a := range e.Addresses {
				switch es.AddressType {
				case discoveryv1.AddressTypeIPv4, discoveryv1.AddressTypeIPv6:
					v4 := es.AddressType == discoveryv1.AddressTypeIPv4
					var ipErrs field.ErrorList
					if v4 {
						ipErrs = validate.LegacyIP(ap.Index(j), a, nil)
					} else {
						ipErrs = validation.IsValidIP(ap.Index(j), a)
					}
					if len(ipErrs) > 0 {
						eerrs = append(eerrs, ipErrs...)
						continue
					}
					if v4 && !netutils.IsIPv4String(a) {
						eerrs = append(eerrs, field.Invalid(ap, a, "must be an IPv4 address"))
					}
					if !v4 && !netutils.IsIPv6String(a) {
						eerrs = append(eerrs, field.Invalid(ap, a, "must be an IPv6 address"))
					}
					eerrs = append(eerrs, validate.EndpointIP(a, ap.Index(j))...)
				case discoveryv1.AddressTypeFQDN:
					eerrs = append(eerrs, validation.IsFullyQualifiedDomainName(ap.Index(j), a)...)
				}
			}
			if e.NodeName != nil {
				for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(*e.NodeName, false) {
					eerrs = append(eerrs, field.Invalid(idx.Child("nodeName"), *e.NodeName, msg))
				}
			}
			tp := idx.Child("deprecatedTopology")
			if len(e.DeprecatedTopology) > 16 {
				eerrs = append(eerrs, field.TooMany(tp, len(e.DeprecatedTopology), 16))
			}
			eerrs = append(eerrs, metav1validation.ValidateLabels(e.DeprecatedTopology, tp)...)
			if e.Hostname != nil {
				eerrs = append(eerrs, validate.DNS1123Label(*e.Hostname, idx.Child("hostname"))...)
			}
			if e.Hints != nil {
				eerrs = append(eerrs, validateHints(e.Hints, idx.Child("hints"))...)
			}
		}
	}
	if old != nil && apiequality.Semantic.DeepEqual(old.Endpoints, es.Endpoints) {
		eerrs, edecl = nil, nil
	}
	declarative = append(declarative, edecl...)
	errs = append(errs, eerrs...)
	return append(errs, declarative...)
}

// maxHints is how many zones, and how many nodes, an endpoint's hints may
// name.
const maxHints = 8

// validateHints is upstream's: at most 8 zones, each a label value, none
// twice, then at most 8 nodes, each a node name, none twice (too many zones
// and the nodes are not checked).
func validateHints(h *discoveryv1.EndpointHints, fld *field.Path) field.ErrorList {
	zones := make([]string, len(h.ForZones))
	for i, z := range h.ForZones {
		zones[i] = z.Name
	}
	errs, ok := validateHintNames(zones, fld.Child("forZones"), validation.IsValidLabelValue)
	if !ok {
		return errs
	}
	nodes := make([]string, len(h.ForNodes))
	for i, n := range h.ForNodes {
		nodes[i] = n.Name
	}
	more, _ := validateHintNames(nodes, fld.Child("forNodes"), func(n string) []string { return apimachineryvalidation.NameIsDNSSubdomain(n, false) })
	return append(errs, more...)
}

// validateHintNames checks one list of hint names: at most maxHints (else
// that is the only error, and ok is false), none twice, each as check has
// it.
func validateHintNames(names []string, fld *field.Path, check func(string) []string) (errs field.ErrorList, ok bool) {
	if len(names) > maxHints {
		return field.ErrorList{field.TooMany(fld, len(names), maxHints)}, false
	}
	for i, n := range names {
		name := fld.Index(i).Child("name")
		if slices.Contains(names[:i], n) {
			errs = append(errs, field.Duplicate(name, n))
		}
		for _, msg := range check(n) {
			errs = append(errs, field.Invalid(name, n, msg))
		}
	}
	return errs, true
}
