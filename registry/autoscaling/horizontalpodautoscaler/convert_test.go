package horizontalpodautoscaler

import (
	"encoding/json"
	"testing"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// fullV2 is an autoscaler with every kind of metric, statuses, conditions
// and a behavior.
func fullV2() *autoscalingv2.HorizontalPodAutoscaler {
	q := resource.MustParse("100m")
	return &autoscalingv2.HorizontalPodAutoscaler{
		TypeMeta:   metav1.TypeMeta{APIVersion: "autoscaling/v2", Kind: "HorizontalPodAutoscaler"},
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", Annotations: map[string]string{"team": "a"}},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{Kind: "Deployment", Name: "web", APIVersion: "apps/v1"},
			MinReplicas:    ptr.To[int32](2), MaxReplicas: 10,
			Metrics: []autoscalingv2.MetricSpec{
				cpuUtilization(50),
				{Type: autoscalingv2.PodsMetricSourceType, Pods: &autoscalingv2.PodsMetricSource{Metric: autoscalingv2.MetricIdentifier{Name: "qps"},
					Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: &q}}},
				{Type: autoscalingv2.ExternalMetricSourceType, External: &autoscalingv2.ExternalMetricSource{Metric: autoscalingv2.MetricIdentifier{Name: "queue"},
					Target: autoscalingv2.MetricTarget{Type: autoscalingv2.ValueMetricType, Value: &q}}},
				{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{Name: corev1.ResourceMemory,
					Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: &q}}},
			},
			Behavior: &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleDown: &autoscalingv2.HPAScalingRules{
				StabilizationWindowSeconds: ptr.To[int32](60), SelectPolicy: ptr.To(autoscalingv2.MaxChangePolicySelect),
				Policies: []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15}}}},
		},
		Status: autoscalingv2.HorizontalPodAutoscalerStatus{
			CurrentReplicas: 2, DesiredReplicas: 3,
			CurrentMetrics: []autoscalingv2.MetricStatus{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricStatus{
				Name: corev1.ResourceCPU, Current: autoscalingv2.MetricValueStatus{AverageUtilization: ptr.To[int32](70), AverageValue: &q}}}},
			Conditions: []autoscalingv2.HorizontalPodAutoscalerCondition{{Type: autoscalingv2.AbleToScale, Status: corev1.ConditionTrue, Reason: "ReadyForNewScale"}},
		},
	}
}

// TestConversionRoundTrips: v2 -> v1 -> v2 gives back the autoscaler, with
// the CPU target in targetCPUUtilizationPercentage and the rest in upstream's
// annotations on the way.
func TestConversionRoundTrips(t *testing.T) {
	in := fullV2()
	v1 := ToV1(in)
	if p := v1.Spec.TargetCPUUtilizationPercentage; p == nil || *p != 50 {
		t.Errorf("targetCPUUtilizationPercentage = %v, want 50", p)
	}
	if p := v1.Status.CurrentCPUUtilizationPercentage; p == nil || *p != 70 {
		t.Errorf("currentCPUUtilizationPercentage = %v, want 70", p)
	}
	var metrics []autoscalingv1.MetricSpec
	if err := json.Unmarshal([]byte(v1.Annotations[metricSpecsAnnotation]), &metrics); err != nil || len(metrics) != 3 || metrics[0].Pods.MetricName != "qps" {
		t.Errorf("%s = %s (%v)", metricSpecsAnnotation, v1.Annotations[metricSpecsAnnotation], err)
	}
	// The behavior annotation is upstream's internal type, keyed by Go
	// field names.
	if got, want := v1.Annotations[behaviorAnnotation], `{"ScaleUp":null,"ScaleDown":{"StabilizationWindowSeconds":60,"SelectPolicy":"Max","Policies":[{"Type":"Percent","Value":100,"PeriodSeconds":15}],"Tolerance":null}}`; got != want {
		t.Errorf("%s = %s, want %s", behaviorAnnotation, got, want)
	}
	for _, k := range []string{metricStatusesAnnotation, conditionsAnnotation} {
		if v1.Annotations[k] == "" {
			t.Errorf("no %s annotation", k)
		}
	}
	back := ToV2(v1)
	// The CPU target comes back last, after the annotation's metrics, as
	// upstream orders them.
	want := fullV2()
	want.Spec.Metrics = append(want.Spec.Metrics[1:], want.Spec.Metrics[0])
	if !apiequality.Semantic.DeepEqual(want, back) {
		w, _ := json.Marshal(want)
		g, _ := json.Marshal(back)
		t.Errorf("v2 -> v1 -> v2:\n got %s\nwant %s", g, w)
	}
}

// TestV1WithoutMetricsGetsTheDefaultCPUTarget: a v1 autoscaler with no CPU
// target and no metrics annotation targets 80% CPU once converted; one with
// metrics in the annotation gets no CPU target.
func TestV1WithoutMetricsGetsTheDefaultCPUTarget(t *testing.T) {
	bare := ToV2(&autoscalingv1.HorizontalPodAutoscaler{})
	if len(bare.Spec.Metrics) != 1 || !isCPUUtilization(&bare.Spec.Metrics[0]) || *bare.Spec.Metrics[0].Resource.Target.AverageUtilization != 80 {
		t.Errorf("bare v1 -> v2 metrics: %+v", bare.Spec.Metrics)
	}
	withOthers := ToV2(&autoscalingv1.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{
		metricSpecsAnnotation: `[{"type":"Pods","pods":{"metricName":"qps","targetAverageValue":"1"}}]`, "team": "a"}}})
	if len(withOthers.Spec.Metrics) != 1 || withOthers.Spec.Metrics[0].Pods == nil {
		t.Errorf("v1 with annotation metrics -> v2: %+v", withOthers.Spec.Metrics)
	}
	if len(withOthers.Annotations) != 1 || withOthers.Annotations["team"] != "a" {
		t.Errorf("annotations after conversion: %v, want only team=a", withOthers.Annotations)
	}
}
