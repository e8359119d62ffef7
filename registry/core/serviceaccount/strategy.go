// Package serviceaccount holds the ServiceAccount strategy: the flags of kube-apiserver's
// pkg/registry/core/serviceaccount strategy and storage. Its validation is the
// object metadata validation the server runs for every resource; upstream's
// rules for the rest of a ServiceAccount are not reimplemented.
package serviceaccount

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the ServiceAccount strategy.
var Strategy = serviceAccountStrategy{strategy.Base{Namespaced: true, UnconditionalUpdate: true, ReturnDeleted: true}}

type serviceAccountStrategy struct{ strategy.Base }

// Validate adds nothing to the metadata validation of a new ServiceAccount.
func (serviceAccountStrategy) Validate(context.Context, runtime.Object) field.ErrorList { return nil }

// ValidateUpdate adds nothing to the metadata validation of an update.
func (serviceAccountStrategy) ValidateUpdate(context.Context, runtime.Object, runtime.Object) field.ErrorList {
	return nil
}
