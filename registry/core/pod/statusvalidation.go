package pod

import (
	"fmt"
	"math"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The checks of a pod's container statuses and claim statuses that
// upstream's ValidatePodStatusUpdate makes with v1.37's default gates
// (ContainerRestartRules and RestartAllContainersOnContainerExits on, so the
// restart rules decide which terminated containers may run again;
// ResourceHealthStatus and ResourceHealthStatusMessage on, so the allocated
// resources' health is kept and checked). The status fields of gates off by
// default (volume health, node-allocatable claim statuses, image volume
// statuses) are dropped before validation (DropDisabledStatusFields) and so
// are never checked.

// terminatedNotRunning is the error of a terminated container that a status
// moves back to a non-terminated state.
func terminatedNotRunning(fld *field.Path) *field.Error {
	return field.Forbidden(fld.Child("state"), "may not be transitioned to non-terminated state")
}

// validateContainerStateTransition is upstream's
// ValidateContainerStateTransition (containers are the spec's regular
// containers) and ValidateInitContainerStateTransition (its init
// containers) with the restart rules on: unless a container of the pod has a
// RestartAllContainers rule, an old terminated status whose container the
// new status shows not terminated (its first such status) is an error,
// reported at the old status's index, when the container would not be
// restarted after that exit code or is not in the spec.
func validateContainerStateTransition(n, old []corev1.ContainerStatus, fld *field.Path, spec *corev1.PodSpec, containers []corev1.Container) field.ErrorList {
	var errs field.ErrorList
	if allContainersCouldRestart(spec) {
		return errs
	}
	for i, o := range old {
		if o.State.Terminated == nil {
			continue
		}
		for _, s := range n {
			if s.Name != o.Name || s.State.Terminated != nil {
				continue
			}
			allowed := false
			for _, c := range containers {
				if c.Name == o.Name {
					allowed = containerShouldRestart(&c, spec, o.State.Terminated.ExitCode)
					break
				}
			}
			if !allowed {
				errs = append(errs, terminatedNotRunning(fld.Index(i)))
			}
			break
		}
	}
	return errs
}

// validateEphemeralContainerStateTransition is upstream's
// ValidateEphemeralContainerStateTransition: an ephemeral container never
// leaves the terminated state, one error for each new status of its name
// that is not terminated.
func validateEphemeralContainerStateTransition(n, old []corev1.ContainerStatus, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, o := range old {
		if o.State.Terminated == nil {
			continue
		}
		for _, s := range n {
			if s.Name == o.Name && s.State.Terminated == nil {
				errs = append(errs, terminatedNotRunning(fld.Index(i)))
			}
		}
	}
	return errs
}

// allContainersCouldRestart is upstream's AllContainersCouldRestart: an
// init or regular container has a RestartAllContainers rule.
func allContainersCouldRestart(spec *corev1.PodSpec) bool {
	for _, list := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
		for _, c := range list {
			for _, r := range c.RestartPolicyRules {
				if r.Action == corev1.ContainerRestartRuleActionRestartAllContainers {
					return true
				}
			}
		}
	}
	return false
}

// containerShouldRestart is upstream's ContainerShouldRestart (with
// RestartAllContainersOnContainerExits on): the container's first restart
// rule matching the exit code, when it restarts, else its restart policy,
// else the pod's.
func containerShouldRestart(c *corev1.Container, spec *corev1.PodSpec, exitCode int32) bool {
	if c.RestartPolicy != nil {
		if rule, ok := matchingRestartRule(c, exitCode); ok {
			switch rule.Action {
			case corev1.ContainerRestartRuleActionRestart, corev1.ContainerRestartRuleActionRestartAllContainers:
				return true
			}
		}
		switch *c.RestartPolicy {
		case corev1.ContainerRestartPolicyAlways:
			return true
		case corev1.ContainerRestartPolicyOnFailure:
			return exitCode != 0
		case corev1.ContainerRestartPolicyNever:
			return false
		}
	}
	switch spec.RestartPolicy {
	case corev1.RestartPolicyOnFailure:
		return exitCode != 0
	case corev1.RestartPolicyNever:
		return false
	}
	return true
}

// matchingRestartRule is upstream's FindMatchingContainerRestartRule: the
// first rule whose exit codes (In or NotIn) match.
func matchingRestartRule(c *corev1.Container, exitCode int32) (corev1.ContainerRestartRule, bool) {
	for _, rule := range c.RestartPolicyRules {
		if rule.ExitCodes == nil {
			continue
		}
		matched := false
		for _, code := range rule.ExitCodes.Values {
			if code == exitCode {
				matched = true
			}
		}
		switch rule.ExitCodes.Operator {
		case corev1.ContainerRestartRuleOnExitCodesOpIn:
			if matched {
				return rule, true
			}
		case corev1.ContainerRestartRuleOnExitCodesOpNotIn:
			if !matched {
				return rule, true
			}
		}
	}
	return corev1.ContainerRestartRule{}, false
}

// validatePodResourceClaimStatuses is upstream's: each status names one of
// the spec's claims, once, and its claim name is a DNS subdomain.
func validatePodResourceClaimStatuses(statuses []corev1.PodResourceClaimStatus, claims []corev1.PodResourceClaim, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := sets.New[string]()
	for i, s := range statuses {
		idx := fld.Index(i)
		found := false
		for _, c := range claims {
			if c.Name == s.Name {
				found = true
				break
			}
		}
		if !found {
			errs = append(errs, field.Invalid(idx.Child("name"), s.Name, "must match the name of an entry in `spec.resourceClaims`"))
		}
		if names.Has(s.Name) {
			errs = append(errs, field.Duplicate(idx.Child("name"), s.Name))
		} else {
			names.Insert(s.Name)
		}
		if s.ResourceClaimName != nil {
			for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(*s.ResourceClaimName, false) {
				errs = append(errs, field.Invalid(idx.Child("resourceClaimName"), s.ResourceClaimName, msg))
			}
		}
	}
	return errs
}

// validatePodExtendedResourceClaimStatus is upstream's: at least one request
// mapping, each naming a container of the spec (init or regular) and one
// of the resources it requests, with a request name that is a DNS label
// (reported, as upstream does, at the status's requestName, not the
// mapping's), no mapping twice, and a claim name that is a DNS subdomain.
func validatePodExtendedResourceClaimStatus(st *corev1.PodExtendedResourceClaimStatus, spec *corev1.PodSpec, fld *field.Path) field.ErrorList {
	if st == nil {
		return nil
	}
	containers := map[string]*corev1.Container{}
	for i := range spec.InitContainers {
		containers[spec.InitContainers[i].Name] = &spec.InitContainers[i]
	}
	for i := range spec.Containers {
		containers[spec.Containers[i].Name] = &spec.Containers[i]
	}
	var errs field.ErrorList
	rm := fld.Child("requestMappings")
	if len(st.RequestMappings) == 0 {
		errs = append(errs, field.Required(rm, "at least one request mapping is required"))
	}
	type key struct{ container, resource, request string }
	seen := map[key]bool{}
	for i, m := range st.RequestMappings {
		idx := rm.Index(i)
		if c, ok := containers[m.ContainerName]; ok {
			if _, ok := c.Resources.Requests[corev1.ResourceName(m.ResourceName)]; !ok {
				errs = append(errs, field.Invalid(idx.Child("resourceName"), m.ResourceName, "must match the extended resource name of an entry in spec.initContainers.resources.requests or spec.containers.resources.requests"))
			}
		} else {
			errs = append(errs, field.Invalid(idx.Child("containerName"), m.ContainerName, "must match the name of an entry in spec.initContainers.name or spec.containers.name"))
		}
		for _, msg := range validation.IsDNS1123Label(m.RequestName) {
			errs = append(errs, field.Invalid(fld.Child("requestName"), m.RequestName, msg))
		}
		k := key{m.ContainerName, m.ResourceName, m.RequestName}
		if seen[k] {
			errs = append(errs,
				field.Duplicate(idx.Child("containerName"), m.ContainerName),
				field.Duplicate(idx.Child("resourceName"), m.ResourceName),
				field.Duplicate(idx.Child("requestName"), m.RequestName))
		}
		seen[k] = true
	}
	if st.ResourceClaimName == "" {
		errs = append(errs, field.Required(fld.Child("resourceClaimName"), ""))
	} else {
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(st.ResourceClaimName, false) {
			errs = append(errs, field.Invalid(fld.Child("resourceClaimName"), st.ResourceClaimName, msg))
		}
	}
	return errs
}

// validateContainerStatusUsers is upstream's: a Windows pod's statuses
// have no Linux user; another pod's Linux user has a uid of a uid_t (0 to
// 2^32-1) and group ids of 0 to 2^31-1.
func validateContainerStatusUsers(statuses []corev1.ContainerStatus, fld *field.Path, os *corev1.PodOS) field.ErrorList {
	var errs field.ErrorList
	osName := corev1.Linux
	if os != nil {
		osName = os.Name
	}
	for i, s := range statuses {
		if s.User == nil || s.User.Linux == nil {
			continue
		}
		uf := fld.Index(i).Child("user", "linux")
		switch osName {
		case corev1.Windows:
			errs = append(errs, field.Forbidden(uf, "cannot be set for a windows pod"))
		case corev1.Linux:
			u := s.User.Linux
			if u.UID < 0 || u.UID > math.MaxUint32 {
				errs = append(errs, field.Invalid(uf.Child("uid"), u.UID, fmt.Sprintf("must be between 0 and %d, inclusive", int64(math.MaxUint32))))
			}
			for _, msg := range validation.IsValidGroupID(u.GID) {
				errs = append(errs, field.Invalid(uf.Child("gid"), u.GID, msg))
			}
			for g, gid := range u.SupplementalGroups {
				for _, msg := range validation.IsValidGroupID(gid) {
					errs = append(errs, field.Invalid(uf.Child("supplementalGroups").Index(g), gid, msg))
				}
			}
		}
	}
	return errs
}

// validateContainerStatusNoAllocatedResourcesStatus is upstream's: an
// ephemeral container's status has no allocated resources.
func validateContainerStatusNoAllocatedResourcesStatus(statuses []corev1.ContainerStatus, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, s := range statuses {
		if len(s.AllocatedResourcesStatus) > 0 {
			errs = append(errs, field.Forbidden(fld.Index(i).Child("allocatedResourcesStatus"), "must not be specified in container status"))
		}
	}
	return errs
}

// resourceStatusClaimPrefix starts the name of an allocated resource that
// is a claim's ("claim:<claim>" or "claim:<claim>/<request>").
const resourceStatusClaimPrefix = "claim:"

// Messages of validateContainerStatusAllocatedResourcesStatus.
const (
	allocatedClaimMessage    = "must match one of the container's resource claims as 'claim:<claimName>/<requestName>' when container.resources.claims[*].request is set or 'claim:<claimName>' when it is empty"
	allocatedRequestMessage  = "must match one of the container's resource requests"
	allocatedMessageRequired = "must be non-empty if specified"
)

// validateContainerStatusAllocatedResourcesStatus is upstream's: for the
// status of a container of the spec (a status of no container is not
// checked there), an allocated resource's name is one of the container's
// requests, or "claim:" and one of its claims (or a request of the pod's
// extended resource claim mapped to a resource it requests); for every
// status, a resource's health is known, its message, when set, is not
// empty and at most 1024 bytes, and its ID is not repeated within the
// allocated resource.
func validateContainerStatusAllocatedResourcesStatus(statuses []corev1.ContainerStatus, fld *field.Path, containers []corev1.Container, podStatus *corev1.PodStatus) field.ErrorList {
	var errs field.ErrorList
	for i, s := range statuses {
		var container *corev1.Container
		for k := range containers {
			if containers[k].Name == s.Name {
				container = &containers[k]
				break
			}
		}
		for j, ar := range s.AllocatedResourcesStatus {
			af := fld.Index(i).Child("allocatedResourcesStatus").Index(j)
			if container != nil {
				found := false
				msg := allocatedRequestMessage
				if strings.HasPrefix(string(ar.Name), resourceStatusClaimPrefix) {
					msg = allocatedClaimMessage
					for _, c := range container.Resources.Claims {
						if resourceStatusName(c.Name, c.Request) == ar.Name {
							found = true
							break
						}
					}
					if !found {
						found = matchesExtendedResourceClaimStatus(ar.Name, container, podStatus.ExtendedResourceClaimStatus)
					}
				} else {
					_, found = container.Resources.Requests[ar.Name]
				}
				if !found {
					errs = append(errs, field.Invalid(af.Child("name"), ar.Name, msg))
				}
			}
			ids := sets.New[corev1.ResourceID]()
			for k, r := range ar.Resources {
				rf := af.Child("resources").Index(k)
				switch r.Health {
				case corev1.ResourceHealthStatusHealthy, corev1.ResourceHealthStatusUnhealthy, corev1.ResourceHealthStatusUnknown:
				default:
					supported := []corev1.ResourceHealthStatus{corev1.ResourceHealthStatusHealthy, corev1.ResourceHealthStatusUnhealthy, corev1.ResourceHealthStatusUnknown}
					errs = append(errs, field.NotSupported(rf.Child("health"), r.Health, supported))
				}
				if r.Message != nil {
					if len(*r.Message) == 0 {
						errs = append(errs, field.Required(rf.Child("message"), allocatedMessageRequired))
					} else if len(*r.Message) > corev1.ResourceHealthMessageMaxLength {
						errs = append(errs, field.TooLong(rf.Child("message"), *r.Message, corev1.ResourceHealthMessageMaxLength))
					}
				}
				if ids.Has(r.ResourceID) {
					errs = append(errs, field.Duplicate(rf.Child("resourceID"), r.ResourceID))
				} else {
					ids.Insert(r.ResourceID)
				}
			}
		}
	}
	return errs
}

// resourceStatusName is the name an allocated resource of a container's
// claim has: "claim:<claim>", or "claim:<claim>/<request>" when the
// container names a request of the claim.
func resourceStatusName(claim, request string) corev1.ResourceName {
	if request == "" {
		return corev1.ResourceName(resourceStatusClaimPrefix + claim)
	}
	return corev1.ResourceName(resourceStatusClaimPrefix + claim + "/" + request)
}

// matchesExtendedResourceClaimStatus is upstream's: name is
// "claim:<claim>/<request>" with the claim of the pod's extended resource
// claim status, which maps the container and request to a resource the
// container requests a non-zero quantity of.
func matchesExtendedResourceClaimStatus(name corev1.ResourceName, c *corev1.Container, st *corev1.PodExtendedResourceClaimStatus) bool {
	if st == nil {
		return false
	}
	ref, ok := strings.CutPrefix(string(name), resourceStatusClaimPrefix)
	if !ok {
		return false
	}
	claim, request, _ := strings.Cut(ref, "/")
	if claim == "" || request == "" || claim != st.ResourceClaimName {
		return false
	}
	for _, m := range st.RequestMappings {
		if m.ContainerName != c.Name || m.RequestName != request {
			continue
		}
		if q, ok := c.Resources.Requests[corev1.ResourceName(m.ResourceName)]; ok && !q.IsZero() {
			return true
		}
	}
	return false
}
