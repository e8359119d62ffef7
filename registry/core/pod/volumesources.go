package pod

import (
	"fmt"
	"net"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate"
	"github.com/fakeplane/fakeplane/registry/core/persistentvolumeclaim"
)

// A pod volume's sources: upstream's validateVolumeSource and the
// validate<Kind>VolumeSource functions it calls, with their messages and
// their paths (a few of which are not the field's JSON name).

// volumeSource is one source of a VolumeSource in upstream's order: set
// when given, forbidden names the path a second source is refused at, and
// check validates it when it is the first one given.
type volumeSource struct {
	set       bool
	forbidden string
	check     func() field.ErrorList
}

var (
	iscsiIQN = regexp.MustCompile(`iqn\.\d{4}-\d{2}\.([[:alnum:]-.]+)(:[^,;*&$|\s]+)$`)
	iscsiEUI = regexp.MustCompile(`^eui.[[:alnum:]]{16}$`)
	iscsiNAA = regexp.MustCompile(`^naa.[[:alnum:]]{32}$`)
)

const (
	emptyDirModeMsg = "must be a number between 0 and 01777 (octal), both inclusive"
	partitionMsg    = "must be between 1 and 255, inclusive" // sic: upstream's message, its check allows 0
)

// validateVolumeSource is upstream's validateVolumeSource: exactly one
// source, and that one valid. volName and meta (nil for a template) are
// the volume's and the pod's, for the names derived from them.
func validateVolumeSource(src *corev1.VolumeSource, fld *field.Path, volName string, meta *metav1.ObjectMeta) field.ErrorList {
	var errs field.ErrorList
	sources := []volumeSource{
		{src.EmptyDir != nil, "emptyDir", func() field.ErrorList { return validateEmptyDir(src.EmptyDir, fld.Child("emptyDir")) }},
		{src.HostPath != nil, "hostPath", func() field.ErrorList { return validate.HostPath(src.HostPath, fld.Child("hostPath")) }},
		{src.GitRepo != nil, "gitRepo", func() field.ErrorList { return validateGitRepo(src.GitRepo, fld.Child("gitRepo")) }},
		{src.GCEPersistentDisk != nil, "gcePersistentDisk", func() field.ErrorList {
			return validateDisk(src.GCEPersistentDisk.PDName, "pdName", src.GCEPersistentDisk.Partition, fld.Child("persistentDisk"))
		}},
		{src.AWSElasticBlockStore != nil, "awsElasticBlockStore", func() field.ErrorList {
			return validateDisk(src.AWSElasticBlockStore.VolumeID, "volumeID", src.AWSElasticBlockStore.Partition, fld.Child("awsElasticBlockStore"))
		}},
		{src.Secret != nil, "secret", func() field.ErrorList { return validateSecretSource(src.Secret, fld.Child("secret")) }},
		{src.NFS != nil, "nfs", func() field.ErrorList { return validate.NFS(src.NFS, fld.Child("nfs")) }},
		{src.ISCSI != nil, "iscsi", func() field.ErrorList { return validateISCSI(src.ISCSI, fld.Child("iscsi")) }},
		{src.Glusterfs != nil, "glusterfs", func() field.ErrorList {
			return required(fld.Child("glusterfs"), req{"endpoints", src.Glusterfs.EndpointsName}, req{"path", src.Glusterfs.Path})
		}},
		{src.Flocker != nil, "flocker", func() field.ErrorList { return validateFlocker(src.Flocker, fld.Child("flocker")) }},
		{src.PersistentVolumeClaim != nil, "persistentVolumeClaim", func() field.ErrorList {
			return required(fld.Child("persistentVolumeClaim"), req{"claimName", src.PersistentVolumeClaim.ClaimName})
		}},
		{src.RBD != nil, "rbd", func() field.ErrorList {
			p := fld.Child("rbd")
			var e field.ErrorList
			if len(src.RBD.CephMonitors) == 0 {
				e = append(e, field.Required(p.Child("monitors"), ""))
			}
			return append(e, required(p, req{"image", src.RBD.RBDImage})...)
		}},
		{src.Cinder != nil, "cinder", func() field.ErrorList {
			p := fld.Child("cinder")
			e := required(p, req{"volumeID", src.Cinder.VolumeID})
			if r := src.Cinder.SecretRef; r != nil && r.Name == "" {
				e = append(e, field.Required(p.Child("secretRef", "name"), ""))
			}
			return e
		}},
		{src.CephFS != nil, "cephFS", func() field.ErrorList {
			if len(src.CephFS.Monitors) == 0 {
				return field.ErrorList{field.Required(fld.Child("cephfs", "monitors"), "")}
			}
			return nil
		}},
		{src.Quobyte != nil, "quobyte", func() field.ErrorList { return validateQuobyte(src.Quobyte, fld.Child("quobyte")) }},
		{src.DownwardAPI != nil, "downwarAPI", func() field.ErrorList { // sic, upstream's path
			return validateDownwardAPI(src.DownwardAPI, fld.Child("downwardAPI"))
		}},
		{src.FC != nil, "fc", func() field.ErrorList { return validateFC(src.FC, fld.Child("fc")) }},
		{src.FlexVolume != nil, "flexVolume", func() field.ErrorList { return validateFlex(src.FlexVolume, fld.Child("flexVolume")) }},
		{src.ConfigMap != nil, "configMap", func() field.ErrorList { return validateConfigMapSource(src.ConfigMap, fld.Child("configMap")) }},
		{src.AzureFile != nil, "azureFile", func() field.ErrorList {
			return required(fld.Child("azureFile"), req{"secretName", src.AzureFile.SecretName}, req{"shareName", src.AzureFile.ShareName})
		}},
		{src.VsphereVolume != nil, "vsphereVolume", func() field.ErrorList {
			return required(fld.Child("vsphereVolume"), req{"volumePath", src.VsphereVolume.VolumePath})
		}},
		{src.PhotonPersistentDisk != nil, "photonPersistentDisk", func() field.ErrorList {
			return required(fld.Child("photonPersistentDisk"), req{"pdID", src.PhotonPersistentDisk.PdID})
		}},
		{src.PortworxVolume != nil, "portworxVolume", func() field.ErrorList {
			return required(fld.Child("portworxVolume"), req{"volumeID", src.PortworxVolume.VolumeID})
		}},
		{src.AzureDisk != nil, "azureDisk", func() field.ErrorList { return validateAzureDisk(src.AzureDisk, fld.Child("azureDisk")) }},
		{src.StorageOS != nil, "storageos", func() field.ErrorList { return validateStorageOS(src.StorageOS, fld.Child("storageos")) }},
		{src.Projected != nil, "projected", func() field.ErrorList { return validateProjected(src.Projected, fld.Child("projected")) }},
		{src.ScaleIO != nil, "scaleIO", func() field.ErrorList {
			return required(fld.Child("scaleIO"), req{"gateway", src.ScaleIO.Gateway}, req{"system", src.ScaleIO.System}, req{"volumeName", src.ScaleIO.VolumeName})
		}},
		{src.CSI != nil, "csi", func() field.ErrorList { return validateCSISource(src.CSI, fld.Child("csi")) }},
		{src.Ephemeral != nil, "ephemeral", func() field.ErrorList {
			e := validateEphemeralSource(src.Ephemeral, fld.Child("ephemeral"))
			if meta != nil && meta.Name != "" && volName != "" {
				pvc := meta.Name + "-" + volName
				for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(pvc, false) {
					e = append(e, field.Invalid(fld.Child("name"), volName, fmt.Sprintf("PVC name %q: %v", pvc, msg)))
				}
			}
			return e
		}},
		{src.Image != nil, "image", func() field.ErrorList { return validateImageSource(src.Image, fld.Child("image")) }},
	}
	n := 0
	for _, s := range sources {
		if !s.set {
			continue
		}
		if n > 0 {
			errs = append(errs, field.Forbidden(fld.Child(s.forbidden), "may not specify more than 1 volume type"))
		} else {
			n++
			errs = append(errs, s.check()...)
		}
		// Upstream checks this whether or not iscsi is the first source.
		if s.forbidden == "iscsi" && src.ISCSI.InitiatorName != nil && len(volName+":"+src.ISCSI.TargetPortal) > 64 {
			errs = append(errs, field.Invalid(fld.Child("name"), volName, "Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if iscsi.initiatorName is specified."))
		}
	}
	if n == 0 {
		errs = append(errs, field.Required(fld, "must specify a volume type"))
	}
	return errs
}

// req is a field that must not be empty.
type req struct{ name, value string }

// required reports each of fields that is empty.
func required(fld *field.Path, fields ...req) field.ErrorList {
	var errs field.ErrorList
	for _, f := range fields {
		if f.value == "" {
			errs = append(errs, field.Required(fld.Child(f.name), ""))
		}
	}
	return errs
}

// validateEmptyDir is upstream's check of an emptyDir's size limit and mode.
func validateEmptyDir(s *corev1.EmptyDirVolumeSource, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if s.SizeLimit != nil && s.SizeLimit.Cmp(resource.Quantity{}) < 0 {
		errs = append(errs, field.Forbidden(fld.Child("sizeLimit"), "SizeLimit field must be a valid resource quantity"))
	}
	if s.Mode != nil && (*s.Mode > 0o1777 || *s.Mode < 0) {
		errs = append(errs, field.Invalid(fld.Child("mode"), *s.Mode, emptyDirModeMsg))
	}
	return errs
}

// validateGitRepo is upstream's validateGitRepoVolumeSource.
func validateGitRepo(s *corev1.GitRepoVolumeSource, fld *field.Path) field.ErrorList {
	errs := required(fld, req{"repository", s.Repository})
	return append(errs, localDescendingPath(s.Directory, fld.Child("directory"))...)
}

// validateDisk is upstream's check of a GCE or AWS disk: its name or ID,
// and a partition from 0 to 255.
func validateDisk(id, idName string, partition int32, fld *field.Path) field.ErrorList {
	errs := required(fld, req{idName, id})
	if partition < 0 || partition > 255 {
		errs = append(errs, field.Invalid(fld.Child("partition"), partition, partitionMsg))
	}
	return errs
}

// validateUser is upstream's validateUserField.
func validateUser(u *int64, fld *field.Path) field.ErrorList {
	if u == nil {
		return nil
	}
	var errs field.ErrorList
	for _, msg := range validation.IsValidUserID(*u) {
		errs = append(errs, field.Invalid(fld, *u, msg))
	}
	return errs
}

// validateSecretSource is upstream's validateSecretVolumeSource.
func validateSecretSource(s *corev1.SecretVolumeSource, fld *field.Path) field.ErrorList {
	return validateKeyedSource(req{"secretName", s.SecretName}, s.DefaultMode, s.DefaultUser, s.Items, fld)
}

// validateConfigMapSource is upstream's validateConfigMapVolumeSource.
func validateConfigMapSource(s *corev1.ConfigMapVolumeSource, fld *field.Path) field.ErrorList {
	return validateKeyedSource(req{"name", s.Name}, s.DefaultMode, s.DefaultUser, s.Items, fld)
}

// validateKeyedSource checks what a secret and a config map volume have
// in common: the object's name (required), the default mode and user, and
// the items.
func validateKeyedSource(name req, mode *int32, user *int64, items []corev1.KeyToPath, fld *field.Path) field.ErrorList {
	errs := required(fld, name)
	errs = append(errs, fileMode(mode, fld.Child("defaultMode"))...)
	errs = append(errs, validateUser(user, fld.Child("defaultUser"))...)
	for i := range items {
		errs = append(errs, validateKeyToPath(&items[i], fld.Child("items").Index(i))...)
	}
	return errs
}

// validateISCSI is upstream's validateISCSIVolumeSource.
func validateISCSI(s *corev1.ISCSIVolumeSource, fld *field.Path) field.ErrorList {
	errs := required(fld, req{"targetPortal", s.TargetPortal})
	if s.IQN == "" {
		errs = append(errs, field.Required(fld.Child("iqn"), ""))
	} else {
		errs = append(errs, iscsiName(s.IQN, fld.Child("iqn"), true)...)
	}
	if s.Lun < 0 || s.Lun > 255 {
		errs = append(errs, field.Invalid(fld.Child("lun"), s.Lun, validation.InclusiveRangeError(0, 255)))
	}
	if (s.DiscoveryCHAPAuth || s.SessionCHAPAuth) && s.SecretRef == nil {
		errs = append(errs, field.Required(fld.Child("secretRef"), ""))
	}
	if s.InitiatorName != nil {
		errs = append(errs, iscsiName(*s.InitiatorName, fld.Child("initiatorname"), false)...)
	}
	return errs
}

// iscsiName checks an iSCSI qualified name (an IQN or initiator name) as
// upstream does: a known prefix, then that prefix's format. For an IQN a
// bad prefix ends the checks; for an initiator name they go on.
func iscsiName(v string, fld *field.Path, iqn bool) field.ErrorList {
	var errs field.ErrorList
	known := strings.HasPrefix(v, "iqn") || strings.HasPrefix(v, "eui") || strings.HasPrefix(v, "naa")
	if !known {
		errs = append(errs, field.Invalid(fld, v, "must be valid format starting with iqn, eui, or naa"))
		if iqn {
			return errs
		}
	}
	switch {
	case strings.HasPrefix(v, "iqn") && !iscsiIQN.MatchString(v),
		strings.HasPrefix(v, "eui") && !iscsiEUI.MatchString(v),
		strings.HasPrefix(v, "naa") && !iscsiNAA.MatchString(v):
		errs = append(errs, field.Invalid(fld, v, "must be valid format"))
	}
	return errs
}

// validateFlocker is upstream's validateFlockerVolumeSource.
func validateFlocker(s *corev1.FlockerVolumeSource, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if s.DatasetName == "" && s.DatasetUUID == "" {
		errs = append(errs, field.Required(fld, "one of datasetName and datasetUUID is required"))
	}
	if s.DatasetName != "" && s.DatasetUUID != "" {
		errs = append(errs, field.Invalid(fld, "resource", "datasetName and datasetUUID can not be specified simultaneously"))
	}
	if strings.Contains(s.DatasetName, "/") {
		errs = append(errs, field.Invalid(fld.Child("datasetName"), s.DatasetName, "must not contain '/'"))
	}
	return errs
}

// validateQuobyte is upstream's validateQuobyteVolumeSource.
func validateQuobyte(s *corev1.QuobyteVolumeSource, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	const registryMsg = "must be a host:port pair or multiple pairs separated by commas"
	switch {
	case s.Registry == "":
		errs = append(errs, field.Required(fld.Child("registry"), registryMsg))
	case len(s.Tenant) >= 65:
		errs = append(errs, field.Required(fld.Child("tenant"), "must be a UUID and may not exceed a length of 64 characters"))
	default:
		for _, hp := range strings.Split(s.Registry, ",") {
			if _, _, err := net.SplitHostPort(hp); err != nil {
				errs = append(errs, field.Invalid(fld.Child("registry"), s.Registry, registryMsg))
			}
		}
	}
	return append(errs, required(fld, req{"volume", s.Volume})...)
}

// volumeFieldPaths are the fields a downward API volume file may name.
var volumeFieldPaths = sets.New("metadata.name", "metadata.namespace", "metadata.labels", "metadata.annotations", "metadata.uid")

// validateDownwardAPI is upstream's validateDownwardAPIVolumeSource (its
// items are reported at fld itself, as upstream does).
func validateDownwardAPI(s *corev1.DownwardAPIVolumeSource, fld *field.Path) field.ErrorList {
	errs := fileMode(s.DefaultMode, fld.Child("defaultMode"))
	errs = append(errs, validateUser(s.DefaultUser, fld.Child("defaultUser"))...)
	for i := range s.Items {
		errs = append(errs, validateDownwardAPIFile(&s.Items[i], fld)...)
	}
	return errs
}

// validateDownwardAPIFile is upstream's validateDownwardAPIVolumeFile.
func validateDownwardAPIFile(f *corev1.DownwardAPIVolumeFile, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if f.Path == "" {
		errs = append(errs, field.Required(fld.Child("path"), ""))
	}
	errs = append(errs, localNonReservedPath(f.Path, fld.Child("path"))...)
	switch {
	case f.FieldRef != nil:
		errs = append(errs, validateObjectFieldSelector(f.FieldRef, volumeFieldPaths, fld.Child("fieldRef"))...)
		if f.ResourceFieldRef != nil {
			errs = append(errs, field.Invalid(fld, "resource", "fieldRef and resourceFieldRef can not be specified simultaneously"))
		}
	case f.ResourceFieldRef != nil:
		errs = append(errs, validateVolumeResourceFieldSelector(f.ResourceFieldRef, fld.Child("resourceFieldRef"))...)
	default:
		errs = append(errs, field.Required(fld, "one of fieldRef and resourceFieldRef is required"))
	}
	errs = append(errs, fileMode(f.Mode, fld.Child("mode"))...)
	return append(errs, validateUser(f.User, fld.Child("user"))...)
}

// validateVolumeResourceFieldSelector is upstream's
// validateContainerResourceFieldSelector for a volume file: a container
// name, a known resource (or a huge-page one) and a divisor for it.
func validateVolumeResourceFieldSelector(s *corev1.ResourceFieldSelector, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch {
	case s.ContainerName == "":
		errs = append(errs, field.Required(fld.Child("containerName"), ""))
	case s.Resource == "":
		errs = append(errs, field.Required(fld.Child("resource"), ""))
	case !envResourceFields.Has(s.Resource) && !strings.HasPrefix(s.Resource, "limits.hugepages-") && !strings.HasPrefix(s.Resource, "requests.hugepages-"):
		errs = append(errs, field.NotSupported(fld.Child("resource"), s.Resource, sets.List(envResourceFields)))
	}
	return append(errs, validateDivisor(s.Resource, s.Divisor, fld)...)
}

// byteDivisors are the divisors upstream allows for byte-counted
// resources.
var byteDivisors = []string{"1", "1k", "1M", "1G", "1T", "1P", "1E", "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei"}

// validateDivisor is upstream's validateContainerResourceDivisor.
func validateDivisor(name string, d resource.Quantity, fld *field.Path) field.ErrorList {
	if d.Cmp(resource.Quantity{}) == 0 {
		return nil
	}
	const bytesMsg = "only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the "
	var errs field.ErrorList
	ds := d.String()
	switch name {
	case "limits.cpu", "requests.cpu":
		if ds != "1m" && ds != "1" {
			errs = append(errs, field.Invalid(fld.Child("divisor"), name, "only divisor's values 1m and 1 are supported with the cpu resource"))
		}
	case "limits.memory", "requests.memory":
		if !slices.Contains(byteDivisors, ds) {
			errs = append(errs, field.Invalid(fld.Child("divisor"), name, bytesMsg+"memory resource"))
		}
	case "limits.ephemeral-storage", "requests.ephemeral-storage":
		if !slices.Contains(byteDivisors, ds) {
			errs = append(errs, field.Invalid(fld.Child("divisor"), name, bytesMsg+"local ephemeral storage resource"))
		}
	}
	if (strings.HasPrefix(name, "requests.hugepages-") || strings.HasPrefix(name, "limits.hugepages-")) && !slices.Contains(byteDivisors, ds) {
		errs = append(errs, field.Invalid(fld.Child("divisor"), name, bytesMsg+"hugepages resource"))
	}
	return errs
}

// validateFC is upstream's validateFCVolumeSource.
func validateFC(s *corev1.FCVolumeSource, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(s.TargetWWNs) == 0 && len(s.WWIDs) == 0 {
		errs = append(errs, field.Required(fld.Child("targetWWNs"), "must specify either targetWWNs or wwids, but not both"))
	}
	if len(s.TargetWWNs) != 0 && len(s.WWIDs) != 0 {
		errs = append(errs, field.Invalid(fld.Child("targetWWNs"), s.TargetWWNs, "targetWWNs and wwids can not be specified simultaneously"))
	}
	if len(s.TargetWWNs) != 0 {
		if s.Lun == nil {
			errs = append(errs, field.Required(fld.Child("lun"), "lun is required if targetWWNs is specified"))
		} else if *s.Lun < 0 || *s.Lun > 255 {
			errs = append(errs, field.Invalid(fld.Child("lun"), *s.Lun, validation.InclusiveRangeError(0, 255)))
		}
	}
	return errs
}

// validateFlex is upstream's validateFlexVolumeSource (options in sorted
// order).
func validateFlex(s *corev1.FlexVolumeSource, fld *field.Path) field.ErrorList {
	errs := required(fld, req{"driver", s.Driver})
	for _, k := range validate.SortedKeys(s.Options) {
		ns := k
		if parts := strings.SplitN(k, "/", 2); len(parts) == 2 {
			ns = parts[0]
		}
		n := "." + strings.ToLower(ns)
		if strings.HasSuffix(n, ".kubernetes.io") || strings.HasSuffix(n, ".k8s.io") {
			errs = append(errs, field.Invalid(fld.Child("options").Key(k), k, "kubernetes.io and k8s.io namespaces are reserved"))
		}
	}
	return errs
}

var (
	azureCachingModes = []string{"None", "ReadOnly", "ReadWrite"}
	azureDiskKinds    = []string{"Dedicated", "Managed", "Shared"}
)

// validateAzureDisk is upstream's validateAzureDisk.
func validateAzureDisk(s *corev1.AzureDiskVolumeSource, fld *field.Path) field.ErrorList {
	errs := required(fld, req{"diskName", s.DiskName}, req{"diskURI", s.DataDiskURI})
	if m := s.CachingMode; m != nil && !slices.Contains(azureCachingModes, string(*m)) {
		errs = append(errs, field.NotSupported(fld.Child("cachingMode"), *m, azureCachingModes))
	}
	if k := s.Kind; k != nil {
		if !slices.Contains(azureDiskKinds, string(*k)) {
			errs = append(errs, field.NotSupported(fld.Child("kind"), *k, azureDiskKinds))
		}
		if *k == corev1.AzureManagedDisk && !strings.HasPrefix(s.DataDiskURI, "/subscriptions/") {
			errs = append(errs, field.NotSupported(fld.Child("diskURI"), s.DataDiskURI, []string{"/subscriptions/{sub-id}/resourcegroups/{group-name}/providers/microsoft.compute/disks/{disk-id}"}))
		}
		if *k != corev1.AzureManagedDisk && !strings.HasPrefix(s.DataDiskURI, "https://") {
			errs = append(errs, field.NotSupported(fld.Child("diskURI"), s.DataDiskURI, []string{"https://{account-name}.blob.core.windows.net/{container-name}/{disk-name}.vhd"}))
		}
	}
	return errs
}

// validateStorageOS is upstream's validateStorageOSVolumeSource.
func validateStorageOS(s *corev1.StorageOSVolumeSource, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if s.VolumeName == "" {
		errs = append(errs, field.Required(fld.Child("volumeName"), ""))
	} else {
		errs = append(errs, validate.DNS1123Label(s.VolumeName, fld.Child("volumeName"))...)
	}
	if s.VolumeNamespace != "" {
		errs = append(errs, validate.DNS1123Label(s.VolumeNamespace, fld.Child("volumeNamespace"))...)
	}
	if r := s.SecretRef; r != nil && r.Name == "" {
		errs = append(errs, field.Required(fld.Child("secretRef", "name"), ""))
	}
	return errs
}

// validateCSISource is upstream's validateCSIVolumeSource (a bad secret
// name is reported at csi.name, as upstream does).
func validateCSISource(s *corev1.CSIVolumeSource, fld *field.Path) field.ErrorList {
	errs := validate.CSIDriverName(s.Driver, fld.Child("driver"))
	if r := s.NodePublishSecretRef; r != nil {
		if r.Name == "" {
			errs = append(errs, field.Required(fld.Child("nodePublishSecretRef", "name"), ""))
		} else {
			for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(r.Name, false) {
				errs = append(errs, field.Invalid(fld.Child("name"), r.Name, msg))
			}
		}
	}
	return errs
}

// validateEphemeralSource is upstream's validateEphemeralVolumeSource:
// the claim template's metadata (labels and annotations only) and spec.
func validateEphemeralSource(s *corev1.EphemeralVolumeSource, fld *field.Path) field.ErrorList {
	t := s.VolumeClaimTemplate
	if t == nil {
		return field.ErrorList{field.Required(fld.Child("volumeClaimTemplate"), "")}
	}
	tf := fld.Child("volumeClaimTemplate")
	mf := tf.Child("metadata")
	errs := apimachineryvalidation.ValidateAnnotations(t.Annotations, mf.Child("annotations"))
	errs = append(errs, metav1validation.ValidateLabels(t.Labels, mf.Child("labels"))...)
	meta := t.ObjectMeta
	meta.Labels, meta.Annotations = nil, nil
	errs = append(errs, forbiddenSetFields(meta, "cannot be set", mf)...)
	return append(errs, persistentvolumeclaim.ValidateSpec(&t.Spec, tf.Child("spec"))...)
}

// validateImageSource is upstream's validateImageVolumeSource.
func validateImageSource(s *corev1.ImageVolumeSource, fld *field.Path) field.ErrorList {
	errs := required(fld, req{"reference", s.Reference})
	switch s.PullPolicy {
	case corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever:
	case "":
		errs = append(errs, field.Required(fld.Child("pullPolicy"), ""))
	default:
		errs = append(errs, field.NotSupported(fld.Child("pullPolicy"), s.PullPolicy, []string{"Always", "IfNotPresent", "Never"}))
	}
	return errs
}

// localNonReservedPath is upstream's ValidateLocalNonReservedPath.
func localNonReservedPath(p string, fld *field.Path) field.ErrorList {
	errs := localDescendingPath(p, fld)
	if strings.HasPrefix(p, "..") && !strings.HasPrefix(p, "../") {
		errs = append(errs, field.Invalid(fld, p, "must not start with '..'"))
	}
	return errs
}

// forbiddenSetFields is upstream's validateFieldAllowList with nothing
// allowed: each field of the struct v that is set is refused with msg.
func forbiddenSetFields(v any, msg string, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	rv, rt := reflect.ValueOf(v), reflect.TypeOf(v)
	for i := 0; i < rt.NumField(); i++ {
		f := rt.Field(i)
		if reflect.DeepEqual(rv.Field(i).Interface(), reflect.Zero(f.Type).Interface()) {
			continue
		}
		r, n := utf8.DecodeRuneInString(f.Name)
		errs = append(errs, field.Forbidden(fld.Child(string(unicode.ToLower(r))+f.Name[n:]), msg))
	}
	return errs
}

// validateProjected is upstream's validateProjectedVolumeSource: the
// default mode and user, and each source one kind, valid, with paths
// unique across the sources.
func validateProjected(s *corev1.ProjectedVolumeSource, fld *field.Path) field.ErrorList {
	errs := fileMode(s.DefaultMode, fld.Child("defaultMode"))
	errs = append(errs, validateUser(s.DefaultUser, fld.Child("defaultUser"))...)
	paths := sets.New[string]()
	// unique reports a path a source writes that an earlier one wrote,
	// naming value in the message.
	unique := func(p string, value any) {
		if paths.Has(p) {
			errs = append(errs, field.Invalid(fld, value, "conflicting duplicate paths"))
		}
		paths.Insert(p)
	}
	for i, src := range s.Sources {
		n := 0
		sp := fld.Child("sources").Index(i)
		if src.Secret != nil {
			n++
			errs = append(errs, projectedItems(src.Secret.Name, src.Secret.Items, sp.Child("secret"), unique)...)
		}
		if src.ConfigMap != nil {
			n++
			errs = append(errs, projectedItems(src.ConfigMap.Name, src.ConfigMap.Items, sp.Child("configMap"), unique)...)
		}
		if d := src.DownwardAPI; d != nil {
			n++
			for j := range d.Items {
				errs = append(errs, validateDownwardAPIFile(&d.Items[j], sp.Child("downwardAPI"))...)
				if p := d.Items[j].Path; p != "" {
					unique(p, p)
				}
			}
		}
		if t := src.ServiceAccountToken; t != nil {
			n++
			tp := sp.Child("serviceAccountToken")
			if exp := t.ExpirationSeconds; exp == nil {
				errs = append(errs, field.Required(tp.Child("expirationSeconds"), ""))
			} else {
				if *exp < 10*60 {
					errs = append(errs, field.Invalid(tp.Child("expirationSeconds"), *exp, "may not specify a duration less than 10 minutes"))
				}
				if *exp > 1<<32 {
					errs = append(errs, field.Invalid(tp.Child("expirationSeconds"), *exp, "may not specify a duration larger than 2^32 seconds"))
				}
			}
			// Upstream reports the path at the volume's level.
			if t.Path == "" {
				errs = append(errs, field.Required(fld.Child("path"), ""))
			} else {
				errs = append(errs, localNonReservedPath(t.Path, fld.Child("path"))...)
			}
			errs = append(errs, validateUser(t.User, tp.Child("user"))...)
		}
		if b := src.ClusterTrustBundle; b != nil {
			n++
			errs = append(errs, validateClusterTrustBundleProjection(b, sp.Child("clusterTrustBundle"))...)
			unique(b.Path, b.Path)
		}
		if c := src.PodCertificate; c != nil {
			n++
			errs = append(errs, validatePodCertificateProjection(c, sp.Child("podCertificate"), unique)...)
		}
		if n > 1 {
			errs = append(errs, field.Forbidden(sp, "may not specify more than 1 volume type per source"))
		}
	}
	return errs
}

// projectedItems checks a projected secret or config map: its name and
// its items, whose paths must be unique.
func projectedItems(name string, items []corev1.KeyToPath, fld *field.Path, unique func(string, any)) field.ErrorList {
	errs := required(fld, req{"name", name})
	for i := range items {
		errs = append(errs, validateKeyToPath(&items[i], fld.Child("items").Index(i))...)
		if p := items[i].Path; p != "" {
			unique(p, name)
		}
	}
	return errs
}

// validateClusterTrustBundleProjection is upstream's check of a
// clusterTrustBundle source: a name or a signer name (and selector), a
// path and a user.
func validateClusterTrustBundleProjection(b *corev1.ClusterTrustBundleProjection, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch {
	case b.Name != nil && b.SignerName != nil:
		errs = append(errs, field.Invalid(fld, validate.InternalValue(b), "only one of name and signerName may be used"))
	case b.Name != nil:
		name := *b.Name
		if name == "" {
			errs = append(errs, field.Required(fld.Child("name"), "must be a valid object name"))
		}
		for _, msg := range clusterTrustBundleName(name) {
			errs = append(errs, field.Invalid(fld.Child("name"), name, "not a valid clustertrustbundlename: "+msg))
		}
		if b.LabelSelector != nil {
			errs = append(errs, field.Invalid(fld.Child("labelSelector"), validate.InternalValue(b.LabelSelector), "labelSelector must be unset if name is specified"))
		}
	case b.SignerName != nil:
		if *b.SignerName == "" {
			errs = append(errs, field.Required(fld.Child("signerName"), "must be a valid signer name"))
		}
		errs = append(errs, validate.SignerName(fld.Child("signerName"), *b.SignerName)...)
		errs = append(errs, metav1validation.ValidateLabelSelector(b.LabelSelector, metav1validation.LabelSelectorValidationOptions{}, fld.Child("labelSelector"))...)
	default:
		errs = append(errs, field.Required(fld, "either name or signerName must be specified"))
	}
	if b.Path == "" {
		errs = append(errs, field.Required(fld.Child("path"), ""))
	}
	errs = append(errs, validateUser(b.User, fld.Child("user"))...)
	return append(errs, localNonReservedPath(b.Path, fld.Child("path"))...)
}

// clusterTrustBundleName is upstream's ValidateClusterTrustBundleName for
// the signer a name is prefixed with (none unless it has a colon).
func clusterTrustBundleName(name string) []string {
	signer := ""
	if i := strings.LastIndex(name, ":"); i >= 0 {
		signer = strings.ReplaceAll(name[:i], ":", "/")
	}
	if signer == "" {
		if strings.Contains(name, ":") {
			return []string{"ClusterTrustBundle without signer name must not have \":\" in its name"}
		}
		return apimachineryvalidation.NameIsDNSSubdomain(name, false)
	}
	prefix := strings.ReplaceAll(signer, "/", ":") + ":"
	if !strings.HasPrefix(name, prefix) {
		return []string{fmt.Sprintf("ClusterTrustBundle for signerName %s must be named with prefix %s", signer, prefix)}
	}
	return apimachineryvalidation.NameIsDNSSubdomain(strings.TrimPrefix(name, prefix), false)
}

// podCertificateKeyTypes are the key types a podCertificate source may ask
// for.
var podCertificateKeyTypes = []string{"RSA3072", "RSA4096", "ECDSAP256", "ECDSAP384", "ECDSAP521", "ED25519"}

// validatePodCertificateProjection is upstream's check of a podCertificate
// source: signer name, user annotations, user, key type, maximum
// expiration and at least one path, each unique.
func validatePodCertificateProjection(c *corev1.PodCertificateProjection, fld *field.Path, unique func(string, any)) field.ErrorList {
	errs := validate.SignerName(fld.Child("signerName"), c.SignerName)
	if c.UserAnnotations != nil {
		ua := fld.Child("userAnnotations")
		for _, k := range validate.SortedKeys(c.UserAnnotations) {
			errs = append(errs, validation.IsDomainPrefixedKey(ua, strings.ToLower(k))...)
		}
		if apimachineryvalidation.ValidateAnnotationsSize(c.UserAnnotations) != nil {
			errs = append(errs, field.TooLong(ua, "", apimachineryvalidation.TotalAnnotationSizeLimitB))
		}
	}
	errs = append(errs, validateUser(c.User, fld.Child("user"))...)
	if !slices.Contains(podCertificateKeyTypes, c.KeyType) {
		errs = append(errs, field.NotSupported(fld.Child("keyType"), c.KeyType, podCertificateKeyTypes))
	}
	if m := c.MaxExpirationSeconds; m != nil {
		if *m < 3600 {
			errs = append(errs, field.Invalid(fld.Child("maxExpirationSeconds"), *m, "if provided, maxExpirationSeconds must be >= 3600"))
		}
		limit := 91 * 24 * 60 * 60
		if host, _, _ := strings.Cut(c.SignerName, "/"); host == "kubernetes.io" || strings.HasSuffix(host, ".kubernetes.io") {
			limit = 24 * 60 * 60
		}
		if int(*m) > limit {
			errs = append(errs, field.Invalid(fld.Child("maxExpirationSeconds"), *m, fmt.Sprintf("if provided, maxExpirationSeconds must be <= %d", limit)))
		}
	}
	n := 0
	for _, p := range []struct{ value, name string }{
		{c.CredentialBundlePath, "credentialBundlePath"}, {c.KeyPath, "keyPath"}, {c.CertificateChainPath, "certificateChainPath"},
	} {
		if p.value == "" {
			continue
		}
		n++
		errs = append(errs, localNonReservedPath(p.value, fld.Child(p.name))...)
		unique(p.value, p.value)
	}
	if n == 0 {
		errs = append(errs, field.Required(fld, "specify at least one of credentialBundlePath, keyPath, and certificateChainPath"))
	}
	return errs
}
