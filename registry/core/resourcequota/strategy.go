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
var Strategy = resourceQuotaStrategy{strategy.Base{Namespaced: true, UnconditionalUpdate: true, ReturnDeleted: true, ResetStatusOnCreate: true, StatusWritesMetadata: true}}

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

// validateResourceQuota is the part of upstream's ValidateResourceQuotaSpec
// about the hard limits' names and values and the scopes' values and
// conflicts (not which scope fits which resource, nor the scope selector).
func validateResourceQuota(q *corev1.ResourceQuota) field.ErrorList {
	var errs field.ErrorList
	hard := field.NewPath("spec", "hard")
	errs = append(errs, validateQuotaList(q.Spec.Hard, hard)...)
	if len(q.Spec.Scopes) > 0 {
		sf := field.NewPath("spec", "scopes")
		set := map[corev1.ResourceQuotaScope]bool{}
		for _, sc := range q.Spec.Scopes {
			if !slices.Contains(quotaScopes, sc) {
				errs = append(errs, field.Invalid(sf, q.Spec.Scopes, "unsupported scope"))
			}
			set[sc] = true
		}
		if set[corev1.ResourceQuotaScopeBestEffort] && set[corev1.ResourceQuotaScopeNotBestEffort] ||
			set[corev1.ResourceQuotaScopeTerminating] && set[corev1.ResourceQuotaScopeNotTerminating] {
			errs = append(errs, field.Invalid(sf, q.Spec.Scopes, "conflicting scopes"))
		}
	}
	return errs
}
