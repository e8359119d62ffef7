// Package mutatingadmissionpolicybinding holds the MutatingAdmissionPolicyBinding strategy: the flags of kube-apiserver's
// pkg/registry/admissionregistration/mutatingadmissionpolicybinding strategy and storage, and its
// validation (../mutatingpolicyvalidation.go).
package mutatingadmissionpolicybinding

import (
	"context"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/registry/admissionregistration"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the MutatingAdmissionPolicyBinding strategy.
var Strategy = mutatingAdmissionPolicyBindingStrategy{strategy.Base{Generation: true}}

type mutatingAdmissionPolicyBindingStrategy struct{ strategy.Base }

// Validate checks the binding (upstream's
// ValidateMutatingAdmissionPolicyBinding) and that the name does not end
// with the suffix of static configurations.
func (mutatingAdmissionPolicyBindingStrategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	o := obj.(*admissionregistrationv1.MutatingAdmissionPolicyBinding)
	return append(admissionregistration.ValidateMutatingPolicyBinding(o), admissionregistration.ValidateStaticSuffix(o.Name)...)
}

// ValidateUpdate checks the new binding as a new one (upstream's
// ValidateMutatingAdmissionPolicyBindingUpdate).
func (mutatingAdmissionPolicyBindingStrategy) ValidateUpdate(_ context.Context, obj, _ runtime.Object) field.ErrorList {
	return admissionregistration.ValidateMutatingPolicyBinding(obj.(*admissionregistrationv1.MutatingAdmissionPolicyBinding))
}

// Default sets upstream's defaults: the match policy, selectors and rule
// scopes of its match resources.
func (mutatingAdmissionPolicyBindingStrategy) Default(obj runtime.Object) {
	o := obj.(*admissionregistrationv1.MutatingAdmissionPolicyBinding)
	admissionregistration.DefaultMatchResources(o.Spec.MatchResources)
}
