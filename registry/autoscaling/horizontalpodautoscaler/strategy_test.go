package horizontalpodautoscaler

import (
	"context"
	"github.com/fakeplane/fakeplane/internal/validate/validatetest"
	"testing"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/utils/ptr"
)

func TestHorizontalPodAutoscalerStrategy(t *testing.T) {
	ref := autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "d"}
	for _, tc := range []struct {
		name     string
		hpa, old *autoscalingv2.HorizontalPodAutoscaler
		want     []string
	}{
		{name: "defaulted", hpa: &autoscalingv2.HorizontalPodAutoscaler{Spec: autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: ref, MaxReplicas: 3}}},
		{name: "bounds and target", hpa: &autoscalingv2.HorizontalPodAutoscaler{Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			MinReplicas: ptr.To[int32](-1), ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "v1", Kind: "Deployment"}}},
			want: []string{
				"spec.scaleTargetRef.name: Required value",
				`spec.scaleTargetRef.apiVersion: Invalid value: "v1": apiVersion must specify API group`,
				"spec.minReplicas: Invalid value: -1: must be greater than or equal to 0",
				"spec.maxReplicas: Required value",
			}},
		{name: "unchanged target", old: &autoscalingv2.HorizontalPodAutoscaler{Spec: autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "v1", Kind: "Deployment"}}},
			hpa: &autoscalingv2.HorizontalPodAutoscaler{Spec: autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "v1", Kind: "Deployment", Name: "d"}, MaxReplicas: 2}}},
		{name: "scale to zero", hpa: &autoscalingv2.HorizontalPodAutoscaler{Spec: autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: ref, MinReplicas: ptr.To[int32](0), MaxReplicas: 3}},
			want: []string{"spec.metrics: Forbidden: must specify at least one Object or External metric to support scaling to zero replicas"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			Strategy.Default(tc.hpa)
			errs := Strategy.Validate(context.Background(), tc.hpa)
			if tc.old != nil {
				errs = Strategy.ValidateUpdate(context.Background(), tc.hpa, tc.old)
			}
			validatetest.ExpectErrors(t, errs, tc.want)
		})
	}
}

func TestHorizontalPodAutoscalerDefaults(t *testing.T) {
	v1 := &autoscalingv1.HorizontalPodAutoscaler{Spec: autoscalingv1.HorizontalPodAutoscalerSpec{MaxReplicas: 3,
		ScaleTargetRef: autoscalingv1.CrossVersionObjectReference{Kind: "Deployment", Name: "web", APIVersion: "apps/v1"}}}
	Strategy.Default(v1)
	// The CPU target default comes with the conversion to v2 (ToV2), which
	// upstream's decoding does before its field manager sees the object.
	if *v1.Spec.MinReplicas != 1 || v1.Spec.TargetCPUUtilizationPercentage == nil || *v1.Spec.TargetCPUUtilizationPercentage != 80 {
		t.Errorf("v1 defaults: %+v", v1.Spec)
	}
	if errs := Strategy.Validate(context.Background(), v1); len(errs) != 0 {
		t.Errorf("a valid v1 autoscaler: %v", errs)
	}
	// A v1 autoscaler is validated as upstream validates it: converted.
	v1.Spec.MaxReplicas = 0
	validatetest.ExpectErrors(t, Strategy.Validate(context.Background(), v1), []string{
		"spec.maxReplicas: Invalid value: 0: must be greater than or equal to `minReplicas`",
		"spec.maxReplicas: Required value",
	})
	v2 := &autoscalingv2.HorizontalPodAutoscaler{Spec: autoscalingv2.HorizontalPodAutoscalerSpec{Behavior: &autoscalingv2.HorizontalPodAutoscalerBehavior{
		ScaleDown: &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: ptr.To[int32](60)},
	}}}
	Strategy.Default(v2)
	if len(v2.Spec.Metrics) != 1 || *v2.Spec.Metrics[0].Resource.Target.AverageUtilization != 80 {
		t.Errorf("v2 metrics: %+v", v2.Spec.Metrics)
	}
	if b := v2.Spec.Behavior; *b.ScaleDown.StabilizationWindowSeconds != 60 || len(b.ScaleDown.Policies) != 1 || len(b.ScaleUp.Policies) != 2 {
		t.Errorf("v2 behavior: %+v %+v", b.ScaleUp, b.ScaleDown)
	}
}
