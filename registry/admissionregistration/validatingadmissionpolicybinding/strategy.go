// Package validatingadmissionpolicybinding holds the ValidatingAdmissionPolicyBinding strategy: the flags of kube-apiserver's
// pkg/registry/admissionregistration/validatingadmissionpolicybinding strategy and storage. Its validation is the
// object metadata validation the server runs for every resource; upstream's
// rules for the rest of a ValidatingAdmissionPolicyBinding are not reimplemented.
package validatingadmissionpolicybinding

import (
	"context"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/registry/admissionregistration"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the ValidatingAdmissionPolicyBinding strategy.
var Strategy = validatingAdmissionPolicyBindingStrategy{strategy.Base{Generation: true}}

type validatingAdmissionPolicyBindingStrategy struct{ strategy.Base }

// Validate adds nothing to the metadata validation of a new ValidatingAdmissionPolicyBinding.
func (validatingAdmissionPolicyBindingStrategy) Validate(context.Context, runtime.Object) field.ErrorList {
	return nil
}

// ValidateUpdate adds nothing to the metadata validation of an update.
func (validatingAdmissionPolicyBindingStrategy) ValidateUpdate(context.Context, runtime.Object, runtime.Object) field.ErrorList {
	return nil
}

// Default sets upstream's defaults: the match policy, selectors and rule
// scopes of its match resources.
func (validatingAdmissionPolicyBindingStrategy) Default(obj runtime.Object) {
	o := obj.(*admissionregistrationv1.ValidatingAdmissionPolicyBinding)
	admissionregistration.DefaultMatchResources(o.Spec.MatchResources)
}
