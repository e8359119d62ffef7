package scheduler

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/sets"
	corelisters "k8s.io/client-go/listers/core/v1"
)

// affinityTerm is a pod (anti-)affinity term made ready to match pods: its
// label selector, and the namespaces it covers (the listed ones, plus those
// its namespace selector picks, or the owner's namespace when neither is
// given).
type affinityTerm struct {
	topologyKey string
	selector    labels.Selector
	namespaces  sets.Set[string]
	nsSelector  labels.Selector // nil: none
	weight      int64
}

// topologyPair is one topology domain: a node label key and its value.
type topologyPair struct{ key, value string }

// newAffinityTerm prepares term of a pod in namespace ns.
func newAffinityTerm(ns string, term *corev1.PodAffinityTerm, weight int32) *affinityTerm {
	t := &affinityTerm{topologyKey: term.TopologyKey, weight: int64(weight), namespaces: sets.New(term.Namespaces...)}
	if term.LabelSelector == nil {
		t.selector = labels.Nothing()
	} else if sel, err := metav1.LabelSelectorAsSelector(term.LabelSelector); err == nil {
		t.selector = sel
	} else {
		t.selector = labels.Nothing()
	}
	if term.NamespaceSelector != nil {
		if sel, err := metav1.LabelSelectorAsSelector(term.NamespaceSelector); err == nil {
			t.nsSelector = sel
		}
	} else if len(term.Namespaces) == 0 {
		t.namespaces.Insert(ns)
	}
	return t
}

// matches reports whether the term selects pod; nsLister gives the labels
// of the pod's namespace for a namespace selector.
func (t *affinityTerm) matches(pod *corev1.Pod, nsLister corelisters.NamespaceLister) bool {
	if !t.namespaces.Has(pod.Namespace) {
		if t.nsSelector == nil {
			return false
		}
		if !t.nsSelector.Empty() {
			if nsLister == nil {
				return false
			}
			ns, err := nsLister.Get(pod.Namespace)
			if err != nil || !t.nsSelector.Matches(labels.Set(ns.Labels)) {
				return false
			}
		}
	}
	return t.selector.Matches(labels.Set(pod.Labels))
}

// podTerms are a pod's prepared affinity terms.
type podTerms struct {
	requiredAffinity, requiredAnti   []*affinityTerm
	preferredAffinity, preferredAnti []*affinityTerm
}

// termsOf prepares a pod's affinity terms.
func termsOf(pod *corev1.Pod) podTerms {
	var pt podTerms
	a := pod.Spec.Affinity
	if a == nil {
		return pt
	}
	if pa := a.PodAffinity; pa != nil {
		for i := range pa.RequiredDuringSchedulingIgnoredDuringExecution {
			pt.requiredAffinity = append(pt.requiredAffinity, newAffinityTerm(pod.Namespace, &pa.RequiredDuringSchedulingIgnoredDuringExecution[i], 0))
		}
		for i := range pa.PreferredDuringSchedulingIgnoredDuringExecution {
			w := &pa.PreferredDuringSchedulingIgnoredDuringExecution[i]
			pt.preferredAffinity = append(pt.preferredAffinity, newAffinityTerm(pod.Namespace, &w.PodAffinityTerm, w.Weight))
		}
	}
	if pa := a.PodAntiAffinity; pa != nil {
		for i := range pa.RequiredDuringSchedulingIgnoredDuringExecution {
			pt.requiredAnti = append(pt.requiredAnti, newAffinityTerm(pod.Namespace, &pa.RequiredDuringSchedulingIgnoredDuringExecution[i], 0))
		}
		for i := range pa.PreferredDuringSchedulingIgnoredDuringExecution {
			w := &pa.PreferredDuringSchedulingIgnoredDuringExecution[i]
			pt.preferredAnti = append(pt.preferredAnti, newAffinityTerm(pod.Namespace, &w.PodAffinityTerm, w.Weight))
		}
	}
	return pt
}

// hasAffinity reports whether a pod has any pod (anti-)affinity.
func hasAffinity(pod *corev1.Pod) bool {
	a := pod.Spec.Affinity
	return a != nil && (a.PodAffinity != nil || a.PodAntiAffinity != nil)
}

// matchesByNamespaceName reports whether the term selects pod when the
// pod's namespace is known by name only, as kube-scheduler's queueing hints
// match terms: a namespace selector then matches as it would a namespace
// without labels (an empty selector, every namespace).
func (t *affinityTerm) matchesByNamespaceName(pod *corev1.Pod) bool {
	if !t.namespaces.Has(pod.Namespace) && (t.nsSelector == nil || !t.nsSelector.Matches(labels.Set(nil))) {
		return false
	}
	return t.selector.Matches(labels.Set(pod.Labels))
}

// allMatchByName reports whether pod matches every term (false without
// terms).
func allMatchByName(terms []*affinityTerm, pod *corev1.Pod) bool {
	for _, t := range terms {
		if !t.matchesByNamespaceName(pod) {
			return false
		}
	}
	return len(terms) > 0
}

// anyMatchByName reports whether pod matches one of the terms.
func anyMatchByName(terms []*affinityTerm, pod *corev1.Pod) bool {
	for _, t := range terms {
		if t.matchesByNamespaceName(pod) {
			return true
		}
	}
	return false
}
