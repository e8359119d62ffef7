// Package ipaddress holds the IPAddress strategy: the flags of kube-apiserver's
// pkg/registry/networking/ipaddress strategy and storage. Its validation is the
// object metadata validation the server runs for every resource; upstream's
// rules for the rest of a IPAddress are not reimplemented.
package ipaddress

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the IPAddress strategy.
var Strategy = ipAddressStrategy{strategy.Base{UnconditionalUpdate: true}}

type ipAddressStrategy struct{ strategy.Base }

// Validate adds nothing to the metadata validation of a new IPAddress.
func (ipAddressStrategy) Validate(context.Context, runtime.Object) field.ErrorList { return nil }

// ValidateUpdate adds nothing to the metadata validation of an update.
func (ipAddressStrategy) ValidateUpdate(context.Context, runtime.Object, runtime.Object) field.ErrorList {
	return nil
}
