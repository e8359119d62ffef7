// Package servicecidr holds the ServiceCIDR strategy: the flags of kube-apiserver's
// pkg/registry/networking/servicecidr strategy and storage, and the validation of
// its CIDRs: one or two, valid, one of each IP family, kept by updates (which
// may add the second).
package servicecidr

import (
	"context"

	networkingv1 "k8s.io/api/networking/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	netutils "k8s.io/utils/net"

	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the ServiceCIDR strategy.
var Strategy = serviceCIDRStrategy{strategy.Base{UnconditionalUpdate: true, ResetStatusOnCreate: true, NameRuleOnCreateOnly: true}}

type serviceCIDRStrategy struct{ strategy.Base }

// Validate checks a new ServiceCIDR's CIDRs.
func (serviceCIDRStrategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validateCIDRs(obj.(*networkingv1.ServiceCIDR).Spec.CIDRs, field.NewPath("spec", "cidrs"))
}

// ValidateUpdate checks that an update keeps the CIDRs, but for adding a
// second one to make a single-stack range dual-stack.
func (serviceCIDRStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	cidrs, was := obj.(*networkingv1.ServiceCIDR).Spec.CIDRs, old.(*networkingv1.ServiceCIDR).Spec.CIDRs
	fld := field.NewPath("spec", "cidrs")
	var errs field.ErrorList
	switch {
	case len(cidrs) == len(was):
		for i := range was {
			if cidrs[i] != was[i] {
				errs = append(errs, field.Invalid(fld.Index(i), cidrs[i], apivalidation.FieldImmutableErrorMsg))
			}
		}
	case len(was) == 1 && len(cidrs) == 2:
		if cidrs[0] != was[0] {
			errs = append(errs, field.Invalid(fld.Index(0), cidrs[0], apivalidation.FieldImmutableErrorMsg))
		}
		errs = append(errs, validateCIDRs(cidrs, fld)...)
	default:
		errs = append(errs, field.Invalid(fld, cidrs, apivalidation.FieldImmutableErrorMsg))
	}
	return errs
}

// validateCIDRs checks one or two CIDRs, valid, and not both of one family.
func validateCIDRs(cidrs []string, fld *field.Path) field.ErrorList {
	switch {
	case len(cidrs) == 0:
		return field.ErrorList{field.Required(fld, "at least one CIDR required")}
	case len(cidrs) > 2:
		// Upstream shows its internal spec, whose field has no JSON name.
		return field.ErrorList{field.Invalid(fld, struct{ CIDRs []string }{cidrs}, "may only hold up to 2 values")}
	}
	var errs field.ErrorList
	for i, c := range cidrs {
		errs = append(errs, utilvalidation.IsValidCIDR(fld.Index(i), c)...)
	}
	if len(cidrs) == 2 {
		f0, f1 := netutils.IPFamilyOfCIDRString(cidrs[0]), netutils.IPFamilyOfCIDRString(cidrs[1])
		if f0 == f1 && f0 != netutils.IPFamilyUnknown {
			errs = append(errs, field.Invalid(fld, cidrs, "may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64"))
		}
	}
	return errs
}
