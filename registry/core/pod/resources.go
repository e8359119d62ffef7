package pod

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
	resourcehelper "k8s.io/component-helpers/resource"

	"github.com/fakeplane/fakeplane/internal/validate"
)

// A pod's resource claims and its containers' and its own resource
// requirements: upstream's validatePodResourceClaims,
// validateResourceRequirements and validatePodResources.

// podClaimNames is upstream's gatherPodResourceClaimNames: the non-empty
// names of the pod's resource claims.
func podClaimNames(claims []corev1.PodResourceClaim) sets.Set[string] {
	names := sets.New[string]()
	for _, c := range claims {
		if c.Name != "" {
			names.Insert(c.Name)
		}
	}
	return names
}

// validatePodResourceClaims is upstream's validatePodResourceClaims: each
// claim named by a unique DNS-1123 label, with exactly one of a claim or
// a template name (a static pod may have none).
func validatePodResourceClaims(claims []corev1.PodResourceClaim, meta *metav1.ObjectMeta, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := sets.New[string]()
	for i, c := range claims {
		idx := fld.Index(i)
		if meta != nil {
			if _, ok := meta.Annotations[corev1.MirrorPodAnnotationKey]; ok {
				errs = append(errs, field.Forbidden(field.NewPath(""), "static pods do not support resource claims"))
				continue
			}
		}
		switch {
		case c.Name == "":
			errs = append(errs, field.Required(idx.Child("name"), ""))
		case names.Has(c.Name):
			errs = append(errs, field.Duplicate(idx.Child("name"), c.Name))
		default:
			errs = append(errs, validate.DNS1123Label(c.Name, idx.Child("name"))...)
			names.Insert(c.Name)
		}
		if c.ResourceClaimName != nil && c.ResourceClaimTemplateName != nil {
			errs = append(errs, field.Invalid(idx, validate.InternalValue(c), "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified"))
		}
		if c.ResourceClaimName == nil && c.ResourceClaimTemplateName == nil {
			errs = append(errs, field.Invalid(idx, validate.InternalValue(c), "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`"))
		}
		for _, n := range []struct {
			v    *string
			name string
		}{{c.ResourceClaimName, "resourceClaimName"}, {c.ResourceClaimTemplateName, "resourceClaimTemplateName"}} {
			if n.v == nil {
				continue
			}
			errs = append(errs, subdomain(*n.v, idx.Child(n.name))...)
		}
	}
	return errs
}

// subdomain reports a name that is not a DNS-1123 subdomain.
func subdomain(v string, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range nameIsDNSSubdomain(v) {
		errs = append(errs, field.Invalid(fld, v, msg))
	}
	return errs
}

// validateResources is upstream's validateResourceRequirements (names
// taken in sorted order): each name valid by nameFn, each quantity valid,
// requests within limits, huge pages whole pages and with cpu or memory,
// and claims naming the pod's.
func validateResources(r *corev1.ResourceRequirements, nameFn func(string, *field.Path) field.ErrorList, claims sets.Set[string], fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	lim, req := fld.Child("limits"), fld.Child("requests")
	cpuOrMemory, hugePages := false, false
	for _, name := range validate.ResourceNames(r.Limits) {
		q := r.Limits[corev1.ResourceName(name)]
		p := lim.Key(name)
		errs = append(errs, nameFn(name, p)...)
		errs = append(errs, validate.Quantity(name, q, p)...)
		if strings.HasPrefix(name, corev1.ResourceHugePagesPrefix) {
			hugePages = true
			errs = append(errs, wholeHugePages(name, q, p)...)
		}
		cpuOrMemory = cpuOrMemory || name == "cpu" || name == "memory"
	}
	for _, name := range validate.ResourceNames(r.Requests) {
		q := r.Requests[corev1.ResourceName(name)]
		p := req.Key(name)
		errs = append(errs, nameFn(name, p)...)
		errs = append(errs, validate.Quantity(name, q, p)...)
		if l, ok := r.Limits[corev1.ResourceName(name)]; ok {
			if q.Cmp(l) != 0 && !validate.OvercommitAllowed(name) {
				errs = append(errs, field.Invalid(req, q.String(), fmt.Sprintf("must be equal to %s limit of %s", name, l.String())))
			} else if q.Cmp(l) > 0 {
				errs = append(errs, field.Invalid(req, q.String(), fmt.Sprintf("must be less than or equal to %s limit of %s", name, l.String())))
			}
		} else if !validate.OvercommitAllowed(name) {
			errs = append(errs, field.Required(lim, "Limit must be set for non overcommitable resources"))
		}
		if strings.HasPrefix(name, corev1.ResourceHugePagesPrefix) {
			hugePages = true
			errs = append(errs, wholeHugePages(name, q, p)...)
		}
		cpuOrMemory = cpuOrMemory || name == "cpu" || name == "memory"
	}
	if hugePages && !cpuOrMemory {
		errs = append(errs, field.Forbidden(fld, "HugePages require cpu or memory"))
	}
	return append(errs, validateResourceClaimNames(r.Claims, claims, fld.Child("claims"))...)
}

// wholeHugePages is upstream's validateResourceQuantityHugePageValue: a
// huge-page quantity is a whole number of pages of the size its name
// gives.
func wholeHugePages(name string, q resource.Quantity, fld *field.Path) field.ErrorList {
	size, err := resource.ParseQuantity(strings.TrimPrefix(name, corev1.ResourceHugePagesPrefix))
	if err == nil && size.Sign() > 0 && size.MilliValue()%1000 == 0 && q.Value()%size.Value() == 0 {
		return nil
	}
	return field.ErrorList{field.Invalid(fld, q.String(), fmt.Sprintf("%s is not positive integer multiple of %s", q.String(), name))}
}

// validateResourceClaimNames is upstream's validateResourceClaimNames: a
// container's claims name the pod's claims (or one of their requests),
// each once.
func validateResourceClaimNames(claims []corev1.ResourceClaim, podClaims sets.Set[string], fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := sets.New[string]()
	for i, c := range claims {
		idx := fld.Index(i)
		if c.Name == "" {
			errs = append(errs, field.Required(idx, ""))
			continue
		}
		if seen.Has(c.Name) {
			errs = append(errs, field.Duplicate(idx, c.Name))
		} else {
			key := c.Name
			if c.Request != "" {
				errs = append(errs, validate.DNS1123Label(c.Request, idx.Child("request"))...)
				key += "/" + c.Request
			}
			if seen.Has(key) {
				errs = append(errs, field.Duplicate(idx, key))
			} else if c.Request == "" {
				// A whole claim after one of its requests. (Upstream
				// walks its set in map order; there is one error per
				// request seen, all alike.)
				for k := range seen {
					if before, _, ok := strings.Cut(k, "/"); ok && before == c.Name {
						errs = append(errs, field.Duplicate(idx, c.Name))
					}
				}
			}
			seen.Insert(key)
		}
		if !podClaims.Has(c.Name) {
			e := field.NotFound(idx, c.Name)
			e.Detail = "must be one of the names in pod.spec.resourceClaims"
			if podClaims.Len() == 0 {
				e.Detail += " which is empty"
			} else {
				e.Detail += ": " + strings.Join(sets.List(podClaims), ", ")
			}
			errs = append(errs, e)
		}
	}
	return errs
}

// podResourceName is upstream's validatePodResourceName: a valid resource
// name that pod-level resources support (cpu, memory, huge pages).
func podResourceName(name string, fld *field.Path) field.ErrorList {
	if errs := validate.ResourceName(name, fld); len(errs) > 0 {
		return errs
	}
	if !resourcehelper.IsSupportedPodLevelResource(corev1.ResourceName(name)) {
		supported := sets.List(resourcehelper.SupportedPodLevelResources())
		return field.ErrorList{field.NotSupported(fld, corev1.ResourceName(name), supported)}
	}
	return nil
}

// validatePodResources is upstream's validatePodResources (PodLevelResources
// is on in v1.37): the pod's own requirements, and the containers'
// requests and limits within them.
func validatePodResources(s *corev1.PodSpec, claims sets.Set[string], fld *field.Path) field.ErrorList {
	if s.Resources == nil {
		return nil
	}
	rf := fld.Child("resources")
	if s.OS != nil && s.OS.Name == corev1.Windows {
		return field.ErrorList{field.Forbidden(rf, "may not be set for a windows pod")}
	}
	var errs field.ErrorList
	if s.Resources.Claims != nil {
		errs = append(errs, field.Forbidden(rf.Child("claims"), "claims may not be set for Resources at pod-level"))
	}
	errs = append(errs, validateResources(s.Resources, podResourceName, claims, rf)...)
	return append(errs, validatePodResourceConsistency(s, rf)...)
}

// validatePodResourceConsistency is upstream's
// validatePodResourceConsistency: pod-level requests cover the
// containers' aggregate requests, pod-level huge-page limits their
// aggregate limits, and each container's limits are within the pod's
// (resources in sorted order).
func validatePodResourceConsistency(s *corev1.PodSpec, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	pod := &corev1.Pod{Spec: *s}
	reqs := resourcehelper.AggregateContainerRequests(pod, resourcehelper.PodResourcesOptions{})
	for _, name := range validate.ResourceNames(reqs) {
		podReq, ok := s.Resources.Requests[corev1.ResourceName(name)]
		if !ok {
			continue
		}
		if c := reqs[corev1.ResourceName(name)]; c.Cmp(podReq) > 0 {
			errs = append(errs, field.Invalid(fld.Child("requests").Key(name), podReq.String(), fmt.Sprintf("must be greater than or equal to aggregate container requests of %s", c.String())))
		}
	}
	lims := resourcehelper.AggregateContainerLimits(pod, resourcehelper.PodResourcesOptions{})
	for _, name := range validate.ResourceNames(lims) {
		if !strings.HasPrefix(name, corev1.ResourceHugePagesPrefix) {
			continue
		}
		podLim, ok := s.Resources.Limits[corev1.ResourceName(name)]
		if !ok {
			continue
		}
		if c := lims[corev1.ResourceName(name)]; c.Cmp(podLim) > 0 {
			errs = append(errs, field.Invalid(fld.Child("limits").Key(name), podLim.String(), fmt.Sprintf("must be greater than or equal to aggregate container limits of %s", c.String())))
		}
	}
	for i, c := range s.Containers {
		for _, name := range validate.ResourceNames(c.Resources.Limits) {
			podLim, ok := s.Resources.Limits[corev1.ResourceName(name)]
			if !ok {
				continue
			}
			if l := c.Resources.Limits[corev1.ResourceName(name)]; l.Cmp(podLim) > 0 {
				errs = append(errs, field.Invalid(fld.Child("containers").Index(i).Key(name).Child("limits"), l.String(), fmt.Sprintf("must be less than or equal to pod limits of %s", podLim.String())))
			}
		}
	}
	return errs
}

// nameIsDNSSubdomain is upstream's ValidateResourceClaimName and
// ValidateResourceClaimTemplateName.
func nameIsDNSSubdomain(v string) []string {
	return apimachineryvalidation.NameIsDNSSubdomain(v, false)
}
