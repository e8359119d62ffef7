package server

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
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
		errs = append(errs, field.Invalid(spec, internalValue(s.Rules), "either `defaultBackend` or `rules` must be specified"))
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
		errs = append(errs, requiredPathSegment(rf.Child("kind"), r.Kind)...)
		errs = append(errs, requiredPathSegment(rf.Child("name"), r.Name)...)
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
