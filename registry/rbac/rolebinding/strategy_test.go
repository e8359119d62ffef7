package rolebinding

import (
	"context"
	"github.com/fakeplane/fakeplane/internal/validate/validatetest"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
)

func TestRoleBindingStrategy(t *testing.T) {
	ref := rbacv1.RoleRef{Kind: "Role", Name: "r"}
	for _, tc := range []struct {
		name   string
		b, old *rbacv1.RoleBinding
		want   []string
	}{
		{name: "defaulted", b: &rbacv1.RoleBinding{RoleRef: ref, Subjects: []rbacv1.Subject{{Kind: "User", Name: "u"}, {Kind: "ServiceAccount", Name: "sa"}}}},
		{name: "bad subjects and ref", b: &rbacv1.RoleBinding{RoleRef: rbacv1.RoleRef{Kind: "Pod"}, Subjects: []rbacv1.Subject{{Kind: "Robot"}}}, want: []string{
			`roleRef.kind: Unsupported value: "Pod": supported values: "Role", "ClusterRole"`,
			`subjects[0].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"`,
			"subjects[0].name: Required value",
			"roleRef.name: Required value",
		}},
		{name: "roleRef changed", b: &rbacv1.RoleBinding{RoleRef: ref}, old: &rbacv1.RoleBinding{RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "old"}}, want: []string{
			`roleRef: Invalid value: {"APIGroup":"rbac.authorization.k8s.io","Kind":"Role","Name":"r"}: field is immutable`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			Strategy.Default(tc.b)
			errs := Strategy.Validate(context.Background(), tc.b)
			if tc.old != nil {
				errs = Strategy.ValidateUpdate(context.Background(), tc.b, tc.old)
			}
			validatetest.ExpectErrors(t, errs, tc.want)
		})
	}
}
