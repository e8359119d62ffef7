// Package replicationcontroller holds the ReplicationController strategy:
// kube-apiserver's pkg/registry/core/replicationcontroller rules.
package replicationcontroller

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/operation"
	"k8s.io/apimachinery/pkg/api/validate"
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

// ValidateDeclaratively gives the metadata.name errors as upstream's
// ValidateReplicationController does: its name rule is the declarative
// long-name format (validate.LongName, whose messages count bytes), and its
// errors come among the declarative ones: after the others, before those of
// spec.replicas and spec.minReadySeconds, which Validate already puts last.
// A write to /status is left as it is.
func (rcStrategy) ValidateDeclaratively(ctx context.Context, errs field.ErrorList, obj, _ runtime.Object, status bool) field.ErrorList {
	if status {
		return errs
	}
	var rest field.ErrorList
	for _, e := range errs {
		switch {
		case e.Field == "metadata.name" && (e.Type == field.ErrorTypeInvalid || e.Type == field.ErrorTypeTooLong):
		default:
			rest = append(rest, e)
		}
	}
	name := obj.(*corev1.ReplicationController).Name
	var nameErrs field.ErrorList
	if name != "" {
		nameErrs = validate.LongName(ctx, operation.Operation{}, field.NewPath("metadata", "name"), &name, nil)
	}
	i := len(rest)
	for i > 0 && (rest[i-1].Field == "spec.replicas" || rest[i-1].Field == "spec.minReadySeconds") {
		i--
	}
	out := append(field.ErrorList{}, rest[:i]...)
	out = append(out, nameErrs...)
	return append(out, rest[i:]...)
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
