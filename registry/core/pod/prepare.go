package pod

import (
	"context"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/warning"
	resourcehelper "k8s.io/component-helpers/resource"

	"github.com/fakeplane/fakeplane/internal/qos"
)

// PrepareForCreate gives a new pod upstream's initial status: Pending, with
// its QoS class (see podQOS), and, when it has scheduling gates, the
// condition PodScheduled False SchedulingGated. The server calls it after
// admission, which may have changed the pod's resources. It first clears
// the fields of default-off gates (DropDisabledSpecFields), then copies
// the deprecated AppArmor annotations into the containers' fields, with
// their warnings, recorded on ctx (see applyAppArmorVersionSkew).
func (podStrategy) PrepareForCreate(ctx context.Context, obj runtime.Object) {
	p := obj.(*corev1.Pod)
	DropDisabledSpecFields(&p.Spec, nil)
	for _, w := range applyAppArmorVersionSkew(p) {
		warning.AddWarning(ctx, "", w)
	}
	// DefaultPodLevelResources (PodLevelResourcesFixDefaulting is on in
	// v1.37): the defaulted pod-level resources are stored.
	if res := defaultPodLevelResources(p.Spec.Resources, defaultedContainers(p)); res != nil {
		p.Spec.Resources = res
	}
	p.Status = corev1.PodStatus{Phase: corev1.PodPending, QOSClass: podQOS(p)}
	if len(p.Spec.SchedulingGates) > 0 {
		p.Status.Conditions = []corev1.PodCondition{{
			Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonSchedulingGated,
			Message: schedulingGatedMessage, LastTransitionTime: metav1.Now(),
		}}
	}
}

// applyAppArmorVersionSkew is upstream's pod strategy's
// applyAppArmorVersionSkew, outside Windows pods: a container with the
// deprecated AppArmor annotation and no appArmorProfile of its own gets
// the annotation's profile, unless that profile is invalid or is the
// pod's. It returns the warnings upstream records then, before validation
// (so that they come with a 422 too): one for each such container, unless
// the annotation gives the pod's valid profile.
func applyAppArmorVersionSkew(pod *corev1.Pod) []string {
	if pod.Spec.OS != nil && pod.Spec.OS.Name == corev1.Windows {
		return nil
	}
	var podProfile *corev1.AppArmorProfile
	if pod.Spec.SecurityContext != nil {
		podProfile = pod.Spec.SecurityContext.AppArmorProfile
	}
	var warnings []string
	apply := func(c *corev1.Container) {
		key := appArmorContainerAnnotationPrefix + c.Name
		v, ok := pod.Annotations[key]
		if !ok || c.SecurityContext != nil && c.SecurityContext.AppArmorProfile != nil {
			return
		}
		profile := appArmorProfileForAnnotation(v)
		if profile != nil && len(validateAppArmorProfileField(profile, nil)) > 0 {
			profile = nil
		}
		if profile != nil && apiequality.Semantic.DeepEqual(profile, podProfile) {
			return
		}
		if profile != nil {
			if c.SecurityContext == nil {
				c.SecurityContext = &corev1.SecurityContext{}
			}
			c.SecurityContext.AppArmorProfile = profile
		}
		warnings = append(warnings, appArmorAnnotationWarning(nil, key))
	}
	for i := range pod.Spec.InitContainers {
		apply(&pod.Spec.InitContainers[i])
	}
	for i := range pod.Spec.Containers {
		apply(&pod.Spec.Containers[i])
	}
	for i := range pod.Spec.EphemeralContainers {
		apply((*corev1.Container)(&pod.Spec.EphemeralContainers[i].EphemeralContainerCommon))
	}
	return warnings
}

// schedulingGatedMessage is the message of the condition a pod created
// with scheduling gates gets (upstream's pod strategy).
const schedulingGatedMessage = "Scheduling is blocked due to non-empty scheduling gates"

// PrepareForUpdate keeps the priority and preemption policy set at create
// when an update leaves them out, as upstream's Priority admission does,
// and clears the fields of default-off gates the stored pod does not use.
func (podStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	p, prev := obj.(*corev1.Pod), old.(*corev1.Pod)
	DropDisabledSpecFields(&p.Spec, &prev.Spec)
	keepPriority(p, prev)
	// Upstream keeps the pod-level resources an update leaves out
	// (PodLevelResourcesFixDefaulting).
	if p.Spec.Resources == nil && prev.Spec.Resources != nil {
		p.Spec.Resources = prev.Spec.Resources.DeepCopy()
	}
}

// PrepareForStatusUpdate keeps the priority as PrepareForUpdate does, and
// the owner references and deletion timestamp, which upstream's pod status
// strategy does not let a write to /status change, and clears the status
// fields of default-off gates the stored status does not use
// (DropDisabledStatusFields).
//
// As upstream's, it also keeps what an old or partial client leaves out:
// the QoS class, the claim statuses left nil, and the observed generations
// left zero (the status's, and each condition's, matched by type in order).
func (podStrategy) PrepareForStatusUpdate(_ context.Context, obj, old runtime.Object) {
	p, prev := obj.(*corev1.Pod), old.(*corev1.Pod)
	keepPriority(p, prev)
	p.OwnerReferences = prev.OwnerReferences
	// Upstream clears the deletion timestamp, and its store then puts the
	// stored one back: a write to /status cannot set one.
	p.DeletionTimestamp = prev.DeletionTimestamp
	keepOmittedStatus(&p.Status, &prev.Status)
	DropDisabledStatusFields(&p.Status, &prev.Status)
}

// keepOmittedStatus is upstream's pod status strategy's backfill of what a
// write to /status leaves out.
func keepOmittedStatus(st, prev *corev1.PodStatus) {
	if st.QOSClass == "" {
		st.QOSClass = prev.QOSClass
	}
	if st.ResourceClaimStatuses == nil {
		st.ResourceClaimStatuses = prev.ResourceClaimStatuses
	}
	if st.ExtendedResourceClaimStatus == nil {
		st.ExtendedResourceClaimStatus = prev.ExtendedResourceClaimStatus
	}
	if st.NodeAllocatableResourceClaimStatuses == nil {
		st.NodeAllocatableResourceClaimStatuses = prev.NodeAllocatableResourceClaimStatuses
	}
	if st.ObservedGeneration == 0 {
		st.ObservedGeneration = prev.ObservedGeneration
	}
	gens := map[corev1.PodConditionType][]int64{}
	for _, c := range prev.Conditions {
		gens[c.Type] = append(gens[c.Type], c.ObservedGeneration)
	}
	for i := range st.Conditions {
		c := &st.Conditions[i]
		var g int64
		if l := gens[c.Type]; len(l) > 0 {
			g, gens[c.Type] = l[0], l[1:]
		}
		if c.ObservedGeneration == 0 {
			c.ObservedGeneration = g
		}
	}
}

// keepPriority is upstream's Priority admission on update: what it set at
// create stays when the update leaves it out.
func keepPriority(p, prev *corev1.Pod) {
	if p.Spec.Priority == nil {
		p.Spec.Priority = prev.Spec.Priority
	}
	if p.Spec.PreemptionPolicy == nil {
		p.Spec.PreemptionPolicy = prev.Spec.PreemptionPolicy
	}
}

// podQOS computes the QoS class kube-apiserver v1.37's pod strategy gives a
// new pod (ComputePodQOS after DefaultPodLevelResources, PodLevelResources
// and PodLevelResourcesFixKubeletQOSClass on): from the pod-level resources
// when spec.resources sets cpu, memory or hugepages once defaulted, else
// from each container's resources. Requests are taken as defaulting leaves
// them: a container's missing request is its limit, and pod-level requests
// and limits are filled in from the containers' and the pod's limits.
func podQOS(pod *corev1.Pod) corev1.PodQOSClass {
	ctrs := defaultedContainers(pod)
	if res := defaultPodLevelResources(pod.Spec.Resources, ctrs); res != nil {
		if resourcehelper.IsPodLevelResourcesSet(&corev1.Pod{Spec: corev1.PodSpec{Resources: res}}) {
			return qos.Requirements(res)
		}
	}
	return qos.Containers(ctrs.Spec.InitContainers, ctrs.Spec.Containers)
}

// defaultedContainers is the pod's containers with their resources as
// SetDefaults_Pod leaves them: a container's missing request takes its
// limit.
func defaultedContainers(pod *corev1.Pod) *corev1.Pod {
	defaulted := func(list []corev1.Container) []corev1.Container {
		out := make([]corev1.Container, len(list))
		for i, c := range list {
			r := corev1.ResourceRequirements{Limits: c.Resources.Limits}
			if len(c.Resources.Requests)+len(c.Resources.Limits) > 0 {
				r.Requests = corev1.ResourceList{}
				for name, q := range c.Resources.Limits {
					r.Requests[name] = q
				}
				for name, q := range c.Resources.Requests {
					r.Requests[name] = q
				}
			}
			out[i] = corev1.Container{Name: c.Name, RestartPolicy: c.RestartPolicy, Resources: r}
		}
		return out
	}
	return &corev1.Pod{Spec: corev1.PodSpec{InitContainers: defaulted(pod.Spec.InitContainers), Containers: defaulted(pod.Spec.Containers)}}
}

// defaultPodLevelResources is upstream's DefaultPodLevelResources on a copy
// of r (nil when r sets nothing), with ctrs the defaulted containers.
func defaultPodLevelResources(r *corev1.ResourceRequirements, ctrs *corev1.Pod) *corev1.ResourceRequirements {
	if r == nil || len(r.Requests)+len(r.Limits) == 0 {
		return nil
	}
	res := r.DeepCopy()
	if res.Requests == nil {
		res.Requests = corev1.ResourceList{}
	}
	if res.Limits == nil {
		res.Limits = corev1.ResourceList{}
	}
	hugePages := func(name corev1.ResourceName) bool {
		return strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix)
	}
	ctrLimits := resourcehelper.AggregateContainerLimits(ctrs, resourcehelper.PodResourcesOptions{})
	for name, q := range ctrLimits {
		_, req := res.Requests[name]
		if _, lim := res.Limits[name]; hugePages(name) && !req && !lim {
			res.Limits[name] = q.DeepCopy()
		}
	}
	for name, q := range resourcehelper.AggregateContainerRequests(ctrs, resourcehelper.PodResourcesOptions{}) {
		// Only overcommittable resources (not hugepages) come from
		// the containers' requests.
		if _, ok := res.Requests[name]; !ok && resourcehelper.IsSupportedPodLevelResource(name) && !hugePages(name) {
			res.Requests[name] = q.DeepCopy()
		}
	}
	for name, q := range res.Limits {
		if _, ok := res.Requests[name]; !ok && resourcehelper.IsSupportedPodLevelResource(name) {
			res.Requests[name] = q.DeepCopy()
		}
	}
	// A missing pod-level limit is the containers' total limit (at
	// least the pod-level request) when every container has one.
	for name, req := range res.Requests {
		if _, ok := res.Limits[name]; ok || !resourcehelper.IsSupportedPodLevelResource(name) {
			continue
		}
		all := true
		for _, c := range append(append([]corev1.Container{}, ctrs.Spec.InitContainers...), ctrs.Spec.Containers...) {
			if _, ok := c.Resources.Limits[name]; !ok {
				all = false
			}
		}
		if lim, ok := ctrLimits[name]; all && ok {
			if req.Cmp(lim) > 0 {
				lim = req
			}
			res.Limits[name] = lim.DeepCopy()
		}
	}
	if len(res.Requests) == 0 {
		res.Requests = nil
	}
	if len(res.Limits) == 0 {
		res.Limits = nil
	}
	return res
}
