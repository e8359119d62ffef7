package objectrefs

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// TestPodReferences checks the names found in each place a pod refers to
// a Secret or a ConfigMap, as upstream's visitors find them.
func TestPodReferences(t *testing.T) {
	env := []corev1.EnvVar{
		{Name: "S", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "env-secret"}}}},
		{Name: "C", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "env-cm"}}}},
	}
	spec := &corev1.PodSpec{
		ImagePullSecrets: []corev1.LocalObjectReference{{Name: "pull"}, {Name: ""}},
		InitContainers: []corev1.Container{{EnvFrom: []corev1.EnvFromSource{
			{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "init-from"}}},
			{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "init-cm"}}}}}},
		Containers:          []corev1.Container{{Env: env}},
		EphemeralContainers: []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Env: []corev1.EnvVar{{Name: "E", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "debug"}}}}}}}},
		Volumes: []corev1.Volume{
			{Name: "a", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "vol"}}},
			{Name: "b", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "vol-cm"}}}},
			{Name: "c", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
				{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "proj"}}},
				{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "proj-cm"}}}}}}},
			{Name: "d", VolumeSource: corev1.VolumeSource{CSI: &corev1.CSIVolumeSource{Driver: "d", NodePublishSecretRef: &corev1.LocalObjectReference{Name: "csi"}}}},
			{Name: "e", VolumeSource: corev1.VolumeSource{AzureFile: &corev1.AzureFileVolumeSource{SecretName: "azure"}}},
		},
	}
	if got, want := PodSecretNames(spec), []string{"pull", "init-from", "env-secret", "debug", "vol", "proj", "csi", "azure"}; !slices.Equal(got, want) {
		t.Errorf("PodSecretNames: %v, want %v", got, want)
	}
	if got, want := PodConfigMapNames(spec), []string{"init-cm", "env-cm", "vol-cm", "proj-cm"}; !slices.Equal(got, want) {
		t.Errorf("PodConfigMapNames: %v, want %v", got, want)
	}
}

// TestVolumeKubeletSecrets checks which of a volume's secrets a kubelet
// reads, and their namespaces.
func TestVolumeKubeletSecrets(t *testing.T) {
	claim := &corev1.ObjectReference{Namespace: "apps", Name: "data"}
	for _, tc := range []struct {
		name string
		src  corev1.PersistentVolumeSource
		want []types.NamespacedName
	}{
		{"CSI: node secrets, not controller ones", corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{
			ControllerPublishSecretRef: &corev1.SecretReference{Namespace: "x", Name: "ctrl"},
			NodePublishSecretRef:       &corev1.SecretReference{Namespace: "x", Name: "publish"},
			NodeStageSecretRef:         &corev1.SecretReference{Namespace: "y", Name: "stage"}}},
			[]types.NamespacedName{{Namespace: "x", Name: "publish"}, {Namespace: "y", Name: "stage"}}},
		{"RBD without a namespace: the claim's", corev1.PersistentVolumeSource{RBD: &corev1.RBDPersistentVolumeSource{SecretRef: &corev1.SecretReference{Name: "rbd"}}},
			[]types.NamespacedName{{Namespace: "apps", Name: "rbd"}}},
		{"AzureFile with its namespace", corev1.PersistentVolumeSource{AzureFile: &corev1.AzureFilePersistentVolumeSource{SecretName: "az", SecretNamespace: ptr.To("z")}},
			[]types.NamespacedName{{Namespace: "z", Name: "az"}}},
		{"no secret", corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/x"}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pv := &corev1.PersistentVolume{Spec: corev1.PersistentVolumeSpec{ClaimRef: claim, PersistentVolumeSource: tc.src}}
			if got := VolumeKubeletSecrets(pv); !slices.Equal(got, tc.want) {
				t.Errorf("%v, want %v", got, tc.want)
			}
		})
	}
}
