// Package networkpolicy holds the NetworkPolicy strategy: kube-apiserver's
// pkg/registry/networking/networkpolicy rules.
package networkpolicy

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	netutils "k8s.io/utils/net"

	"github.com/fakeplane/fakeplane/internal/validate"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the NetworkPolicy strategy.
var Strategy = networkPolicyStrategy{strategy.Base{Namespaced: true, UnconditionalUpdate: true, Generation: true, NameRuleOnCreateOnly: true}}

type networkPolicyStrategy struct{ strategy.Base }

// Default sets the ports' protocol and the policy types.
func (networkPolicyStrategy) Default(obj runtime.Object) {
	o := obj.(*networkingv1.NetworkPolicy)
	tcp := func(ports []networkingv1.NetworkPolicyPort) {
		for i := range ports {
			if ports[i].Protocol == nil {
				p := corev1.ProtocolTCP
				ports[i].Protocol = &p
			}
		}
	}
	for i := range o.Spec.Ingress {
		tcp(o.Spec.Ingress[i].Ports)
	}
	for i := range o.Spec.Egress {
		tcp(o.Spec.Egress[i].Ports)
	}
	if len(o.Spec.PolicyTypes) == 0 {
		o.Spec.PolicyTypes = []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}
		if len(o.Spec.Egress) != 0 {
			o.Spec.PolicyTypes = append(o.Spec.PolicyTypes, networkingv1.PolicyTypeEgress)
		}
	}
}

// Validate checks a new policy's spec.
func (networkPolicyStrategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validateNetworkPolicy(obj.(*networkingv1.NetworkPolicy), nil)
}

// ValidateUpdate checks the spec, the old policy's CIDRs allowed.
func (networkPolicyStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validateNetworkPolicy(obj.(*networkingv1.NetworkPolicy), old.(*networkingv1.NetworkPolicy))
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
			errs = append(errs, validate.LegacyCIDR(bf.Child("cidr"), b.CIDR, existing)...)
			if _, cidr, err := netutils.ParseCIDRSloppy(b.CIDR); err == nil {
				for i, ex := range b.Except {
					ef := bf.Child("except").Index(i)
					errs = append(errs, validate.LegacyCIDR(ef, ex, existing)...)
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
