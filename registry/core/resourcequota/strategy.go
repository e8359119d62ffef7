// Package resourcequota holds the ResourceQuota strategy: kube-apiserver's
// pkg/registry/core/resourcequota rules.
package resourcequota

import (
	"context"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the ResourceQuota strategy.
var Strategy = resourceQuotaStrategy{strategy.Base{Namespaced: true, UnconditionalUpdate: true, ReturnDeleted: true, ResetStatusOnCreate: true, StatusWritesMetadata: true, NameRuleOnCreateOnly: true}}

type resourceQuotaStrategy struct{ strategy.Base }

// Validate checks a new quota's hard limits and scopes.
func (resourceQuotaStrategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validateResourceQuota(obj.(*corev1.ResourceQuota))
}

// ValidateUpdate checks the quota as on create, and that its set of
// scopes stays the same (the scope selector may change).
func (s resourceQuotaStrategy) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	q := obj.(*corev1.ResourceQuota)
	errs := s.Validate(ctx, obj)
	return append(errs, validateScopesUnchanged(q.Spec.Scopes, old.(*corev1.ResourceQuota).Spec.Scopes)...)
}

// validateScopesUnchanged refuses an update that changes the set of a
// quota's scopes (order and repeats do not count).
func validateScopesUnchanged(n, p []corev1.ResourceQuotaScope) field.ErrorList {
	if sets.New(n...).Equal(sets.New(p...)) {
		return nil
	}
	return field.ErrorList{field.Invalid(field.NewPath("spec", "scopes"), n, "field is immutable")}
}

var standardQuotaResources = []string{"cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory",
	"requests.storage", "requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage",
	"pods", "resourcequotas", "services", "replicationcontrollers", "secrets", "persistentvolumeclaims",
	"configmaps", "services.nodeports", "services.loadbalancers"}

var quotaScopes = []corev1.ResourceQuotaScope{corev1.ResourceQuotaScopeTerminating, corev1.ResourceQuotaScopeNotTerminating,
	corev1.ResourceQuotaScopeBestEffort, corev1.ResourceQuotaScopeNotBestEffort, corev1.ResourceQuotaScopePriorityClass,
	corev1.ResourceQuotaScopeCrossNamespacePodAffinity, corev1.ResourceQuotaScopeVolumeAttributesClass}

// validateQuotaList checks a list of quota resources (spec.hard,
// status.hard, status.used), in the order of its sorted names: each name
// as upstream's ValidateResourceQuotaResourceName (a resource name, and
// one the quota system knows when it has no domain), each quantity as
// ValidateResourceQuantityValue.
func validateQuotaList(l corev1.ResourceList, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, k := range validate.ResourceNames(l) {
		kf := fld.Key(k)
		errs = append(errs, validate.ResourceName(k, kf)...)
		if !strings.Contains(k, "/") && !slices.Contains(standardQuotaResources, k) &&
			!strings.HasPrefix(k, "hugepages-") && !strings.HasPrefix(k, "requests.hugepages-") {
			errs = append(errs, field.Invalid(kf, k, "must be a standard resource for quota"))
		}
		errs = append(errs, validate.Quantity(k, l[corev1.ResourceName(k)], kf)...)
	}
	return errs
}

// validateResourceQuota is upstream's ValidateResourceQuotaSpec: the hard
// limits' names and values, the scopes (known, fitting each standard
// resource limited, not conflicting) and the scope selector's
// expressions.
func validateResourceQuota(q *corev1.ResourceQuota) field.ErrorList {
	var errs field.ErrorList
	spec := field.NewPath("spec")
	errs = append(errs, validateQuotaList(q.Spec.Hard, spec.Child("hard"))...)
	hard := validate.ResourceNames(q.Spec.Hard)
	// scopesFit are the errors of scope sc for the limits it does not fit.
	scopesFit := func(sc corev1.ResourceQuotaScope, fld *field.Path, value any) field.ErrorList {
		var errs field.ErrorList
		for _, k := range hard {
			if isStandardQuotaResource(k) && !quotaScopeFits(sc, k) {
				errs = append(errs, field.Invalid(fld, value, "unsupported scope applied to resource"))
			}
		}
		return errs
	}
	// conflicting is the error of a set of scopes with both of a pair.
	conflicting := func(set map[corev1.ResourceQuotaScope]bool, fld *field.Path) field.ErrorList {
		var errs field.ErrorList
		if set[corev1.ResourceQuotaScopeBestEffort] && set[corev1.ResourceQuotaScopeNotBestEffort] {
			errs = append(errs, field.Invalid(fld, q.Spec.Scopes, "conflicting scopes"))
		}
		if set[corev1.ResourceQuotaScopeTerminating] && set[corev1.ResourceQuotaScopeNotTerminating] {
			errs = append(errs, field.Invalid(fld, q.Spec.Scopes, "conflicting scopes"))
		}
		return errs
	}
	if len(q.Spec.Scopes) > 0 {
		sf := spec.Child("scopes")
		set := map[corev1.ResourceQuotaScope]bool{}
		for _, sc := range q.Spec.Scopes {
			if !slices.Contains(quotaScopes, sc) {
				errs = append(errs, field.Invalid(sf, q.Spec.Scopes, "unsupported scope"))
			}
			errs = append(errs, scopesFit(sc, sf, q.Spec.Scopes)...)
			set[sc] = true
		}
		errs = append(errs, conflicting(set, sf)...)
	}
	if q.Spec.ScopeSelector == nil {
		return errs
	}
	sel := spec.Child("scopeSelector")
	mf := sel.Child("matchExpressions")
	set := map[corev1.ResourceQuotaScope]bool{}
	for _, req := range q.Spec.ScopeSelector.MatchExpressions {
		if !slices.Contains(quotaScopes, req.ScopeName) {
			errs = append(errs, field.Invalid(mf.Child("scopeName"), req.ScopeName, "unsupported scope"))
		}
		errs = append(errs, scopesFit(req.ScopeName, mf, validate.InternalValue(q.Spec.ScopeSelector))...)
		switch req.ScopeName {
		case corev1.ResourceQuotaScopeBestEffort, corev1.ResourceQuotaScopeNotBestEffort, corev1.ResourceQuotaScopeTerminating,
			corev1.ResourceQuotaScopeNotTerminating, corev1.ResourceQuotaScopeCrossNamespacePodAffinity:
			if req.Operator != corev1.ScopeSelectorOpExists {
				errs = append(errs, field.Invalid(mf.Child("operator"), req.Operator,
					"must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity"))
			}
		}
		switch req.Operator {
		case corev1.ScopeSelectorOpIn, corev1.ScopeSelectorOpNotIn:
			if len(req.Values) == 0 {
				errs = append(errs, field.Required(mf.Child("values"), "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"))
			}
		case corev1.ScopeSelectorOpExists, corev1.ScopeSelectorOpDoesNotExist:
			if len(req.Values) != 0 {
				errs = append(errs, field.Invalid(mf.Child("values"), req.Values, "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector"))
			}
		default:
			errs = append(errs, field.Invalid(mf.Child("operator"), req.Operator, "not a valid selector operator"))
		}
		set[req.ScopeName] = true
	}
	return append(errs, conflicting(set, mf)...)
}

// isStandardQuotaResource is upstream's IsStandardQuotaResourceName.
func isStandardQuotaResource(k string) bool {
	return slices.Contains(standardQuotaResources, k) || strings.HasPrefix(k, "hugepages-") || strings.HasPrefix(k, "requests.hugepages-")
}

// quotaScopeFits is upstream's IsResourceQuotaScopeValidForResource: the
// pod scopes fit pod counts and compute resources (BestEffort only pod
// counts), the VolumeAttributesClass scope claims and their storage.
func quotaScopeFits(sc corev1.ResourceQuotaScope, k string) bool {
	switch sc {
	case corev1.ResourceQuotaScopeTerminating, corev1.ResourceQuotaScopeNotTerminating, corev1.ResourceQuotaScopeNotBestEffort,
		corev1.ResourceQuotaScopePriorityClass, corev1.ResourceQuotaScopeCrossNamespacePodAffinity:
		return slices.Contains([]string{"pods", "cpu", "memory", "limits.cpu", "limits.memory", "requests.cpu", "requests.memory"}, k)
	case corev1.ResourceQuotaScopeBestEffort:
		return k == "pods"
	case corev1.ResourceQuotaScopeVolumeAttributesClass:
		return k == "persistentvolumeclaims" || k == "requests.storage"
	default:
		return true
	}
}
