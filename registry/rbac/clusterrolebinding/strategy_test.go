package clusterrolebinding

import (
	"context"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
)

func TestClusterRoleBindingStrategy(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    *rbacv1.ClusterRoleBinding
		want []string
	}{
		{name: "valid", b: &rbacv1.ClusterRoleBinding{RoleRef: rbacv1.RoleRef{Kind: "ClusterRole", Name: "r"}, Subjects: []rbacv1.Subject{{Kind: "Group", Name: "g"}}}},
		{name: "role and namespace-less service account", b: &rbacv1.ClusterRoleBinding{RoleRef: rbacv1.RoleRef{Kind: "Role", Name: "r"}, Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "sa"}}}, want: []string{
			`roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"`,
			"subjects[0].namespace: Required value",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			Strategy.Default(tc.b)
			var got []string
			for _, e := range Strategy.ValidateUpdate(context.Background(), tc.b, tc.b.DeepCopy()) {
				got = append(got, e.Error())
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}
