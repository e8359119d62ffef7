package mutatingadmissionpolicy

import (
	"context"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/fakeplane/fakeplane/registry/admissionregistration"
)

// WarningsOnUpdate returns upstream's warning for an update of a
// MutatingAdmissionPolicy whose name ends with the static suffix (one
// created before ManifestBasedAdmissionControlConfig was on). A create has
// none: the suffix is an error then.
func (mutatingAdmissionPolicyStrategy) WarningsOnUpdate(_ context.Context, obj, _ runtime.Object) []string {
	return admissionregistration.StaticSuffixWarnings(obj.(*admissionregistrationv1.MutatingAdmissionPolicy).Name)
}
