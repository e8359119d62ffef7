// Package rolebinding holds the RoleBinding strategy: kube-apiserver's
// pkg/registry/rbac/rolebinding rules.
package rolebinding

import (
	"context"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate"
	"github.com/fakeplane/fakeplane/registry/rbac"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the RoleBinding strategy.
var Strategy = roleBindingStrategy{strategy.Base{Namespaced: true, CreateOnUpdate: true, UnconditionalUpdate: true}}

type roleBindingStrategy struct{ strategy.Base }

// Default sets the API group of the roleRef and of user and group subjects.
func (roleBindingStrategy) Default(obj runtime.Object) {
	b := obj.(*rbacv1.RoleBinding)
	rbac.DefaultBinding(&b.RoleRef, b.Subjects)
}

// Validate checks a new RoleBinding's roleRef and subjects.
func (roleBindingStrategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	b := obj.(*rbacv1.RoleBinding)
	return rbac.ValidateBinding(b.RoleRef, []string{"Role", "ClusterRole"}, b.Subjects, true)
}

// ValidateUpdate also keeps the roleRef.
func (s roleBindingStrategy) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	errs := s.Validate(ctx, obj)
	return append(errs, validate.ImmutableInternal(obj.(*rbacv1.RoleBinding).RoleRef, old.(*rbacv1.RoleBinding).RoleRef, field.NewPath("roleRef"))...)
}
