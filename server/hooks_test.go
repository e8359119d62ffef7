package server

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
)

func TestPodQOS(t *testing.T) {
	rl := func(cpu, mem string) corev1.ResourceList {
		out := corev1.ResourceList{}
		if cpu != "" {
			out[corev1.ResourceCPU] = apiresource.MustParse(cpu)
		}
		if mem != "" {
			out[corev1.ResourceMemory] = apiresource.MustParse(mem)
		}
		return out
	}
	pod := func(req, lim corev1.ResourceList) *corev1.Pod {
		return &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Requests: req, Limits: lim}}}}}
	}
	for _, tc := range []struct {
		name string
		pod  *corev1.Pod
		want corev1.PodQOSClass
	}{
		{"no resources", pod(nil, nil), corev1.PodQOSBestEffort},
		{"limits equal requests", pod(rl("1", "1Gi"), rl("1", "1Gi")), corev1.PodQOSGuaranteed},
		{"only limits (requests default to them)", pod(nil, rl("1", "1Gi")), corev1.PodQOSGuaranteed},
		{"requests below limits", pod(rl("500m", "1Gi"), rl("1", "1Gi")), corev1.PodQOSBurstable},
		{"only a cpu request", pod(rl("100m", ""), nil), corev1.PodQOSBurstable},
		{"memory limit only", pod(nil, rl("", "1Gi")), corev1.PodQOSBurstable},
	} {
		if got := podQOS(tc.pod); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

func TestFieldValue(t *testing.T) {
	obj := map[string]any{
		"spec":   map[string]any{"nodeName": "n1", "hostNetwork": true},
		"status": map[string]any{"podIPs": []any{map[string]any{"ip": "10.0.0.5"}}},
		"source": map[string]any{"component": "kubelet"},
	}
	for label, want := range map[string]string{
		"spec.nodeName":      "n1",
		"spec.hostNetwork":   "true",
		"spec.unschedulable": "false",
		"status.replicas":    "0",
		"status.phase":       "",
		"status.podIPs":      "10.0.0.5",
		"source":             "kubelet",
	} {
		if got := fieldValue(obj, label); got != want {
			t.Errorf("fieldValue(%s) = %q, want %q", label, got, want)
		}
	}
}
