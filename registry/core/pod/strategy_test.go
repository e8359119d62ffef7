package pod

import (
	"context"
	"github.com/fakeplane/fakeplane/internal/validate/validatetest"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"
)

// validPod returns a pod as defaulting leaves it.
func validPod() *corev1.Pod {
	p := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx:1.27"}}}}
	Strategy.Default(p)
	return p
}

func TestPodStrategy(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		pod, old func() *corev1.Pod
		status   bool
		wantErrs []string
	}{
		{name: "valid", pod: validPod},
		{name: "no containers", pod: func() *corev1.Pod {
			p := validPod()
			p.Spec.Containers = nil
			return p
		}, wantErrs: []string{"spec.containers: Required value"}},
		{name: "bad container name and no image", pod: func() *corev1.Pod {
			p := validPod()
			p.Spec.Containers[0].Name, p.Spec.Containers[0].Image = "C_1", ""
			return p
		}, wantErrs: []string{`spec.containers[0].name: Invalid value: "C_1": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
			"spec.containers[0].image: Required value"}},
		{name: "bad restart policy", pod: func() *corev1.Pod {
			p := validPod()
			p.Spec.RestartPolicy = "Sometimes"
			return p
		}, wantErrs: []string{`spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"`}},
		{name: "image may change", old: validPod, pod: func() *corev1.Pod {
			p := validPod()
			p.Spec.Containers[0].Image = "nginx:1.28"
			return p
		}},
		{name: "container may not be added", old: validPod, pod: func() *corev1.Pod {
			p := validPod()
			p.Spec.Containers = append(p.Spec.Containers, p.Spec.Containers[0])
			p.Spec.Containers[1].Name = "d"
			return p
		}, wantErrs: []string{"spec.containers: Forbidden: pod updates may not add or remove containers"}},
		{name: "status: podIP without podIPs", status: true, old: validPod, pod: func() *corev1.Pod {
			p := validPod()
			p.Status.PodIP = "10.0.0.1"
			return p
		}, wantErrs: []string{"status.podIPs: Invalid value: null: podIP and podIPs must either both be set or both be unset"}},
		{name: "status: node name may not change", status: true, old: validPod, pod: func() *corev1.Pod {
			p := validPod()
			p.Spec.NodeName = "n1"
			p.Status.ObservedGeneration = -1
			return p
		}, wantErrs: []string{"status.nodeName: Forbidden: may not be changed directly",
			"status.observedGeneration: Invalid value: -1: must be a non-negative integer"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.pod()
			errs := Strategy.Validate(ctx, p)
			switch {
			case tc.status:
				errs = Strategy.ValidateStatusUpdate(ctx, p, tc.old())
			case tc.old != nil:
				errs = Strategy.ValidateUpdate(ctx, p, tc.old())
			}
			validatetest.ExpectErrors(t, errs, tc.wantErrs)
		})
	}
}

func TestPodDefaults(t *testing.T) {
	p := &corev1.Pod{Spec: corev1.PodSpec{
		Containers: []corev1.Container{{Name: "c", Image: "nginx", Resources: corev1.ResourceRequirements{
			Limits: corev1.ResourceList{corev1.ResourceCPU: resourceMust("500m")},
		}, Ports: []corev1.ContainerPort{{ContainerPort: 80}}}},
		HostNetwork: true,
		Volumes:     []corev1.Volume{{Name: "v"}},
	}}
	Strategy.Default(p)
	c := p.Spec.Containers[0]
	for _, check := range []struct {
		name      string
		got, want any
	}{
		{"restartPolicy", p.Spec.RestartPolicy, corev1.RestartPolicyAlways},
		{"dnsPolicy", p.Spec.DNSPolicy, corev1.DNSClusterFirst},
		{"schedulerName", p.Spec.SchedulerName, corev1.DefaultSchedulerName},
		{"terminationGracePeriodSeconds", *p.Spec.TerminationGracePeriodSeconds, int64(30)},
		{"enableServiceLinks", *p.Spec.EnableServiceLinks, true},
		{"imagePullPolicy (untagged)", c.ImagePullPolicy, corev1.PullAlways},
		{"terminationMessagePath", c.TerminationMessagePath, corev1.TerminationMessagePathDefault},
		{"port protocol", c.Ports[0].Protocol, corev1.ProtocolTCP},
		{"host port under host networking", c.Ports[0].HostPort, int32(80)},
		{"cpu request from limit", c.Resources.Requests.Cpu().String(), "500m"},
		{"volume source", p.Spec.Volumes[0].EmptyDir != nil, true},
	} {
		if check.got != check.want {
			t.Errorf("%s: %v, want %v", check.name, check.got, check.want)
		}
	}
	s := &corev1.PodSpec{Containers: []corev1.Container{{Image: "nginx:1.27"}}, TerminationGracePeriodSeconds: ptr.To[int64](-1)}
	DefaultPodSpec(s)
	if s.Containers[0].ImagePullPolicy != corev1.PullIfNotPresent || *s.TerminationGracePeriodSeconds != -1 {
		t.Errorf("DefaultPodSpec: pull policy %s, grace %d", s.Containers[0].ImagePullPolicy, *s.TerminationGracePeriodSeconds)
	}
}

func resourceMust(s string) resource.Quantity { return resource.MustParse(s) }
