package deployment

import (
	"context"
	"github.com/fakeplane/fakeplane/internal/validate/validatetest"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// valid returns a Deployment as defaulting leaves it.
func valid() *appsv1.Deployment {
	o := &appsv1.Deployment{}
	o.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	o.Spec.Template.Labels = map[string]string{"app": "web"}
	o.Spec.Template.Spec.Containers = []corev1.Container{{Name: "c", Image: "nginx"}}
	Strategy.Default(o)
	return o
}

func TestDeploymentStrategy(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		obj      func() *appsv1.Deployment
		update   bool
		status   bool
		wantErrs []string
	}{
		{name: "valid", obj: valid},
		{name: "valid update", obj: valid, update: true},
		{name: "empty selector", obj: func() *appsv1.Deployment {
			o := valid()
			o.Spec.Selector = &metav1.LabelSelector{}
			o.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyOnFailure
			return o
		}, wantErrs: []string{"spec.selector: Invalid value: {}: empty selector is invalid for deployment",
			`spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"`}},
		{name: "no surge and no unavailability", obj: func() *appsv1.Deployment {
			o := valid()
			zero := intstr.FromInt32(0)
			o.Spec.Strategy.RollingUpdate.MaxSurge, o.Spec.Strategy.RollingUpdate.MaxUnavailable = &zero, &zero
			return o
		}, wantErrs: []string{"spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` is 0"}},
		{name: "selector may not change", update: true, obj: func() *appsv1.Deployment {
			o := valid()
			o.Spec.Selector.MatchLabels["tier"] = "front"
			o.Spec.Template.Labels["tier"] = "front"
			return o
		}, wantErrs: []string{`spec.selector: Invalid value: {"matchLabels":{"app":"web","tier":"front"}}: field is immutable`}},
		{name: "status above replicas", status: true, obj: func() *appsv1.Deployment {
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
