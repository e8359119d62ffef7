package objectrefs

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// VolumeKubeletSecrets returns the Secrets pv's source refers to that the kubelet
// of a node using it reads, as upstream's VisitPVSecretNames finds those it
// marks kubelet-visible: the secret references of AzureFile, CephFS,
// Cinder, FlexVolume, RBD, ScaleIO, iSCSI and StorageOS sources, and a CSI
// source's node publish, stage and expand secrets (not its controller
// ones). A reference without a namespace is in the claim's (none without a
// claim), where upstream defaults it so; an empty name is left out.
func VolumeKubeletSecrets(pv *corev1.PersistentVolume) []types.NamespacedName {
	var out []types.NamespacedName
	claimNS := ""
	if pv.Spec.ClaimRef != nil {
		claimNS = pv.Spec.ClaimRef.Namespace
	}
	add := func(ns, name string) {
		if name != "" {
			out = append(out, types.NamespacedName{Namespace: ns, Name: name})
		}
	}
	// ref adds a SecretReference whose empty namespace means the claim's.
	ref := func(r *corev1.SecretReference) {
		if r == nil {
			return
		}
		ns := claimNS
		if r.Namespace != "" {
			ns = r.Namespace
		}
		add(ns, r.Name)
	}
	// exact adds a SecretReference as it is.
	exact := func(r *corev1.SecretReference) {
		if r != nil {
			add(r.Namespace, r.Name)
		}
	}
	src := &pv.Spec.PersistentVolumeSource
	switch {
	case src.AzureFile != nil:
		ns := claimNS
		if src.AzureFile.SecretNamespace != nil && *src.AzureFile.SecretNamespace != "" {
			ns = *src.AzureFile.SecretNamespace
		}
		add(ns, src.AzureFile.SecretName)
	case src.CephFS != nil:
		ref(src.CephFS.SecretRef)
	case src.Cinder != nil:
		exact(src.Cinder.SecretRef)
	case src.FlexVolume != nil:
		ref(src.FlexVolume.SecretRef)
	case src.RBD != nil:
		ref(src.RBD.SecretRef)
	case src.ScaleIO != nil:
		ref(src.ScaleIO.SecretRef)
	case src.ISCSI != nil:
		ref(src.ISCSI.SecretRef)
	case src.StorageOS != nil:
		if r := src.StorageOS.SecretRef; r != nil {
			add(r.Namespace, r.Name)
		}
	case src.CSI != nil:
		exact(src.CSI.NodePublishSecretRef)
		exact(src.CSI.NodeStageSecretRef)
		exact(src.CSI.NodeExpandSecretRef)
	}
	return out
}
