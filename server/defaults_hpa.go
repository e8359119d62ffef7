package server

import (
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

// defaultHPAv1 sets the defaults of an autoscaling/v1 HorizontalPodAutoscaler;
// without a target (and without other metrics in the annotation upstream's
// conversion keeps them in), CPU at 80%, as upstream's conversion sets it.
func defaultHPAv1(h *autoscalingv1.HorizontalPodAutoscaler) {
	if h.Spec.MinReplicas == nil {
		h.Spec.MinReplicas = ptr.To[int32](1)
	}
	if _, ok := h.Annotations["autoscaling.alpha.kubernetes.io/metrics"]; h.Spec.TargetCPUUtilizationPercentage == nil && !ok {
		h.Spec.TargetCPUUtilizationPercentage = ptr.To[int32](80)
	}
}

// defaultHPAv2 sets the defaults of an autoscaling/v2 HorizontalPodAutoscaler:
// one replica at least, CPU at 80% when no metric is given, and, once a
// behavior is given, every scaling rule it leaves out.
func defaultHPAv2(h *autoscalingv2.HorizontalPodAutoscaler) {
	if h.Spec.MinReplicas == nil {
		h.Spec.MinReplicas = ptr.To[int32](1)
	}
	if len(h.Spec.Metrics) == 0 {
		h.Spec.Metrics = []autoscalingv2.MetricSpec{{
			Type: autoscalingv2.ResourceMetricSourceType,
			Resource: &autoscalingv2.ResourceMetricSource{Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{
				Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To[int32](80),
			}},
		}}
	}
	if b := h.Spec.Behavior; b != nil {
		b.ScaleUp = withDefaultRules(b.ScaleUp, autoscalingv2.HPAScalingRules{
			StabilizationWindowSeconds: ptr.To[int32](0), SelectPolicy: ptr.To(autoscalingv2.MaxChangePolicySelect),
			Policies: []autoscalingv2.HPAScalingPolicy{
				{Type: autoscalingv2.PodsScalingPolicy, Value: 4, PeriodSeconds: 15},
				{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15},
			},
		})
		// The scale-down stabilization window stays unset: the controller's
		// flag decides it.
		b.ScaleDown = withDefaultRules(b.ScaleDown, autoscalingv2.HPAScalingRules{
			SelectPolicy: ptr.To(autoscalingv2.MaxChangePolicySelect),
			Policies:     []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15}},
		})
	}
}

// withDefaultRules fills the fields a scaling rule leaves unset.
func withDefaultRules(from *autoscalingv2.HPAScalingRules, def autoscalingv2.HPAScalingRules) *autoscalingv2.HPAScalingRules {
	if from == nil {
		return &def
	}
	if from.SelectPolicy != nil {
		def.SelectPolicy = from.SelectPolicy
	}
	if from.StabilizationWindowSeconds != nil {
		def.StabilizationWindowSeconds = from.StabilizationWindowSeconds
	}
	if from.Policies != nil {
		def.Policies = from.Policies
	}
	if from.Tolerance != nil {
		def.Tolerance = from.Tolerance
	}
	return &def
}
