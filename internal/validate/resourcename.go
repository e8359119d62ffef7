package validate

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ResourceName is upstream's validateResourceName: a qualified name, and
// a standard resource (or a huge-page one) when it has no domain.
func ResourceName(name string, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsQualifiedName(name) {
		errs = append(errs, field.Invalid(fld, name, msg))
	}
	if len(errs) > 0 {
		return errs
	}
	if !strings.Contains(name, "/") && !StandardResourceNames.Has(name) &&
		!strings.HasPrefix(name, "hugepages-") && !strings.HasPrefix(name, "requests.hugepages-") {
		errs = append(errs, field.Invalid(fld, name, "must be a standard resource type or fully qualified"))
	}
	return errs
}

// ContainerResourceName is upstream's ValidateContainerResourceName: a
// resource name that a container may request (cpu, memory,
// ephemeral-storage, huge pages, or an extended resource).
func ContainerResourceName(name string, fld *field.Path) field.ErrorList {
	errs := ResourceName(name, fld)
	if !strings.Contains(name, "/") {
		if name != "cpu" && name != "memory" && name != "ephemeral-storage" && !strings.HasPrefix(name, "hugepages-") {
			errs = append(errs, field.Invalid(fld, name, "must be a standard resource for containers"))
		}
	} else if !IsNativeResource(name) && !IsExtendedResource(name) {
		errs = append(errs, field.Invalid(fld, name, "doesn't follow extended resource name standard"))
	}
	return errs
}

// OvercommitAllowed is upstream's helper.IsOvercommitAllowed: native
// resources but huge pages may be requested below their limit.
func OvercommitAllowed(name string) bool {
	return IsNativeResource(name) && !strings.HasPrefix(name, "hugepages-")
}

// accessModes are the volume access modes, sorted as upstream lists them.
var accessModes = []string{"ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"}

// AccessModes is the part upstream's volume and claim validation share
// about access modes: each one known, and ReadWriteOncePod alone. (Each
// says in its own words that none is given.)
func AccessModes(modes []corev1.PersistentVolumeAccessMode, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	rwop, other := false, false
	for _, m := range modes {
		known := slices.Contains(accessModes, string(m))
		if !known {
			errs = append(errs, field.NotSupported(fld, m, accessModes))
		}
		if m == corev1.ReadWriteOncePod {
			rwop = true
		} else if known {
			other = true
		}
	}
	if rwop && other {
		errs = append(errs, field.Forbidden(fld, "may not use ReadWriteOncePod with other access modes"))
	}
	return errs
}
