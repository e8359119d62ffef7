package validate

import (
	"path"
	"path/filepath"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Volume source checks that a pod's volumes and a PersistentVolume share,
// with upstream's messages (pkg/apis/core/validation).

// hostPathTypes are the supported hostPath types, sorted as upstream
// lists them.
var hostPathTypes = []string{"", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"}

// HostPath is upstream's validateHostPathVolumeSource.
func HostPath(s *corev1.HostPathVolumeSource, fld *field.Path) field.ErrorList {
	if s.Path == "" {
		return field.ErrorList{field.Required(fld.Child("path"), "")}
	}
	errs := PathNoBacksteps(s.Path, fld.Child("path"))
	if t := s.Type; t != nil && !slices.Contains(hostPathTypes, string(*t)) {
		errs = append(errs, field.NotSupported(fld.Child("type"), *t, hostPathTypes))
	}
	return errs
}

// NFS is upstream's validateNFSVolumeSource.
func NFS(s *corev1.NFSVolumeSource, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if s.Server == "" {
		errs = append(errs, field.Required(fld.Child("server"), ""))
	}
	if s.Path == "" {
		errs = append(errs, field.Required(fld.Child("path"), ""))
	}
	if !path.IsAbs(s.Path) {
		errs = append(errs, field.Invalid(fld.Child("path"), s.Path, "must be an absolute path"))
	}
	return errs
}

// CSIDriverName is upstream's ValidateCSIDriverName.
func CSIDriverName(d string, fld *field.Path) field.ErrorList {
	if d == "" {
		return field.ErrorList{field.Required(fld, "")}
	}
	var errs field.ErrorList
	if len(d) > 63 {
		errs = append(errs, field.TooLong(fld, "", 63))
	}
	for _, msg := range validation.IsDNS1123Subdomain(strings.ToLower(d)) {
		errs = append(errs, field.Invalid(fld, d, msg))
	}
	return errs
}

// PathNoBacksteps is upstream's validatePathNoBacksteps.
func PathNoBacksteps(p string, fld *field.Path) field.ErrorList {
	if slices.Contains(strings.Split(filepath.ToSlash(p), "/"), "..") {
		return field.ErrorList{field.Invalid(fld, p, "must not contain '..'")}
	}
	return nil
}
