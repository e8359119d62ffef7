// Package runtimeclass holds the RuntimeClass strategy: the flags of kube-apiserver's
// pkg/registry/node/runtimeclass strategy and storage. Its validation is the
// object metadata validation the server runs for every resource; upstream's
// rules for the rest of a RuntimeClass are not reimplemented.
package runtimeclass

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the RuntimeClass strategy.
var Strategy = runtimeClassStrategy{strategy.Base{CreateOnUpdate: true}}

type runtimeClassStrategy struct{ strategy.Base }

// Validate adds nothing to the metadata validation of a new RuntimeClass.
func (runtimeClassStrategy) Validate(context.Context, runtime.Object) field.ErrorList { return nil }

// ValidateUpdate adds nothing to the metadata validation of an update.
func (runtimeClassStrategy) ValidateUpdate(context.Context, runtime.Object, runtime.Object) field.ErrorList {
	return nil
}
