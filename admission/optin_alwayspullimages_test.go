package admission

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	k8sadmission "k8s.io/apiserver/pkg/admission"
)

func TestOptinAlwaysPullImagesAdmitSetsAlwaysEverywhere(t *testing.T) {
	pod := optinTestPod("p", func(p *corev1.Pod) {
		p.Spec.InitContainers = []corev1.Container{{Name: "init", Image: "busybox", ImagePullPolicy: corev1.PullNever}}
		p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "side", Image: "envoy", ImagePullPolicy: corev1.PullIfNotPresent})
		p.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "dbg", Image: "debug"}}}
		p.Spec.Volumes = []corev1.Volume{
			{Name: "img", VolumeSource: corev1.VolumeSource{Image: &corev1.ImageVolumeSource{Reference: "data:1", PullPolicy: corev1.PullNever}}},
			{Name: "empty", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
		}
	})
	if err := AlwaysPullImagesAdmit(optinPodAttrs(k8sadmission.Create, "", pod, nil)); err != nil {
		t.Fatal(err)
	}
	var policies []corev1.PullPolicy
	optinVisitContainers(&pod.Spec, func(c *corev1.Container, _ *field.Path) bool {
		policies = append(policies, c.ImagePullPolicy)
		return true
	})
	policies = append(policies, pod.Spec.Volumes[0].Image.PullPolicy)
	if len(policies) != 5 {
		t.Fatalf("visited %d, want 5", len(policies))
	}
	for i, p := range policies {
		if p != corev1.PullAlways {
			t.Errorf("policy %d is %q, want Always", i, p)
		}
	}
	if pod.Spec.Volumes[1].Image != nil {
		t.Errorf("a non-image volume got an image")
	}
}

func TestOptinAlwaysPullImagesHandlesOnlyPodWritesWithNewImages(t *testing.T) {
	never := func(image string) *corev1.Pod {
		return optinTestPod("p", func(p *corev1.Pod) {
			p.Spec.Containers[0].Image = image
			p.Spec.Containers[0].ImagePullPolicy = corev1.PullNever
		})
	}
	svc := &corev1.Service{}
	svc.Name = "s"
	cases := []struct {
		name    string
		attrs   k8sadmission.Attributes
		mutated bool
	}{
		{name: "create", attrs: optinPodAttrs(k8sadmission.Create, "", never("nginx"), nil), mutated: true},
		{name: "update with a new image", attrs: optinPodAttrs(k8sadmission.Update, "", never("nginx:2"), never("nginx")), mutated: true},
		{name: "update with the old images", attrs: optinPodAttrs(k8sadmission.Update, "", never("nginx"), never("nginx"))},
		{name: "ephemeralcontainers subresource", attrs: optinPodAttrs(k8sadmission.Update, "ephemeralcontainers", never("nginx:2"), never("nginx"))},
		{name: "status subresource", attrs: optinPodAttrs(k8sadmission.Update, "status", never("nginx:2"), never("nginx"))},
		{name: "delete", attrs: optinPodAttrs(k8sadmission.Delete, "", never("nginx"), nil)},
		{name: "not pods", attrs: optinAttrs(k8sadmission.Create, "Service", "services", "", "ns", "s", svc, nil)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			verr := AlwaysPullImagesValidate(tc.attrs)
			if err := AlwaysPullImagesAdmit(tc.attrs); err != nil {
				t.Fatal(err)
			}
			pod, _ := tc.attrs.GetObject().(*corev1.Pod)
			if pod == nil {
				if verr != nil {
					t.Fatalf("validate: %v", verr)
				}
				return
			}
			got := pod.Spec.Containers[0].ImagePullPolicy == corev1.PullAlways
			if got != tc.mutated {
				t.Fatalf("mutated %v, want %v", got, tc.mutated)
			}
			if tc.mutated != (verr != nil) {
				t.Fatalf("validate before admit: %v, want an error: %v", verr, tc.mutated)
			}
		})
	}
}

func TestOptinAlwaysPullImagesValidateRefusesWithUpstreamErrors(t *testing.T) {
	cases := []struct {
		name string
		pod  *corev1.Pod
		want optinWant
	}{
		{name: "all always", pod: optinTestPod("p", func(p *corev1.Pod) { p.Spec.Containers[0].ImagePullPolicy = corev1.PullAlways })},
		{name: "one unset", pod: optinTestPod("p", nil), want: optinWant{
			msg: `pods "p" is forbidden: spec.containers[0].imagePullPolicy: Unsupported value: "": supported values: "Always"`, code: 500}},
		{name: "generateName", pod: optinTestPod("", func(p *corev1.Pod) {
			p.GenerateName = "web-"
			p.Spec.Containers[0].ImagePullPolicy = corev1.PullIfNotPresent
		}), want: optinWant{
			msg: `pods "web-" is forbidden: spec.containers[0].imagePullPolicy: Unsupported value: "IfNotPresent": supported values: "Always"`, code: 500}},
		{name: "several", pod: optinTestPod("p", func(p *corev1.Pod) {
			p.Spec.InitContainers = []corev1.Container{{Name: "i", Image: "x", ImagePullPolicy: corev1.PullNever}}
			p.Spec.Containers[0].ImagePullPolicy = corev1.PullAlways
			p.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "d", Image: "y", ImagePullPolicy: corev1.PullIfNotPresent}}}
			p.Spec.Volumes = []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{Image: &corev1.ImageVolumeSource{Reference: "z", PullPolicy: corev1.PullIfNotPresent}}}}
		}), want: optinWant{
			msg: `[pods "p" is forbidden: spec.initContainers[0].imagePullPolicy: Unsupported value: "Never": supported values: "Always", ` +
				`pods "p" is forbidden: spec.ephemeralContainers[0].imagePullPolicy: Unsupported value: "IfNotPresent": supported values: "Always", ` +
				`pods "p" is forbidden: spec.volumes[0].image.pullPolicy: Unsupported value: "IfNotPresent": supported values: "Always"]`, code: 500}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.want.check(t, AlwaysPullImagesValidate(optinPodAttrs(k8sadmission.Create, "", tc.pod, nil)))
		})
	}
}

func TestOptinAlwaysPullImagesRefusesAnObjectThatIsNotAPod(t *testing.T) {
	a := optinAttrs(k8sadmission.Create, "Pod", "pods", "", "ns", "p", &corev1.Service{}, nil)
	want := optinWant{msg: "Resource was marked with kind Pod but was unable to be converted", code: 400, reason: optinBadRequest}
	want.check(t, AlwaysPullImagesAdmit(a))
	want.check(t, AlwaysPullImagesValidate(a))
}
