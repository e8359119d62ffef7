package auth

import (
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
)

// TestRulesEqualIsSemanticEquality checks rulesEqual against the equality
// upstream's aggregation uses (equality.Semantic.DeepEqual): nil and empty
// lists are equal, order and every field count.
func TestRulesEqualIsSemanticEquality(t *testing.T) {
	base := rbacv1.PolicyRule{Verbs: []string{"get", "list"}, APIGroups: []string{""}, Resources: []string{"pods"}}
	for _, tc := range []struct {
		name string
		b    rbacv1.PolicyRule
	}{
		{"same", rbacv1.PolicyRule{Verbs: []string{"get", "list"}, APIGroups: []string{""}, Resources: []string{"pods"}}},
		{"empty resource names against nil", rbacv1.PolicyRule{Verbs: []string{"get", "list"}, APIGroups: []string{""}, Resources: []string{"pods"}, ResourceNames: []string{}}},
		{"other verb order", rbacv1.PolicyRule{Verbs: []string{"list", "get"}, APIGroups: []string{""}, Resources: []string{"pods"}}},
		{"other group", rbacv1.PolicyRule{Verbs: []string{"get", "list"}, APIGroups: []string{"apps"}, Resources: []string{"pods"}}},
		{"a resource name", rbacv1.PolicyRule{Verbs: []string{"get", "list"}, APIGroups: []string{""}, Resources: []string{"pods"}, ResourceNames: []string{"p"}}},
		{"a non-resource URL", rbacv1.PolicyRule{Verbs: []string{"get", "list"}, APIGroups: []string{""}, Resources: []string{"pods"}, NonResourceURLs: []string{"/x"}}},
		{"fewer resources", rbacv1.PolicyRule{Verbs: []string{"get", "list"}, APIGroups: []string{""}}},
	} {
		want := equality.Semantic.DeepEqual(base, tc.b)
		if got := rulesEqual(base, tc.b); got != want {
			t.Errorf("%s: rulesEqual %v, equality.Semantic.DeepEqual %v", tc.name, got, want)
		}
		if got := rulesEqual(tc.b, base); got != want {
			t.Errorf("%s (swapped): rulesEqual %v, equality.Semantic.DeepEqual %v", tc.name, got, want)
		}
	}
}
