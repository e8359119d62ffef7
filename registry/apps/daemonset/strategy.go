// Package daemonset holds the DaemonSet strategy: kube-apiserver's
// pkg/registry/apps/daemonset rules.
package daemonset

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the DaemonSet strategy.
var Strategy = daemonSetStrategy{strategy.Base{Namespaced: true, UnconditionalUpdate: true, Generation: true, ResetStatusOnCreate: true, StatusWritesMetadata: true, NameRuleOnCreateOnly: true}}

type daemonSetStrategy struct{ strategy.Base }

// Validate is upstream's ValidateDaemonSet less the metadata.
func (daemonSetStrategy) Validate(ctx context.Context, obj runtime.Object) field.ErrorList {
	return validateDaemonSet(ctx, obj.(*appsv1.DaemonSet))
}

// ValidateUpdate is upstream's ValidateDaemonSetUpdate less the metadata.
func (daemonSetStrategy) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	n, p := obj.(*appsv1.DaemonSet), old.(*appsv1.DaemonSet)
	return append(validate.ImmutableField(n.Spec.Selector, p.Spec.Selector, field.NewPath("spec", "selector")), validateDaemonSet(ctx, n)...)
}

// ValidateStatusUpdate is upstream's ValidateDaemonSetStatusUpdate less the
// metadata.
func (daemonSetStrategy) ValidateStatusUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	n, p := obj.(*appsv1.DaemonSet), old.(*appsv1.DaemonSet)
	return validateDaemonSetStatus(n, p)
}

// Default is upstream's SetDefaults_DaemonSet.
func (daemonSetStrategy) Default(obj runtime.Object) {
	defaultDaemonSet(obj.(*appsv1.DaemonSet))
}
