// Package validatingadmissionpolicybinding holds the ValidatingAdmissionPolicyBinding strategy: the flags of kube-apiserver's
// pkg/registry/admissionregistration/validatingadmissionpolicybinding strategy and storage, and its
// validation (../policyvalidation.go).
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

// Validate checks the binding (upstream's ValidateValidatingAdmissionPolicyBinding)
// and that the name does not end with the suffix of static configurations.
func (validatingAdmissionPolicyBindingStrategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	o := obj.(*admissionregistrationv1.ValidatingAdmissionPolicyBinding)
	return append(admissionregistration.ValidatePolicyBinding(o), admissionregistration.ValidateStaticSuffix(o.Name)...)
}

// ValidateUpdate checks the new binding as a create does.
func (validatingAdmissionPolicyBindingStrategy) ValidateUpdate(_ context.Context, obj, _ runtime.Object) field.ErrorList {
	return admissionregistration.ValidatePolicyBinding(obj.(*admissionregistrationv1.ValidatingAdmissionPolicyBinding))
}

// Default sets upstream's defaults: the match policy, selectors and rule
// scopes of its match resources.
func (validatingAdmissionPolicyBindingStrategy) Default(obj runtime.Object) {
	o := obj.(*admissionregistrationv1.ValidatingAdmissionPolicyBinding)
	admissionregistration.DefaultMatchResources(o.Spec.MatchResources)
}
