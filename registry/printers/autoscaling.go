package printers

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// autoscaling returns the printers of the autoscaling group's resources, by resource.
func autoscaling() map[string]Printer {
	return map[string]Printer{
		"horizontalpodautoscalers": {
			cells: anyOf(func(obj runtime.Object, now time.Time) []any {
				var spec autoscalingv2.HorizontalPodAutoscalerSpec
				var status autoscalingv2.HorizontalPodAutoscalerStatus
				var meta metav1.ObjectMeta
				switch h := obj.(type) {
				case *autoscalingv2.HorizontalPodAutoscaler:
					spec, status, meta = h.Spec, h.Status, h.ObjectMeta
				case *autoscalingv1.HorizontalPodAutoscaler:
					spec, status, meta = hpaV1AsV2(h)
				}
				// Defaults: one replica at least, 80% CPU utilization.
				if len(spec.Metrics) == 0 {
					spec.Metrics = []autoscalingv2.MetricSpec{cpuUtilization(80)}
				}
				minPods := "1"
				if spec.MinReplicas != nil {
					minPods = strconv.Itoa(int(*spec.MinReplicas))
				}
				return []any{meta.Name, spec.ScaleTargetRef.Kind + "/" + spec.ScaleTargetRef.Name, formatHPAMetrics(spec.Metrics, status.CurrentMetrics),
					minPods, int64(spec.MaxReplicas), int64(status.CurrentReplicas), age(now, meta.CreationTimestamp)}
			}, &autoscalingv2.HorizontalPodAutoscaler{}, &autoscalingv1.HorizontalPodAutoscaler{}),
		},
	}
}

// hpaV1AsV2 reads an autoscaling/v1 HorizontalPodAutoscaler as upstream's
// conversion does: its CPU target and current utilization become metrics.
func hpaV1AsV2(h *autoscalingv1.HorizontalPodAutoscaler) (autoscalingv2.HorizontalPodAutoscalerSpec, autoscalingv2.HorizontalPodAutoscalerStatus, metav1.ObjectMeta) {
	spec := autoscalingv2.HorizontalPodAutoscalerSpec{
		ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{Kind: h.Spec.ScaleTargetRef.Kind, Name: h.Spec.ScaleTargetRef.Name, APIVersion: h.Spec.ScaleTargetRef.APIVersion},
		MinReplicas:    h.Spec.MinReplicas,
		MaxReplicas:    h.Spec.MaxReplicas,
	}
	if t := h.Spec.TargetCPUUtilizationPercentage; t != nil {
		spec.Metrics = []autoscalingv2.MetricSpec{cpuUtilization(*t)}
	}
	status := autoscalingv2.HorizontalPodAutoscalerStatus{CurrentReplicas: h.Status.CurrentReplicas, DesiredReplicas: h.Status.DesiredReplicas}
	if c := h.Status.CurrentCPUUtilizationPercentage; c != nil {
		status.CurrentMetrics = []autoscalingv2.MetricStatus{{
			Type:     autoscalingv2.ResourceMetricSourceType,
			Resource: &autoscalingv2.ResourceMetricStatus{Name: corev1.ResourceCPU, Current: autoscalingv2.MetricValueStatus{AverageUtilization: c}},
		}}
	}
	return spec, status, h.ObjectMeta
}

// cpuUtilization is a CPU average utilization target.
func cpuUtilization(percent int32) autoscalingv2.MetricSpec {
	return autoscalingv2.MetricSpec{
		Type: autoscalingv2.ResourceMetricSourceType,
		Resource: &autoscalingv2.ResourceMetricSource{
			Name:   corev1.ResourceCPU,
			Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: &percent},
		},
	}
}

// formatHPAMetrics prints up to two metrics as current/target and how many
// more there are.
func formatHPAMetrics(specs []autoscalingv2.MetricSpec, statuses []autoscalingv2.MetricStatus) string {
	if len(specs) == 0 {
		return "<none>"
	}
	status := func(i int) *autoscalingv2.MetricStatus {
		if i < len(statuses) {
			return &statuses[i]
		}
		return nil
	}
	percent := func(p *int32) string { return fmt.Sprintf("%d%%", *p) }
	var list []string
	for i, spec := range specs {
		st := status(i)
		current := "<unknown>"
		switch {
		case spec.Type == autoscalingv2.ExternalMetricSourceType && spec.External != nil:
			if t := spec.External.Target; t.AverageValue != nil {
				if st != nil && st.External != nil && st.External.Current.AverageValue != nil {
					current = st.External.Current.AverageValue.String()
				}
				list = append(list, fmt.Sprintf("%s/%s (avg)", current, t.AverageValue.String()))
			} else {
				if st != nil && st.External != nil {
					current = st.External.Current.Value.String()
				}
				list = append(list, fmt.Sprintf("%s/%s", current, t.Value.String()))
			}
		case spec.Type == autoscalingv2.PodsMetricSourceType && spec.Pods != nil:
			if st != nil && st.Pods != nil {
				current = st.Pods.Current.AverageValue.String()
			}
			list = append(list, fmt.Sprintf("%s/%s", current, spec.Pods.Target.AverageValue.String()))
		case spec.Type == autoscalingv2.ObjectMetricSourceType && spec.Object != nil:
			if t := spec.Object.Target; t.AverageValue != nil {
				if st != nil && st.Object != nil && st.Object.Current.AverageValue != nil {
					current = st.Object.Current.AverageValue.String()
				}
				list = append(list, fmt.Sprintf("%s/%s (avg)", current, t.AverageValue.String()))
			} else {
				if st != nil && st.Object != nil {
					current = st.Object.Current.Value.String()
				}
				list = append(list, fmt.Sprintf("%s/%s", current, t.Value.String()))
			}
		case spec.Type == autoscalingv2.ResourceMetricSourceType && spec.Resource != nil:
			r := spec.Resource
			if r.Target.AverageValue != nil {
				if st != nil && st.Resource != nil {
					current = st.Resource.Current.AverageValue.String()
				}
				list = append(list, fmt.Sprintf("%s: %s/%s", r.Name, current, r.Target.AverageValue.String()))
			} else {
				if st != nil && st.Resource != nil && st.Resource.Current.AverageUtilization != nil {
					current = percent(st.Resource.Current.AverageUtilization)
				}
				target := "<auto>"
				if r.Target.AverageUtilization != nil {
					target = percent(r.Target.AverageUtilization)
				}
				list = append(list, fmt.Sprintf("%s: %s/%s", r.Name, current, target))
			}
		case spec.Type == autoscalingv2.ContainerResourceMetricSourceType && spec.ContainerResource != nil:
			r := spec.ContainerResource
			if r.Target.AverageValue != nil {
				if st != nil && st.ContainerResource != nil {
					current = st.ContainerResource.Current.AverageValue.String()
				}
				list = append(list, fmt.Sprintf("%s: %s/%s", r.Name, current, r.Target.AverageValue.String()))
			} else {
				if st != nil && st.ContainerResource != nil && st.ContainerResource.Current.AverageUtilization != nil {
					current = percent(st.ContainerResource.Current.AverageUtilization)
				}
				target := "<auto>"
				if r.Target.AverageUtilization != nil {
					target = percent(r.Target.AverageUtilization)
				}
				list = append(list, fmt.Sprintf("%s: %s/%s", r.Name, current, target))
			}
		default:
			list = append(list, "<unknown type>")
		}
	}
	if len(list) > 2 {
		return fmt.Sprintf("%s + %d more...", strings.Join(list[:2], ", "), len(list)-2)
	}
	return strings.Join(list, ", ")
}
