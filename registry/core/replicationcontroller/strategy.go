// Package replicationcontroller holds the ReplicationController strategy:
// kube-apiserver's pkg/registry/core/replicationcontroller rules.
package replicationcontroller

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the ReplicationController strategy.
var Strategy = rcStrategy{strategy.Base{Namespaced: true, UnconditionalUpdate: true, Generation: true, ResetStatusOnCreate: true, StatusWritesMetadata: true}}

type rcStrategy struct{ strategy.Base }

// Validate is upstream's ValidateReplicationController less the metadata.
func (rcStrategy) Validate(ctx context.Context, obj runtime.Object) field.ErrorList {
	return validateReplicationController(ctx, obj.(*corev1.ReplicationController))
}

// ValidateUpdate checks the new object as on create.
func (s rcStrategy) ValidateUpdate(ctx context.Context, obj, _ runtime.Object) field.ErrorList {
	return s.Validate(ctx, obj)
}

// ValidateStatusUpdate is upstream's ValidateReplicationControllerStatusUpdate
// less the metadata.
func (rcStrategy) ValidateStatusUpdate(_ context.Context, obj, _ runtime.Object) field.ErrorList {
	return validateReplicationControllerStatus(obj.(*corev1.ReplicationController))
}

// Default is upstream's SetDefaults_ReplicationController.
func (rcStrategy) Default(obj runtime.Object) {
	defaultReplicationController(obj.(*corev1.ReplicationController))
}
