// Package podcertificaterequest holds the PodCertificateRequest strategy: the flags of kube-apiserver's
// pkg/registry/certificates/podcertificaterequest strategy and storage. Its validation is the
// object metadata validation the server runs for every resource; upstream's
// rules for the rest of a PodCertificateRequest are not reimplemented.
package podcertificaterequest

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the PodCertificateRequest strategy.
var Strategy = podCertificateRequestStrategy{strategy.Base{Namespaced: true, ResetStatusOnCreate: true}}

type podCertificateRequestStrategy struct{ strategy.Base }

// Validate adds nothing to the metadata validation of a new PodCertificateRequest.
func (podCertificateRequestStrategy) Validate(context.Context, runtime.Object) field.ErrorList {
	return nil
}

// ValidateUpdate adds nothing to the metadata validation of an update.
func (podCertificateRequestStrategy) ValidateUpdate(context.Context, runtime.Object, runtime.Object) field.ErrorList {
	return nil
}
