// Package role holds the Role strategy: kube-apiserver's
// pkg/registry/rbac/role rules.
package role

import (
	"context"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/registry/rbac"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the Role strategy.
var Strategy = roleStrategy{strategy.Base{Namespaced: true, CreateOnUpdate: true, UnconditionalUpdate: true}}

type roleStrategy struct{ strategy.Base }

// Validate checks a new Role's rules.
func (roleStrategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return rbac.ValidateRules(obj.(*rbacv1.Role).Rules, true)
}

// ValidateUpdate checks the rules as on create.
func (s roleStrategy) ValidateUpdate(ctx context.Context, obj, _ runtime.Object) field.ErrorList {
	return s.Validate(ctx, obj)
}
