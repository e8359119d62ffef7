package daemonset

import (
	"context"
	"github.com/fakeplane/fakeplane/internal/validate/validatetest"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// valid returns a DaemonSet as defaulting leaves it.
func valid() *appsv1.DaemonSet {
	o := &appsv1.DaemonSet{}
	o.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	o.Spec.Template.Labels = map[string]string{"app": "web"}
	o.Spec.Template.Spec.Containers = []corev1.Container{{Name: "c", Image: "nginx"}}
	Strategy.Default(o)
	return o
}

func TestDaemonSetStrategy(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		obj      func() *appsv1.DaemonSet
		update   bool
		status   bool
		wantErrs []string
	}{
		{name: "valid", obj: valid},
		{name: "valid update", obj: valid, update: true},
		{name: "surge and unavailability", obj: func() *appsv1.DaemonSet {
			o := valid()
			one := intstr.FromInt32(1)
			o.Spec.UpdateStrategy.RollingUpdate.MaxSurge = &one
			return o
		}, wantErrs: []string{"spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: 1: may not be set when maxUnavailable is non-zero"}},
		{name: "selector does not match", obj: func() *appsv1.DaemonSet {
			o := valid()
			o.Spec.Template.Labels = map[string]string{"app": "db"}
			return o
		}, wantErrs: []string{"spec.template.metadata.labels: Invalid value: {\"app\":\"db\"}: `selector` does not match template `labels`"}},
		{name: "selector may not change", update: true, obj: func() *appsv1.DaemonSet {
			o := valid()
			o.Spec.Selector.MatchLabels["tier"] = "front"
			o.Spec.Template.Labels["tier"] = "front"
			return o
		}, wantErrs: []string{`spec.selector: Invalid value: {"matchLabels":{"app":"web","tier":"front"}}: field is immutable`}},
		{name: "status counts", status: true, obj: func() *appsv1.DaemonSet {
			o := valid()
			o.Status.NumberReady = -1
			return o
		}, wantErrs: []string{"status.numberReady: Invalid value: -1: must be greater than or equal to 0"}},
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
