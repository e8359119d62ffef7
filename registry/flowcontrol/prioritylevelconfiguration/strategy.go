// Package prioritylevelconfiguration holds the PriorityLevelConfiguration strategy: the flags of kube-apiserver's
// pkg/registry/flowcontrol/prioritylevelconfiguration strategy and storage. Its validation is the
// object metadata validation the server runs for every resource; upstream's
// rules for the rest of a PriorityLevelConfiguration are not reimplemented.
package prioritylevelconfiguration

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the PriorityLevelConfiguration strategy.
var Strategy = priorityLevelConfigurationStrategy{strategy.Base{UnconditionalUpdate: true, Generation: true, ResetStatusOnCreate: true}}

type priorityLevelConfigurationStrategy struct{ strategy.Base }

// Validate adds nothing to the metadata validation of a new PriorityLevelConfiguration.
func (priorityLevelConfigurationStrategy) Validate(context.Context, runtime.Object) field.ErrorList {
	return nil
}

// ValidateUpdate adds nothing to the metadata validation of an update.
func (priorityLevelConfigurationStrategy) ValidateUpdate(context.Context, runtime.Object, runtime.Object) field.ErrorList {
	return nil
}
