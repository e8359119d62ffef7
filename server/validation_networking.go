package server

import (
	"fmt"
	"github.com/fakeplane/fakeplane/internal/validate"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	netutils "k8s.io/utils/net"
)

// Ingress validation: upstream's pkg/apis/networking/validation on the v1
// type (RelaxedServiceNameValidation is on in v1.37).

var (
	invalidPathSequences = []string{"//", "/./", "/../", "%2f", "%2F"}
	invalidPathSuffixes  = []string{"/..", "/."}
)

func validateIngress(ing *networkingv1.Ingress) field.ErrorList {
	spec := field.NewPath("spec")
	s := &ing.Spec
	var errs field.ErrorList
	if len(s.Rules) == 0 && s.DefaultBackend == nil {
		errs = append(errs, field.Invalid(spec, validate.InternalValue(s.Rules), "either `defaultBackend` or `rules` must be specified"))
	}
	if s.DefaultBackend != nil {
		errs = append(errs, validateIngressBackend(s.DefaultBackend, spec.Child("defaultBackend"))...)
	}
	for i, r := range s.Rules {
		rf := spec.Child("rules").Index(i)
		if r.Host != "" {
			if netutils.ParseIPSloppy(r.Host) != nil {
				errs = append(errs, field.Invalid(rf.Child("host"), r.Host, "must be a DNS name, not an IP address"))
			}
			if strings.Contains(r.Host, "*") {
				for _, msg := range validation.IsWildcardDNS1123Subdomain(r.Host) {
					errs = append(errs, field.Invalid(rf.Child("host"), r.Host, msg))
				}
			} else {
				for _, msg := range validation.IsDNS1123Subdomain(r.Host) {
					errs = append(errs, field.Invalid(rf.Child("host"), r.Host, msg))
				}
			}
		}
		if r.HTTP != nil {
			hf := rf.Child("http")
			if len(r.HTTP.Paths) == 0 {
				errs = append(errs, field.Required(hf.Child("paths"), ""))
			}
			for j := range r.HTTP.Paths {
				errs = append(errs, validateIngressPath(&r.HTTP.Paths[j], hf.Child("paths").Index(j))...)
			}
		}
	}
	for i, t := range s.TLS {
		tf := spec.Child("tls").Index(i)
		for j, h := range t.Hosts {
			check := validation.IsDNS1123Subdomain
			if strings.Contains(h, "*") {
				check = validation.IsWildcardDNS1123Subdomain
			}
			for _, msg := range check(h) {
				errs = append(errs, field.Invalid(tf.Child("hosts").Index(j), h, msg))
			}
		}
		if t.SecretName != "" {
			for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(t.SecretName, false) {
				errs = append(errs, field.Invalid(tf.Child("secretName"), t.SecretName, msg))
			}
		}
	}
	if c := s.IngressClassName; c != nil {
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(*c, false) {
			errs = append(errs, field.Invalid(spec.Child("ingressClassName"), *c, msg))
		}
	}
	return errs
}

func validateIngressPath(p *networkingv1.HTTPIngressPath, fld *field.Path) field.ErrorList {
	if p.PathType == nil {
		return field.ErrorList{field.Required(fld.Child("pathType"), "pathType must be specified")}
	}
	var errs field.ErrorList
	switch *p.PathType {
	case networkingv1.PathTypeExact, networkingv1.PathTypePrefix:
		if !strings.HasPrefix(p.Path, "/") {
			errs = append(errs, field.Invalid(fld.Child("path"), p.Path, "must be an absolute path"))
		}
		if p.Path != "" {
			for _, seq := range invalidPathSequences {
				if strings.Contains(p.Path, seq) {
					errs = append(errs, field.Invalid(fld.Child("path"), p.Path, fmt.Sprintf("must not contain '%s'", seq)))
				}
			}
			for _, suf := range invalidPathSuffixes {
				if strings.HasSuffix(p.Path, suf) {
					errs = append(errs, field.Invalid(fld.Child("path"), p.Path, fmt.Sprintf("cannot end with '%s'", suf)))
				}
			}
		}
	case networkingv1.PathTypeImplementationSpecific:
		if p.Path != "" && !strings.HasPrefix(p.Path, "/") {
			errs = append(errs, field.Invalid(fld.Child("path"), p.Path, "must be an absolute path"))
		}
	default:
		errs = append(errs, field.NotSupported(fld.Child("pathType"), *p.PathType, []string{"Exact", "ImplementationSpecific", "Prefix"}))
	}
	return append(errs, validateIngressBackend(&p.Backend, fld.Child("backend"))...)
}

func validateIngressBackend(b *networkingv1.IngressBackend, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch {
	case b.Resource != nil && b.Service != nil:
		return field.ErrorList{field.Invalid(fld, "", "cannot set both resource and service backends")}
	case b.Resource != nil:
		r := b.Resource
		rf := fld.Child("resource")
		if r.APIGroup != nil {
			for _, msg := range validation.IsDNS1123Subdomain(*r.APIGroup) {
				errs = append(errs, field.Invalid(rf.Child("apiGroup"), *r.APIGroup, msg))
			}
		}
		errs = append(errs, validate.RequiredPathSegment(rf.Child("kind"), r.Kind)...)
		errs = append(errs, validate.RequiredPathSegment(rf.Child("name"), r.Name)...)
	case b.Service != nil:
		sv := b.Service
		if sv.Name == "" {
			errs = append(errs, field.Required(fld.Child("service", "name"), ""))
		} else {
			for _, msg := range apimachineryvalidation.NameIsDNSLabel(sv.Name, false) {
				errs = append(errs, field.Invalid(fld.Child("service", "name"), sv.Name, msg))
			}
		}
		hasName, hasNumber := sv.Port.Name != "", sv.Port.Number != 0
		switch {
		case hasName && hasNumber:
			errs = append(errs, field.Invalid(fld, "", "cannot set both port name & port number"))
		case hasName:
			for _, msg := range validation.IsValidPortName(sv.Port.Name) {
				errs = append(errs, field.Invalid(fld.Child("service", "port", "name"), sv.Port.Name, msg))
			}
		case hasNumber:
			for _, msg := range validation.IsValidPortNum(int(sv.Port.Number)) {
				errs = append(errs, field.Invalid(fld.Child("service", "port", "number"), sv.Port.Number, msg))
			}
		default:
			errs = append(errs, field.Required(fld, "port name or number is required"))
		}
	default:
		errs = append(errs, field.Invalid(fld, "", "resource or service backend is required"))
	}
	return errs
}

// validateNetworkPolicy is upstream's ValidateNetworkPolicySpec (existing
// CIDRs of the old policy stay allowed on update).
func validateNetworkPolicy(np, old *networkingv1.NetworkPolicy) field.ErrorList {
	var existing []string
	if old != nil {
		for _, in := range old.Spec.Ingress {
			for _, p := range in.From {
				if p.IPBlock != nil {
					existing = append(append(existing, p.IPBlock.CIDR), p.IPBlock.Except...)
				}
			}
		}
		for _, eg := range old.Spec.Egress {
			for _, p := range eg.To {
				if p.IPBlock != nil {
					existing = append(append(existing, p.IPBlock.CIDR), p.IPBlock.Except...)
				}
			}
		}
	}
	spec := field.NewPath("spec")
	s := &np.Spec
	errs := metav1validation.ValidateLabelSelector(&s.PodSelector, metav1validation.LabelSelectorValidationOptions{}, spec.Child("podSelector"))
	var declarative field.ErrorList
	rules := func(ports []networkingv1.NetworkPolicyPort, peers []networkingv1.NetworkPolicyPeer, rf *field.Path, peerName string) {
		for i := range ports {
			errs = append(errs, validateNetworkPolicyPort(&ports[i], rf.Child("ports").Index(i))...)
		}
		for i := range peers {
			e, d := validateNetworkPolicyPeer(&peers[i], existing, rf.Child(peerName).Index(i))
			errs = append(errs, e...)
			declarative = append(declarative, d...)
		}
	}
	for i, in := range s.Ingress {
		rules(in.Ports, in.From, spec.Child("ingress").Index(i), "from")
	}
	for i, eg := range s.Egress {
		rules(eg.Ports, eg.To, spec.Child("egress").Index(i), "to")
	}
	if len(s.PolicyTypes) > 2 {
		errs = append(errs, field.Invalid(spec.Child("policyTypes"), s.PolicyTypes, "may not specify more than two policyTypes"))
		return append(errs, declarative...)
	}
	for i, t := range s.PolicyTypes {
		if t != networkingv1.PolicyTypeIngress && t != networkingv1.PolicyTypeEgress {
			errs = append(errs, field.NotSupported(spec.Child("policyTypes").Index(i), t, []string{"Ingress", "Egress"}))
		}
	}
	return append(errs, declarative...)
}

func validateNetworkPolicyPort(p *networkingv1.NetworkPolicyPort, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if pr := p.Protocol; pr != nil && *pr != corev1.ProtocolTCP && *pr != corev1.ProtocolUDP && *pr != corev1.ProtocolSCTP {
		errs = append(errs, field.NotSupported(fld.Child("protocol"), *pr, []string{"TCP", "UDP", "SCTP"}))
	}
	switch {
	case p.Port == nil:
		if p.EndPort != nil {
			errs = append(errs, field.Invalid(fld.Child("endPort"), *p.EndPort, "may not be specified when `port` is not specified"))
		}
	case p.Port.Type == intstr.Int:
		for _, msg := range validation.IsValidPortNum(int(p.Port.IntVal)) {
			errs = append(errs, field.Invalid(fld.Child("port"), p.Port.IntVal, msg))
		}
		if p.EndPort != nil {
			if *p.EndPort < p.Port.IntVal {
				errs = append(errs, field.Invalid(fld.Child("endPort"), *p.EndPort, "must be greater than or equal to `port`"))
			}
			for _, msg := range validation.IsValidPortNum(int(*p.EndPort)) {
				errs = append(errs, field.Invalid(fld.Child("endPort"), *p.EndPort, msg))
			}
		}
	default:
		if p.EndPort != nil {
			errs = append(errs, field.Invalid(fld.Child("endPort"), *p.EndPort, "may not be specified when `port` is non-numeric"))
		}
		for _, msg := range validation.IsValidPortName(p.Port.StrVal) {
			errs = append(errs, field.Invalid(fld.Child("port"), p.Port.StrVal, msg))
		}
	}
	return errs
}

// validateNetworkPolicyPeer returns the peer's errors and, apart, those
// upstream reports declaratively (last).
func validateNetworkPolicyPeer(p *networkingv1.NetworkPolicyPeer, existing []string, fld *field.Path) (field.ErrorList, field.ErrorList) {
	var errs, declarative field.ErrorList
	n := 0
	opts := metav1validation.LabelSelectorValidationOptions{}
	if p.PodSelector != nil {
		n++
		errs = append(errs, metav1validation.ValidateLabelSelector(p.PodSelector, opts, fld.Child("podSelector"))...)
	}
	if p.NamespaceSelector != nil {
		n++
		errs = append(errs, metav1validation.ValidateLabelSelector(p.NamespaceSelector, opts, fld.Child("namespaceSelector"))...)
	}
	if b := p.IPBlock; b != nil {
		n++
		bf := fld.Child("ipBlock")
		if b.CIDR == "" {
			declarative = append(declarative, field.Required(bf.Child("cidr"), ""))
		} else {
			errs = append(errs, validation.IsValidCIDRForLegacyField(bf.Child("cidr"), b.CIDR, false, existing)...)
			if _, cidr, err := netutils.ParseCIDRSloppy(b.CIDR); err == nil {
				for i, ex := range b.Except {
					ef := bf.Child("except").Index(i)
					errs = append(errs, validation.IsValidCIDRForLegacyField(ef, ex, false, existing)...)
					_, exNet, err := netutils.ParseCIDRSloppy(ex)
					if err != nil {
						continue
					}
					cl, _ := cidr.Mask.Size()
					el, _ := exNet.Mask.Size()
					if !cidr.Contains(exNet.IP) || cl >= el {
						errs = append(errs, field.Invalid(ef, ex, "must be a strict subset of `cidr`"))
					}
				}
			}
		}
	}
	if n == 0 {
		errs = append(errs, field.Required(fld, "must specify a peer"))
	} else if n > 1 && p.IPBlock != nil {
		errs = append(errs, field.Forbidden(fld, "may not specify both ipBlock and another peer"))
	}
	return errs, declarative
}

// validateEndpointSlice is upstream's ValidateEndpointSlice(Update) less
// the metadata (topology hints not checked). Errors of endpoints kept
// unchanged by an update are not reported, as upstream does.
func validateEndpointSlice(es, old *discoveryv1.EndpointSlice) field.ErrorList {
	// Upstream checks the address type and the addresses' count
	// declaratively: those errors come last, in the v1 type's order.
	var errs, declarative field.ErrorList
	at := field.NewPath("addressType")
	switch es.AddressType {
	case "":
		declarative = append(declarative, field.Required(at, ""))
	case discoveryv1.AddressTypeIPv4, discoveryv1.AddressTypeIPv6, discoveryv1.AddressTypeFQDN:
	default:
		declarative = append(declarative, field.NotSupported(at, es.AddressType, []string{"FQDN", "IPv4", "IPv6"}))
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
						ipErrs = validation.IsValidIPForLegacyField(ap.Index(j), a, false, nil)
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
					eerrs = append(eerrs, validateEndpointIP(a, ap.Index(j))...)
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
		}
	}
	if old != nil && apiequality.Semantic.DeepEqual(old.Endpoints, es.Endpoints) {
		eerrs, edecl = nil, nil
	}
	declarative = append(declarative, edecl...)
	errs = append(errs, eerrs...)
	if old != nil {
		errs = append(errs, validate.ImmutableField(es.AddressType, old.AddressType, at)...)
	}
	return append(errs, declarative...)
}

// validateEndpointIP is upstream's ValidateEndpointIP.
func validateEndpointIP(a string, fld *field.Path) field.ErrorList {
	ip := netutils.ParseIPSloppy(a)
	if ip == nil {
		return field.ErrorList{field.Invalid(fld, a, "must be a valid IP address")}
	}
	var errs field.ErrorList
	if ip.IsUnspecified() {
		errs = append(errs, field.Invalid(fld, a, fmt.Sprintf("may not be unspecified (%v)", a)))
	}
	if ip.IsLoopback() {
		errs = append(errs, field.Invalid(fld, a, "may not be in the loopback range (127.0.0.0/8, ::1/128)"))
	}
	if ip.IsLinkLocalUnicast() {
		errs = append(errs, field.Invalid(fld, a, "may not be in the link-local range (169.254.0.0/16, fe80::/10)"))
	}
	if ip.IsLinkLocalMulticast() {
		errs = append(errs, field.Invalid(fld, a, "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"))
	}
	return errs
}
