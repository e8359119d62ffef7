package persistentvolume

import (
	"path"
	"reflect"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/diff"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate"
)

// volumeSources are a volume's sources in the order upstream's
// ValidatePersistentVolumeSpec checks them, with the path each is reported
// under; FlexVolume counts without being refused as a second source, as
// upstream's does.
var volumeSources = []struct{ goName, path string }{
	{"HostPath", "hostPath"}, {"GCEPersistentDisk", "gcePersistentDisk"}, {"AWSElasticBlockStore", "awsElasticBlockStore"},
	{"Glusterfs", "glusterfs"}, {"Flocker", "flocker"}, {"NFS", "nfs"}, {"RBD", "rbd"}, {"Quobyte", "quobyte"},
	{"CephFS", "cephFS"}, {"ISCSI", "iscsi"}, {"Cinder", "cinder"}, {"FC", "fc"}, {"FlexVolume", "flexVolume"},
	{"AzureFile", "azureFile"}, {"VsphereVolume", "vsphereVolume"}, {"PhotonPersistentDisk", "photonPersistentDisk"},
	{"PortworxVolume", "portworxVolume"}, {"AzureDisk", "azureDisk"}, {"ScaleIO", "scaleIO"}, {"Local", "local"},
	{"StorageOS", "storageos"}, {"CSI", "csi"},
}

// mountOptionSources are the sources that take the mount-options
// annotation (upstream's pkg/volume/validation checkMountOption).
var mountOptionSources = []string{"GCEPersistentDisk", "AWSElasticBlockStore", "Glusterfs", "NFS", "RBD", "Quobyte",
	"ISCSI", "Cinder", "CephFS", "AzureFile", "VsphereVolume", "AzureDisk", "PhotonPersistentDisk"}

var (
	reclaimPolicies = []string{"Delete", "Recycle", "Retain"}
	volumeModes     = []string{"Block", "Filesystem"}
)

// validateVolume is upstream's ValidatePersistentVolume without the
// metadata, and its mount-option check: access modes, capacity, reclaim
// policy, node affinity, exactly one source (hostPath, local, nfs and csi
// checked within; the other sources, whose drivers left the tree, only
// counted), class names and volume mode.
func validateVolume(pv *corev1.PersistentVolume) field.ErrorList {
	var errs field.ErrorList
	spec := &pv.Spec
	fld := field.NewPath("spec")
	if len(spec.AccessModes) == 0 {
		errs = append(errs, field.Required(fld.Child("accessModes"), ""))
	}
	errs = append(errs, validate.AccessModes(spec.AccessModes, fld.Child("accessModes"))...)
	capPath := fld.Child("capacity")
	if len(spec.Capacity) == 0 {
		errs = append(errs, field.Required(capPath, ""))
	}
	if _, ok := spec.Capacity[corev1.ResourceStorage]; !ok || len(spec.Capacity) > 1 {
		errs = append(errs, field.NotSupported(capPath, validate.InternalValue(spec.Capacity), []string{"storage"}))
	}
	for _, k := range validate.ResourceNames(spec.Capacity) {
		q := spec.Capacity[corev1.ResourceName(k)]
		if q.Value() < 0 {
			errs = append(errs, field.Invalid(capPath.Key(k), q.Value(), "must be a valid resource quantity"))
		}
		if q.Cmp(resource.Quantity{}) <= 0 {
			errs = append(errs, field.Invalid(capPath.Key(k), q.String(), "must be greater than zero"))
		}
	}
	if p := spec.PersistentVolumeReclaimPolicy; p != "" && !slices.Contains(reclaimPolicies, string(p)) {
		errs = append(errs, field.NotSupported(fld.Child("persistentVolumeReclaimPolicy"), p, reclaimPolicies))
	}
	hasAffinity := false
	if na := spec.NodeAffinity; na != nil {
		hasAffinity = true
		if na.Required != nil {
			errs = append(errs, validate.NodeSelector(na.Required, fld.Child("nodeAffinity", "required"))...)
		} else {
			errs = append(errs, field.Required(fld.Child("nodeAffinity", "required"), "must specify required node constraints"))
		}
	}
	errs = append(errs, ValidateSources(&spec.PersistentVolumeSource, hasAffinity, fld)...)
	if spec.HostPath != nil && path.Clean(spec.HostPath.Path) == "/" && spec.PersistentVolumeReclaimPolicy == corev1.PersistentVolumeReclaimRecycle {
		errs = append(errs, field.Forbidden(fld.Child("persistentVolumeReclaimPolicy"), "may not be 'recycle' for a hostPath mount of '/'"))
	}
	if c := spec.StorageClassName; c != "" {
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(c, false) {
			errs = append(errs, field.Invalid(fld.Child("storageClassName"), c, msg))
		}
	}
	if m := spec.VolumeMode; m != nil && !slices.Contains(volumeModes, string(*m)) {
		errs = append(errs, field.NotSupported(fld.Child("volumeMode"), *m, volumeModes))
	}
	if c := spec.VolumeAttributesClassName; c != nil {
		if *c == "" {
			errs = append(errs, field.Required(fld.Child("volumeAttributesClassName"), "an empty string is disallowed"))
		} else {
			for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(*c, false) {
				errs = append(errs, field.Invalid(fld.Child("volumeAttributesClassName"), *c, msg))
			}
		}
		if spec.CSI == nil {
			errs = append(errs, field.Required(fld.Child("csi"), "has to be specified when using volumeAttributesClassName"))
		}
	}
	if _, ok := pv.Annotations[corev1.MountOptionAnnotation]; ok && !hasSource(&spec.PersistentVolumeSource, mountOptionSources) {
		errs = append(errs, field.Forbidden(field.NewPath("metadata", "annotations", corev1.MountOptionAnnotation), "may not specify mount options for this volume type"))
	}
	return errs
}

// ValidateSources is the source part of upstream's
// ValidatePersistentVolumeSpec: exactly one source is given, and the given
// one is checked (hostPath, local, nfs and csi within; the others, whose
// drivers left the tree, only counted). A local source needs a node
// affinity (hasAffinity). A VolumeAttachment's inline volume shares it.
func ValidateSources(src *corev1.PersistentVolumeSource, hasAffinity bool, fld *field.Path) field.ErrorList {
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
			if !hasAffinity {
				errs = append(errs, field.Required(fld.Child("nodeAffinity"), "Local volume requires node affinity"))
			}
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

// hasSource reports whether one of the named sources is given.
func hasSource(src *corev1.PersistentVolumeSource, names []string) bool {
	rv := reflect.ValueOf(src).Elem()
	return slices.ContainsFunc(names, func(n string) bool { return !rv.FieldByName(n).IsNil() })
}

// validateCSI is upstream's validateCSIPersistentVolumeSource.
func validateCSI(s *corev1.CSIPersistentVolumeSource, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validate.CSIDriverName(s.Driver, p.Child("driver"))...)
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

// validateVolumeUpdate is upstream's ValidatePersistentVolumeUpdate: the
// new volume validated whole, its source immutable (a controller-expand
// secret may be added), its volume mode immutable (reported under
// "volumeMode", as upstream does), a node affinity once set immutable
// (MutablePVNodeAffinity is off by default), and a volume attributes class
// not removed once set.
func validateVolumeUpdate(pv, old *corev1.PersistentVolume) field.ErrorList {
	errs := validateVolume(pv)
	src := pv.Spec.PersistentVolumeSource
	if old.Spec.CSI != nil && old.Spec.CSI.ControllerExpandSecretRef == nil && src.CSI != nil && src.CSI.ControllerExpandSecretRef != nil {
		src = *src.DeepCopy()
		src.CSI.ControllerExpandSecretRef = nil
	}
	if !apiequality.Semantic.DeepEqual(src, old.Spec.PersistentVolumeSource) {
		d := diff.Diff(validate.InternalValue(old.Spec.PersistentVolumeSource), validate.InternalValue(src))
		errs = append(errs, field.Forbidden(field.NewPath("spec", "persistentvolumesource"), "spec.persistentvolumesource is immutable after creation\n"+d))
	}
	errs = append(errs, validate.ImmutableInternal(pv.Spec.VolumeMode, old.Spec.VolumeMode, field.NewPath("volumeMode"))...)
	if old.Spec.NodeAffinity != nil && !apiequality.Semantic.DeepEqual(pv.Spec.NodeAffinity, old.Spec.NodeAffinity) {
		errs = append(errs, field.Invalid(field.NewPath("nodeAffinity"), validate.InternalValue(pv.Spec.NodeAffinity), "field is immutable, except for updating from beta label to GA"))
	}
	if old.Spec.VolumeAttributesClassName != nil && pv.Spec.VolumeAttributesClassName == nil {
		errs = append(errs, field.Forbidden(field.NewPath("spec", "volumeAttributesClassName"), "update from non-nil value to nil is forbidden"))
	}
	return errs
}
