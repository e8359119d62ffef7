// Package validatingadmissionpolicy holds the ValidatingAdmissionPolicy strategy: the flags of kube-apiserver's
// pkg/registry/admissionregistration/validatingadmissionpolicy strategy and storage. Its validation is the
// object metadata validation the server runs for every resource; upstream's
// rules for the rest of a ValidatingAdmissionPolicy are not reimplemented.
package validatingadmissionpolicy

import (
	"context"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/registry/admissionregistration"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the ValidatingAdmissionPolicy strategy.
var Strategy = validatingAdmissionPolicyStrategy{strategy.Base{Generation: true, ResetStatusOnCreate: true}}

type validatingAdmissionPolicyStrategy struct{ strategy.Base }

// Validate adds nothing to the metadata validation of a new ValidatingAdmissionPolicy.
func (validatingAdmissionPolicyStrategy) Validate(context.Context, runtime.Object) field.ErrorList {
	return nil
}

// ValidateUpdate adds nothing to the metadata validation of an update.
func (validatingAdmissionPolicyStrategy) ValidateUpdate(context.Context, runtime.Object, runtime.Object) field.ErrorList {
	return nil
}

// Default sets upstream's defaults: the failure policy, and the match
// policy, selectors and rule scopes of its match resources.
func (validatingAdmissionPolicyStrategy) Default(obj runtime.Object) {
	o := obj.(*admissionregistrationv1.ValidatingAdmissionPolicy)
	admissionregistration.DefaultFailurePolicy(&o.Spec.FailurePolicy)
	admissionregistration.DefaultMatchResources(o.Spec.MatchConstraints)
}
