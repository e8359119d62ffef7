// Package controllerrevision holds the ControllerRevision strategy: the flags of kube-apiserver's
// pkg/registry/apps/controllerrevision strategy and storage. Its validation is the
// object metadata validation the server runs for every resource; upstream's
// rules for the rest of a ControllerRevision are not reimplemented.
package controllerrevision

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the ControllerRevision strategy.
var Strategy = controllerRevisionStrategy{strategy.Base{Namespaced: true, UnconditionalUpdate: true}}

type controllerRevisionStrategy struct{ strategy.Base }

// Validate adds nothing to the metadata validation of a new ControllerRevision.
func (controllerRevisionStrategy) Validate(context.Context, runtime.Object) field.ErrorList {
	return nil
}

// ValidateUpdate adds nothing to the metadata validation of an update.
func (controllerRevisionStrategy) ValidateUpdate(context.Context, runtime.Object, runtime.Object) field.ErrorList {
	return nil
}
