package admission

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/selection"
)

// QuotaScopesMatch reports whether obj, an object of resource gr, is in
// the scope of quota q, as upstream's quota evaluators decide: a quota
// without scopes covers everything; one with scopes (spec.scopes and
// spec.scopeSelector together) only pods that match each of them
// (Terminating, NotTerminating, BestEffort, NotBestEffort, PriorityClass,
// CrossNamespacePodAffinity) and claims that match VolumeAttributesClass.
func QuotaScopesMatch(q *corev1.ResourceQuota, gr schema.GroupResource, obj runtime.Object) (bool, error) {
	for _, req := range quotaScopeSelectors(q) {
		ok, err := scopeMatches(req, gr, obj)
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

// quotaScopeSelectors are a quota's scopes as selector requirements:
// spec.scopes as Exists, then spec.scopeSelector's.
func quotaScopeSelectors(q *corev1.ResourceQuota) []corev1.ScopedResourceSelectorRequirement {
	var out []corev1.ScopedResourceSelectorRequirement
	for _, s := range q.Spec.Scopes {
		out = append(out, corev1.ScopedResourceSelectorRequirement{ScopeName: s, Operator: corev1.ScopeSelectorOpExists})
	}
	if q.Spec.ScopeSelector != nil {
		out = append(out, q.Spec.ScopeSelector.MatchExpressions...)
	}
	return out
}

// scopeMatches is one scope requirement on one object.
func scopeMatches(req corev1.ScopedResourceSelectorRequirement, gr schema.GroupResource, obj runtime.Object) (bool, error) {
	if gr.Group != "" {
		return false, nil
	}
	switch o := obj.(type) {
	case *corev1.Pod:
		terminating := o.Spec.ActiveDeadlineSeconds != nil && *o.Spec.ActiveDeadlineSeconds >= 0
		switch req.ScopeName {
		case corev1.ResourceQuotaScopeTerminating:
			return terminating, nil
		case corev1.ResourceQuotaScopeNotTerminating:
			return !terminating, nil
		case corev1.ResourceQuotaScopeBestEffort:
			return o.Status.QOSClass == corev1.PodQOSBestEffort, nil
		case corev1.ResourceQuotaScopeNotBestEffort:
			return o.Status.QOSClass != corev1.PodQOSBestEffort, nil
		case corev1.ResourceQuotaScopePriorityClass:
			if req.Operator == corev1.ScopeSelectorOpExists {
				return o.Spec.PriorityClassName != "", nil
			}
			set := labels.Set{}
			if o.Spec.PriorityClassName != "" {
				set[string(req.ScopeName)] = o.Spec.PriorityClassName
			}
			return scopeSelectorMatches(req, set)
		case corev1.ResourceQuotaScopeCrossNamespacePodAffinity:
			return usesCrossNamespaceAffinity(o), nil
		}
	case *corev1.PersistentVolumeClaim:
		if req.ScopeName != corev1.ResourceQuotaScopeVolumeAttributesClass {
			return false, nil
		}
		names := ClaimAttributesClasses(o)
		if req.Operator == corev1.ScopeSelectorOpExists {
			return len(names) > 0, nil
		}
		if len(names) == 0 {
			return scopeSelectorMatches(req, labels.Set{})
		}
		for _, n := range names {
			if ok, err := scopeSelectorMatches(req, labels.Set{string(req.ScopeName): n}); err != nil || ok {
				return ok, err
			}
		}
	}
	return false, nil
}

// scopeSelectorMatches evaluates a scope requirement as the label
// selector upstream makes of it.
func scopeSelectorMatches(req corev1.ScopedResourceSelectorRequirement, set labels.Set) (bool, error) {
	var op selection.Operator
	switch req.Operator {
	case corev1.ScopeSelectorOpIn:
		op = selection.In
	case corev1.ScopeSelectorOpNotIn:
		op = selection.NotIn
	case corev1.ScopeSelectorOpExists:
		op = selection.Exists
	case corev1.ScopeSelectorOpDoesNotExist:
		op = selection.DoesNotExist
	default:
		return false, fmt.Errorf("failed to parse and convert selector: %q is not a valid scope selector operator", req.Operator)
	}
	r, err := labels.NewRequirement(string(req.ScopeName), op, req.Values)
	if err != nil {
		return false, fmt.Errorf("failed to parse and convert selector: %w", err)
	}
	return labels.NewSelector().Add(*r).Matches(set), nil
}

// usesCrossNamespaceAffinity reports whether a pod's pod affinity (or
// anti-affinity) has a term that names namespaces or a namespace selector.
func usesCrossNamespaceAffinity(pod *corev1.Pod) bool {
	a := pod.Spec.Affinity
	if a == nil {
		return false
	}
	var terms []corev1.PodAffinityTerm
	if a.PodAffinity != nil {
		terms = append(terms, a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution...)
		for _, w := range a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
			terms = append(terms, w.PodAffinityTerm)
		}
	}
	if a.PodAntiAffinity != nil {
		terms = append(terms, a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution...)
		for _, w := range a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
			terms = append(terms, w.PodAffinityTerm)
		}
	}
	for _, t := range terms {
		if len(t.Namespaces) != 0 || t.NamespaceSelector != nil {
			return true
		}
	}
	return false
}

// ClaimAttributesClasses are the VolumeAttributesClasses a claim names in
// its spec and status (upstream's getReferencedVolumeAttributesClassNames):
// what its quota scope matches and what keeps a class from deletion.
func ClaimAttributesClasses(pvc *corev1.PersistentVolumeClaim) []string {
	var out []string
	add := func(n string) {
		for _, x := range out {
			if x == n {
				return
			}
		}
		if n != "" {
			out = append(out, n)
		}
	}
	if n := pvc.Spec.VolumeAttributesClassName; n != nil {
		add(*n)
	}
	if n := pvc.Status.CurrentVolumeAttributesClassName; n != nil {
		add(*n)
	}
	if m := pvc.Status.ModifyVolumeStatus; m != nil {
		add(m.TargetVolumeAttributesClassName)
	}
	return out
}
