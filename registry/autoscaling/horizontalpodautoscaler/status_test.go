package horizontalpodautoscaler

import (
	"context"
	"testing"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane/internal/validate/validatetest"
)

func TestStatusUpdateValidation(t *testing.T) {
	v2 := func(st autoscalingv2.HorizontalPodAutoscalerStatus) *autoscalingv2.HorizontalPodAutoscaler {
		return &autoscalingv2.HorizontalPodAutoscaler{Spec: autoscalingv2.HorizontalPodAutoscalerSpec{MaxReplicas: 3}, Status: st}
	}
	for _, tc := range []struct {
		name string
		hpa  runtime.Object
		want []string
	}{
		{name: "a running autoscaler", hpa: v2(autoscalingv2.HorizontalPodAutoscalerStatus{CurrentReplicas: 2, DesiredReplicas: 3,
			Conditions: []autoscalingv2.HorizontalPodAutoscalerCondition{{Type: autoscalingv2.AbleToScale, Status: "Maybe", ObservedGeneration: ptr.To[int64](1)}}})},
		{name: "replicas are not negative", hpa: v2(autoscalingv2.HorizontalPodAutoscalerStatus{CurrentReplicas: -1, DesiredReplicas: -1}),
			want: []string{"status.currentReplicas: Invalid value: -1: must be greater than or equal to 0",
				"status.desiredReplicas: Invalid value: -1: must be greater than or equal to 0"}},
		{name: "a condition's observed generation is not negative", hpa: v2(autoscalingv2.HorizontalPodAutoscalerStatus{DesiredReplicas: 1,
			Conditions: []autoscalingv2.HorizontalPodAutoscalerCondition{
				{Type: autoscalingv2.AbleToScale, ObservedGeneration: ptr.To[int64](-1)}, {Type: autoscalingv2.AbleToScale, ObservedGeneration: ptr.To[int64](-2)}}}),
			want: []string{"status.conditions[0].observedGeneration: Invalid value: -1: must be greater than or equal to 0",
				"status.conditions[1].observedGeneration: Invalid value: -2: must be greater than or equal to 0"}},
		{name: "autoscaling/v1 replicas", hpa: &autoscalingv1.HorizontalPodAutoscaler{Status: autoscalingv1.HorizontalPodAutoscalerStatus{CurrentReplicas: -1, DesiredReplicas: -2}},
			want: []string{"status.currentReplicas: Invalid value: -1: must be greater than or equal to 0",
				"status.desiredReplicas: Invalid value: -2: must be greater than or equal to 0"}},
		{name: "autoscaling/v1 conditions, from their annotation", hpa: &autoscalingv1.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{
			conditionsAnnotation: `[{"type":"AbleToScale","status":"True","lastTransitionTime":null,"observedGeneration":-3}]`}}},
			want: []string{"status.conditions[0].observedGeneration: Invalid value: -3: must be greater than or equal to 0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			validatetest.ExpectErrors(t, Strategy.ValidateStatusUpdate(context.Background(), tc.hpa, tc.hpa.DeepCopyObject()), tc.want)
		})
	}
}

func TestConditionObservedGenerationRoundTrips(t *testing.T) {
	in := &autoscalingv2.HorizontalPodAutoscaler{Status: autoscalingv2.HorizontalPodAutoscalerStatus{
		Conditions: []autoscalingv2.HorizontalPodAutoscalerCondition{{Type: autoscalingv2.ScalingActive, Status: "True", ObservedGeneration: ptr.To[int64](4)}}}}
	out := ToV2(ToV1(in))
	if g := out.Status.Conditions[0].ObservedGeneration; g == nil || *g != 4 {
		t.Errorf("observedGeneration %v after autoscaling/v1, want 4", g)
	}
}
