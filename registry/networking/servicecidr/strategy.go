// Package servicecidr holds the ServiceCIDR strategy: the flags of kube-apiserver's
// pkg/registry/networking/servicecidr strategy and storage. Its validation is the
// object metadata validation the server runs for every resource; upstream's
// rules for the rest of a ServiceCIDR are not reimplemented.
package servicecidr

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the ServiceCIDR strategy.
var Strategy = serviceCIDRStrategy{strategy.Base{UnconditionalUpdate: true, ResetStatusOnCreate: true}}

type serviceCIDRStrategy struct{ strategy.Base }

// Validate adds nothing to the metadata validation of a new ServiceCIDR.
func (serviceCIDRStrategy) Validate(context.Context, runtime.Object) field.ErrorList { return nil }

// ValidateUpdate adds nothing to the metadata validation of an update.
func (serviceCIDRStrategy) ValidateUpdate(context.Context, runtime.Object, runtime.Object) field.ErrorList {
	return nil
}
