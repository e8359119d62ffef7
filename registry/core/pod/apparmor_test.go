package pod

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/warning"
	"k8s.io/utils/ptr"
)

// warningList records the warnings added to a context, in order.
type warningList []string

func (w *warningList) AddWarning(_, text string) { *w = append(*w, text) }

// TestPrepareForCreateAppliesAppArmorAnnotations checks upstream's
// applyAppArmorVersionSkew: the annotation's profile is copied into a
// container without one, unless it is invalid or the pod's, and the
// warning is recorded then (before validation) for each such container,
// unless the annotation gives the pod's profile.
func TestPrepareForCreateAppliesAppArmorAnnotations(t *testing.T) {
	const key = "container.apparmor.security.beta.kubernetes.io/"
	warningFor := func(c string) string {
		return `metadata.annotations[` + key + c + `]: deprecated since v1.30; use the "appArmorProfile" field instead`
	}
	localhost := func(name string) *corev1.AppArmorProfile {
		return &corev1.AppArmorProfile{Type: corev1.AppArmorProfileTypeLocalhost, LocalhostProfile: ptr.To(name)}
	}
	unconfined := &corev1.AppArmorProfile{Type: corev1.AppArmorProfileTypeUnconfined}
	runtimeDefault := &corev1.AppArmorProfile{Type: corev1.AppArmorProfileTypeRuntimeDefault}
	for _, tc := range []struct {
		name         string
		pod          func(*corev1.Pod)
		wantWarnings []string
		// wantProfiles are the containers' profiles after, by name.
		wantProfiles map[string]*corev1.AppArmorProfile
	}{
		{name: "no annotation, nothing", pod: func(*corev1.Pod) {}, wantProfiles: map[string]*corev1.AppArmorProfile{"c": nil}},
		{name: "each annotation copied, init containers first", pod: func(p *corev1.Pod) {
			p.Spec.InitContainers = []corev1.Container{{Name: "i", Image: "busybox"}}
			p.Annotations = map[string]string{key + "c": "unconfined", key + "i": "localhost/prof"}
		}, wantWarnings: []string{warningFor("i"), warningFor("c")},
			wantProfiles: map[string]*corev1.AppArmorProfile{"i": localhost("prof"), "c": unconfined}},
		{name: "runtime/default", pod: func(p *corev1.Pod) {
			p.Annotations = map[string]string{key + "c": "runtime/default"}
		}, wantWarnings: []string{warningFor("c")}, wantProfiles: map[string]*corev1.AppArmorProfile{"c": runtimeDefault}},
		{name: "the pod's profile: neither copied nor warned", pod: func(p *corev1.Pod) {
			p.Annotations = map[string]string{key + "c": "localhost/prof"}
			p.Spec.SecurityContext.AppArmorProfile = localhost("prof")
		}, wantProfiles: map[string]*corev1.AppArmorProfile{"c": nil}},
		{name: "another profile than the pod's: copied", pod: func(p *corev1.Pod) {
			p.Annotations = map[string]string{key + "c": "localhost/prof"}
			p.Spec.SecurityContext.AppArmorProfile = runtimeDefault
		}, wantWarnings: []string{warningFor("c")}, wantProfiles: map[string]*corev1.AppArmorProfile{"c": localhost("prof")}},
		{name: "no profile named: warned, not copied", pod: func(p *corev1.Pod) {
			p.Annotations = map[string]string{key + "c": "localhost/"}
		}, wantWarnings: []string{warningFor("c")}, wantProfiles: map[string]*corev1.AppArmorProfile{"c": nil}},
		{name: "an unknown form: warned, not copied", pod: func(p *corev1.Pod) {
			p.Annotations = map[string]string{key + "c": "bad"}
		}, wantWarnings: []string{warningFor("c")}, wantProfiles: map[string]*corev1.AppArmorProfile{"c": nil}},
		{name: "an invalid profile, even the pod's: warned, not copied", pod: func(p *corev1.Pod) {
			p.Annotations = map[string]string{key + "c": "localhost/ prof"}
			p.Spec.SecurityContext.AppArmorProfile = localhost(" prof")
		}, wantWarnings: []string{warningFor("c")}, wantProfiles: map[string]*corev1.AppArmorProfile{"c": nil}},
		{name: "the container's own profile stays", pod: func(p *corev1.Pod) {
			p.Annotations = map[string]string{key + "c": "unconfined"}
			p.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{AppArmorProfile: runtimeDefault}
		}, wantProfiles: map[string]*corev1.AppArmorProfile{"c": runtimeDefault}},
		{name: "the annotation of no container", pod: func(p *corev1.Pod) {
			p.Annotations = map[string]string{key + "other": "unconfined"}
		}, wantProfiles: map[string]*corev1.AppArmorProfile{"c": nil}},
		{name: "ephemeral containers too", pod: func(p *corev1.Pod) {
			p.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "e", Image: "busybox"}}}
			p.Annotations = map[string]string{key + "e": "unconfined"}
		}, wantWarnings: []string{warningFor("e")}, wantProfiles: map[string]*corev1.AppArmorProfile{"c": nil, "e": unconfined}},
		{name: "Windows pods: nothing", pod: func(p *corev1.Pod) {
			p.Annotations = map[string]string{key + "c": "unconfined"}
			p.Spec.OS = &corev1.PodOS{Name: corev1.Windows}
		}, wantProfiles: map[string]*corev1.AppArmorProfile{"c": nil}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := validPod()
			tc.pod(p)
			var got warningList
			Strategy.PrepareForCreate(warning.WithWarningRecorder(context.Background(), &got), p)
			expectWarnings(t, got, tc.wantWarnings)
			profiles := map[string]*corev1.AppArmorProfile{}
			visitContainersWithPath(&p.Spec, nil, func(c *corev1.Container, _ *field.Path) {
				profiles[c.Name] = nil
				if c.SecurityContext != nil {
					profiles[c.Name] = c.SecurityContext.AppArmorProfile
				}
			})
			if !apiequality.Semantic.DeepEqual(profiles, tc.wantProfiles) {
				t.Errorf("profiles %v, want %v", profiles, tc.wantProfiles)
			}
		})
	}
}
