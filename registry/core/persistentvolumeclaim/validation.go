package persistentvolumeclaim

import (
	"reflect"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/diff"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate"
)

// ValidateSpec is upstream's ValidatePersistentVolumeClaimSpec.
func ValidateSpec(s *corev1.PersistentVolumeClaimSpec, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(s.AccessModes) == 0 {
		errs = append(errs, field.Required(fld.Child("accessModes"), "at least 1 access mode is required"))
	}
	if s.Selector != nil {
		errs = append(errs, metav1validation.ValidateLabelSelector(s.Selector, metav1validation.LabelSelectorValidationOptions{}, fld.Child("selector"))...)
	}
	errs = append(errs, validate.AccessModes(s.AccessModes, fld.Child("accessModes"))...)
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

// validateUpdate is upstream's ValidatePersistentVolumeClaimUpdate less
// the metadata: the spec is immutable but for the volume name (once), the
// storage class (set once, when unset or only in the beta annotation), the
// storage request (grown, of a bound claim) and the attributes class.
func validateUpdate(n, p *corev1.PersistentVolumeClaim) field.ErrorList {
	errs := ValidateSpec(&n.Spec, field.NewPath("spec"))
	nc, pc := n.Spec.DeepCopy(), p.Spec.DeepCopy()
	if p.Spec.VolumeName == "" {
		pc.VolumeName = nc.VolumeName
	}
	oldAnn, oldHasAnn := p.Annotations[corev1.BetaStorageClassAnnotation]
	newAnn, newHasAnn := n.Annotations[corev1.BetaStorageClassAnnotation]
	switch {
	case oldHasAnn && p.Spec.StorageClassName == nil && n.Spec.StorageClassName != nil &&
		*n.Spec.StorageClassName == oldAnn && (!newHasAnn || newAnn == oldAnn):
		// The class moves from the beta annotation to the field.
		nc.StorageClassName = nil
	default:
		if newAnn != oldAnn {
			errs = append(errs, field.Invalid(field.NewPath("metadata", "annotations", corev1.BetaStorageClassAnnotation), newAnn, "field is immutable"))
		}
		// An unset class may be set once (the retroactive default
		// StorageClass assignment), to the annotation's if there is one.
		if p.Spec.StorageClassName == nil && n.Spec.StorageClassName != nil && (!oldHasAnn || *n.Spec.StorageClassName == oldAnn) {
			nc.StorageClassName = pc.StorageClassName
		}
	}
	if n.Status.Phase == corev1.ClaimBound {
		if nc.Resources.Requests != nil {
			nc.Resources.Requests[corev1.ResourceStorage] = p.Spec.Resources.Requests[corev1.ResourceStorage]
		}
		nc.VolumeAttributesClassName = pc.VolumeAttributesClassName
	}
	if !apiequality.Semantic.DeepEqual(*nc, *pc) {
		d := diff.Diff(validate.InternalValue(*pc), validate.InternalValue(*nc))
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
