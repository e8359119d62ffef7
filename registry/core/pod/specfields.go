package pod

import (
	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate"
)

// Pod spec fields upstream's ValidatePodSpec checks beyond the
// containers: block volume devices, the ports of a host-network pod,
// host aliases, the RuntimeClass name, the pod overhead, the hostname
// override, and the service account token projections of a pod without a
// service account.

// validateVolumeDevices is upstream's ValidateVolumeDevices: every device
// names a volume backed by a claim (persistentVolumeClaim or ephemeral),
// once; its devicePath is set, unique and has no "..", and neither the
// volume nor the path is also one of the container's volumeMounts
// (mountPaths maps a mounted volume's name to its path).
func validateVolumeDevices(devices []corev1.VolumeDevice, mountPaths map[string]string, vols map[string]corev1.VolumeSource, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	names, paths := sets.New[string](), sets.New[string]()
	mounted := sets.New[string]()
	for _, p := range mountPaths {
		mounted.Insert(p)
	}
	for i, d := range devices {
		idx := fld.Index(i)
		src, found := vols[d.Name]
		if d.Name == "" {
			errs = append(errs, field.Required(idx.Child("name"), ""))
		}
		if names.Has(d.Name) {
			errs = append(errs, field.Invalid(idx.Child("name"), d.Name, "must be unique"))
		}
		switch {
		case !found:
			errs = append(errs, field.NotFound(idx.Child("name"), d.Name))
		case src.PersistentVolumeClaim == nil && src.Ephemeral == nil:
			errs = append(errs, field.Invalid(idx.Child("name"), d.Name, "can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode"))
		}
		if d.DevicePath == "" {
			errs = append(errs, field.Required(idx.Child("devicePath"), ""))
		}
		if paths.Has(d.DevicePath) {
			errs = append(errs, field.Invalid(idx.Child("devicePath"), d.DevicePath, "must be unique"))
		}
		if d.DevicePath != "" && len(validate.PathNoBacksteps(d.DevicePath, idx.Child("devicePath"))) > 0 {
			errs = append(errs, field.Invalid(idx.Child("devicePath"), d.DevicePath, "can not contain backsteps ('..')"))
		} else {
			paths.Insert(d.DevicePath)
		}
		if _, ok := mountPaths[d.Name]; ok {
			errs = append(errs, field.Invalid(idx.Child("name"), d.Name, "must not already exist in volumeMounts"))
		}
		if mounted.Has(d.DevicePath) {
			errs = append(errs, field.Invalid(idx.Child("devicePath"), d.DevicePath, "must not already exist as a path in volumeMounts"))
		}
		if d.Name != "" {
			names.Insert(d.Name)
		}
	}
	return errs
}

// mountConflictsWithDevices is the part of upstream's ValidateVolumeMounts
// about volumeDevices: the mount m (at idx) may use neither a volume nor a
// path one of the container's devices uses (devicePaths maps a device's
// volume name to its path).
func mountConflictsWithDevices(m corev1.VolumeMount, devicePaths map[string]string, idx *field.Path) field.ErrorList {
	var errs field.ErrorList
	if _, ok := devicePaths[m.Name]; ok {
		errs = append(errs, field.Invalid(idx.Child("name"), m.Name, "must not already exist in volumeDevices"))
	}
	for _, p := range devicePaths {
		if p == m.MountPath {
			errs = append(errs, field.Invalid(idx.Child("mountPath"), m.MountPath, "must not already exist as a path in volumeDevices"))
			break
		}
	}
	return errs
}

// mountPathsByName maps each mount's volume name to its path (a later
// mount of a volume wins, as upstream's GetVolumeMountMap).
func mountPathsByName(mounts []corev1.VolumeMount) map[string]string {
	out := make(map[string]string, len(mounts))
	for _, m := range mounts {
		out[m.Name] = m.MountPath
	}
	return out
}

// devicePathsByName is mountPathsByName for volume devices (upstream's
// GetVolumeDeviceMap).
func devicePathsByName(devices []corev1.VolumeDevice) map[string]string {
	out := make(map[string]string, len(devices))
	for _, d := range devices {
		out[d.Name] = d.DevicePath
	}
	return out
}

// validateHostNetworkPorts is upstream's validatePodHostNetworkDeps: in a
// host-network spec each regular container's hostPort equals its
// containerPort. A pod's hostPort must match (defaulting has set an unset
// one); a template (isPod false) may leave it 0.
func validateHostNetworkPorts(s *corev1.PodSpec, isPod bool, fld *field.Path) field.ErrorList {
	if !s.HostNetwork {
		return nil
	}
	var errs field.ErrorList
	cf := fld.Child("containers")
	for i, c := range s.Containers {
		for j, p := range c.Ports {
			if (isPod || p.HostPort != 0) && p.HostPort != p.ContainerPort {
				errs = append(errs, field.Invalid(cf.Index(i).Child("ports").Index(j).Child("hostPort"), p.HostPort, "must match `containerPort` when `hostNetwork` is true"))
			}
		}
	}
	return errs
}

// validateHostAliases is upstream's ValidateHostAliases: each alias has an
// IP and its hostnames are DNS subdomains.
func validateHostAliases(aliases []corev1.HostAlias, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, a := range aliases {
		idx := fld.Index(i)
		errs = append(errs, validate.LegacyIP(idx.Child("ip"), a.IP, nil)...)
		for j, h := range a.Hostnames {
			errs = append(errs, dns1123Subdomain(h, idx.Child("hostnames").Index(j))...)
		}
	}
	return errs
}

// dns1123Subdomain reports v at fld when it is not a lowercase RFC 1123
// subdomain (upstream's ValidateDNS1123Subdomain).
func dns1123Subdomain(v string, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Subdomain(v) {
		errs = append(errs, field.Invalid(fld, v, msg))
	}
	return errs
}

// validateRuntimeClassName is upstream's ValidateRuntimeClassName: the
// name of a RuntimeClass object.
func validateRuntimeClassName(name string, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(name, false) {
		errs = append(errs, field.Invalid(fld, name, msg))
	}
	return errs
}

// ValidateOverhead is upstream's validateOverhead (of a pod or a
// RuntimeClass): the overhead is checked as a container's limits, so its
// errors are under overhead.limits.
func ValidateOverhead(overhead corev1.ResourceList, fld *field.Path) field.ErrorList {
	return validateResources(&corev1.ResourceRequirements{Limits: overhead}, validate.ContainerResourceName, nil, fld)
}

// maxHostnameOverride is the longest hostnameOverride upstream accepts.
const maxHostnameOverride = 64

// validateHostnameOverride is upstream's validatePodHostName (the
// HostnameOverride gate is GA and locked on in v1.37): the override is
// not combined with setHostnameAsFQDN or hostNetwork, has at most 64
// bytes and is a DNS subdomain.
func validateHostnameOverride(s *corev1.PodSpec, fld *field.Path) field.ErrorList {
	if s.HostnameOverride == nil {
		return nil
	}
	var errs field.ErrorList
	hf := fld.Child("hostnameOverride")
	if s.SetHostnameAsFQDN != nil && *s.SetHostnameAsFQDN {
		errs = append(errs, field.Forbidden(hf, "may not be specified when setHostnameAsFQDN is true"))
	}
	if s.HostNetwork {
		errs = append(errs, field.Forbidden(hf, "may not be specified when hostNetwork is true"))
	}
	if len(*s.HostnameOverride) > maxHostnameOverride {
		errs = append(errs, field.TooLong(hf, "", maxHostnameOverride))
	}
	return append(errs, dns1123Subdomain(*s.HostnameOverride, hf)...)
}

// validateTokenProjectionsNeedServiceAccount is the rule upstream's
// validatePodMetadataAndSpec adds for pods only: without a
// serviceAccountName no projected volume may have a serviceAccountToken
// source.
func validateTokenProjectionsNeedServiceAccount(s *corev1.PodSpec, fld *field.Path) field.ErrorList {
	if s.ServiceAccountName != "" {
		return nil
	}
	var errs field.ErrorList
	for i, v := range s.Volumes {
		if v.Projected == nil {
			continue
		}
		sf := fld.Child("volumes").Index(i).Child("projected", "sources")
		for j, src := range v.Projected.Sources {
			if src.ServiceAccountToken != nil {
				errs = append(errs, field.Forbidden(sf.Index(j).Child("serviceAccountToken"), "must not be specified when serviceAccountName is not set"))
			}
		}
	}
	return errs
}
