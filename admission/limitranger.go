package admission

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	resourcehelper "k8s.io/component-helpers/resource"
)

// LimitRangerAnnotation is the annotation the LimitRanger plugin records
// the defaults it set in.
const LimitRangerAnnotation = "kubernetes.io/limit-ranger"

// DefaultPodResources is the mutating half of kube-apiserver's LimitRanger
// plugin on a new pod: each container's missing limits and requests come
// from the Container limits' default and defaultRequest of the
// namespace's LimitRanges, and the pod is annotated with what was set.
func DefaultPodResources(pod *corev1.Pod, ranges []corev1.LimitRange) {
	for i := range ranges {
		limits, requests := corev1.ResourceList{}, corev1.ResourceList{}
		for _, l := range ranges[i].Spec.Limits {
			if l.Type != corev1.LimitTypeContainer {
				continue
			}
			for k, v := range l.DefaultRequest {
				requests[k] = v.DeepCopy()
			}
			for k, v := range l.Default {
				limits[k] = v.DeepCopy()
			}
		}
		var notes []string
		for j := range pod.Spec.Containers {
			notes = defaultContainerResources(&pod.Spec.Containers[j], limits, requests, "container", notes)
		}
		for j := range pod.Spec.InitContainers {
			notes = defaultContainerResources(&pod.Spec.InitContainers[j], limits, requests, "init container", notes)
		}
		if len(notes) > 0 {
			if pod.Annotations == nil {
				pod.Annotations = map[string]string{}
			}
			pod.Annotations[LimitRangerAnnotation] = "LimitRanger plugin set: " + strings.Join(notes, "; ")
		}
	}
}

// defaultContainerResources sets a container's missing limits and
// requests and adds what it set to notes.
func defaultContainerResources(c *corev1.Container, limits, requests corev1.ResourceList, what string, notes []string) []string {
	var setLimits, setRequests []string
	if c.Resources.Limits == nil {
		c.Resources.Limits = corev1.ResourceList{}
	}
	if c.Resources.Requests == nil {
		c.Resources.Requests = corev1.ResourceList{}
	}
	for k, v := range limits {
		if _, ok := c.Resources.Limits[k]; !ok {
			c.Resources.Limits[k] = v.DeepCopy()
			setLimits = append(setLimits, string(k))
		}
	}
	for k, v := range requests {
		if _, ok := c.Resources.Requests[k]; !ok {
			c.Resources.Requests[k] = v.DeepCopy()
			setRequests = append(setRequests, string(k))
		}
	}
	if len(setRequests) > 0 {
		sort.Strings(setRequests)
		notes = append(notes, strings.Join(setRequests, ", ")+fmt.Sprintf(" request for %s %s", what, c.Name))
	}
	if len(setLimits) > 0 {
		sort.Strings(setLimits)
		notes = append(notes, strings.Join(setLimits, ", ")+fmt.Sprintf(" limit for %s %s", what, c.Name))
	}
	if len(c.Resources.Limits) == 0 {
		c.Resources.Limits = nil
	}
	if len(c.Resources.Requests) == 0 {
		c.Resources.Requests = nil
	}
	return notes
}

// ValidatePodResources is the validating half of the LimitRanger plugin on
// a new pod: the min, max and maxLimitRequestRatio of the Container and
// Pod limits of each LimitRange. The error is what follows `pods "x" is
// forbidden: ` in upstream's answer.
func ValidatePodResources(pod *corev1.Pod, ranges []corev1.LimitRange) error {
	for i := range ranges {
		var errs []error
		for _, l := range ranges[i].Spec.Limits {
			switch l.Type {
			case corev1.LimitTypeContainer:
				for _, list := range [][]corev1.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
					for j := range list {
						errs = append(errs, checkLimits(string(l.Type), l, list[j].Resources.Requests, list[j].Resources.Limits)...)
					}
				}
			case corev1.LimitTypePod:
				opts := resourcehelper.PodResourcesOptions{}
				errs = append(errs, checkLimits(string(l.Type), l, resourcehelper.PodRequests(pod, opts), resourcehelper.PodLimits(pod, opts))...)
			}
		}
		if len(errs) > 0 {
			return utilerrors.NewAggregate(errs)
		}
	}
	return nil
}

// ValidateClaimResources is the LimitRanger plugin on a new
// PersistentVolumeClaim: the min and max storage request of the
// PersistentVolumeClaim limits.
func ValidateClaimResources(pvc *corev1.PersistentVolumeClaim, ranges []corev1.LimitRange) error {
	for i := range ranges {
		var errs []error
		for _, l := range ranges[i].Spec.Limits {
			if l.Type != corev1.LimitTypePersistentVolumeClaim {
				continue
			}
			for _, k := range sortedNames(l.Min) {
				if err := minConstraint(string(l.Type), string(k), l.Min[k], pvc.Spec.Resources.Requests, corev1.ResourceList{}); err != nil {
					errs = append(errs, err)
				}
			}
			for _, k := range sortedNames(l.Max) {
				if err := maxRequestConstraint(string(l.Type), string(k), l.Max[k], pvc.Spec.Resources.Requests); err != nil {
					errs = append(errs, err)
				}
			}
		}
		if len(errs) > 0 {
			return utilerrors.NewAggregate(errs)
		}
	}
	return nil
}

// checkLimits checks requests and limits against one limit item.
func checkLimits(typ string, l corev1.LimitRangeItem, requests, limits corev1.ResourceList) []error {
	var errs []error
	for _, k := range sortedNames(l.Min) {
		if err := minConstraint(typ, string(k), l.Min[k], requests, limits); err != nil {
			errs = append(errs, err)
		}
	}
	for _, k := range sortedNames(l.Max) {
		if err := maxConstraint(typ, string(k), l.Max[k], requests, limits); err != nil {
			errs = append(errs, err)
		}
	}
	for _, k := range sortedNames(l.MaxLimitRequestRatio) {
		if err := ratioConstraint(typ, string(k), l.MaxLimitRequestRatio[k], requests, limits); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// sortedNames are a resource list's names in order (upstream ranges over
// the map; a fixed order keeps answers stable).
func sortedNames(l corev1.ResourceList) []corev1.ResourceName {
	out := make([]corev1.ResourceName, 0, len(l))
	for k := range l {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// atCommonPrecision returns request, limit and enforced values at a common
// precision: milli-units unless that would overflow.
func atCommonPrecision(req, lim, enforced resource.Quantity) (int64, int64, int64) {
	r, l, e := req.Value(), lim.Value(), enforced.Value()
	if r <= resource.MaxMilliValue && l <= resource.MaxMilliValue && e <= resource.MaxMilliValue {
		return req.MilliValue(), lim.MilliValue(), enforced.MilliValue()
	}
	return r, l, e
}

func minConstraint(typ, name string, enforced resource.Quantity, requests, limits corev1.ResourceList) error {
	req, hasReq := requests[corev1.ResourceName(name)]
	lim, hasLim := limits[corev1.ResourceName(name)]
	r, l, e := atCommonPrecision(req, lim, enforced)
	switch {
	case !hasReq:
		return fmt.Errorf("minimum %s usage per %s is %s.  No request is specified", name, typ, enforced.String())
	case r < e:
		return fmt.Errorf("minimum %s usage per %s is %s, but request is %s", name, typ, enforced.String(), req.String())
	case hasLim && l < e:
		return fmt.Errorf("minimum %s usage per %s is %s, but limit is %s", name, typ, enforced.String(), lim.String())
	}
	return nil
}

func maxRequestConstraint(typ, name string, enforced resource.Quantity, requests corev1.ResourceList) error {
	req, hasReq := requests[corev1.ResourceName(name)]
	r, _, e := atCommonPrecision(req, resource.Quantity{}, enforced)
	switch {
	case !hasReq:
		return fmt.Errorf("maximum %s usage per %s is %s.  No request is specified", name, typ, enforced.String())
	case r > e:
		return fmt.Errorf("maximum %s usage per %s is %s, but request is %s", name, typ, enforced.String(), req.String())
	}
	return nil
}

func maxConstraint(typ, name string, enforced resource.Quantity, requests, limits corev1.ResourceList) error {
	req, hasReq := requests[corev1.ResourceName(name)]
	lim, hasLim := limits[corev1.ResourceName(name)]
	r, l, e := atCommonPrecision(req, lim, enforced)
	switch {
	case !hasLim:
		return fmt.Errorf("maximum %s usage per %s is %s.  No limit is specified", name, typ, enforced.String())
	case l > e:
		return fmt.Errorf("maximum %s usage per %s is %s, but limit is %s", name, typ, enforced.String(), lim.String())
	case hasReq && r > e:
		return fmt.Errorf("maximum %s usage per %s is %s, but request is %s", name, typ, enforced.String(), req.String())
	}
	return nil
}

func ratioConstraint(typ, name string, enforced resource.Quantity, requests, limits corev1.ResourceList) error {
	req, hasReq := requests[corev1.ResourceName(name)]
	lim, hasLim := limits[corev1.ResourceName(name)]
	r, l, _ := atCommonPrecision(req, lim, enforced)
	if !hasReq || r == 0 {
		return fmt.Errorf("%s max limit to request ratio per %s is %s, but no request is specified or request is 0", name, typ, enforced.String())
	}
	if !hasLim || l == 0 {
		return fmt.Errorf("%s max limit to request ratio per %s is %s, but no limit is specified or limit is 0", name, typ, enforced.String())
	}
	observed := float64(l) / float64(r)
	shown := observed
	limit := float64(enforced.Value())
	if enforced.Value() <= resource.MaxMilliValue {
		observed *= 1000
		limit = float64(enforced.MilliValue())
	}
	if observed > limit {
		return fmt.Errorf("%s max limit to request ratio per %s is %s, but provided ratio is %f", name, typ, enforced.String(), shown)
	}
	return nil
}
