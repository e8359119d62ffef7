// Package replicaset holds the ReplicaSet strategy: kube-apiserver's
// pkg/registry/apps/replicaset rules.
package replicaset

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the ReplicaSet strategy.
var Strategy = replicaSetStrategy{strategy.Base{Namespaced: true, UnconditionalUpdate: true, Generation: true, ResetStatusOnCreate: true, StatusWritesMetadata: true, NameRuleOnCreateOnly: true}}

type replicaSetStrategy struct{ strategy.Base }

// Validate is upstream's ValidateReplicaSet less the metadata.
func (replicaSetStrategy) Validate(ctx context.Context, obj runtime.Object) field.ErrorList {
	return validateReplicaSet(ctx, obj.(*appsv1.ReplicaSet))
}

// ValidateUpdate is upstream's ValidateReplicaSetUpdate less the metadata.
func (replicaSetStrategy) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	n, p := obj.(*appsv1.ReplicaSet), old.(*appsv1.ReplicaSet)
	return append(validateReplicaSet(ctx, n), validate.ImmutableField(n.Spec.Selector, p.Spec.Selector, field.NewPath("spec", "selector"))...)
}

// ValidateStatusUpdate is upstream's ValidateReplicaSetStatusUpdate less the
// metadata.
func (replicaSetStrategy) ValidateStatusUpdate(_ context.Context, obj, _ runtime.Object) field.ErrorList {
	return validateReplicaSetStatus(obj.(*appsv1.ReplicaSet))
}

// Default is upstream's SetDefaults_ReplicaSet.
func (replicaSetStrategy) Default(obj runtime.Object) {
	defaultReplicaSet(obj.(*appsv1.ReplicaSet))
}
