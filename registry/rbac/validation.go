// Package rbac holds what the strategies of rbac.authorization.k8s.io share:
// the rules of kube-apiserver's pkg/apis/rbac/validation and the defaults
// of pkg/apis/rbac/v1, used by the Role, ClusterRole, RoleBinding and
// ClusterRoleBinding strategies (pkg/registry/rbac/<resource> upstream).
package rbac

import (
	"slices"

	rbacv1 "k8s.io/api/rbac/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/api/validation/path"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validatePolicyRule is upstream's ValidatePolicyRule.
func validatePolicyRule(r rbacv1.PolicyRule, namespaced bool, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(r.NonResourceURLs) > 0 {
		if namespaced {
			errs = append(errs, field.Invalid(fld.Child("nonResourceURLs"), r.NonResourceURLs, "namespaced rules cannot apply to non-resource URLs"))
		}
		if len(r.APIGroups) > 0 || len(r.Resources) > 0 || len(r.ResourceNames) > 0 {
			errs = append(errs, field.Invalid(fld.Child("nonResourceURLs"), r.NonResourceURLs, "rules cannot apply to both regular resources and non-resource URLs"))
		}
		return errs
	}
	if len(r.APIGroups) == 0 {
		errs = append(errs, field.Required(fld.Child("apiGroups"), "resource rules must supply at least one api group"))
	}
	if len(r.Resources) == 0 {
		errs = append(errs, field.Required(fld.Child("resources"), "resource rules must supply at least one resource"))
	}
	return errs
}

// ValidateRules validates a role's rules (namespaced for a Role); upstream
// checks the verbs declaratively, so their errors come last.
func ValidateRules(rules []rbacv1.PolicyRule, namespaced bool) field.ErrorList {
	var errs, declarative field.ErrorList
	for i, r := range rules {
		errs = append(errs, validatePolicyRule(r, namespaced, field.NewPath("rules").Index(i))...)
		if len(r.Verbs) == 0 {
			declarative = append(declarative, field.Required(field.NewPath("rules").Index(i).Child("verbs"), ""))
		}
	}
	return append(errs, declarative...)
}

// validateRoleRef is upstream's RoleRef rules of a binding.
func validateRoleRef(ref rbacv1.RoleRef, kinds []string) field.ErrorList {
	var errs field.ErrorList
	if ref.APIGroup != rbacv1.GroupName {
		errs = append(errs, field.NotSupported(field.NewPath("roleRef", "apiGroup"), ref.APIGroup, []string{rbacv1.GroupName}))
	}
	if !slices.Contains(kinds, ref.Kind) {
		errs = append(errs, field.NotSupported(field.NewPath("roleRef", "kind"), ref.Kind, kinds))
	}
	if ref.Name != "" {
		for _, msg := range path.IsValidPathSegmentName(ref.Name) {
			errs = append(errs, field.Invalid(field.NewPath("roleRef", "name"), ref.Name, msg))
		}
	}
	return errs
}

// ValidateBinding validates a binding's roleRef (of one of kinds) and
// subjects; the names are required declaratively upstream, those errors
// come last (subjects first, in the v1 type's order).
func ValidateBinding(ref rbacv1.RoleRef, kinds []string, subjects []rbacv1.Subject, namespaced bool) field.ErrorList {
	errs := validateRoleRef(ref, kinds)
	errs = append(errs, validateSubjects(subjects, namespaced)...)
	for i, s := range subjects {
		if s.Name == "" {
			errs = append(errs, field.Required(field.NewPath("subjects").Index(i).Child("name"), ""))
		}
	}
	if ref.Name == "" {
		errs = append(errs, field.Required(field.NewPath("roleRef", "name"), ""))
	}
	return errs
}

// validateSubjects is upstream's ValidateRoleBindingSubject for each subject.
func validateSubjects(subjects []rbacv1.Subject, namespaced bool) field.ErrorList {
	var errs field.ErrorList
	for i, s := range subjects {
		fld := field.NewPath("subjects").Index(i)
		switch s.Kind {
		case rbacv1.ServiceAccountKind:
			if s.Name != "" {
				for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(s.Name, false) {
					errs = append(errs, field.Invalid(fld.Child("name"), s.Name, msg))
				}
			}
			if s.APIGroup != "" {
				errs = append(errs, field.NotSupported(fld.Child("apiGroup"), s.APIGroup, []string{""}))
			}
			if !namespaced && s.Namespace == "" {
				errs = append(errs, field.Required(fld.Child("namespace"), ""))
			}
		case rbacv1.UserKind, rbacv1.GroupKind:
			if s.APIGroup != rbacv1.GroupName {
				errs = append(errs, field.NotSupported(fld.Child("apiGroup"), s.APIGroup, []string{rbacv1.GroupName}))
			}
		default:
			errs = append(errs, field.NotSupported(fld.Child("kind"), s.Kind, []string{rbacv1.ServiceAccountKind, rbacv1.UserKind, rbacv1.GroupKind}))
		}
	}
	return errs
}

// DefaultBinding is upstream's SetDefaults_RoleBinding and
// SetDefaults_Subject.
func DefaultBinding(ref *rbacv1.RoleRef, subjects []rbacv1.Subject) {
	if ref.APIGroup == "" {
		ref.APIGroup = rbacv1.GroupName
	}
	for i := range subjects {
		if s := &subjects[i]; s.APIGroup == "" && (s.Kind == rbacv1.UserKind || s.Kind == rbacv1.GroupKind) {
			s.APIGroup = rbacv1.GroupName
		}
	}
}
