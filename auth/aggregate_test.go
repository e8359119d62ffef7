package auth

import (
	"reflect"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func aggregatingRole(name string, labels map[string]string, selectors ...metav1.LabelSelector) *rbacv1.ClusterRole {
	cr := clusterRole(name, labels)
	cr.AggregationRule = &rbacv1.AggregationRule{ClusterRoleSelectors: selectors}
	return cr
}

func matchLabel(k, v string) metav1.LabelSelector {
	return metav1.LabelSelector{MatchLabels: map[string]string{k: v}}
}

const (
	toAdmin = "rbac.authorization.k8s.io/aggregate-to-admin"
	toEdit  = "rbac.authorization.k8s.io/aggregate-to-edit"
	toView  = "rbac.authorization.k8s.io/aggregate-to-view"
)

// aggregateAll runs the aggregation controller to a fixed point, as its
// re-syncs on every ClusterRole change do.
func aggregateAll(roles []*rbacv1.ClusterRole) map[string][]rbacv1.PolicyRule {
	for changed := true; changed; {
		changed = false
		for i, cr := range roles {
			rules := AggregateClusterRole(cr, roles)
			if !reflect.DeepEqual(rules, cr.Rules) {
				cp := cr.DeepCopy()
				cp.Rules = rules
				roles[i] = cp
				changed = true
			}
		}
	}
	out := map[string][]rbacv1.PolicyRule{}
	for _, cr := range roles {
		out[cr.Name] = cr.Rules
	}
	return out
}

func TestAggregateClusterRole(t *testing.T) {
	viewRule := rule(l("get", "list", "watch"), l(""), l("pods"))
	editRule := rule(l("create", "delete"), l(""), l("pods"))
	adminRule := rule(l("create"), l("rbac.authorization.k8s.io"), l("rolebindings"))
	crdViewRule := rule(l("get", "list"), l("example.com"), l("widgets"))

	t.Run("admin/edit/view chain", func(t *testing.T) {
		roles := []*rbacv1.ClusterRole{
			aggregatingRole("admin", nil, matchLabel(toAdmin, "true")),
			aggregatingRole("edit", map[string]string{toAdmin: "true"}, matchLabel(toEdit, "true")),
			aggregatingRole("view", map[string]string{toEdit: "true"}, matchLabel(toView, "true")),
			clusterRole("system:aggregate-to-admin", map[string]string{toAdmin: "true"}, adminRule),
			clusterRole("system:aggregate-to-edit", map[string]string{toEdit: "true"}, editRule),
			clusterRole("system:aggregate-to-view", map[string]string{toView: "true"}, viewRule),
			clusterRole("widgets-view", map[string]string{toView: "true"}, crdViewRule),
			clusterRole("unrelated", map[string]string{"team": "x"}, rule(l("*"), l("*"), l("*"))),
		}
		got := aggregateAll(roles)
		want := map[string][]rbacv1.PolicyRule{
			"view":  {viewRule, crdViewRule},
			"edit":  {editRule, viewRule, crdViewRule},
			"admin": {editRule, viewRule, crdViewRule, adminRule},
		}
		for name, w := range want {
			if !reflect.DeepEqual(got[name], w) {
				t.Errorf("%s:\n got %v\nwant %v", name, got[name], w)
			}
		}
	})

	tests := []struct {
		name   string
		target *rbacv1.ClusterRole
		all    []*rbacv1.ClusterRole
		want   []rbacv1.PolicyRule
	}{
		{
			name:   "matching roles contribute in name order, duplicates dropped",
			target: aggregatingRole("agg", nil, matchLabel("a", "1")),
			all: []*rbacv1.ClusterRole{
				clusterRole("zeta", map[string]string{"a": "1"}, editRule, viewRule),
				clusterRole("alpha", map[string]string{"a": "1"}, viewRule),
			},
			want: []rbacv1.PolicyRule{viewRule, editRule},
		},
		{
			name:   "selectors are applied in order",
			target: aggregatingRole("agg", nil, matchLabel("b", "1"), matchLabel("a", "1")),
			all: []*rbacv1.ClusterRole{
				clusterRole("alpha", map[string]string{"a": "1"}, viewRule),
				clusterRole("beta", map[string]string{"b": "1"}, editRule),
			},
			want: []rbacv1.PolicyRule{editRule, viewRule},
		},
		{
			name:   "the target itself is skipped even when it matches",
			target: aggregatingRole("agg", map[string]string{"a": "1"}, matchLabel("a", "1")),
			all: []*rbacv1.ClusterRole{
				aggregatingRole("agg", map[string]string{"a": "1"}, matchLabel("a", "1")),
				clusterRole("alpha", map[string]string{"a": "1"}, viewRule),
			},
			want: []rbacv1.PolicyRule{viewRule},
		},
		{
			name: "matchExpressions",
			target: aggregatingRole("agg", nil, metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: l("gold", "silver")},
			}}),
			all: []*rbacv1.ClusterRole{
				clusterRole("gold", map[string]string{"tier": "gold"}, viewRule),
				clusterRole("bronze", map[string]string{"tier": "bronze"}, adminRule),
				clusterRole("silver", map[string]string{"tier": "silver"}, editRule),
			},
			want: []rbacv1.PolicyRule{viewRule, editRule},
		},
		{
			name:   "nothing matches: empty, not nil",
			target: aggregatingRole("agg", nil, matchLabel("a", "1")),
			all:    []*rbacv1.ClusterRole{clusterRole("alpha", nil, viewRule)},
			want:   []rbacv1.PolicyRule{},
		},
		{
			name:   "without an aggregationRule the rules are kept",
			target: clusterRole("plain", nil, adminRule),
			all:    []*rbacv1.ClusterRole{clusterRole("alpha", map[string]string{"a": "1"}, viewRule)},
			want:   []rbacv1.PolicyRule{adminRule},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := AggregateClusterRole(tt.target, tt.all)
			if got == nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v\nwant %#v", got, tt.want)
			}
		})
	}
}
