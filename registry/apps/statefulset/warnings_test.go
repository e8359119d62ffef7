package statefulset

import (
	"context"
	"reflect"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"
)

func TestStatefulSetWarnings(t *testing.T) {
	ctx := context.Background()
	const (
		deprecatedOS  = `spec.template.spec.nodeSelector[beta.kubernetes.io/os]: deprecated since v1.14; use "kubernetes.io/os" instead`
		claimOnCreate = `spec.volumeClaimTemplates[1].resources.limits[storage]: fractional byte value "1500m" is invalid, must be an integer`
		claimOnUpdate = `spec.volumeClaimTemplates[1].Spec.resources.limits[storage]: fractional byte value "1500m" is invalid, must be an integer`
		history       = "spec.revisionHistoryLimit: a negative value retains all historical revisions; a value >= 0 is recommended"
	)
	obj := func(f func(*appsv1.StatefulSet)) *appsv1.StatefulSet {
		ss := valid()
		ss.Name = "web.v1"
		ss.Spec.Template.Spec.NodeSelector = map[string]string{"beta.kubernetes.io/os": "linux"}
		ss.Spec.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{
			{Spec: corev1.PersistentVolumeClaimSpec{Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}},
			{Spec: corev1.PersistentVolumeClaimSpec{Resources: corev1.VolumeResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1.5")}}}},
		}
		ss.Spec.RevisionHistoryLimit = ptr.To[int32](-1)
		f(ss)
		return ss
	}
	same := func(*appsv1.StatefulSet) {}
	for _, tc := range []struct {
		name     string
		obj, old *appsv1.StatefulSet
		want     []string
	}{
		{name: "create: a plain one has none, whatever its name", obj: obj(func(ss *appsv1.StatefulSet) {
			ss.Spec.Template.Spec.NodeSelector, ss.Spec.VolumeClaimTemplates, ss.Spec.RevisionHistoryLimit = nil, nil, ptr.To[int32](0)
		})},
		{name: "create: template, claim templates at their index, negative history", obj: obj(same), want: []string{deprecatedOS, claimOnCreate, history}},
		{name: "update changing the spec: template, claim templates' Spec, negative history", old: obj(same), obj: obj(func(ss *appsv1.StatefulSet) { ss.Spec.Replicas = ptr.To[int32](5) }),
			want: []string{deprecatedOS, claimOnUpdate, history}},
		{name: "update leaving the spec alone: claim templates and history still", old: obj(same), obj: obj(func(ss *appsv1.StatefulSet) { ss.Labels = map[string]string{"a": "b"} }),
			want: []string{claimOnUpdate, history}},
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
