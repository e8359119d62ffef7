package server

import (
	"github.com/fakeplane/fakeplane/internal/validate"
	"reflect"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/diff"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// PersistentVolumeClaims (pkg/apis/core/validation), Nodes and
// ResourceQuotas as upstream validates them.

// validatePVCSpec is upstream's ValidatePersistentVolumeClaimSpec.
func validatePVCSpec(s *corev1.PersistentVolumeClaimSpec, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(s.AccessModes) == 0 {
		errs = append(errs, field.Required(fld.Child("accessModes"), "at least 1 access mode is required"))
	}
	if s.Selector != nil {
		errs = append(errs, metav1validation.ValidateLabelSelector(s.Selector, metav1validation.LabelSelectorValidationOptions{}, fld.Child("selector"))...)
	}
	modes := []string{"ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"}
	rwop, other := false, false
	for _, m := range s.AccessModes {
		known := slices.Contains(modes, string(m))
		if !known {
			errs = append(errs, field.NotSupported(fld.Child("accessModes"), m, modes))
		}
		if m == corev1.ReadWriteOncePod {
			rwop = true
		} else if known {
			other = true
		}
	}
	if rwop && other {
		errs = append(errs, field.Forbidden(fld.Child("accessModes"), "may not use ReadWriteOncePod with other access modes"))
	}
	sf := fld.Child("resources").Key(string(corev1.ResourceStorage))
	if q, ok := s.Resources.Requests[corev1.ResourceStorage]; !ok {
		errs = append(errs, field.Required(sf, ""))
	} else if q.Sign() <= 0 {
		errs = append(errs, field.Invalid(sf, q.String(), "must be greater than zero"))
	}
	if c := s.StorageClassName; c != nil && *c != "" {
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(*c, false) {
			errs = append(errs, field.Invalid(fld.Child("storageClassName"), *c, msg))
		}
	}
	if m := s.VolumeMode; m != nil && *m != corev1.PersistentVolumeBlock && *m != corev1.PersistentVolumeFilesystem {
		errs = append(errs, field.NotSupported(fld.Child("volumeMode"), *m, []string{"Block", "Filesystem"}))
	}
	if d := s.DataSource; d != nil {
		errs = append(errs, validateDataSource(d.Name, d.Kind, d.APIGroup, fld.Child("dataSource"))...)
	}
	if d := s.DataSourceRef; d != nil {
		errs = append(errs, validateDataSource(d.Name, d.Kind, d.APIGroup, fld.Child("dataSourceRef"))...)
		if d.Namespace != nil && *d.Namespace != "" {
			for _, msg := range apimachineryvalidation.ValidateNamespaceName(*d.Namespace, false) {
				errs = append(errs, field.Invalid(fld.Child("dataSourceRef", "namespace"), *d.Namespace, msg))
			}
		}
	}
	if d := s.DataSourceRef; d != nil && d.Namespace != nil && *d.Namespace != "" {
		if s.DataSource != nil {
			errs = append(errs, field.Invalid(fld, fld.Child("dataSource"), "may not be specified when dataSourceRef.namespace is specified"))
		}
	} else if s.DataSource != nil && d != nil {
		if !reflect.DeepEqual(s.DataSource.APIGroup, d.APIGroup) || s.DataSource.Kind != d.Kind || s.DataSource.Name != d.Name {
			errs = append(errs, field.Invalid(fld, fld.Child("dataSource"), "must match dataSourceRef"))
		}
	}
	if c := s.VolumeAttributesClassName; c != nil && *c != "" {
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(*c, false) {
			errs = append(errs, field.Invalid(fld.Child("volumeAttributesClassName"), *c, msg))
		}
	}
	return errs
}

func validateDataSource(name, kind string, group *string, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if name == "" {
		errs = append(errs, field.Required(fld.Child("name"), ""))
	}
	if kind == "" {
		errs = append(errs, field.Required(fld.Child("kind"), ""))
	}
	g := ""
	if group != nil {
		g = *group
	}
	if g == "" && kind != "PersistentVolumeClaim" {
		errs = append(errs, field.Invalid(fld, kind, "must be 'PersistentVolumeClaim' when referencing the default apiGroup"))
	}
	if g != "" {
		for _, msg := range validation.IsDNS1123Subdomain(g) {
			errs = append(errs, field.Invalid(fld.Child("apiGroup"), g, msg))
		}
	}
	return errs
}

// validatePVCUpdate is upstream's ValidatePersistentVolumeClaimUpdate less
// the metadata: the spec is immutable but for the volume name (once), the
// storage request (grown, of a bound claim) and the attributes class.
func validatePVCUpdate(n, p *corev1.PersistentVolumeClaim) field.ErrorList {
	errs := validatePVCSpec(&n.Spec, field.NewPath("spec"))
	nc, pc := n.Spec.DeepCopy(), p.Spec.DeepCopy()
	if p.Spec.VolumeName == "" {
		pc.VolumeName = nc.VolumeName
	}
	if n.Status.Phase == corev1.ClaimBound {
		if nc.Resources.Requests != nil {
			nc.Resources.Requests[corev1.ResourceStorage] = p.Spec.Resources.Requests[corev1.ResourceStorage]
		}
		nc.VolumeAttributesClassName = pc.VolumeAttributesClassName
	}
	if !apiequality.Semantic.DeepEqual(*nc, *pc) {
		d := diff.Diff(goNamed(reflect.ValueOf(*pc)), goNamed(reflect.ValueOf(*nc)))
		errs = append(errs, field.Forbidden(field.NewPath("spec"), "spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n"+d))
	}
	oldSize, newSize := p.Spec.Resources.Requests[corev1.ResourceStorage], n.Spec.Resources.Requests[corev1.ResourceStorage]
	if newSize.Cmp(oldSize) < 0 {
		if statusSize := p.Status.Capacity[corev1.ResourceStorage]; newSize.Cmp(statusSize) <= 0 {
			errs = append(errs, field.Forbidden(field.NewPath("spec", "resources", "requests", "storage"), "field can not be less than status.capacity"))
		}
	}
	return append(errs, validate.ImmutableField(n.Spec.VolumeMode, p.Spec.VolumeMode, field.NewPath("volumeMode"))...)
}
