package deployment

import (
	"context"
	"reflect"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/utils/ptr"
)

func TestDeploymentWarnings(t *testing.T) {
	ctx := context.Background()
	const (
		nameWarning  = "metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: [must not contain dots]"
		deprecatedOS = `spec.template.spec.nodeSelector[beta.kubernetes.io/os]: deprecated since v1.14; use "kubernetes.io/os" instead`
	)
	obj := func(name string, f func(*appsv1.Deployment)) *appsv1.Deployment {
		d := valid()
		d.Name = name
		d.Spec.Template.Spec.NodeSelector = map[string]string{"beta.kubernetes.io/os": "linux"}
		f(d)
		return d
	}
	same := func(*appsv1.Deployment) {}
	for _, tc := range []struct {
		name     string
		obj, old *appsv1.Deployment
		want     []string
	}{
		{name: "create: a plain one has none", obj: obj("web", func(d *appsv1.Deployment) { d.Spec.Template.Spec.NodeSelector = nil })},
		{name: "create: name that is not a DNS label, then the template's", obj: obj("web.v1", same), want: []string{nameWarning, deprecatedOS}},
		{name: "update changing the spec", old: obj("web.v1", same), obj: obj("web.v1", func(d *appsv1.Deployment) { d.Spec.Replicas = ptr.To[int32](5) }), want: []string{deprecatedOS}},
		{name: "update changing the annotations", old: obj("web.v1", same), obj: obj("web.v1", func(d *appsv1.Deployment) { d.Annotations = map[string]string{"a": "b"} }), want: []string{deprecatedOS}},
		{name: "update changing the labels has none", old: obj("web.v1", same), obj: obj("web.v1", func(d *appsv1.Deployment) { d.Labels = map[string]string{"a": "b"} })},
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
