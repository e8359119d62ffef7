package daemonset

import (
	"context"
	"reflect"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
)

func TestDaemonSetWarnings(t *testing.T) {
	ctx := context.Background()
	const deprecatedOS = `spec.template.spec.nodeSelector[beta.kubernetes.io/os]: deprecated since v1.14; use "kubernetes.io/os" instead`
	obj := func(f func(*appsv1.DaemonSet)) *appsv1.DaemonSet {
		ds := valid()
		ds.Name = "agent.v1"
		ds.Spec.Template.Spec.NodeSelector = map[string]string{"beta.kubernetes.io/os": "linux"}
		f(ds)
		return ds
	}
	stored := func() *appsv1.DaemonSet {
		ds := obj(func(*appsv1.DaemonSet) {})
		SetTemplateGeneration(ds, 1)
		return ds
	}
	for _, tc := range []struct {
		name string
		obj  *appsv1.DaemonSet
		old  *appsv1.DaemonSet
		want []string
	}{
		{name: "create: a plain one has none, whatever its name", obj: obj(func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.NodeSelector = nil })},
		{name: "create: the template's", obj: obj(func(*appsv1.DaemonSet) {}), want: []string{deprecatedOS}},
		{name: "update changing the template", old: stored(), obj: obj(func(ds *appsv1.DaemonSet) { ds.Spec.Template.Labels["tier"] = "node" }), want: []string{deprecatedOS}},
		{name: "update changing the spec outside the template has none", old: stored(), obj: obj(func(ds *appsv1.DaemonSet) { ds.Spec.MinReadySeconds = 10 })},
		{name: "update leaving the spec alone has none", old: stored(), obj: obj(func(*appsv1.DaemonSet) {})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			if tc.old == nil {
				Strategy.PrepareForCreate(ctx, tc.obj)
				got = Strategy.WarningsOnCreate(ctx, tc.obj)
			} else {
				// The template generation the warnings go by is
				// PrepareForUpdate's.
				Strategy.PrepareForUpdate(ctx, tc.obj, tc.old)
				got = Strategy.WarningsOnUpdate(ctx, tc.obj, tc.old)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("warnings %q, want %q", got, tc.want)
			}
		})
	}
}
