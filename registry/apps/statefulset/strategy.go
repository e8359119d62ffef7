// Package statefulset holds the StatefulSet strategy: kube-apiserver's
// pkg/registry/apps/statefulset rules.
package statefulset

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the StatefulSet strategy.
var Strategy = statefulSetStrategy{strategy.Base{Namespaced: true, UnconditionalUpdate: true, Generation: true, ResetStatusOnCreate: true, StatusWritesMetadata: true, NameRuleOnCreateOnly: true}}

type statefulSetStrategy struct{ strategy.Base }

// Validate is upstream's ValidateStatefulSet less the metadata.
func (statefulSetStrategy) Validate(ctx context.Context, obj runtime.Object) field.ErrorList {
	return validateStatefulSet(ctx, obj.(*appsv1.StatefulSet), setOptions{})
}

// ValidateUpdate is upstream's ValidateStatefulSetUpdate less the metadata.
func (statefulSetStrategy) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	n, p := obj.(*appsv1.StatefulSet), old.(*appsv1.StatefulSet)
	return validateStatefulSetUpdate(ctx, n, p)
}

// ValidateStatusUpdate is upstream's ValidateStatefulSetStatusUpdate less the
// metadata.
func (statefulSetStrategy) ValidateStatusUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	n, p := obj.(*appsv1.StatefulSet), old.(*appsv1.StatefulSet)
	return validateStatefulSetStatus(n, p)
}

// Default is upstream's SetDefaults_StatefulSet.
func (statefulSetStrategy) Default(obj runtime.Object) {
	defaultStatefulSet(obj.(*appsv1.StatefulSet))
}
