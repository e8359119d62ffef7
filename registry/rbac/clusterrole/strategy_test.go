package clusterrole

import (
	"context"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestClusterRoleStrategy(t *testing.T) {
	for _, tc := range []struct {
		name string
		role *rbacv1.ClusterRole
		want []string
	}{
		{name: "non-resource URLs", role: &rbacv1.ClusterRole{Rules: []rbacv1.PolicyRule{{NonResourceURLs: []string{"/healthz"}, Verbs: []string{"get"}}}}},
		{name: "both kinds of rule", role: &rbacv1.ClusterRole{Rules: []rbacv1.PolicyRule{{NonResourceURLs: []string{"/x"}, Resources: []string{"pods"}}}}, want: []string{
			`rules[0].nonResourceURLs: Invalid value: ["/x"]: rules cannot apply to both regular resources and non-resource URLs`,
			"rules[0].verbs: Required value",
		}},
		{name: "empty aggregation rule", role: &rbacv1.ClusterRole{AggregationRule: &rbacv1.AggregationRule{}}, want: []string{
			"aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if aggregationRule is non-nil",
		}},
		{name: "bad selector", role: &rbacv1.ClusterRole{AggregationRule: &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{{MatchLabels: map[string]string{"a b": "c"}}}}}, want: []string{
			`aggregationRule.clusterRoleSelectors[0].matchLabels: Invalid value: "a b": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
			"aggregationRule.clusterRoleSelectors[0]: Invalid value: null: invalid label selector.",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, e := range Strategy.ValidateUpdate(context.Background(), tc.role, tc.role) {
				got = append(got, e.Error())
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}
