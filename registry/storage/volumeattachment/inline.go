package volumeattachment

import (
	"path"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate"
	"github.com/fakeplane/fakeplane/registry/core/persistentvolume"
)

// validateInlineSpec is upstream's ValidatePersistentVolumeSpec for an inline
// volume (a migrated in-tree volume's, validateInlinePersistentVolumeSpec):
// no claim reference, capacity, node affinity nor class, a csi source,
// access modes, a Retain reclaim policy, a Filesystem volume mode, and
// exactly one source. Of the sources, hostPath, nfs, local and csi are
// checked within; the others, whose drivers left the tree, are only
// counted.
func validateInlineSpec(spec *corev1.PersistentVolumeSpec, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	const inline = "may not be specified in the context of inline volumes"
	if spec.ClaimRef != nil {
		errs = append(errs, field.Forbidden(fld.Child("claimRef"), inline))
	}
	if len(spec.Capacity) != 0 {
		errs = append(errs, field.Forbidden(fld.Child("capacity"), inline))
	}
	if spec.CSI == nil {
		errs = append(errs, field.Required(fld.Child("csi"), "has to be specified in the context of inline volumes"))
	}
	if len(spec.AccessModes) == 0 {
		errs = append(errs, field.Required(fld.Child("accessModes"), ""))
	}
	errs = append(errs, validate.AccessModes(spec.AccessModes, fld.Child("accessModes"))...)
	if p := spec.PersistentVolumeReclaimPolicy; p != "" && p != corev1.PersistentVolumeReclaimRetain {
		errs = append(errs, field.Forbidden(fld.Child("persistentVolumeReclaimPolicy"), "may only be Retain in the context of inline volumes"))
	}
	if spec.NodeAffinity != nil {
		errs = append(errs, field.Forbidden(fld.Child("nodeAffinity"), inline))
	}
	errs = append(errs, persistentvolume.ValidateSources(&spec.PersistentVolumeSource, false, fld)...)
	if spec.HostPath != nil && path.Clean(spec.HostPath.Path) == "/" && spec.PersistentVolumeReclaimPolicy == corev1.PersistentVolumeReclaimRecycle {
		errs = append(errs, field.Forbidden(fld.Child("persistentVolumeReclaimPolicy"), "may not be 'recycle' for a hostPath mount of '/'"))
	}
	if spec.StorageClassName != "" {
		errs = append(errs, field.Forbidden(fld.Child("storageClassName"), inline))
	}
	if m := spec.VolumeMode; m != nil && *m != corev1.PersistentVolumeFilesystem {
		errs = append(errs, field.Forbidden(fld.Child("volumeMode"), "may not specify volumeMode other than Filesystem in the context of inline volumes"))
	}
	return errs
}
