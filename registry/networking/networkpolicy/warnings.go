package networkpolicy

import (
	"context"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate"
)

// WarningsOnCreate returns upstream's warnings for a new NetworkPolicy
// (networkPolicyWarnings): ipBlock CIDRs not in their standard form.
func (networkPolicyStrategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	return networkPolicyWarnings(obj.(*networkingv1.NetworkPolicy))
}

// WarningsOnUpdate returns the same warnings for the updated policy.
func (networkPolicyStrategy) WarningsOnUpdate(_ context.Context, obj, _ runtime.Object) []string {
	return networkPolicyWarnings(obj.(*networkingv1.NetworkPolicy))
}

// networkPolicyWarnings is upstream's networkPolicyWarnings: each ingress
// rule's peers' ipBlocks, then each egress rule's.
func networkPolicyWarnings(np *networkingv1.NetworkPolicy) []string {
	var warnings []string
	spec := field.NewPath("spec")
	for i, rule := range np.Spec.Ingress {
		for j, peer := range rule.From {
			warnings = append(warnings, ipBlockWarnings(peer.IPBlock, spec.Child("ingress").Index(i).Child("from").Index(j).Child("ipBlock"))...)
		}
	}
	for i, rule := range np.Spec.Egress {
		for j, peer := range rule.To {
			warnings = append(warnings, ipBlockWarnings(peer.IPBlock, spec.Child("egress").Index(i).Child("to").Index(j).Child("ipBlock"))...)
		}
	}
	return warnings
}

// ipBlockWarnings warns about an ipBlock's cidr and except CIDRs; b may
// be nil.
func ipBlockWarnings(b *networkingv1.IPBlock, fld *field.Path) []string {
	if b == nil {
		return nil
	}
	warnings := validate.CIDRWarnings(fld.Child("cidr"), b.CIDR)
	for k, c := range b.Except {
		warnings = append(warnings, validate.CIDRWarnings(fld.Child("except").Index(k), c)...)
	}
	return warnings
}
