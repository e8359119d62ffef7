// Package deployment holds the Deployment strategy: kube-apiserver's
// pkg/registry/apps/deployment rules.
package deployment

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the Deployment strategy.
var Strategy = deploymentStrategy{strategy.Base{Namespaced: true, UnconditionalUpdate: true, Generation: true, ResetStatusOnCreate: true, StatusWritesMetadata: true, NameRuleOnCreateOnly: true}}

type deploymentStrategy struct{ strategy.Base }

// Validate is upstream's ValidateDeployment less the metadata.
func (deploymentStrategy) Validate(ctx context.Context, obj runtime.Object) field.ErrorList {
	return validateDeployment(ctx, obj.(*appsv1.Deployment))
}

// ValidateUpdate is upstream's ValidateDeploymentUpdate less the metadata.
func (deploymentStrategy) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	n, p := obj.(*appsv1.Deployment), old.(*appsv1.Deployment)
	return append(validateDeployment(ctx, n), validate.ImmutableField(n.Spec.Selector, p.Spec.Selector, field.NewPath("spec", "selector"))...)
}

// ValidateStatusUpdate is upstream's ValidateDeploymentStatusUpdate less the
// metadata.
func (deploymentStrategy) ValidateStatusUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	n, p := obj.(*appsv1.Deployment), old.(*appsv1.Deployment)
	return validateDeploymentStatus(n, p)
}

// Default is upstream's SetDefaults_Deployment.
func (deploymentStrategy) Default(obj runtime.Object) {
	defaultDeployment(obj.(*appsv1.Deployment))
}

// PrepareForStatusUpdate keeps the labels: upstream's deployment status
// strategy does not let a write to /status change them (annotations and
// the rest of the metadata it does).
func (deploymentStrategy) PrepareForStatusUpdate(_ context.Context, obj, old runtime.Object) {
	obj.(*appsv1.Deployment).Labels = old.(*appsv1.Deployment).Labels
}
