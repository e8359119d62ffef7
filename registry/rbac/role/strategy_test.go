package role

import (
	"context"
	"github.com/fakeplane/fakeplane/internal/validate/validatetest"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
)

func TestRoleStrategy(t *testing.T) {
	for _, tc := range []struct {
		name string
		role *rbacv1.Role
		want []string
	}{
		{name: "valid", role: &rbacv1.Role{Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get"}}}}},
		{name: "no verbs, groups or resources", role: &rbacv1.Role{Rules: []rbacv1.PolicyRule{{}}}, want: []string{
			"rules[0].apiGroups: Required value: resource rules must supply at least one api group",
			"rules[0].resources: Required value: resource rules must supply at least one resource",
			"rules[0].verbs: Required value",
		}},
		{name: "non-resource URLs", role: &rbacv1.Role{Rules: []rbacv1.PolicyRule{{NonResourceURLs: []string{"/healthz"}, Verbs: []string{"get"}}}}, want: []string{
			`rules[0].nonResourceURLs: Invalid value: ["/healthz"]: namespaced rules cannot apply to non-resource URLs`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			validatetest.ExpectErrors(t, Strategy.Validate(context.Background(), tc.role), tc.want)
			validatetest.ExpectErrors(t, Strategy.ValidateUpdate(context.Background(), tc.role, tc.role), tc.want)
		})
	}
}
