// Package validatingadmissionpolicy holds the ValidatingAdmissionPolicy strategy: the flags of kube-apiserver's
// pkg/registry/admissionregistration/validatingadmissionpolicy strategy and storage, and its
// validation (../policyvalidation.go).
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

// Validate checks the policy (upstream's ValidateValidatingAdmissionPolicy)
// and that the name does not end with the suffix of static configurations.
func (validatingAdmissionPolicyStrategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	o := obj.(*admissionregistrationv1.ValidatingAdmissionPolicy)
	return append(admissionregistration.ValidatePolicy(o, nil), admissionregistration.ValidateStaticSuffix(o.Name)...)
}

// ValidateUpdate checks the new policy against the stored one
// (upstream's ValidateValidatingAdmissionPolicyUpdate).
func (validatingAdmissionPolicyStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return admissionregistration.ValidatePolicy(obj.(*admissionregistrationv1.ValidatingAdmissionPolicy), old.(*admissionregistrationv1.ValidatingAdmissionPolicy))
}

// Default sets upstream's defaults: the failure policy, and the match
// policy, selectors and rule scopes of its match resources.
func (validatingAdmissionPolicyStrategy) Default(obj runtime.Object) {
	o := obj.(*admissionregistrationv1.ValidatingAdmissionPolicy)
	admissionregistration.DefaultFailurePolicy(&o.Spec.FailurePolicy)
	admissionregistration.DefaultMatchResources(o.Spec.MatchConstraints)
}
