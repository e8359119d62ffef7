package replicationcontroller

import (
	"context"
	"github.com/fakeplane/fakeplane/internal/validate/validatetest"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestReplicationControllerStrategy(t *testing.T) {
	ctx := context.Background()
	valid := func() *corev1.ReplicationController {
		rc := &corev1.ReplicationController{Spec: corev1.ReplicationControllerSpec{Template: &corev1.PodTemplateSpec{}}}
		rc.Spec.Template.Labels = map[string]string{"app": "web"}
		rc.Spec.Template.Spec.Containers = []corev1.Container{{Name: "c", Image: "nginx"}}
		Strategy.Default(rc)
		return rc
	}
	for _, tc := range []struct {
		name     string
		rc       func() *corev1.ReplicationController
		status   bool
		wantErrs []string
	}{
		{name: "valid, selector and replicas defaulted", rc: valid},
		{name: "selector does not match", rc: func() *corev1.ReplicationController {
			rc := valid()
			rc.Spec.Selector = map[string]string{"app": "db"}
			rc.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyNever
			return rc
		}, wantErrs: []string{`spec.template.metadata.labels: Invalid value: {"app":"web"}: ` + "`selector` does not match template `labels`",
			`spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"`}},
		{name: "no template", rc: func() *corev1.ReplicationController {
			rc := valid()
			rc.Spec.Template = nil
			n := int32(-1)
			rc.Spec.Replicas = &n
			return rc
		}, wantErrs: []string{"spec.template: Required value",
			"spec.replicas: Invalid value: -1: must be greater than or equal to 0"}},
		{name: "status counts", status: true, rc: func() *corev1.ReplicationController {
			rc := valid()
			rc.Status.Replicas, rc.Status.ReadyReplicas, rc.Status.AvailableReplicas = 1, 2, -1
			return rc
		}, wantErrs: []string{"status.availableReplicas: Invalid value: -1: must be greater than or equal to 0",
			"status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rc := tc.rc()
			errs := Strategy.ValidateUpdate(ctx, rc, valid())
			if tc.status {
				errs = Strategy.ValidateStatusUpdate(ctx, rc, valid())
			}
			validatetest.ExpectErrors(t, errs, tc.wantErrs)
		})
	}
}
