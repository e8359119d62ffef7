// Package clusterrolebinding holds the ClusterRoleBinding strategy:
// kube-apiserver's pkg/registry/rbac/clusterrolebinding rules.
package clusterrolebinding

import (
	"context"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate"
	"github.com/fakeplane/fakeplane/registry/rbac"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the ClusterRoleBinding strategy.
var Strategy = clusterRoleBindingStrategy{strategy.Base{CreateOnUpdate: true, UnconditionalUpdate: true}}

type clusterRoleBindingStrategy struct{ strategy.Base }

// Default sets the API group of the roleRef and of user and group subjects.
func (clusterRoleBindingStrategy) Default(obj runtime.Object) {
	b := obj.(*rbacv1.ClusterRoleBinding)
	rbac.DefaultBinding(&b.RoleRef, b.Subjects)
}

// Validate checks a new ClusterRoleBinding's roleRef and subjects.
func (clusterRoleBindingStrategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	b := obj.(*rbacv1.ClusterRoleBinding)
	return rbac.ValidateBinding(b.RoleRef, []string{"ClusterRole"}, b.Subjects, false)
}

// ValidateUpdate also keeps the roleRef.
func (s clusterRoleBindingStrategy) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	errs := s.Validate(ctx, obj)
	return append(errs, validate.ImmutableInternal(obj.(*rbacv1.ClusterRoleBinding).RoleRef, old.(*rbacv1.ClusterRoleBinding).RoleRef, field.NewPath("roleRef"))...)
}
