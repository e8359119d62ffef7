package pod

import (
	"context"
	"fmt"
	"reflect"
	"unicode"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/diff"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate"
)

// The pods/ephemeralcontainers subresource (kubectl debug), as upstream's
// ephemeral-containers strategy: a write changes spec.ephemeralContainers
// alone, existing ephemeral containers stay as they are, and new ones are
// validated as upstream's validateEphemeralContainers does.

// PrepareForEphemeralContainersUpdate keeps the stored pod but its
// ephemeral containers (upstream's dropNonEphemeralContainerUpdates), then clears the fields
// of default-off gates the stored pod does not use.
func (podStrategy) PrepareForEphemeralContainersUpdate(_ context.Context, obj, old runtime.Object) {
	n, o := obj.(*corev1.Pod), old.(*corev1.Pod)
	keep := o.DeepCopy()
	keep.Name, keep.Namespace, keep.ResourceVersion, keep.UID = n.Name, n.Namespace, n.ResourceVersion, n.UID
	keep.ManagedFields = n.ManagedFields
	keep.Spec.EphemeralContainers = n.Spec.EphemeralContainers
	*n = *keep
	DropDisabledSpecFields(&n.Spec, &o.Spec)
}

// ValidateEphemeralContainersUpdate is upstream's
// ValidatePodEphemeralContainersUpdate less the generic metadata and the
// rules of the pod's spec that do not read the ephemeral containers
// (the write changes nothing else, see
// PrepareForEphemeralContainersUpdate): static pods take none; the
// annotations the pod API reads are valid and their AppArmor and mirror
// pod annotations unchanged; each ephemeral container is valid, also
// with the rules of the whole pod that read it (host process, user
// namespaces, spec.os); existing ephemeral containers may be neither
// removed nor changed.
func (podStrategy) ValidateEphemeralContainersUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	n, o := obj.(*corev1.Pod), old.(*corev1.Pod)
	if _, ok := o.Annotations[corev1.MirrorPodAnnotationKey]; ok {
		return field.ErrorList{field.Forbidden(field.NewPath(""), "static pods do not support ephemeral containers")}
	}
	opts := updateOptions(o).withClusterPolicy(ctx)
	annotations := field.NewPath("metadata", "annotations")
	errs := validatePodSpecificAnnotations(n.Annotations, &n.Spec, annotations, opts)
	errs = append(errs, validateEphemeralContainers(&n.Spec, opts, field.NewPath("spec", "ephemeralContainers"))...)
	spec := field.NewPath("spec")
	errs = append(errs, validateWindowsHostProcessPod(&n.Spec, spec, opts.disallowPrivileged)...)
	errs = append(errs, validateHostUsers(&n.Spec, spec, opts)...)
	errs = append(errs, validatePodOS(&n.Spec, spec)...)
	errs = append(errs, validatePodSpecificAnnotationUpdates(n, o, annotations, opts)...)
	byName := map[string]*corev1.EphemeralContainer{}
	for i := range n.Spec.EphemeralContainers {
		byName[n.Spec.EphemeralContainers[i].Name] = &n.Spec.EphemeralContainers[i]
	}
	fld := field.NewPath("spec").Child("ephemeralContainers")
	for _, prev := range o.Spec.EphemeralContainers {
		cur, ok := byName[prev.Name]
		switch {
		case !ok:
			errs = append(errs, field.Forbidden(fld, fmt.Sprintf("existing ephemeral containers %q may not be removed\n", prev.Name)))
		case !apiequality.Semantic.DeepEqual(prev, *cur):
			errs = append(errs, field.Forbidden(fld, fmt.Sprintf("existing ephemeral containers %q may not be changed\n%v", prev.Name, diff.Diff(validate.InternalValue(prev), validate.InternalValue(*cur)))))
		}
	}
	return errs
}

// allowedEphemeralContainerFields are the container fields an ephemeral
// container may set (upstream's allow list).
var allowedEphemeralContainerFields = sets.New("Name", "Image", "Command", "Args", "WorkingDir", "EnvFrom", "Env",
	"VolumeMounts", "VolumeDevices", "TerminationMessagePath", "TerminationMessagePolicy", "ImagePullPolicy",
	"SecurityContext", "Stdin", "StdinOnce", "TTY")

// validateEphemeralContainers is upstream's validateEphemeralContainers:
// each one a valid container with a name unique across all containers, a
// target that is a regular or init container, only the allowed fields,
// and no volume sub-paths.
func validateEphemeralContainers(s *corev1.PodSpec, opts podOptions, fld *field.Path) field.ErrorList {
	if len(s.EphemeralContainers) == 0 {
		return nil
	}
	var errs field.ErrorList
	vols, _ := validateVolumes(s.Volumes, nil, field.NewPath("spec", "volumes"))
	hostUsers := s.HostUsers == nil || *s.HostUsers
	others := sets.New[string]()
	for _, cs := range [][]corev1.Container{s.Containers, s.InitContainers} {
		for _, c := range cs {
			others.Insert(c.Name)
		}
	}
	all := others.Clone()
	for i := range s.EphemeralContainers {
		ec := &s.EphemeralContainers[i]
		idx := fld.Index(i)
		c := corev1.Container(ec.EphemeralContainerCommon)
		errs = append(errs, validateContainerCommon(&c, vols, podClaimNames(s.ResourceClaims), s.RestartPolicy, hostUsers, opts.disallowPrivileged, idx)...)
		if all.Has(ec.Name) {
			errs = append(errs, field.Duplicate(idx.Child("name"), ec.Name))
		} else {
			all.Insert(ec.Name)
		}
		if ec.TargetContainerName != "" && !others.Has(ec.TargetContainerName) {
			errs = append(errs, field.NotFound(idx.Child("targetContainerName"), ec.TargetContainerName))
		}
		v, t := reflect.ValueOf(ec.EphemeralContainerCommon), reflect.TypeOf(ec.EphemeralContainerCommon)
		for j := 0; j < t.NumField(); j++ {
			f := t.Field(j)
			if allowedEphemeralContainerFields.Has(f.Name) || reflect.DeepEqual(v.Field(j).Interface(), reflect.Zero(f.Type).Interface()) {
				continue
			}
			r, n := utf8.DecodeRuneInString(f.Name)
			errs = append(errs, field.Forbidden(idx.Child(string(unicode.ToLower(r))+f.Name[n:]), "cannot be set for an Ephemeral Container"))
		}
		for j, vm := range ec.VolumeMounts {
			if vm.SubPath != "" {
				errs = append(errs, field.Forbidden(idx.Child("volumeMounts").Index(j).Child("subPath"), "cannot be set for an Ephemeral Container"))
			}
			if vm.SubPathExpr != "" {
				errs = append(errs, field.Forbidden(idx.Child("volumeMounts").Index(j).Child("subPathExpr"), "cannot be set for an Ephemeral Container"))
			}
		}
	}
	return errs
}
