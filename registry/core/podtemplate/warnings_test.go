package podtemplate

import (
	"context"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestPodTemplateWarnings(t *testing.T) {
	ctx := context.Background()
	const deprecatedOS = `template.spec.nodeSelector[beta.kubernetes.io/os]: deprecated since v1.14; use "kubernetes.io/os" instead`
	plain := func() *corev1.PodTemplate {
		pt := &corev1.PodTemplate{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}}
		pt.Name = "with.dots"
		Strategy.Default(pt)
		return pt
	}
	deprecated := func() *corev1.PodTemplate {
		pt := plain()
		pt.Template.Spec.NodeSelector = map[string]string{"beta.kubernetes.io/os": "linux"}
		return pt
	}
	for _, tc := range []struct {
		name     string
		obj, old *corev1.PodTemplate
		want     []string
	}{
		{name: "create: a plain template has none, whatever its name", obj: plain()},
		{name: "create: the template's warnings", obj: deprecated(), want: []string{deprecatedOS}},
		{name: "update changing the template", obj: deprecated(), old: plain(), want: []string{deprecatedOS}},
		{name: "update leaving the template alone has none", old: deprecated(), obj: func() *corev1.PodTemplate {
			pt := deprecated()
			pt.Labels = map[string]string{"a": "b"}
			return pt
		}()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			if tc.old == nil {
				got = Strategy.WarningsOnCreate(ctx, tc.obj)
			} else {
				got = Strategy.WarningsOnUpdate(ctx, tc.obj, tc.old)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("warnings %q, want %q", got, tc.want)
			}
		})
	}
}
