package persistentvolume

import (
	"context"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestPersistentVolumeWarnings(t *testing.T) {
	hostPath := corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/data"}}
	for _, tc := range []struct {
		name        string
		annotations map[string]string
		spec        corev1.PersistentVolumeSpec
		want        []string
	}{
		{name: "plain volume warns of nothing", spec: corev1.PersistentVolumeSpec{PersistentVolumeSource: hostPath, PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain}},
		{name: "deprecated annotations", annotations: map[string]string{
			"volume.beta.kubernetes.io/mount-options": "ro", "volume.beta.kubernetes.io/storage-class": "fast", "other": "x"},
			spec: corev1.PersistentVolumeSpec{PersistentVolumeSource: hostPath},
			want: []string{
				`metadata.annotations[volume.beta.kubernetes.io/storage-class]: deprecated since v1.8; use "storageClassName" attribute instead`,
				`metadata.annotations[volume.beta.kubernetes.io/mount-options]: deprecated since v1.31; use "mountOptions" attribute instead`,
			}},
		{name: "Recycle reclaim policy", spec: corev1.PersistentVolumeSpec{PersistentVolumeSource: hostPath, PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRecycle},
			want: []string{"spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated. Instead, the recommended approach is to use dynamic provisioning."}},
		{name: "deprecated node labels in the node affinity, values not checked", spec: corev1.PersistentVolumeSpec{PersistentVolumeSource: hostPath,
			NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{
				{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "kubernetes.io/os", Operator: corev1.NodeSelectorOpIn, Values: []string{"linux"}}}},
				{MatchExpressions: []corev1.NodeSelectorRequirement{
					{Key: "kubernetes.io/hostname", Operator: corev1.NodeSelectorOpIn, Values: []string{"not a label value!"}},
					{Key: "failure-domain.beta.kubernetes.io/zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"a"}},
				}},
			}}}},
			want: []string{`spec.nodeAffinity.required.nodeSelectorTerms[1].matchExpressions[1].key: failure-domain.beta.kubernetes.io/zone is deprecated since v1.17; use "topology.kubernetes.io/zone" instead`}},
		{name: "CephFS volume", spec: corev1.PersistentVolumeSpec{PersistentVolumeSource: corev1.PersistentVolumeSource{CephFS: &corev1.CephFSPersistentVolumeSource{Monitors: []string{"m"}}}},
			want: []string{"spec.cephfs: deprecated in v1.28, non-functional in v1.31+"}},
		{name: "PhotonPersistentDisk volume", spec: corev1.PersistentVolumeSpec{PersistentVolumeSource: corev1.PersistentVolumeSource{PhotonPersistentDisk: &corev1.PhotonPersistentDiskVolumeSource{PdID: "p"}}},
			want: []string{"spec.photonPersistentDisk: deprecated in v1.11, non-functional in v1.16+"}},
		{name: "ScaleIO volume", spec: corev1.PersistentVolumeSpec{PersistentVolumeSource: corev1.PersistentVolumeSource{ScaleIO: &corev1.ScaleIOPersistentVolumeSource{}}},
			want: []string{"spec.scaleIO: deprecated in v1.16, non-functional in v1.22+"}},
		{name: "StorageOS volume", spec: corev1.PersistentVolumeSpec{PersistentVolumeSource: corev1.PersistentVolumeSource{StorageOS: &corev1.StorageOSPersistentVolumeSource{}}},
			want: []string{"spec.storageOS: deprecated in v1.22, non-functional in v1.25+"}},
		{name: "Glusterfs volume", spec: corev1.PersistentVolumeSpec{PersistentVolumeSource: corev1.PersistentVolumeSource{Glusterfs: &corev1.GlusterfsPersistentVolumeSource{}}},
			want: []string{"spec.glusterfs: deprecated in v1.25, non-functional in v1.26+"}},
		{name: "RBD volume with Recycle and a deprecated annotation, in upstream's order", annotations: map[string]string{"volume.beta.kubernetes.io/storage-class": "fast"},
			spec: corev1.PersistentVolumeSpec{PersistentVolumeSource: corev1.PersistentVolumeSource{RBD: &corev1.RBDPersistentVolumeSource{}}, PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRecycle},
			want: []string{
				`metadata.annotations[volume.beta.kubernetes.io/storage-class]: deprecated since v1.8; use "storageClassName" attribute instead`,
				"spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated. Instead, the recommended approach is to use dynamic provisioning.",
				"spec.rbd: deprecated in v1.28, non-functional in v1.31+",
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pv := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv", Annotations: tc.annotations}, Spec: tc.spec}
			if got := Strategy.WarningsOnCreate(context.Background(), pv); !slices.Equal(got, tc.want) {
				t.Errorf("create warnings:\n got %q\nwant %q", got, tc.want)
			}
			if got := Strategy.WarningsOnUpdate(context.Background(), pv, pv.DeepCopy()); !slices.Equal(got, tc.want) {
				t.Errorf("update warnings:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}
