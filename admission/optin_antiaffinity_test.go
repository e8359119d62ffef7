package admission

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	k8sadmission "k8s.io/apiserver/pkg/admission"
)

func TestOptinLimitPodHardAntiAffinityTopologyAllowsOnlyHostname(t *testing.T) {
	withAnti := func(name string, required []string, preferred ...string) *corev1.Pod {
		return optinTestPod(name, func(p *corev1.Pod) {
			anti := &corev1.PodAntiAffinity{}
			for _, k := range required {
				anti.RequiredDuringSchedulingIgnoredDuringExecution = append(anti.RequiredDuringSchedulingIgnoredDuringExecution, corev1.PodAffinityTerm{TopologyKey: k})
			}
			for _, k := range preferred {
				anti.PreferredDuringSchedulingIgnoredDuringExecution = append(anti.PreferredDuringSchedulingIgnoredDuringExecution, corev1.WeightedPodAffinityTerm{Weight: 1, PodAffinityTerm: corev1.PodAffinityTerm{TopologyKey: k}})
			}
			p.Spec.Affinity = &corev1.Affinity{
				PodAntiAffinity: anti,
				PodAffinity:     &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{TopologyKey: "zone"}}},
			}
		})
	}
	zoneMsg := "affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey topology.kubernetes.io/zone but only key kubernetes.io/hostname is allowed"
	cases := []struct {
		name        string
		op          k8sadmission.Operation
		subresource string
		pod         *corev1.Pod
		want        optinWant
	}{
		{name: "no affinity", op: k8sadmission.Create, pod: optinTestPod("p", nil)},
		{name: "hostname", op: k8sadmission.Create, pod: withAnti("p", []string{"kubernetes.io/hostname"})},
		{name: "preferred zone", op: k8sadmission.Create, pod: withAnti("p", nil, "topology.kubernetes.io/zone")},
		{name: "required zone", op: k8sadmission.Create, pod: withAnti("p", []string{"kubernetes.io/hostname", "topology.kubernetes.io/zone"}),
			want: optinWant{msg: `pods "p" is forbidden: ` + zoneMsg, code: 403, reason: optinForbidden}},
		{name: "required zone, no name yet", op: k8sadmission.Create, pod: withAnti("", []string{"topology.kubernetes.io/zone"}),
			want: optinWant{msg: `pods is forbidden: ` + zoneMsg, code: 403, reason: optinForbidden}},
		{name: "required empty key on update", op: k8sadmission.Update, pod: withAnti("p", []string{""}),
			want: optinWant{msg: `pods "p" is forbidden: affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey  but only key kubernetes.io/hostname is allowed`, code: 403, reason: optinForbidden}},
		{name: "status subresource", op: k8sadmission.Update, subresource: "status", pod: withAnti("p", []string{"zone"})},
		{name: "delete", op: k8sadmission.Delete, pod: withAnti("p", []string{"zone"})},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var old *corev1.Pod
			if tc.op == k8sadmission.Update {
				old = optinTestPod(tc.pod.Name, nil)
			}
			tc.want.check(t, LimitPodHardAntiAffinityTopologyValidate(optinPodAttrs(tc.op, tc.subresource, tc.pod, old)))
		})
	}
}
