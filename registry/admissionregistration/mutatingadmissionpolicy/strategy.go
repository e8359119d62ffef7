// Package mutatingadmissionpolicy holds the MutatingAdmissionPolicy strategy: the flags of kube-apiserver's
// pkg/registry/admissionregistration/mutatingadmissionpolicy strategy and storage. Its validation is the
// object metadata validation the server runs for every resource; upstream's
// rules for the rest of a MutatingAdmissionPolicy are not reimplemented.
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

// Validate adds nothing to the metadata validation of a new MutatingAdmissionPolicy.
func (mutatingAdmissionPolicyStrategy) Validate(context.Context, runtime.Object) field.ErrorList {
	return nil
}

// ValidateUpdate adds nothing to the metadata validation of an update.
func (mutatingAdmissionPolicyStrategy) ValidateUpdate(context.Context, runtime.Object, runtime.Object) field.ErrorList {
	return nil
}

// Default sets upstream's defaults: the failure policy, and the match
// policy, selectors and rule scopes of its match resources.
func (mutatingAdmissionPolicyStrategy) Default(obj runtime.Object) {
	o := obj.(*admissionregistrationv1.MutatingAdmissionPolicy)
	admissionregistration.DefaultFailurePolicy(&o.Spec.FailurePolicy)
	admissionregistration.DefaultMatchResources(o.Spec.MatchConstraints)
}
