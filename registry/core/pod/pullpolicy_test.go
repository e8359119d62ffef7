package pod

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestDefaultPullPolicyReadsReferencesAsUpstream checks the default pull
// policy of containers and image volumes against refplane's (kube-apiserver
// v1.37.2) for the same references: Always for the latest tag, none, or the
// latest tag beside a digest; IfNotPresent for another tag, a digest alone
// and any reference that does not parse (upper case, an empty tag, a
// space, a bad digest, a name too long).
func TestDefaultPullPolicyReadsReferencesAsUpstream(t *testing.T) {
	digest := "sha256:" + strings.Repeat("a", 64)
	for _, tc := range []struct {
		image string
		want  corev1.PullPolicy
	}{
		{"nginx", corev1.PullAlways},
		{"nginx:latest", corev1.PullAlways},
		{"nginx:1.2", corev1.PullIfNotPresent},
		{"Nginx", corev1.PullIfNotPresent},
		{"nginx:Latest", corev1.PullIfNotPresent},
		{"nginx@" + digest, corev1.PullIfNotPresent},
		{"nginx:latest@" + digest, corev1.PullAlways},
		{"nginx:1@" + digest, corev1.PullIfNotPresent},
		{"localhost:5000/x", corev1.PullAlways},
		{"a/b/c:latest", corev1.PullAlways},
		{"-x-", corev1.PullIfNotPresent},
		{strings.Repeat("a", 300), corev1.PullIfNotPresent},
		{"UPPER/x:1", corev1.PullIfNotPresent},
		{"x:", corev1.PullIfNotPresent},
		{"registry.io/x:v1 ", corev1.PullIfNotPresent},
		{"nginx@sha256:short", corev1.PullIfNotPresent},
		{"", corev1.PullIfNotPresent},
	} {
		spec := corev1.PodSpec{
			Containers: []corev1.Container{{Name: "c", Image: tc.image}},
			Volumes:    []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{Image: &corev1.ImageVolumeSource{Reference: tc.image}}}},
		}
		DefaultPodSpec(&spec)
		if got := spec.Containers[0].ImagePullPolicy; got != tc.want {
			t.Errorf("container image %q: %s, want %s", tc.image, got, tc.want)
		}
		if got := spec.Volumes[0].Image.PullPolicy; got != tc.want {
			t.Errorf("image volume %q: %s, want %s", tc.image, got, tc.want)
		}
	}
}
