package pod

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane/internal/validate/validatetest"
)

const (
	appArmorC       = "container.apparmor.security.beta.kubernetes.io/c"
	mirrorKey       = "kubernetes.io/config.mirror"
	deletionCostKey = "controller.kubernetes.io/pod-deletion-cost"
)

// annotatedPod is a valid pod, as defaulting leaves it, with annotations.
func annotatedPod(annotations map[string]string) *corev1.Pod {
	p := validPod()
	p.Annotations = annotations
	return p
}

// TestPodSpecificAnnotationsOnCreate checks upstream's
// ValidatePodSpecificAnnotations on a new pod, with its messages, in its
// order (keys in order where upstream ranges over them).
func TestPodSpecificAnnotationsOnCreate(t *testing.T) {
	for _, tc := range []struct {
		name        string
		annotations map[string]string
		nodeName    string
		want        []string
	}{
		{name: "valid values", annotations: map[string]string{
			mirrorKey: "x", deletionCostKey: "-5", tolerationsAnnotation: `[{"key":"k","operator":"Equal","value":"v"}]`,
			"seccomp.security.alpha.kubernetes.io/pod": "docker/default", "container.seccomp.security.alpha.kubernetes.io/c": "localhost/a/b",
			appArmorC: "localhost/prof",
		}, nodeName: "n1"},
		{name: "a mirror pod without a node, then the rest in upstream's order", annotations: map[string]string{
			mirrorKey: "x", deletionCostKey: "+10",
			"seccomp.security.alpha.kubernetes.io/pod":            "bad",
			"container.seccomp.security.alpha.kubernetes.io/c":    "localhost/../x",
			"container.seccomp.security.alpha.kubernetes.io/zz":   "foo",
			"container.apparmor.security.beta.kubernetes.io/nope": "bad",
			appArmorC: "localhost/",
		}, want: []string{
			`metadata.annotations[kubernetes.io/config.mirror]: Invalid value: "x": must set spec.nodeName if mirror pod annotation is set`,
			`metadata.annotations[controller.kubernetes.io/pod-deletion-cost]: Invalid value: "+10": must be a 32bit integer`,
			`metadata.annotations.seccomp.security.alpha.kubernetes.io/pod: Invalid value: "bad": must be a valid seccomp profile`,
			`metadata.annotations.container.seccomp.security.alpha.kubernetes.io/c: Invalid value: "../x": must not contain '..'`,
			`metadata.annotations.container.seccomp.security.alpha.kubernetes.io/zz: Invalid value: "foo": must be a valid seccomp profile`,
			`metadata.annotations[container.apparmor.security.beta.kubernetes.io/nope]: Invalid value: "nope": container not found`,
			`metadata.annotations[container.apparmor.security.beta.kubernetes.io/nope]: Invalid value: "bad": invalid AppArmor profile name: "bad"`,
		}},
		{name: "legacy tolerations checked as the spec's, before the deletion cost", annotations: map[string]string{
			deletionCostKey:       "2147483648",
			tolerationsAnnotation: `[{"key":"","operator":"Equal","value":"a b"},{"key":"k","operator":"Foo","tolerationSeconds":5,"effect":"Bad"}]`,
		}, want: []string{
			`metadata.annotations.scheduler.alpha.kubernetes.io/tolerations[0].operator: Invalid value: "Equal": operator must be Exists when ` + "`key`" + ` is empty, which means "match all values and all keys"`,
			`metadata.annotations.scheduler.alpha.kubernetes.io/tolerations[0].operator: Invalid value: "a b": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
			`metadata.annotations.scheduler.alpha.kubernetes.io/tolerations[1].effect: Invalid value: "Bad": effect must be 'NoExecute' when ` + "`tolerationSeconds`" + ` is set`,
			`metadata.annotations.scheduler.alpha.kubernetes.io/tolerations[1].operator: Unsupported value: "Foo": supported values: "Equal", "Exists"`,
			`metadata.annotations.scheduler.alpha.kubernetes.io/tolerations[1].effect: Unsupported value: "Bad": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`,
			`metadata.annotations[controller.kubernetes.io/pod-deletion-cost]: Invalid value: "2147483648": must be a 32bit integer`,
		}},
		{name: "legacy tolerations that are not JSON", annotations: map[string]string{deletionCostKey: "", tolerationsAnnotation: "not json"}, want: []string{
			`metadata.annotations: Invalid value: "scheduler.alpha.kubernetes.io/tolerations": invalid character 'o' in literal null (expecting 'u')`,
			`metadata.annotations[controller.kubernetes.io/pod-deletion-cost]: Invalid value: "": must be a 32bit integer`,
		}},
		{name: "legacy tolerations decode as upstream's internal type", annotations: map[string]string{deletionCostKey: "007", tolerationsAnnotation: `{"key":1}`}, want: []string{
			`metadata.annotations: Invalid value: "scheduler.alpha.kubernetes.io/tolerations": json: cannot unmarshal object into Go value of type []core.Toleration`,
			`metadata.annotations[controller.kubernetes.io/pod-deletion-cost]: Invalid value: "007": must be a 32bit integer`,
		}},
		{name: "legacy toleration fields matched by name, whatever their case", annotations: map[string]string{tolerationsAnnotation: `[{"Operator":true,"tolerationseconds":"x"}]`}, want: []string{
			`metadata.annotations: Invalid value: "scheduler.alpha.kubernetes.io/tolerations": json: cannot unmarshal bool into Go struct field Toleration.Operator of type core.TolerationOperator`,
		}},
		{name: "legacy tolerations: comparison operators are off", annotations: map[string]string{tolerationsAnnotation: `[{"operator":"Lt","key":"k","value":"5"}]`}, want: []string{
			`metadata.annotations.scheduler.alpha.kubernetes.io/tolerations[0].operator: Unsupported value: "Lt": supported values: "Equal", "Exists", "Lt", "Gt"`,
		}},
		{name: "empty or null legacy tolerations", annotations: map[string]string{tolerationsAnnotation: "null", "x": ""}},
		{name: "an absolute localhost seccomp profile", annotations: map[string]string{"seccomp.security.alpha.kubernetes.io/pod": "localhost//abs"}, want: []string{
			`metadata.annotations.seccomp.security.alpha.kubernetes.io/pod: Invalid value: "/abs": must be a relative path`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := annotatedPod(tc.annotations)
			p.Spec.NodeName = tc.nodeName
			validatetest.ExpectErrors(t, Strategy.Validate(context.Background(), p), tc.want)
		})
	}
}

// TestSeccompAndAppArmorAnnotationsMatchFields checks upstream's checks,
// on create, that a seccomp or AppArmor annotation gives the profile of
// the field set with it.
func TestSeccompAndAppArmorAnnotationsMatchFields(t *testing.T) {
	localhost := func(name string) *corev1.AppArmorProfile {
		return &corev1.AppArmorProfile{Type: corev1.AppArmorProfileTypeLocalhost, LocalhostProfile: ptr.To(name)}
	}
	for _, tc := range []struct {
		name string
		pod  func(*corev1.Pod)
		want []string
	}{
		{name: "AppArmor: each container's own field", pod: func(p *corev1.Pod) {
			p.Annotations = map[string]string{appArmorC: "runtime/default", "container.apparmor.security.beta.kubernetes.io/i": "localhost/foo", "container.apparmor.security.beta.kubernetes.io/e": "localhost/foo"}
			p.Spec.InitContainers = []corev1.Container{{Name: "i", Image: "busybox", TerminationMessagePolicy: "File", ImagePullPolicy: "Always",
				SecurityContext: &corev1.SecurityContext{AppArmorProfile: localhost("bar")}}}
			p.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{AppArmorProfile: &corev1.AppArmorProfile{Type: corev1.AppArmorProfileTypeUnconfined}}
			e := p.Spec.Containers[0]
			e.Name, e.SecurityContext = "e", &corev1.SecurityContext{AppArmorProfile: &corev1.AppArmorProfile{Type: corev1.AppArmorProfileTypeRuntimeDefault}}
			p.Spec.Containers = append(p.Spec.Containers, e)
		}, want: []string{
			"spec.initContainers[0].securityContext.appArmorProfile.localhostProfile: Forbidden: apparmor profile in annotation and field must match",
			"spec.containers[0].securityContext.appArmorProfile.type: Forbidden: apparmor type in annotation and field must match",
			"spec.containers[1].securityContext.appArmorProfile.type: Forbidden: apparmor type in annotation and field must match",
		}},
		{name: "AppArmor: the pod's profile stands for a container without one", pod: func(p *corev1.Pod) {
			p.Annotations = map[string]string{appArmorC: "localhost/ x"}
			p.Spec.SecurityContext.AppArmorProfile = &corev1.AppArmorProfile{Type: corev1.AppArmorProfileTypeUnconfined}
		}, want: []string{"spec.containers[0].securityContext.appArmorProfile.type: Forbidden: apparmor type in annotation and field must match"}},
		{name: "AppArmor: Windows pods are not checked", pod: func(p *corev1.Pod) {
			p.Annotations = map[string]string{appArmorC: "localhost/foo"}
			p.Spec.OS = &corev1.PodOS{Name: corev1.Windows}
			p.Spec.SecurityContext = nil
			p.Spec.Containers[0].SecurityContext = nil
			p.Spec.NodeName = "n"
			p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "g"}}
		}, want: []string{"spec.nodeName: Forbidden: cannot be set until all schedulingGates have been cleared"}},
		{name: "seccomp: the pod's then each container's", pod: func(p *corev1.Pod) {
			p.Annotations = map[string]string{"seccomp.security.alpha.kubernetes.io/pod": "runtime/default", "container.seccomp.security.alpha.kubernetes.io/c": "localhost/a",
				"container.seccomp.security.alpha.kubernetes.io/d": "unconfined"}
			p.Spec.SecurityContext.SeccompProfile = &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeUnconfined}
			p.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeLocalhost, LocalhostProfile: ptr.To("b")}}
			d := p.Spec.Containers[0]
			d.Name, d.SecurityContext = "d", &corev1.SecurityContext{SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}}
			p.Spec.Containers = append(p.Spec.Containers, d)
		}, want: []string{
			"spec.securityContext.seccompProfile.type: Forbidden: seccomp type in annotation and field must match",
			"spec.containers[0].securityContext.seccompProfile.localhostProfile: Forbidden: seccomp profile in annotation and field must match",
			"spec.containers[1].securityContext.seccompProfile.type: Forbidden: seccomp type in annotation and field must match",
		}},
		{name: "seccomp: docker/default is the runtime's default", pod: func(p *corev1.Pod) {
			p.Annotations = map[string]string{"seccomp.security.alpha.kubernetes.io/pod": "docker/default"}
			p.Spec.SecurityContext.SeccompProfile = &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := validPod()
			tc.pod(p)
			validatetest.ExpectErrors(t, Strategy.Validate(context.Background(), p), tc.want)
		})
	}
}

// TestPodSpecificAnnotationUpdates checks upstream's
// ValidatePodSpecificAnnotationUpdates on a pod's update, its status's and
// its ephemeral containers', and that errors it finds twice are reported
// once (as the server does).
func TestPodSpecificAnnotationUpdates(t *testing.T) {
	ctx := context.Background()
	old := annotatedPod(map[string]string{appArmorC: "runtime/default", deletionCostKey: "5"})
	d := old.Spec.Containers[0]
	d.Name = "d"
	old.Spec.Containers = append(old.Spec.Containers, d)
	with := func(annotations map[string]string) *corev1.Pod {
		p := old.DeepCopy()
		p.Annotations = annotations
		return p
	}
	for _, tc := range []struct {
		name    string
		pod     *corev1.Pod
		old     *corev1.Pod // old when nil
		write   string
		want    []string
		wantRaw int
	}{
		{name: "AppArmor annotations may not be removed nor added, the mirror annotation not added", write: "update",
			pod: with(map[string]string{deletionCostKey: "5", "container.apparmor.security.beta.kubernetes.io/d": "unconfined", mirrorKey: "m"}),
			want: []string{
				`metadata.annotations[kubernetes.io/config.mirror]: Invalid value: "m": must set spec.nodeName if mirror pod annotation is set`,
				"metadata.annotations[container.apparmor.security.beta.kubernetes.io/c]: Forbidden: may not remove or update AppArmor annotations",
				"metadata.annotations[container.apparmor.security.beta.kubernetes.io/d]: Forbidden: may not add AppArmor annotations",
				"metadata.annotations[kubernetes.io/config.mirror]: Forbidden: may not add mirror pod annotation",
			}, wantRaw: 5},
		{name: "an AppArmor annotation may not change; the others are checked", write: "update",
			pod: with(map[string]string{appArmorC: "unconfined", deletionCostKey: "x", "seccomp.security.alpha.kubernetes.io/pod": "bad"}),
			want: []string{
				`metadata.annotations[controller.kubernetes.io/pod-deletion-cost]: Invalid value: "x": must be a 32bit integer`,
				`metadata.annotations.seccomp.security.alpha.kubernetes.io/pod: Invalid value: "bad": must be a valid seccomp profile`,
				"metadata.annotations[container.apparmor.security.beta.kubernetes.io/c]: Forbidden: may not remove or update AppArmor annotations",
			}, wantRaw: 5},
		{name: "status: the changes first, then the annotations", write: "status",
			pod: with(map[string]string{deletionCostKey: "x"}),
			want: []string{
				"metadata.annotations[container.apparmor.security.beta.kubernetes.io/c]: Forbidden: may not remove or update AppArmor annotations",
				`metadata.annotations[controller.kubernetes.io/pod-deletion-cost]: Invalid value: "x": must be a 32bit integer`,
			}, wantRaw: 2},
		{name: "status: the mirror annotation may not be removed", write: "status",
			pod: func() *corev1.Pod {
				p := with(map[string]string{appArmorC: "runtime/default"})
				p.Spec.NodeName = "n"
				return p
			}(),
			old: func() *corev1.Pod {
				p := with(map[string]string{appArmorC: "runtime/default", mirrorKey: "m"})
				p.Spec.NodeName = "n"
				return p
			}(),
			want: []string{"metadata.annotations[kubernetes.io/config.mirror]: Forbidden: may not remove or update mirror pod annotation"}, wantRaw: 1},
		{name: "ephemeral containers: their profiles are checked", write: "ephemeral",
			pod: func() *corev1.Pod {
				p := old.DeepCopy()
				p.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{
					Name: "dbg", Image: "busybox", TerminationMessagePolicy: "File", ImagePullPolicy: "Always",
					SecurityContext: &corev1.SecurityContext{AppArmorProfile: &corev1.AppArmorProfile{Type: "x"}},
				}}}
				return p
			}(),
			want: []string{`spec.ephemeralContainers[0].securityContext.appArmorProfile.type: Unsupported value: "x": supported values: "Localhost", "RuntimeDefault", "Unconfined"`}, wantRaw: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prev := old
			if tc.old != nil {
				prev = tc.old
			}
			var errs field.ErrorList
			switch tc.write {
			case "update":
				errs = Strategy.ValidateUpdate(ctx, tc.pod, prev)
			case "status":
				errs = Strategy.ValidateStatusUpdate(ctx, tc.pod, prev)
			case "ephemeral":
				errs = Strategy.ValidateEphemeralContainersUpdate(ctx, tc.pod, prev)
			}
			if len(errs) != tc.wantRaw {
				t.Errorf("%d errors before the server's deduplication, want %d", len(errs), tc.wantRaw)
			}
			validatetest.ExpectErrors(t, dedup(errs), tc.want)
		})
	}
}

// dedup drops the errors given again, as the server does before its 422.
func dedup(errs field.ErrorList) field.ErrorList {
	seen := map[string]bool{}
	var out field.ErrorList
	for _, e := range errs {
		if !seen[e.Error()] {
			seen[e.Error()] = true
			out = append(out, e)
		}
	}
	return out
}

// TestPodTemplateAnnotationsAndSecurity checks that a pod template gets
// the pod's annotation and security rules, at the template's paths.
func TestPodTemplateAnnotationsAndSecurity(t *testing.T) {
	p := validPod()
	p.Spec.SecurityContext = &corev1.PodSecurityContext{RunAsUser: ptr.To[int64](-1), Sysctls: []corev1.Sysctl{{Name: "a"}, {Name: "a"}}}
	p.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{
		AppArmorProfile: &corev1.AppArmorProfile{Type: corev1.AppArmorProfileTypeRuntimeDefault},
		SeccompProfile:  &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeUnconfined},
	}
	tmpl := &corev1.PodTemplateSpec{Spec: p.Spec}
	tmpl.Labels = map[string]string{"a": "b"}
	tmpl.Annotations = map[string]string{
		mirrorKey: "x", deletionCostKey: "1.5", tolerationsAnnotation: `[{"operator":"Exists","value":"v"}]`,
		"seccomp.security.alpha.kubernetes.io/pod": "x", "container.apparmor.security.beta.kubernetes.io/zz": "x",
		appArmorC: "unconfined", "container.seccomp.security.alpha.kubernetes.io/c": "runtime/default",
	}
	validatetest.ExpectErrors(t, ValidatePodTemplateSpec(context.Background(), tmpl, field.NewPath("spec", "template")), []string{
		`spec.template.annotations[kubernetes.io/config.mirror]: Invalid value: "x": must set spec.nodeName if mirror pod annotation is set`,
		`spec.template.annotations.scheduler.alpha.kubernetes.io/tolerations[0].operator: Invalid value: "v": value must be empty when ` + "`operator`" + ` is 'Exists'`,
		`spec.template.annotations[controller.kubernetes.io/pod-deletion-cost]: Invalid value: "1.5": must be a 32bit integer`,
		`spec.template.annotations.seccomp.security.alpha.kubernetes.io/pod: Invalid value: "x": must be a valid seccomp profile`,
		`spec.template.annotations[container.apparmor.security.beta.kubernetes.io/zz]: Invalid value: "zz": container not found`,
		`spec.template.annotations[container.apparmor.security.beta.kubernetes.io/zz]: Invalid value: "x": invalid AppArmor profile name: "x"`,
		"spec.template.spec.securityContext.runAsUser: Invalid value: -1: must be between 0 and 2147483647, inclusive",
		`spec.template.spec.securityContext.sysctls[1].name: Duplicate value: "a"`,
		"spec.template.spec.containers[0].securityContext.seccompProfile.type: Forbidden: seccomp type in annotation and field must match",
		"spec.template.spec.containers[0].securityContext.appArmorProfile.type: Forbidden: apparmor type in annotation and field must match",
	})
}
