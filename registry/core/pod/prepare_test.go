package pod

import (
	"context"
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
		{"one guaranteed and one best-effort container", &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{
			{Name: "a", Resources: corev1.ResourceRequirements{Limits: rl("1", "1Gi")}}, {Name: "b"}}}}, corev1.PodQOSBurstable},
		{"guaranteed init container and container", &corev1.Pod{Spec: corev1.PodSpec{
			InitContainers: []corev1.Container{{Name: "i", Resources: corev1.ResourceRequirements{Limits: rl("2", "2Gi")}}},
			Containers:     []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Limits: rl("1", "1Gi")}}}}}, corev1.PodQOSGuaranteed},
		{"only an extended resource", pod(nil, corev1.ResourceList{"example.com/gpu": apiresource.MustParse("1")}), corev1.PodQOSBestEffort},
	} {
		if got := podQOS(tc.pod); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

// TestPodLevelQOS checks the QoS class of pods with pod-level resources
// (spec.resources), which decide it in v1.37 once they set cpu, memory or
// hugepages, after upstream's pod-level defaulting.
func TestPodLevelQOS(t *testing.T) {
	rl := func(kv ...string) corev1.ResourceList {
		out := corev1.ResourceList{}
		for i := 0; i < len(kv); i += 2 {
			out[corev1.ResourceName(kv[i])] = apiresource.MustParse(kv[i+1])
		}
		return out
	}
	ctr := func(req, lim corev1.ResourceList) corev1.Container {
		return corev1.Container{Name: "c", Resources: corev1.ResourceRequirements{Requests: req, Limits: lim}}
	}
	pod := func(req, lim corev1.ResourceList, ctrs ...corev1.Container) *corev1.Pod {
		if len(ctrs) == 0 {
			ctrs = []corev1.Container{{Name: "c"}}
		}
		return &corev1.Pod{Spec: corev1.PodSpec{Resources: &corev1.ResourceRequirements{Requests: req, Limits: lim}, Containers: ctrs}}
	}
	for _, tc := range []struct {
		name string
		pod  *corev1.Pod
		want corev1.PodQOSClass
	}{
		{"pod-level requests equal limits, containers without resources", pod(rl("cpu", "1", "memory", "1Gi"), rl("cpu", "1", "memory", "1Gi")), corev1.PodQOSGuaranteed},
		{"pod-level limits only (requests default to them)", pod(nil, rl("cpu", "1", "memory", "1Gi")), corev1.PodQOSGuaranteed},
		{"pod-level requests only", pod(rl("cpu", "1", "memory", "1Gi"), nil), corev1.PodQOSBurstable},
		{"pod-level requests below limits", pod(rl("cpu", "500m", "memory", "1Gi"), rl("cpu", "1", "memory", "1Gi")), corev1.PodQOSBurstable},
		{"pod-level cpu only", pod(rl("cpu", "1"), rl("cpu", "1")), corev1.PodQOSBurstable},
		{"pod-level guaranteed over burstable containers", pod(rl("cpu", "1", "memory", "1Gi"), rl("cpu", "1", "memory", "1Gi"),
			ctr(rl("cpu", "100m"), rl("cpu", "200m"))), corev1.PodQOSGuaranteed},
		{"pod-level burstable over guaranteed containers", pod(rl("cpu", "500m", "memory", "1Gi"), rl("cpu", "1", "memory", "1Gi"),
			ctr(nil, rl("cpu", "500m", "memory", "1Gi"))), corev1.PodQOSBurstable},
		{"pod-level requests, limits from every container's", pod(rl("cpu", "1", "memory", "1Gi"), nil,
			ctr(nil, rl("cpu", "1", "memory", "1Gi"))), corev1.PodQOSGuaranteed},
		{"pod-level requests above the containers' limits", pod(rl("cpu", "2", "memory", "1Gi"), nil,
			ctr(nil, rl("cpu", "1", "memory", "1Gi"))), corev1.PodQOSGuaranteed},
		{"pod-level limits, requests from the containers'", pod(nil, rl("cpu", "1", "memory", "1Gi"),
			ctr(rl("cpu", "500m", "memory", "1Gi"), nil)), corev1.PodQOSBurstable},
		{"empty pod-level resources leave it to the containers", pod(nil, nil, ctr(nil, rl("cpu", "1", "memory", "1Gi"))), corev1.PodQOSGuaranteed},
		{"pod-level unsupported resource only, containers decide through defaulting", pod(nil, rl("ephemeral-storage", "1Gi"),
			ctr(nil, rl("cpu", "1", "memory", "1Gi"))), corev1.PodQOSGuaranteed},
		{"pod-level unsupported resource only, best-effort containers", pod(nil, rl("ephemeral-storage", "1Gi")), corev1.PodQOSBestEffort},
	} {
		if got := podQOS(tc.pod); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

func TestPrepareForCreateSetsPendingAndQOS(t *testing.T) {
	p := &corev1.Pod{
		Spec:   corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, Message: "sent"},
	}
	Strategy.PrepareForCreate(context.Background(), p)
	if want := (corev1.PodStatus{Phase: corev1.PodPending, QOSClass: corev1.PodQOSBestEffort}); !equalStatus(p.Status, want) {
		t.Errorf("status %+v, want %+v", p.Status, want)
	}
}

func TestPrepareForCreateMarksGatedPods(t *testing.T) {
	p := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}, SchedulingGates: []corev1.PodSchedulingGate{{Name: "g"}}}}
	Strategy.PrepareForCreate(context.Background(), p)
	if len(p.Status.Conditions) != 1 {
		t.Fatalf("conditions %+v, want one", p.Status.Conditions)
	}
	c := p.Status.Conditions[0]
	if c.Type != corev1.PodScheduled || c.Status != corev1.ConditionFalse || c.Reason != corev1.PodReasonSchedulingGated ||
		c.Message != "Scheduling is blocked due to non-empty scheduling gates" || c.LastTransitionTime.IsZero() {
		t.Errorf("condition %+v, want PodScheduled False SchedulingGated", c)
	}
}

func equalStatus(a, b corev1.PodStatus) bool {
	return a.Phase == b.Phase && a.QOSClass == b.QOSClass && a.Message == b.Message && len(a.Conditions) == len(b.Conditions)
}

func TestUpdateKeepsPriority(t *testing.T) {
	prio, policy := int32(7), corev1.PreemptNever
	old := &corev1.Pod{Spec: corev1.PodSpec{Priority: &prio, PreemptionPolicy: &policy}}
	for name, prepare := range map[string]func(obj, old *corev1.Pod){
		"main":   func(obj, old *corev1.Pod) { Strategy.PrepareForUpdate(context.Background(), obj, old) },
		"status": func(obj, old *corev1.Pod) { Strategy.PrepareForStatusUpdate(context.Background(), obj, old) },
	} {
		p := &corev1.Pod{}
		prepare(p, old)
		if p.Spec.Priority == nil || *p.Spec.Priority != 7 || p.Spec.PreemptionPolicy == nil || *p.Spec.PreemptionPolicy != corev1.PreemptNever {
			t.Errorf("%s: priority %v, policy %v: want those of the stored pod", name, p.Spec.Priority, p.Spec.PreemptionPolicy)
		}
		other := int32(9)
		p = &corev1.Pod{Spec: corev1.PodSpec{Priority: &other}}
		prepare(p, old)
		if *p.Spec.Priority != 9 {
			t.Errorf("%s: a priority the update sets became %d", name, *p.Spec.Priority)
		}
	}
}
