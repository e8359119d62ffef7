// Package ipaddress holds the IPAddress strategy: the flags of kube-apiserver's
// pkg/registry/networking/ipaddress strategy and storage, and upstream's validation
// of an IPAddress (pkg/apis/networking/validation): its name is an IP address in
// canonical form (NameRule; a generateName is taken as the name, as upstream's
// no-op name generator does), and its spec.parentRef is required, names a resource
// and an object (group and namespace optional), and is kept by updates. The
// parent reference's required fields and its immutability are also declarative
// upstream, beta in v1.37, and answered as such (validate.WithDeclarative).
package ipaddress

import (
	"context"

	networkingv1 "k8s.io/api/networking/v1"
	apivalidate "k8s.io/apimachinery/pkg/api/validate"
	"k8s.io/apimachinery/pkg/api/validate/content"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the IPAddress strategy.
var Strategy = ipAddressStrategy{strategy.Base{UnconditionalUpdate: true}}

type ipAddressStrategy struct{ strategy.Base }

// NameRule is upstream's IPAddress name rule (ValidateIPAddressName): the
// name, and a generateName alike, is an IP address in canonical form.
func (ipAddressStrategy) NameRule(runtime.Object) apivalidation.ValidateNameFunc {
	return nameRule
}

// nameRule reports what makes name other than a canonical IP address.
func nameRule(name string, _ bool) []string {
	var msgs []string
	for _, e := range validation.IsValidIP(&field.Path{}, name) {
		msgs = append(msgs, e.Detail)
	}
	return msgs
}

// GenerateName is upstream's IPAddress name generator: a generateName is
// taken as the name itself, so it must be an IP address.
func (ipAddressStrategy) GenerateName(base string) string { return base }

// Validate checks a new IPAddress's parent reference.
func (ipAddressStrategy) Validate(ctx context.Context, obj runtime.Object) field.ErrorList {
	addr := obj.(*networkingv1.IPAddress)
	return validate.WithDeclarative(ctx, validateParentRef(addr.Spec.ParentRef, field.NewPath("spec", "parentRef")), declareSpec(&addr.Spec, nil))
}

// ValidateUpdate checks the parent reference, which updates keep.
func (ipAddressStrategy) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	addr, was := obj.(*networkingv1.IPAddress), old.(*networkingv1.IPAddress)
	fld := field.NewPath("spec", "parentRef")
	errs := validateParentRef(addr.Spec.ParentRef, fld)
	errs = append(errs, validate.ImmutableInternal(addr.Spec.ParentRef, was.Spec.ParentRef, fld).MarkCoveredByDeclarative().WithOrigin("immutable")...)
	return validate.WithDeclarative(ctx, errs, declareSpec(&addr.Spec, &was.Spec))
}

// validateParentRef is upstream's validateIPAddressParentReference: a
// reference is required; its group, when given, is a DNS subdomain; its
// resource and name are required path segments; its namespace, when given,
// a path segment. The required errors are covered by the declarative rules.
func validateParentRef(ref *networkingv1.ParentReference, fld *field.Path) field.ErrorList {
	if ref == nil {
		return field.ErrorList{field.Required(fld, "").MarkCoveredByDeclarative()}
	}
	var errs field.ErrorList
	if ref.Group != "" {
		for _, msg := range validation.IsDNS1123Subdomain(ref.Group) {
			errs = append(errs, field.Invalid(fld.Child("group"), ref.Group, msg))
		}
	}
	for _, f := range []struct {
		name, value string
		required    bool
	}{{"resource", ref.Resource, true}, {"name", ref.Name, true}, {"namespace", ref.Namespace, false}} {
		if f.value == "" {
			if f.required {
				errs = append(errs, field.Required(fld.Child(f.name), "").MarkCoveredByDeclarative())
			}
			continue
		}
		for _, msg := range content.IsPathSegmentName(f.value) {
			errs = append(errs, field.Invalid(fld.Child(f.name), f.value, msg))
		}
	}
	return errs
}

// declareSpec is the spec's declarative validation (beta in v1.37): the
// parent reference is required and kept by updates, which says no more of
// it; else its resource and name are required. What is unchanged is not
// validated again.
func declareSpec(spec, old *networkingv1.IPAddressSpec) field.ErrorList {
	op := validate.Operation(old != nil)
	if validate.Unchanged(op, spec, old) {
		return nil
	}
	var was *networkingv1.ParentReference
	if old != nil {
		was = old.ParentRef
	}
	ref := spec.ParentRef
	if validate.Unchanged(op, ref, was) {
		return nil
	}
	ctx, fld := context.Background(), field.NewPath("spec", "parentRef")
	errs := apivalidate.RequiredPointer(ctx, op, fld, ref, was).MarkBeta()
	errs = append(errs, apivalidate.Immutable(ctx, op, fld, ref, was).MarkBeta()...)
	if len(errs) != 0 {
		// An update that changes the reference ends here.
		return errs
	}
	errs = append(errs, apivalidate.RequiredValue(ctx, op, fld.Child("resource"), &ref.Resource, nil).MarkBeta()...)
	errs = append(errs, apivalidate.RequiredValue(ctx, op, fld.Child("name"), &ref.Name, nil).MarkBeta()...)
	return errs
}
