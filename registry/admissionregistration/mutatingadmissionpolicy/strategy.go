// Package mutatingadmissionpolicy holds the MutatingAdmissionPolicy strategy: the flags of kube-apiserver's
// pkg/registry/admissionregistration/mutatingadmissionpolicy strategy and storage, and its
// validation (../mutatingpolicyvalidation.go).
package mutatingadmissionpolicy

import (
	"context"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/registry/admissionregistration"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the MutatingAdmissionPolicy strategy.
var Strategy = mutatingAdmissionPolicyStrategy{strategy.Base{Generation: true}}

type mutatingAdmissionPolicyStrategy struct{ strategy.Base }

// Validate checks the policy (upstream's ValidateMutatingAdmissionPolicy)
// and that the name does not end with the suffix of static configurations.
func (mutatingAdmissionPolicyStrategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	o := obj.(*admissionregistrationv1.MutatingAdmissionPolicy)
	return append(admissionregistration.ValidateMutatingPolicy(o, nil), admissionregistration.ValidateStaticSuffix(o.Name)...)
}

// ValidateUpdate checks the new policy against the stored one (upstream's
// ValidateMutatingAdmissionPolicyUpdate).
func (mutatingAdmissionPolicyStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return admissionregistration.ValidateMutatingPolicy(obj.(*admissionregistrationv1.MutatingAdmissionPolicy), old.(*admissionregistrationv1.MutatingAdmissionPolicy))
}

// Default sets upstream's defaults: the failure policy, and the match
// policy, selectors and rule scopes of its match resources.
func (mutatingAdmissionPolicyStrategy) Default(obj runtime.Object) {
	o := obj.(*admissionregistrationv1.MutatingAdmissionPolicy)
	admissionregistration.DefaultFailurePolicy(&o.Spec.FailurePolicy)
	admissionregistration.DefaultMatchResources(o.Spec.MatchConstraints)
}
