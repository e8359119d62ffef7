package admission

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	k8sadmission "k8s.io/apiserver/pkg/admission"
	"k8s.io/utils/ptr"
)

func TestOptinExtendedResourceTolerationAddsOneTolerationPerExtendedResource(t *testing.T) {
	rl := func(names ...string) corev1.ResourceList {
		l := corev1.ResourceList{}
		for _, n := range names {
			l[corev1.ResourceName(n)] = resource.MustParse("1")
		}
		return l
	}
	tol := func(key string) corev1.Toleration {
		return corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}
	}
	cases := []struct {
		name        string
		op          k8sadmission.Operation
		subresource string
		pod         func(*corev1.Pod)
		want        []corev1.Toleration
	}{
		{name: "native resources only", op: k8sadmission.Create, pod: func(p *corev1.Pod) {
			p.Spec.Containers[0].Resources.Requests = rl("cpu", "memory", "hugepages-2Mi", "kubernetes.io/foo", "requests.example.com/x")
		}},
		{name: "sorted, from init and regular containers, limits counted", op: k8sadmission.Create, pod: func(p *corev1.Pod) {
			p.Spec.Containers[0].Resources.Requests = rl("example.com/b", "cpu")
			p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "c2", Resources: corev1.ResourceRequirements{Limits: rl("example.com/c")}})
			p.Spec.InitContainers = []corev1.Container{{Name: "i", Resources: corev1.ResourceRequirements{Requests: rl("example.com/a", "example.com/b")}}}
		}, want: []corev1.Toleration{tol("example.com/a"), tol("example.com/b"), tol("example.com/c")}},
		{name: "ephemeral containers not counted", op: k8sadmission.Update, pod: func(p *corev1.Pod) {
			p.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "d", Resources: corev1.ResourceRequirements{Requests: rl("example.com/gpu")}}}}
		}},
		{name: "kept, replaced and appended on update", op: k8sadmission.Update, pod: func(p *corev1.Pod) {
			p.Spec.Containers[0].Resources.Requests = rl("example.com/gpu", "example.com/fpga")
			p.Spec.Tolerations = []corev1.Toleration{
				{Key: "other", Operator: corev1.TolerationOpExists},
				{Key: "example.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule, TolerationSeconds: ptr.To[int64](5)},
				{Key: "example.com/fpga", Operator: corev1.TolerationOpEqual, Value: "x", Effect: corev1.TaintEffectNoSchedule},
			}
		}, want: []corev1.Toleration{
			{Key: "other", Operator: corev1.TolerationOpExists},
			tol("example.com/gpu"),
			{Key: "example.com/fpga", Operator: corev1.TolerationOpEqual, Value: "x", Effect: corev1.TaintEffectNoSchedule},
			tol("example.com/fpga"),
		}},
		{name: "subresource", op: k8sadmission.Update, subresource: "status", pod: func(p *corev1.Pod) {
			p.Spec.Containers[0].Resources.Requests = rl("example.com/gpu")
		}},
		{name: "delete", op: k8sadmission.Delete, pod: func(p *corev1.Pod) {
			p.Spec.Containers[0].Resources.Requests = rl("example.com/gpu")
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pod := optinTestPod("p", tc.pod)
			var old *corev1.Pod
			if tc.op == k8sadmission.Update {
				old = pod.DeepCopy()
			}
			if err := ExtendedResourceTolerationAdmit(optinPodAttrs(tc.op, tc.subresource, pod, old)); err != nil {
				t.Fatal(err)
			}
			want := tc.want
			if want == nil {
				want = optinTestPod("p", tc.pod).Spec.Tolerations
			}
			if !reflect.DeepEqual(pod.Spec.Tolerations, want) {
				t.Fatalf("tolerations %+v, want %+v", pod.Spec.Tolerations, want)
			}
		})
	}
}

func TestOptinExtendedResourceTolerationRefusesAnObjectThatIsNotAPod(t *testing.T) {
	a := optinAttrs(k8sadmission.Create, "Pod", "pods", "", "ns", "p", &corev1.Service{}, nil)
	optinWant{msg: "expected *core.Pod but got *core.Service", code: 400, reason: optinBadRequest}.check(t, ExtendedResourceTolerationAdmit(a))
}
