package volumeattachment

import (
	"path"
	"reflect"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate"
)

// volumeSources are a PersistentVolume's sources in the order upstream's
// ValidatePersistentVolumeSpec checks them, with the path each is reported
// under. FlexVolume counts without being refused as a second source, as
// upstream's does.
var volumeSources = []struct{ goName, path string }{
	{"HostPath", "hostPath"}, {"GCEPersistentDisk", "gcePersistentDisk"}, {"AWSElasticBlockStore", "awsElasticBlockStore"},
	{"Glusterfs", "glusterfs"}, {"Flocker", "flocker"}, {"NFS", "nfs"}, {"RBD", "rbd"}, {"Quobyte", "quobyte"},
	{"CephFS", "cephFS"}, {"ISCSI", "iscsi"}, {"Cinder", "cinder"}, {"FC", "fc"}, {"FlexVolume", "flexVolume"},
	{"AzureFile", "azureFile"}, {"VsphereVolume", "vsphereVolume"}, {"PhotonPersistentDisk", "photonPersistentDisk"},
	{"PortworxVolume", "portworxVolume"}, {"AzureDisk", "azureDisk"}, {"ScaleIO", "scaleIO"}, {"Local", "local"},
	{"StorageOS", "storageos"}, {"CSI", "csi"},
}

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
	errs = append(errs, validateSources(&spec.PersistentVolumeSource, fld)...)
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

// validateSources checks that exactly one source is given, and the given
// one. A local source needs a node affinity, which an inline volume may not
// have.
func validateSources(src *corev1.PersistentVolumeSource, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	rv := reflect.ValueOf(src).Elem()
	n := 0
	for _, vs := range volumeSources {
		f := rv.FieldByName(vs.goName)
		if f.IsNil() {
			continue
		}
		p := fld.Child(vs.path)
		if n > 0 && vs.goName != "FlexVolume" {
			errs = append(errs, field.Forbidden(p, "may not specify more than 1 volume type"))
			continue
		}
		n++
		switch s := f.Interface().(type) {
		case *corev1.HostPathVolumeSource:
			errs = append(errs, validate.HostPath(s, p)...)
		case *corev1.LocalVolumeSource:
			if s.Path == "" {
				errs = append(errs, field.Required(p.Child("path"), ""))
			} else {
				errs = append(errs, validate.PathNoBacksteps(s.Path, p.Child("path"))...)
			}
			errs = append(errs, field.Required(fld.Child("nodeAffinity"), "Local volume requires node affinity"))
		case *corev1.NFSVolumeSource:
			errs = append(errs, validate.NFS(s, p)...)
		case *corev1.CSIPersistentVolumeSource:
			errs = append(errs, validateCSI(s, p)...)
		}
	}
	if n == 0 {
		errs = append(errs, field.Required(fld, "must specify a volume type"))
	}
	return errs
}

// validateCSI is upstream's validateCSIPersistentVolumeSource: the driver's
// name, a volume handle, and the secret references given.
func validateCSI(s *corev1.CSIPersistentVolumeSource, p *field.Path) field.ErrorList {
	errs := validate.CSIDriverName(s.Driver, p.Child("driver"))
	if s.VolumeHandle == "" {
		errs = append(errs, field.Required(p.Child("volumeHandle"), ""))
	}
	for _, ref := range []struct {
		name string
		ref  *corev1.SecretReference
	}{
		{"controllerPublishSecretRef", s.ControllerPublishSecretRef}, {"controllerExpandSecretRef", s.ControllerExpandSecretRef},
		{"nodePublishSecretRef", s.NodePublishSecretRef}, {"nodeExpandSecretRef", s.NodeExpandSecretRef},
	} {
		if ref.ref == nil {
			continue
		}
		rp := p.Child(ref.name)
		if ref.ref.Name == "" {
			errs = append(errs, field.Required(rp.Child("name"), ""))
		} else {
			for _, msg := range validation.IsDNS1123Subdomain(ref.ref.Name) {
				errs = append(errs, field.Invalid(rp.Child("name"), ref.ref.Name, msg))
			}
		}
		if ref.ref.Namespace == "" {
			errs = append(errs, field.Required(rp.Child("namespace"), ""))
		} else {
			errs = append(errs, validate.DNS1123Label(ref.ref.Namespace, rp.Child("namespace"))...)
		}
	}
	return errs
}
