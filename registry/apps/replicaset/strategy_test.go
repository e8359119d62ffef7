package replicaset

import (
	"context"
	"github.com/fakeplane/fakeplane/internal/validate/validatetest"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// valid returns a ReplicaSet as defaulting leaves it.
func valid() *appsv1.ReplicaSet {
	o := &appsv1.ReplicaSet{}
	o.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	o.Spec.Template.Labels = map[string]string{"app": "web"}
	o.Spec.Template.Spec.Containers = []corev1.Container{{Name: "c", Image: "nginx"}}
	Strategy.Default(o)
	return o
}

func TestReplicaSetStrategy(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		obj      func() *appsv1.ReplicaSet
		update   bool
		status   bool
		wantErrs []string
	}{
		{name: "valid", obj: valid},
		{name: "valid update", obj: valid, update: true},
		{name: "no selector", obj: func() *appsv1.ReplicaSet {
			o := valid()
			o.Spec.Selector = nil
			return o
		}, wantErrs: []string{"spec.selector: Required value",
			"spec.template.metadata.labels: Invalid value: {\"app\":\"web\"}: `selector` does not match template `labels`"}},
		{name: "negative replicas", obj: func() *appsv1.ReplicaSet {
			o := valid()
			o.Spec.Replicas = ptr.To[int32](-1)
			return o
		}, wantErrs: []string{"spec.replicas: Invalid value: -1: must be greater than or equal to 0"}},
		{name: "selector may not change", update: true, obj: func() *appsv1.ReplicaSet {
			o := valid()
			o.Spec.Selector.MatchLabels["tier"] = "front"
			o.Spec.Template.Labels["tier"] = "front"
			return o
		}, wantErrs: []string{`spec.selector: Invalid value: {"matchLabels":{"app":"web","tier":"front"}}: field is immutable`}},
		{name: "status counts", status: true, obj: func() *appsv1.ReplicaSet {
			o := valid()
			o.Status.Replicas, o.Status.AvailableReplicas = -1, 1
			return o
		}, wantErrs: []string{"status.replicas: Invalid value: -1: must be greater than or equal to 0",
			"status.fullyLabeledReplicas: Invalid value: 0: cannot be greater than status.replicas",
			"status.readyReplicas: Invalid value: 0: cannot be greater than status.replicas",
			"status.availableReplicas: Invalid value: 1: cannot be greater than status.replicas",
			"status.availableReplicas: Invalid value: 1: cannot be greater than readyReplicas"}},
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
