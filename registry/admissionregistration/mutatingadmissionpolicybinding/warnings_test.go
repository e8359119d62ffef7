package mutatingadmissionpolicybinding

import (
	"context"
	"slices"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fakeplane/fakeplane/internal/validate/validatetest"
)

func TestMutatingAdmissionPolicyBindingStaticSuffix(t *testing.T) {
	const msg = `names ending with ".static.k8s.io" are reserved for static manifest-based configurations and cannot be managed via the API`
	for _, tc := range []struct {
		name       string
		objName    string
		wantErrs   []string
		wantUpdate []string
	}{
		{name: "plain name is valid and warns of nothing", objName: "example"},
		{name: "static suffix is refused on create and warned about on update", objName: "deny.static.k8s.io",
			wantErrs:   []string{`metadata.name: Invalid value: "deny.static.k8s.io": ` + msg},
			wantUpdate: []string{"metadata.name: " + msg}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := &admissionregistrationv1.MutatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: tc.objName}, Spec: admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{PolicyName: "example"}}
			Strategy.Default(o)
			validatetest.ExpectErrors(t, Strategy.Validate(context.Background(), o), tc.wantErrs)
			validatetest.ExpectErrors(t, Strategy.ValidateUpdate(context.Background(), o, o.DeepCopy()), nil)
			// With ManifestBasedAdmissionControlConfig on, a create warns of nothing.
			if got := Strategy.WarningsOnCreate(context.Background(), o); len(got) != 0 {
				t.Errorf("create warnings: %q", got)
			}
			if got := Strategy.WarningsOnUpdate(context.Background(), o, o.DeepCopy()); !slices.Equal(got, tc.wantUpdate) {
				t.Errorf("update warnings:\n got %q\nwant %q", got, tc.wantUpdate)
			}
		})
	}
}
