package pod

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/fakeplane/fakeplane/internal/validate/validatetest"
)

// resizablePod is a valid Burstable pod: one container requesting 100m
// cpu and 100Mi memory, limited to 200m and 200Mi.
func resizablePod() *corev1.Pod {
	p := validPod()
	p.Spec.Containers[0].Resources = corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("100Mi")},
		Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("200m"), corev1.ResourceMemory: resource.MustParse("200Mi")},
	}
	p.Status.QOSClass = corev1.PodQOSBurstable
	return p
}

// TestPodResizeStrategy prepares and validates writes to pods/resize as
// upstream's resize strategy does (messages recorded from kube-apiserver
// v1.37).
func TestPodResizeStrategy(t *testing.T) {
	ctx := context.Background()
	cpu := func(p *corev1.Pod, q string) {
		p.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse(q)
	}
	for _, tc := range []struct {
		name     string
		old, new func(*corev1.Pod)
		want     []string
	}{
		{name: "cpu request", new: func(p *corev1.Pod) { cpu(p, "150m") }},
		{name: "other fields are dropped", new: func(p *corev1.Pod) {
			cpu(p, "150m")
			p.Labels = map[string]string{"a": "b"}
			p.Spec.Containers[0].Image = "busybox"
			p.Spec.Volumes = []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
		}},
		{name: "extended resource", new: func(p *corev1.Pod) {
			p.Spec.Containers[0].Resources.Requests["example.com/foo"] = resource.MustParse("1")
			p.Spec.Containers[0].Resources.Limits["example.com/foo"] = resource.MustParse("1")
		}, want: []string{"spec: Forbidden: only cpu and memory resources are mutable"}},
		{name: "limits removed", new: func(p *corev1.Pod) { p.Spec.Containers[0].Resources.Limits = nil },
			want: []string{"spec.containers[0].resources.limits: Forbidden: resource limits cannot be removed"}},
		{name: "QoS class change", new: func(p *corev1.Pod) {
			p.Spec.Containers[0].Resources.Requests = p.Spec.Containers[0].Resources.Limits.DeepCopy()
		}, want: []string{`spec: Invalid value: "Burstable": Pod QOS Class may not change as a result of resizing`}},
		{name: "windows pod", old: func(p *corev1.Pod) { p.Spec.OS = &corev1.PodOS{Name: corev1.Windows} },
			new: func(p *corev1.Pod) { cpu(p, "150m") }, want: []string{"[]: Forbidden: windows pods cannot be resized"}},
		{name: "static pod", old: func(p *corev1.Pod) {
			p.Annotations = map[string]string{corev1.MirrorPodAnnotationKey: "x"}
			p.Spec.NodeName = "n"
		}, new: func(p *corev1.Pod) { cpu(p, "150m") }, want: []string{"[]: Forbidden: static pods cannot be resized"}},
		{name: "running container without resources in its status", old: func(p *corev1.Pod) {
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "c", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}
		}, new: func(p *corev1.Pod) { cpu(p, "150m") }, want: []string{"spec: Forbidden: Pod running on node without support for resize"}},
		{name: "renamed container", new: func(p *corev1.Pod) { p.Spec.Containers[0].Name = "d" },
			want: []string{"spec.containers[0].name: Forbidden: containers may not be renamed or reordered on resize"}},
		{name: "RestartContainer with restartPolicy Never", old: func(p *corev1.Pod) { p.Spec.RestartPolicy = corev1.RestartPolicyNever },
			new: func(p *corev1.Pod) {
				p.Spec.Containers[0].ResizePolicy = []corev1.ContainerResizePolicy{{ResourceName: corev1.ResourceMemory, RestartPolicy: corev1.RestartContainer}}
			}, want: []string{"spec.containers[0].resizePolicy: Invalid value: \"RestartContainer\": must be 'NotRequired' when pod `restartPolicy` is 'Never'",
				"spec: Forbidden: only cpu and memory resources are mutable"}},
		{name: "pod-level resources removed", old: func(p *corev1.Pod) {
			p.Spec.Resources = &corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("300m")}}
		}, new: func(p *corev1.Pod) { p.Spec.Resources = &corev1.ResourceRequirements{} },
			want: []string{"spec.resources.requests: Forbidden: pod-level resource requests cannot be removed"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old := resizablePod()
			if tc.old != nil {
				tc.old(old)
			}
			n := old.DeepCopy()
			tc.new(n)
			Strategy.PrepareForResizeUpdate(ctx, n, old)
			if n.Labels["a"] != "" || n.Spec.Containers[0].Image != old.Spec.Containers[0].Image && n.Spec.Containers[0].Name == "c" || len(n.Spec.Volumes) != len(old.Spec.Volumes) {
				t.Errorf("prepared pod keeps what a resize may not change: %+v", n)
			}
			validatetest.ExpectErrors(t, Strategy.ValidateResizeUpdate(ctx, n, old), tc.want)
		})
	}
}
