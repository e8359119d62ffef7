package persistentvolume

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate"
)

// WarningsOnCreate returns upstream's warnings for a new PersistentVolume
// (GetWarningsForPersistentVolume of pkg/api/persistentvolume).
func (volumeStrategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	return volumeWarnings(obj.(*corev1.PersistentVolume))
}

// WarningsOnUpdate returns the same warnings for the updated volume. (A
// write to its status has none, as upstream's status strategy.)
func (volumeStrategy) WarningsOnUpdate(_ context.Context, obj, _ runtime.Object) []string {
	return volumeWarnings(obj.(*corev1.PersistentVolume))
}

// deprecatedVolumeAnnotations are the annotations upstream warns about, in
// its order, with the warning's text.
var deprecatedVolumeAnnotations = []struct{ key, msg string }{
	{corev1.BetaStorageClassAnnotation, `deprecated since v1.8; use "storageClassName" attribute instead`},
	{corev1.MountOptionAnnotation, `deprecated since v1.31; use "mountOptions" attribute instead`},
}

// volumeWarnings is upstream's warningsForPersistentVolumeSpecAndMeta, in
// its order: deprecated annotations, the Recycle reclaim policy,
// deprecated node labels in the node affinity, and volume plugins that no
// longer work.
func volumeWarnings(pv *corev1.PersistentVolume) []string {
	var warnings []string
	annotations := field.NewPath("metadata", "annotations")
	for _, a := range deprecatedVolumeAnnotations {
		if _, ok := pv.Annotations[a.key]; ok {
			warnings = append(warnings, fmt.Sprintf("%s: %s", annotations.Key(a.key), a.msg))
		}
	}
	spec := field.NewPath("spec")
	if pv.Spec.PersistentVolumeReclaimPolicy == corev1.PersistentVolumeReclaimRecycle {
		warnings = append(warnings, fmt.Sprintf("%s: The Recycle reclaim policy is deprecated. Instead, the recommended approach is to use dynamic provisioning.", spec.Child("persistentVolumeReclaimPolicy")))
	}
	if a := pv.Spec.NodeAffinity; a != nil && a.Required != nil {
		terms := spec.Child("nodeAffinity", "required", "nodeSelectorTerms")
		for i, term := range a.Required.NodeSelectorTerms {
			warnings = append(warnings, validate.NodeSelectorTermWarnings(term, false, terms.Index(i))...)
		}
	}
	src := pv.Spec.PersistentVolumeSource
	for _, p := range []struct {
		set  bool
		name string
		msg  string
	}{
		{src.CephFS != nil, "cephfs", "deprecated in v1.28, non-functional in v1.31+"},
		{src.PhotonPersistentDisk != nil, "photonPersistentDisk", "deprecated in v1.11, non-functional in v1.16+"},
		{src.ScaleIO != nil, "scaleIO", "deprecated in v1.16, non-functional in v1.22+"},
		{src.StorageOS != nil, "storageOS", "deprecated in v1.22, non-functional in v1.25+"},
		{src.Glusterfs != nil, "glusterfs", "deprecated in v1.25, non-functional in v1.26+"},
		{src.RBD != nil, "rbd", "deprecated in v1.28, non-functional in v1.31+"},
	} {
		if p.set {
			warnings = append(warnings, fmt.Sprintf("%s: %s", spec.Child(p.name), p.msg))
		}
	}
	return warnings
}
