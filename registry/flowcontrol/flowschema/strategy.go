// Package flowschema holds the FlowSchema strategy: the flags of kube-apiserver's
// pkg/registry/flowcontrol/flowschema strategy and storage. Its validation is the
// object metadata validation the server runs for every resource; upstream's
// rules for the rest of a FlowSchema are not reimplemented.
package flowschema

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the FlowSchema strategy.
var Strategy = flowSchemaStrategy{strategy.Base{UnconditionalUpdate: true, Generation: true, ResetStatusOnCreate: true}}

type flowSchemaStrategy struct{ strategy.Base }

// Validate adds nothing to the metadata validation of a new FlowSchema.
func (flowSchemaStrategy) Validate(context.Context, runtime.Object) field.ErrorList { return nil }

// ValidateUpdate adds nothing to the metadata validation of an update.
func (flowSchemaStrategy) ValidateUpdate(context.Context, runtime.Object, runtime.Object) field.ErrorList {
	return nil
}
