package replicationcontroller

import (
	"context"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

func TestReplicationControllerWarnings(t *testing.T) {
	ctx := context.Background()
	const (
		nameWarning  = "metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: [must not contain dots]"
		deprecatedOS = `spec.template.spec.nodeSelector[beta.kubernetes.io/os]: deprecated since v1.14; use "kubernetes.io/os" instead`
	)
	rc := func(name string, f func(*corev1.ReplicationController)) *corev1.ReplicationController {
		rc := &corev1.ReplicationController{Spec: corev1.ReplicationControllerSpec{Template: &corev1.PodTemplateSpec{}}}
		rc.Name = name
		rc.Spec.Template.Labels = map[string]string{"app": "web"}
		rc.Spec.Template.Spec.Containers = []corev1.Container{{Name: "c", Image: "nginx"}}
		Strategy.Default(rc)
		f(rc)
		return rc
	}
	deprecated := func(rc *corev1.ReplicationController) {
		rc.Spec.Template.Spec.NodeSelector = map[string]string{"beta.kubernetes.io/os": "linux"}
	}
	for _, tc := range []struct {
		name     string
		obj, old *corev1.ReplicationController
		want     []string
	}{
		{name: "create: a plain one has none", obj: rc("web", func(*corev1.ReplicationController) {})},
		{name: "create: name that is not a DNS label, then the template's", obj: rc("web.v1", deprecated), want: []string{nameWarning, deprecatedOS}},
		{name: "create: no template", obj: rc("web.v1", func(rc *corev1.ReplicationController) { rc.Spec.Template = nil }), want: []string{nameWarning}},
		{name: "update: the stored template's warnings when the spec changes", old: rc("web.v1", deprecated), obj: rc("web.v1", func(rc *corev1.ReplicationController) {
			rc.Spec.Replicas = ptr.To[int32](3)
		}), want: []string{deprecatedOS}},
		{name: "update: not the new template's", old: rc("web", func(*corev1.ReplicationController) {}), obj: rc("web", deprecated)},
		{name: "update leaving the spec alone has none", old: rc("web.v1", deprecated), obj: rc("web.v1", func(rc *corev1.ReplicationController) {
			deprecated(rc)
			rc.Labels = map[string]string{"a": "b"}
		})},
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
