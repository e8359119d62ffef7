package auth

import (
	"context"
	"sort"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// AggregateClusterRole returns the rules kube-controller-manager's
// clusterrole-aggregation controller gives target, from all the
// ClusterRoles: for each of target's clusterRoleSelectors in turn, the
// rules of the ClusterRoles (other than target) whose labels match it, in
// name order, skipping rules already collected. A ClusterRole without an
// aggregationRule keeps its rules; so does one with an invalid selector
// (the controller fails that sync and changes nothing). The result is
// never nil.
func AggregateClusterRole(target *rbacv1.ClusterRole, all []*rbacv1.ClusterRole) []rbacv1.PolicyRule {
	if target.AggregationRule == nil {
		return target.Rules
	}
	sorted := append([]*rbacv1.ClusterRole(nil), all...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })

	rules := []rbacv1.PolicyRule{}
	for i := range target.AggregationRule.ClusterRoleSelectors {
		selector, err := metav1.LabelSelectorAsSelector(&target.AggregationRule.ClusterRoleSelectors[i])
		if err != nil {
			return target.Rules
		}
		for _, cr := range sorted {
			if cr.Name == target.Name || !selector.Matches(labels.Set(cr.Labels)) {
				continue
			}
			for _, rule := range cr.Rules {
				if !ruleExists(rules, rule) {
					rules = append(rules, rule)
				}
			}
		}
	}
	return rules
}

func ruleExists(haystack []rbacv1.PolicyRule, needle rbacv1.PolicyRule) bool {
	for _, r := range haystack {
		if rulesEqual(r, needle) {
			return true
		}
	}
	return false
}

// rulesEqual is equality.Semantic.DeepEqual for policy rules (a nil and an
// empty list are equal), without reflection: the aggregation compares every
// rule with every other at each start.
func rulesEqual(a, b rbacv1.PolicyRule) bool {
	return stringsEqual(a.Verbs, b.Verbs) && stringsEqual(a.APIGroups, b.APIGroups) && stringsEqual(a.Resources, b.Resources) &&
		stringsEqual(a.ResourceNames, b.ResourceNames) && stringsEqual(a.NonResourceURLs, b.NonResourceURLs)
}

// stringsEqual reports whether a and b hold the same strings in the same
// order, a nil and an empty slice being equal.
func stringsEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// RulesFor computes the status of a SelfSubjectRulesReview (or
// SubjectRulesReview) for u in namespace from the rule resolver NewAuthorizer
// returned: the resource and non-resource rules, whether the list is
// incomplete, and the evaluation error text, as kube-apiserver's
// selfsubjectrulesreview REST does.
func RulesFor(ctx context.Context, resolver authorizer.RuleResolver, u user.Info, namespace string) authorizationv1.SubjectRulesReviewStatus {
	resourceInfo, nonResourceInfo, incomplete, err := resolver.RulesFor(ctx, u, namespace)
	status := authorizationv1.SubjectRulesReviewStatus{
		ResourceRules:    make([]authorizationv1.ResourceRule, len(resourceInfo)),
		NonResourceRules: make([]authorizationv1.NonResourceRule, len(nonResourceInfo)),
		Incomplete:       incomplete,
	}
	for i, info := range resourceInfo {
		status.ResourceRules[i] = authorizationv1.ResourceRule{
			Verbs:         info.GetVerbs(),
			APIGroups:     info.GetAPIGroups(),
			Resources:     info.GetResources(),
			ResourceNames: info.GetResourceNames(),
		}
	}
	for i, info := range nonResourceInfo {
		status.NonResourceRules[i] = authorizationv1.NonResourceRule{
			Verbs:           info.GetVerbs(),
			NonResourceURLs: info.GetNonResourceURLs(),
		}
	}
	if err != nil {
		status.EvaluationError = err.Error()
	}
	return status
}
