package pod

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/registry/strategy"
)

// The pods/resize subresource (in-place pod vertical scaling, GA), as
// upstream's resize strategy: a write changes the containers' (init
// containers' too) resources and resize policies and the pod-level
// resources alone, and is validated as upstream's ValidatePodResize
// does. What the write sets elsewhere is dropped silently, unless it adds,
// removes, renames or reorders containers, which the validation refuses.

var _ strategy.ResizeStrategy = podStrategy{}

// PrepareForResizeUpdate is upstream's resize strategy's PrepareForUpdate
// (dropNonResizeUpdates): the stored pod with the new containers'
// resources and resize policies and the new pod-level resources, the
// stored status and the stored metadata but for the name, resourceVersion
// and managedFields. A write that changes the containers' number or names
// is kept as sent, for the validation to refuse. Then, as upstream's
// (PodLevelResourcesFixDefaulting is on), pod-level resources a write
// leaves out are kept, and those it sets are defaulted.
func (podStrategy) PrepareForResizeUpdate(_ context.Context, obj, old runtime.Object) {
	n, o := obj.(*corev1.Pod), old.(*corev1.Pod)
	if len(n.Spec.Containers) == len(o.Spec.Containers) && len(n.Spec.InitContainers) == len(o.Spec.InitContainers) {
		containers := keepResizeFields(n.Spec.Containers, o.Spec.Containers)
		initContainers := keepResizeFields(n.Spec.InitContainers, o.Spec.InitContainers)
		resources := n.Spec.Resources
		n.Spec = *o.Spec.DeepCopy()
		// InPlacePodLevelResourcesVerticalScaling is on; the volumes
		// (InPlacePodVerticalScalingMemoryBackedVolumes, off) stay.
		n.Spec.Resources = resources
		n.Spec.Containers, n.Spec.InitContainers = containers, initContainers
		n.Status = *o.Status.DeepCopy()
		metav1.ResetObjectMetaForStatus(&n.ObjectMeta, &o.ObjectMeta)
	}
	if n.Spec.Resources == nil && o.Spec.Resources != nil {
		n.Spec.Resources = o.Spec.Resources.DeepCopy()
	}
	if n.Spec.Resources != nil {
		if res := defaultPodLevelResources(n.Spec.Resources, defaultedContainers(n)); res != nil {
			n.Spec.Resources = res
		}
	}
	DropDisabledSpecFields(&n.Spec, &o.Spec)
}

// keepResizeFields is upstream's dropNonResizeUpdatesForContainers: the
// stored containers with the new ones' resources and resize policies,
// or the new containers as they are when one was renamed or moved.
func keepResizeFields(n, o []corev1.Container) []corev1.Container {
	if len(n) == 0 {
		return n
	}
	out := make([]corev1.Container, len(o))
	for i := range o {
		if o[i].Name != n[i].Name {
			return n
		}
		out[i] = *o[i].DeepCopy()
		out[i].Resources = n[i].Resources
		out[i].ResizePolicy = n[i].ResizePolicy
	}
	return out
}

// ValidateResizeUpdate is upstream's ValidatePodResize less the generic
// metadata: the new pod must be valid; static and Windows pods may not be
// resized (and get that error alone); the QoS class may not change; a
// pod whose running containers report no resources (a kubelet without
// in-place resize) may not be resized; pod-level resources may change
// their cpu and memory only, and not lose any; containers may not be
// added, removed, renamed or reordered; their requests and limits may not
// be removed, and only their cpu and memory may change (also for init
// containers, of which only sidecars may restart to be resized); the
// volumes may not change; nothing else may either.
func (podStrategy) ValidateResizeUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	n, o := obj.(*corev1.Pod), old.(*corev1.Pod)
	errs := validatePodMetaAndSpec(n, updateOptions(o).withClusterPolicy(ctx))
	if _, ok := o.Annotations[corev1.MirrorPodAnnotationKey]; ok {
		return field.ErrorList{field.Forbidden(field.NewPath(""), "static pods cannot be resized")}
	}
	if o.Spec.OS != nil && o.Spec.OS.Name == corev1.Windows {
		return field.ErrorList{field.Forbidden(field.NewPath(""), "windows pods cannot be resized")}
	}
	spec := field.NewPath("spec")
	oldQOS := o.Status.QOSClass
	if oldQOS == "" {
		oldQOS = podQOS(o)
	}
	if oldQOS != podQOS(n) {
		errs = append(errs, field.Invalid(spec, n.Status.QOSClass, "Pod QOS Class may not change as a result of resizing"))
	}
	if !resizeSupported(o) {
		errs = append(errs, field.Forbidden(spec, "Pod running on node without support for resize"))
	}
	masked := n.Spec.DeepCopy()
	if podLevelResourcesSet(o) || podLevelResourcesSet(n) {
		errs = append(errs, validatePodLevelResourcesResize(n, o, masked, spec)...)
	}
	if order := validateResizeContainerOrder(n, o, spec); order != nil {
		return append(errs, order...)
	}
	for i := range o.Spec.InitContainers {
		errs = append(errs, validateContainerResize(&n.Spec.InitContainers[i].Resources, &o.Spec.InitContainers[i].Resources, spec.Child("initContainers").Index(i).Child("resources"))...)
	}
	for i := range o.Spec.Containers {
		errs = append(errs, validateContainerResize(&n.Spec.Containers[i].Resources, &o.Spec.Containers[i].Resources, spec.Child("containers").Index(i).Child("resources"))...)
	}
	for i := range masked.Containers {
		c := &masked.Containers[i]
		keepOldCPUMemory(c, &o.Spec.Containers[i])
		if !apiequality.Semantic.DeepEqual(*c, o.Spec.Containers[i]) {
			errs = append(errs, field.Forbidden(spec, "only cpu and memory resources are mutable"))
		}
	}
	for i := range masked.InitContainers {
		c := &masked.InitContainers[i]
		changed := !apiequality.Semantic.DeepEqual(*c, o.Spec.InitContainers[i])
		keepOldCPUMemory(c, &o.Spec.InitContainers[i])
		idx := spec.Child("initContainers").Index(i)
		if !apiequality.Semantic.DeepEqual(*c, o.Spec.InitContainers[i]) {
			errs = append(errs, field.Forbidden(idx, "only cpu and memory resources for init or sidecar containers are mutable"))
		}
		if changed && !isSidecar(c) {
			for _, p := range c.ResizePolicy {
				if p.RestartPolicy == corev1.RestartContainer {
					errs = append(errs, field.Forbidden(idx, "non-sidecar init containers with a resize policy of RestartContainer cannot be resized"))
				}
			}
		}
	}
	if !apiequality.Semantic.DeepEqual(n.Spec.Volumes, o.Spec.Volumes) {
		errs = append(errs, field.Forbidden(spec.Child("volumes"), "volumes are immutable on resize when InPlacePodVerticalScalingMemoryBackedVolumes feature gate is disabled"))
	}
	if len(errs) > 0 {
		return errs
	}
	if !apiequality.Semantic.DeepEqual(*masked, o.Spec) {
		errs = append(errs, field.Forbidden(spec, "only cpu and memory resources are mutable"))
	}
	return errs
}

// isSidecar reports whether an init container keeps running
// (restartPolicy Always).
func isSidecar(c *corev1.Container) bool {
	return c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways
}

// resizeSupported is upstream's isPodResizeRequestSupported: the first
// running container reports its resources, as a kubelet that resizes in
// place does; without running containers nothing tells, and a resize is
// let through.
func resizeSupported(pod *corev1.Pod) bool {
	for _, c := range pod.Status.ContainerStatuses {
		if c.State.Running != nil {
			return c.Resources != nil
		}
	}
	return true
}

// podLevelResourcesSet reports whether spec.resources sets requests or
// limits.
func podLevelResourcesSet(pod *corev1.Pod) bool {
	r := pod.Spec.Resources
	return r != nil && len(r.Requests)+len(r.Limits) > 0
}

// validatePodLevelResourcesResize is upstream's: pod-level resources,
// their requests and their limits may not be removed, and only their cpu
// and memory may change. It sets masked's pod-level cpu and memory to the
// stored pod's, for the comparison of the whole spec that follows.
func validatePodLevelResourcesResize(n, o *corev1.Pod, masked *corev1.PodSpec, spec *field.Path) field.ErrorList {
	if o.Spec.Resources != nil && n.Spec.Resources == nil {
		return field.ErrorList{field.Forbidden(spec.Child("resources"), "pod-level resources cannot be removed")}
	}
	var errs field.ErrorList
	if o.Spec.Resources != nil {
		if resourcesRemoved(n.Spec.Resources.Requests, o.Spec.Resources.Requests) {
			errs = append(errs, field.Forbidden(spec.Child("resources").Child("requests"), "pod-level resource requests cannot be removed"))
		}
		if resourcesRemoved(n.Spec.Resources.Limits, o.Spec.Resources.Limits) {
			errs = append(errs, field.Forbidden(spec.Child("resources").Child("limits"), "pod-level resource limits cannot be removed"))
		}
	}
	if r := masked.Resources; r != nil {
		var oldReqs, oldLims corev1.ResourceList
		if o.Spec.Resources != nil {
			oldReqs, oldLims = o.Spec.Resources.Requests, o.Spec.Resources.Limits
		}
		r.Requests = withOldCPUMemory(r.Requests, oldReqs)
		r.Limits = withOldCPUMemory(r.Limits, oldLims)
		if o.Spec.Resources == nil && len(r.Requests) == 0 && len(r.Limits) == 0 && len(r.Claims) == 0 {
			masked.Resources = nil
		}
	}
	if !apiequality.Semantic.DeepEqual(masked.Resources, o.Spec.Resources) {
		errs = append(errs, field.Forbidden(spec, "only cpu and memory resources are mutable at pod-level"))
	}
	return errs
}

// validateResizeContainerOrder is upstream's
// validatePodResizeContainerOrdering: a resize may not add, remove,
// rename or reorder containers or init containers.
func validateResizeContainerOrder(n, o *corev1.Pod, spec *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, l := range []struct {
		n, o []corev1.Container
		name string
	}{{n.Spec.Containers, o.Spec.Containers, "containers"}, {n.Spec.InitContainers, o.Spec.InitContainers, "initContainers"}} {
		if len(l.n) != len(l.o) {
			errs = append(errs, field.Forbidden(spec.Child(l.name), l.name+" may not be added or removed on resize"))
			continue
		}
		for i := range l.o {
			if l.n[i].Name != l.o[i].Name {
				errs = append(errs, field.Forbidden(spec.Child(l.name).Index(i).Child("name"), l.name+" may not be renamed or reordered on resize"))
			}
		}
	}
	return errs
}

// validateContainerResize is upstream's: a resize may not remove a
// container's requests or limits.
func validateContainerResize(n, o *corev1.ResourceRequirements, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if resourcesRemoved(n.Requests, o.Requests) {
		errs = append(errs, field.Forbidden(fld.Child("requests"), "resource requests cannot be removed"))
	}
	if resourcesRemoved(n.Limits, o.Limits) {
		errs = append(errs, field.Forbidden(fld.Child("limits"), "resource limits cannot be removed"))
	}
	return errs
}

// resourcesRemoved reports whether list lacks a resource that old has.
func resourcesRemoved(list, old corev1.ResourceList) bool {
	if len(old) > len(list) {
		return true
	}
	for name := range old {
		if _, ok := list[name]; !ok {
			return true
		}
	}
	return false
}

// keepOldCPUMemory is upstream's dropCPUMemoryResourcesFromContainer: c's
// requests and limits with the cpu and memory of old's.
func keepOldCPUMemory(c, old *corev1.Container) {
	c.Resources = corev1.ResourceRequirements{
		Limits:   withOldCPUMemory(c.Resources.Limits, old.Resources.Limits),
		Requests: withOldCPUMemory(c.Resources.Requests, old.Resources.Requests),
		Claims:   c.Resources.Claims,
	}
}

// withOldCPUMemory is upstream's dropCPUMemoryUpdates: a copy of list
// with the cpu and memory of old (none where old has none).
func withOldCPUMemory(list, old corev1.ResourceList) corev1.ResourceList {
	if list == nil && old == nil {
		return nil
	}
	out := corev1.ResourceList{}
	for name, q := range list {
		if name != corev1.ResourceCPU && name != corev1.ResourceMemory {
			out[name] = q.DeepCopy()
		}
	}
	for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		if q, ok := old[name]; ok {
			out[name] = q
		}
	}
	return out
}

// validateResizePolicy is upstream's: each resource (cpu or memory) at
// most once, with a supported restart policy, NotRequired alone when the
// pod never restarts its containers.
func validateResizePolicy(policies []corev1.ContainerResizePolicy, restart corev1.RestartPolicy, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[corev1.ResourceName]bool{}
	for i, p := range policies {
		if seen[p.ResourceName] {
			errs = append(errs, field.Duplicate(fld.Index(i), p.ResourceName))
		}
		seen[p.ResourceName] = true
		switch p.ResourceName {
		case corev1.ResourceCPU, corev1.ResourceMemory:
		case "":
			errs = append(errs, field.Required(fld, ""))
		default:
			errs = append(errs, field.NotSupported(fld, p.ResourceName, []string{"cpu", "memory"}))
		}
		switch p.RestartPolicy {
		case corev1.NotRequired, corev1.RestartContainer:
		case "":
			errs = append(errs, field.Required(fld, ""))
		default:
			errs = append(errs, field.NotSupported(fld, p.RestartPolicy, []string{"NotRequired", "RestartContainer"}))
		}
		if restart == corev1.RestartPolicyNever && p.RestartPolicy != corev1.NotRequired {
			errs = append(errs, field.Invalid(fld, p.RestartPolicy, "must be 'NotRequired' when pod `restartPolicy` is 'Never'"))
		}
	}
	return errs
}
