package podtemplate

import (
	"context"
	"github.com/fakeplane/fakeplane/internal/validate/validatetest"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestPodTemplateStrategy(t *testing.T) {
	ctx := context.Background()
	valid := func() *corev1.PodTemplate {
		pt := &corev1.PodTemplate{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}}
		Strategy.Default(pt)
		return pt
	}
	for _, tc := range []struct {
		name     string
		pt       func() *corev1.PodTemplate
		update   bool
		wantErrs []string
	}{
		{name: "valid", pt: valid},
		{name: "valid update", pt: valid, update: true},
		{name: "bad label", pt: func() *corev1.PodTemplate {
			pt := valid()
			pt.Template.Labels = map[string]string{"a": "b c"}
			return pt
		}, wantErrs: []string{`template.labels: Invalid value: "b c": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`}},
		{name: "ephemeral containers", update: true, pt: func() *corev1.PodTemplate {
			pt := valid()
			// Empty but for what the server's defaulting sets.
			pt.Template.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{
				TerminationMessagePolicy: corev1.TerminationMessageReadFile, ImagePullPolicy: corev1.PullIfNotPresent}}}
			pt.Template.Spec.Containers[0].Image = ""
			return pt
		}, // As refplane answered: the ephemeral container is checked, then refused.
			wantErrs: []string{"template.spec.containers[0].image: Required value",
				"template.spec.ephemeralContainers[0].name: Required value", "template.spec.ephemeralContainers[0].image: Required value",
				"template.spec.ephemeralContainers: Forbidden: ephemeral containers not allowed in pod template"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pt := tc.pt()
			errs := Strategy.Validate(ctx, pt)
			if tc.update {
				errs = Strategy.ValidateUpdate(ctx, pt, valid())
			}
			validatetest.ExpectErrors(t, errs, tc.wantErrs)
		})
	}
}
