// Package clusterrole holds the ClusterRole strategy: kube-apiserver's
// pkg/registry/rbac/clusterrole rules.
package clusterrole

import (
	"context"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/registry/rbac"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the ClusterRole strategy.
var Strategy = clusterRoleStrategy{strategy.Base{CreateOnUpdate: true, UnconditionalUpdate: true}}

type clusterRoleStrategy struct{ strategy.Base }

// Validate checks a new ClusterRole's rules and aggregation rule.
func (clusterRoleStrategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	r := obj.(*rbacv1.ClusterRole)
	errs := rbac.ValidateRules(r.Rules, false)
	if r.AggregationRule != nil {
		sels := field.NewPath("aggregationRule", "clusterRoleSelectors")
		if len(r.AggregationRule.ClusterRoleSelectors) == 0 {
			errs = append(errs, field.Required(sels, "at least one clusterRoleSelector required if aggregationRule is non-nil"))
		}
		for i := range r.AggregationRule.ClusterRoleSelectors {
			sel := &r.AggregationRule.ClusterRoleSelectors[i]
			errs = append(errs, metav1validation.ValidateLabelSelector(sel, metav1validation.LabelSelectorValidationOptions{}, sels.Index(i))...)
			if _, err := metav1.LabelSelectorAsSelector(sel); err != nil {
				errs = append(errs, field.Invalid(sels.Index(i), nil, "invalid label selector."))
			}
		}
	}
	return errs
}

// ValidateUpdate checks the ClusterRole as on create.
func (s clusterRoleStrategy) ValidateUpdate(ctx context.Context, obj, _ runtime.Object) field.ErrorList {
	return s.Validate(ctx, obj)
}
