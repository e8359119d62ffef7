package statefulset

import (
	"context"
	"github.com/fakeplane/fakeplane/internal/validate/validatetest"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// valid returns a StatefulSet as defaulting leaves it.
func valid() *appsv1.StatefulSet {
	o := &appsv1.StatefulSet{}
	o.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	o.Spec.Template.Labels = map[string]string{"app": "web"}
	o.Spec.Template.Spec.Containers = []corev1.Container{{Name: "c", Image: "nginx"}}
	Strategy.Default(o)
	return o
}

func TestStatefulSetStrategy(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		obj      func() *appsv1.StatefulSet
		update   bool
		status   bool
		wantErrs []string
	}{
		{name: "valid", obj: valid},
		{name: "valid update", obj: valid, update: true},
		{name: "bad pod management policy", obj: func() *appsv1.StatefulSet {
			o := valid()
			o.Spec.PodManagementPolicy = "Sometimes"
			return o
		}, wantErrs: []string{`spec.podManagementPolicy: Invalid value: "Sometimes": must be 'OrderedReady' or 'Parallel'`}},
		{name: "claim template without storage", obj: func() *appsv1.StatefulSet {
			o := valid()
			o.Spec.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{{ObjectMeta: metav1.ObjectMeta{Name: "data"}, Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}}}}
			return o
		}, wantErrs: []string{"spec.volumeClaimTemplates[0].spec.resources[storage]: Required value"}},
		{name: "service name may not change", update: true, obj: func() *appsv1.StatefulSet {
			o := valid()
			o.Spec.ServiceName = "web"
			return o
		}, wantErrs: []string{`spec.serviceName: Invalid value: "web": field is immutable`}},
		{name: "ready above replicas", status: true, obj: func() *appsv1.StatefulSet {
			o := valid()
			o.Status.Replicas, o.Status.ReadyReplicas = 1, 2
			return o
		}, wantErrs: []string{"status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.obj()
			errs := Strategy.Validate(ctx, o)
			switch {
			case tc.status:
				errs = Strategy.ValidateStatusUpdate(ctx, o, valid())
			case tc.update:
				errs = Strategy.ValidateUpdate(ctx, o, valid())
			}
			validatetest.ExpectErrors(t, errs, tc.wantErrs)
		})
	}
}
