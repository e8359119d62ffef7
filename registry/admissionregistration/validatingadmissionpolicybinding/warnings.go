package validatingadmissionpolicybinding

import (
	"context"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/fakeplane/fakeplane/registry/admissionregistration"
)

// WarningsOnUpdate returns upstream's warning for an update of a
// ValidatingAdmissionPolicyBinding whose name ends with the static suffix
// (one created before ManifestBasedAdmissionControlConfig was on). A create
// has none: the suffix is an error then.
func (validatingAdmissionPolicyBindingStrategy) WarningsOnUpdate(_ context.Context, obj, _ runtime.Object) []string {
	return admissionregistration.StaticSuffixWarnings(obj.(*admissionregistrationv1.ValidatingAdmissionPolicyBinding).Name)
}
