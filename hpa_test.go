package fakeplane_test

import (
	"strings"
	"testing"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
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

// TestHorizontalPodAutoscalersShareStorage: autoscaling/v1 and v2 are two
// views of one stored object, converted as upstream converts them: a v2
// autoscaler reads back through v1 with its CPU target in
// targetCPUUtilizationPercentage and its other metrics in the
// autoscaling.alpha.kubernetes.io/metrics annotation, and a v1 update keeps
// them.
//
// The horizontal-pod-autoscaler-controller is off: it would write the
// autoscalers' status meanwhile.
func TestHorizontalPodAutoscalersShareStorage(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithControllers("*", "-horizontal-pod-autoscaler-controller"))
	cs := clientset(t, cp)
	ctx := ctxT(t)
	q := resource.MustParse("10")
	v2, err := cs.AutoscalingV2().HorizontalPodAutoscalers("default").Create(ctx, &autoscalingv2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"}, MaxReplicas: 5,
			Metrics: []autoscalingv2.MetricSpec{
				{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{Name: corev1.ResourceCPU,
					Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To[int32](60)}}},
				{Type: autoscalingv2.PodsMetricSourceType, Pods: &autoscalingv2.PodsMetricSource{Metric: autoscalingv2.MetricIdentifier{Name: "qps"},
					Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: &q}}},
			},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	v1, err := cs.AutoscalingV1().HorizontalPodAutoscalers("default").Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("v1 view of a v2 autoscaler: %v", err)
	}
	if p := v1.Spec.TargetCPUUtilizationPercentage; p == nil || *p != 60 || v1.ResourceVersion != v2.ResourceVersion || v1.UID != v2.UID {
		t.Errorf("v1 view: target %v, rv %s uid %s; want 60 at %s %s", p, v1.ResourceVersion, v1.UID, v2.ResourceVersion, v2.UID)
	}
	if got, want := v1.Annotations["autoscaling.alpha.kubernetes.io/metrics"], `[{"type":"Pods","pods":{"metricName":"qps","targetAverageValue":"10"}}]`; got != want {
		t.Errorf("metrics annotation = %s, want %s", got, want)
	}
	l, err := cs.AutoscalingV1().HorizontalPodAutoscalers("default").List(ctx, metav1.ListOptions{})
	if err != nil || len(l.Items) != 1 {
		t.Fatalf("v1 list: %v %v", err, l)
	}
	// An update through v1 changes the CPU target and keeps the others.
	v1.Spec.TargetCPUUtilizationPercentage = ptr.To[int32](70)
	if _, err := cs.AutoscalingV1().HorizontalPodAutoscalers("default").Update(ctx, v1, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := cs.AutoscalingV2().HorizontalPodAutoscalers("default").Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Spec.Metrics) != 2 || got.Spec.Metrics[0].Pods == nil || *got.Spec.Metrics[1].Resource.Target.AverageUtilization != 70 || len(got.Annotations) != 0 {
		t.Errorf("v2 after a v1 update: metrics %+v annotations %v", got.Spec.Metrics, got.Annotations)
	}
	// A v1 autoscaler is validated as upstream validates it, converted.
	_, err = cs.AutoscalingV1().HorizontalPodAutoscalers("default").Create(ctx, &autoscalingv1.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: "bad"},
		Spec:       autoscalingv1.HorizontalPodAutoscalerSpec{ScaleTargetRef: autoscalingv1.CrossVersionObjectReference{Kind: "Deployment", Name: "web"}, MinReplicas: ptr.To[int32](3), MaxReplicas: 2},
	}, metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`") {
		t.Errorf("invalid v1 autoscaler: %v", err)
	}
}
