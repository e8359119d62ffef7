package fakeplane_test

import (
	"testing"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
)

// TestHorizontalPodAutoscalerDefaults checks the defaults a v1.37 cluster
// stores (compared with one).
func TestHorizontalPodAutoscalerDefaults(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	target := autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"}

	bare, err := cs.AutoscalingV2().HorizontalPodAutoscalers("default").Create(ctx, &autoscalingv2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: "bare"}, Spec: autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: target, MaxReplicas: 5},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if *bare.Spec.MinReplicas != 1 || len(bare.Spec.Metrics) != 1 || bare.Spec.Metrics[0].Resource.Name != "cpu" ||
		*bare.Spec.Metrics[0].Resource.Target.AverageUtilization != 80 || bare.Spec.Behavior != nil {
		t.Errorf("v2 without metrics: %+v", bare.Spec)
	}

	withBehavior, err := cs.AutoscalingV2().HorizontalPodAutoscalers("default").Create(ctx, &autoscalingv2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: "behavior"}, Spec: autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: target, MaxReplicas: 5,
			Behavior: &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleDown: &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: ptr.To[int32](60)}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	up, down := withBehavior.Spec.Behavior.ScaleUp, withBehavior.Spec.Behavior.ScaleDown
	if up == nil || *up.StabilizationWindowSeconds != 0 || *up.SelectPolicy != autoscalingv2.MaxChangePolicySelect || len(up.Policies) != 2 ||
		up.Policies[0].Type != autoscalingv2.PodsScalingPolicy || up.Policies[0].Value != 4 || up.Policies[1].Value != 100 {
		t.Errorf("scale-up defaults: %+v", up)
	}
	if *down.StabilizationWindowSeconds != 60 || *down.SelectPolicy != autoscalingv2.MaxChangePolicySelect || len(down.Policies) != 1 ||
		down.Policies[0].Type != autoscalingv2.PercentScalingPolicy || down.Policies[0].PeriodSeconds != 15 {
		t.Errorf("scale-down defaults: %+v", down)
	}

	v1, err := cs.AutoscalingV1().HorizontalPodAutoscalers("default").Create(ctx, &autoscalingv1.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: "v1"},
		Spec:       autoscalingv1.HorizontalPodAutoscalerSpec{ScaleTargetRef: autoscalingv1.CrossVersionObjectReference(target), MaxReplicas: 5},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if *v1.Spec.MinReplicas != 1 || *v1.Spec.TargetCPUUtilizationPercentage != 80 {
		t.Errorf("v1 defaults: %+v", v1.Spec)
	}
}
