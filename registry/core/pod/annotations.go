package pod

import (
	"encoding/json"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate"
	"github.com/fakeplane/fakeplane/registry/core/pod/internal/core"
)

// The rules of kube-apiserver v1.37 for a pod's (or a pod template's)
// annotations that the pod API reads (upstream's
// ValidatePodSpecificAnnotations and ValidatePodSpecificAnnotationUpdates),
// and those that tie the deprecated seccomp and AppArmor annotations to
// the fields on create. Where upstream ranges over the annotations (a Go
// map), the keys are taken in order.

// tolerationsAnnotation is the legacy annotation holding tolerations in
// JSON, which upstream still validates.
const tolerationsAnnotation = "scheduler.alpha.kubernetes.io/tolerations"

// validatePodSpecificAnnotations is upstream's
// ValidatePodSpecificAnnotations at fld (a pod's metadata.annotations, or a
// template's annotations): a mirror pod is bound to a node, the legacy
// tolerations are valid, the deletion cost is a 32-bit integer (unless
// opts allow the stored pod's invalid one), and the seccomp and AppArmor
// annotations give valid profiles, of containers the pod has for AppArmor.
func validatePodSpecificAnnotations(annotations map[string]string, s *corev1.PodSpec, fld *field.Path, opts podOptions) field.ErrorList {
	var errs field.ErrorList
	if v, ok := annotations[corev1.MirrorPodAnnotationKey]; ok && s.NodeName == "" {
		errs = append(errs, field.Invalid(fld.Key(corev1.MirrorPodAnnotationKey), v, "must set spec.nodeName if mirror pod annotation is set"))
	}
	if annotations[tolerationsAnnotation] != "" {
		errs = append(errs, validateTolerationsAnnotation(annotations[tolerationsAnnotation], fld)...)
	}
	if !opts.allowInvalidDeletionCost {
		if _, err := deletionCost(annotations); err != nil {
			errs = append(errs, field.Invalid(fld.Key(corev1.PodDeletionCost), annotations[corev1.PodDeletionCost], "must be a 32bit integer"))
		}
	}
	errs = append(errs, validateSeccompAnnotations(annotations, fld)...)
	return append(errs, validateAppArmorAnnotations(annotations, s, fld)...)
}

// validateTolerationsAnnotation is upstream's
// ValidateTolerationsInPodAnnotations: the value decodes, as upstream's
// internal type (whose name the decoding error gives), into valid
// tolerations, checked as the spec's are.
func validateTolerationsAnnotation(v string, fld *field.Path) field.ErrorList {
	var decoded []core.Toleration
	if err := json.Unmarshal([]byte(v), &decoded); err != nil {
		return field.ErrorList{field.Invalid(fld, tolerationsAnnotation, err.Error())}
	}
	if len(decoded) == 0 {
		return nil
	}
	ts := make([]corev1.Toleration, len(decoded))
	for i, t := range decoded {
		ts[i] = corev1.Toleration{Key: t.Key, Operator: corev1.TolerationOperator(t.Operator), Value: t.Value,
			Effect: corev1.TaintEffect(t.Effect), TolerationSeconds: t.TolerationSeconds}
	}
	return ValidateTolerations(ts, fld.Child(tolerationsAnnotation))
}

// validateSeccompAnnotations is upstream's ValidateSeccompPodAnnotations:
// the pod's then the containers' seccomp annotations give valid profiles.
// (Upstream's paths name them as children, not keys, of the annotations.)
func validateSeccompAnnotations(annotations map[string]string, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if v, ok := annotations[corev1.SeccompPodAnnotationKey]; ok {
		errs = append(errs, validateSeccompAnnotation(v, fld.Child(corev1.SeccompPodAnnotationKey))...)
	}
	for _, k := range validate.SortedKeys(annotations) {
		if strings.HasPrefix(k, corev1.SeccompContainerAnnotationKeyPrefix) {
			errs = append(errs, validateSeccompAnnotation(annotations[k], fld.Child(k))...)
		}
	}
	return errs
}

// validateSeccompAnnotation is upstream's ValidateSeccompProfile: the
// runtime's default (under either name), unconfined, or a localhost
// profile at a relative path that does not climb.
func validateSeccompAnnotation(v string, fld *field.Path) field.ErrorList {
	switch {
	case v == corev1.SeccompProfileRuntimeDefault, v == corev1.DeprecatedSeccompProfileDockerDefault, v == corev1.SeccompProfileNameUnconfined:
		return nil
	case strings.HasPrefix(v, corev1.SeccompLocalhostProfileNamePrefix):
		return localDescendingPath(strings.TrimPrefix(v, corev1.SeccompLocalhostProfileNamePrefix), fld)
	}
	return field.ErrorList{field.Invalid(fld, v, "must be a valid seccomp profile")}
}

// validateAppArmorAnnotations is upstream's ValidateAppArmorPodAnnotations:
// each container AppArmor annotation names a container of the pod (init,
// regular or ephemeral) and gives a profile of a known form.
func validateAppArmorAnnotations(annotations map[string]string, s *corev1.PodSpec, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, k := range validate.SortedKeys(annotations) {
		name, ok := strings.CutPrefix(k, appArmorContainerAnnotationPrefix)
		if !ok {
			continue
		}
		if !podHasContainer(s, name) {
			errs = append(errs, field.Invalid(fld.Key(k), name, "container not found"))
		}
		if err := appArmorAnnotationFormat(annotations[k]); err != nil {
			errs = append(errs, field.Invalid(fld.Key(k), annotations[k], err.Error()))
		}
	}
	return errs
}

// appArmorAnnotationFormat is upstream's ValidateAppArmorProfileFormat:
// empty, the runtime's default, unconfined, or localhost/ with anything
// after it.
func appArmorAnnotationFormat(v string) error {
	if v == "" || v == appArmorRuntimeDefault || v == appArmorUnconfined || strings.HasPrefix(v, appArmorLocalhostPrefix) {
		return nil
	}
	return fmt.Errorf("invalid AppArmor profile name: %q", v)
}

// podHasContainer reports whether s has a container (of any kind) named
// name.
func podHasContainer(s *corev1.PodSpec, name string) bool {
	found := false
	visitContainersWithPath(s, nil, func(c *corev1.Container, _ *field.Path) {
		found = found || c.Name == name
	})
	return found
}

// validatePodSpecificAnnotationUpdates is upstream's
// ValidatePodSpecificAnnotationUpdates: no AppArmor annotation nor the
// mirror pod annotation is removed, changed or added, and the new
// annotations are valid (validatePodSpecificAnnotations).
func validatePodSpecificAnnotationUpdates(n, old *corev1.Pod, fld *field.Path, opts podOptions) field.ErrorList {
	var errs field.ErrorList
	for _, k := range validate.SortedKeys(old.Annotations) {
		if v, ok := n.Annotations[k]; ok && v == old.Annotations[k] {
			continue
		}
		if strings.HasPrefix(k, appArmorContainerAnnotationPrefix) {
			errs = append(errs, field.Forbidden(fld.Key(k), "may not remove or update AppArmor annotations"))
		}
		if k == corev1.MirrorPodAnnotationKey {
			errs = append(errs, field.Forbidden(fld.Key(k), "may not remove or update mirror pod annotation"))
		}
	}
	for _, k := range validate.SortedKeys(n.Annotations) {
		if _, ok := old.Annotations[k]; ok {
			continue
		}
		if strings.HasPrefix(k, appArmorContainerAnnotationPrefix) {
			errs = append(errs, field.Forbidden(fld.Key(k), "may not add AppArmor annotations"))
		}
		if k == corev1.MirrorPodAnnotationKey {
			errs = append(errs, field.Forbidden(fld.Key(k), "may not add mirror pod annotation"))
		}
	}
	return append(errs, validatePodSpecificAnnotations(n.Annotations, &n.Spec, fld, opts)...)
}

// validateSeccompAnnotationsAndFields is upstream's
// validateSeccompAnnotationsAndFields, run on create: where a seccomp
// annotation and the field it was replaced by are both set (the pod's,
// then each container's), they give the same profile.
func validateSeccompAnnotationsAndFields(annotations map[string]string, s *corev1.PodSpec, spec *field.Path) field.ErrorList {
	var errs field.ErrorList
	if s.SecurityContext != nil && s.SecurityContext.SeccompProfile != nil {
		if v, ok := annotations[corev1.SeccompPodAnnotationKey]; ok {
			errs = append(errs, seccompAnnotationMismatch(v, s.SecurityContext.SeccompProfile, spec.Child("securityContext", "seccompProfile"))...)
		}
	}
	visitContainersWithPath(s, spec, func(c *corev1.Container, cf *field.Path) {
		if c.SecurityContext == nil || c.SecurityContext.SeccompProfile == nil {
			return
		}
		if v, ok := annotations[corev1.SeccompContainerAnnotationKeyPrefix+c.Name]; ok {
			errs = append(errs, seccompAnnotationMismatch(v, c.SecurityContext.SeccompProfile, cf.Child("securityContext", "seccompProfile"))...)
		}
	})
	return errs
}

// seccompAnnotationMismatch is upstream's
// validateSeccompAnnotationsAndFieldsMatch: the error when the annotation
// v gives another profile than the field p at fld.
func seccompAnnotationMismatch(v string, p *corev1.SeccompProfile, fld *field.Path) field.ErrorList {
	typeMismatch := field.ErrorList{field.Forbidden(fld.Child("type"), "seccomp type in annotation and field must match")}
	switch p.Type {
	case corev1.SeccompProfileTypeUnconfined:
		if v != corev1.SeccompProfileNameUnconfined {
			return typeMismatch
		}
	case corev1.SeccompProfileTypeRuntimeDefault:
		if v != corev1.SeccompProfileRuntimeDefault && v != corev1.DeprecatedSeccompProfileDockerDefault {
			return typeMismatch
		}
	case corev1.SeccompProfileTypeLocalhost:
		name, ok := strings.CutPrefix(v, corev1.SeccompLocalhostProfileNamePrefix)
		if !ok {
			return typeMismatch
		}
		if p.LocalhostProfile == nil || name != *p.LocalhostProfile {
			return field.ErrorList{field.Forbidden(fld.Child("localhostProfile"), "seccomp profile in annotation and field must match")}
		}
	}
	return nil
}

// validateAppArmorAnnotationsAndFields is upstream's
// validateAppArmorAnnotationsAndFieldsMatchOnCreate: outside Windows pods,
// a container's AppArmor annotation gives the profile the container has
// (its own field, else the pod's), when it has one.
func validateAppArmorAnnotationsAndFields(annotations map[string]string, s *corev1.PodSpec, spec *field.Path) field.ErrorList {
	if s.OS != nil && s.OS.Name == corev1.Windows {
		return nil
	}
	var podProfile *corev1.AppArmorProfile
	if s.SecurityContext != nil {
		podProfile = s.SecurityContext.AppArmorProfile
	}
	var errs field.ErrorList
	visitContainersWithPath(s, spec, func(c *corev1.Container, cf *field.Path) {
		profile := podProfile
		if c.SecurityContext != nil && c.SecurityContext.AppArmorProfile != nil {
			profile = c.SecurityContext.AppArmorProfile
		}
		v, ok := annotations[appArmorContainerAnnotationPrefix+c.Name]
		if profile == nil || !ok {
			return
		}
		af := cf.Child("securityContext", "appArmorProfile")
		typeMismatch := field.Forbidden(af.Child("type"), "apparmor type in annotation and field must match")
		switch profile.Type {
		case corev1.AppArmorProfileTypeUnconfined:
			if v != appArmorUnconfined {
				errs = append(errs, typeMismatch)
			}
		case corev1.AppArmorProfileTypeRuntimeDefault:
			if v != appArmorRuntimeDefault {
				errs = append(errs, typeMismatch)
			}
		case corev1.AppArmorProfileTypeLocalhost:
			name, ok := strings.CutPrefix(v, appArmorLocalhostPrefix)
			switch {
			case !ok:
				errs = append(errs, typeMismatch)
			case profile.LocalhostProfile == nil || name != *profile.LocalhostProfile:
				errs = append(errs, field.Forbidden(af.Child("localhostProfile"), "apparmor profile in annotation and field must match"))
			}
		}
	})
	return errs
}
