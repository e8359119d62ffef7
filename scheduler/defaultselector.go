package scheduler

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// defaultSelector is kube-scheduler's DefaultSelector: the labels of the
// Services selecting the pod, merged, plus the selector of the
// ReplicationController, ReplicaSet or StatefulSet controlling it. Default
// topology spread constraints count the pods it selects; an empty one
// means no default constraints.
func (h *handle) defaultSelector(pod *corev1.Pod) labels.Selector {
	set := labels.Set{}
	if h.services != nil {
		svcs, _ := h.services.Services(pod.Namespace).List(labels.Everything())
		for _, svc := range svcs {
			if len(svc.Spec.Selector) == 0 {
				continue
			}
			if labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(pod.Labels)) {
				set = labels.Merge(set, svc.Spec.Selector)
			}
		}
	}
	selector := set.AsSelector()
	owner := metav1.GetControllerOfNoCopy(pod)
	if owner == nil {
		return selector
	}
	gv, err := schema.ParseGroupVersion(owner.APIVersion)
	if err != nil {
		return selector
	}
	addFrom := func(ls *metav1.LabelSelector) {
		if other, err := metav1.LabelSelectorAsSelector(ls); err == nil {
			if reqs, ok := other.Requirements(); ok {
				selector = selector.Add(reqs...)
			}
		}
	}
	switch gv.WithKind(owner.Kind) {
	case corev1.SchemeGroupVersion.WithKind("ReplicationController"):
		if h.rcs != nil {
			if rc, err := h.rcs.ReplicationControllers(pod.Namespace).Get(owner.Name); err == nil {
				selector = labels.Merge(set, rc.Spec.Selector).AsSelector()
			}
		}
	case schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "ReplicaSet"}:
		if h.replicaSets != nil {
			if rs, err := h.replicaSets.ReplicaSets(pod.Namespace).Get(owner.Name); err == nil {
				addFrom(rs.Spec.Selector)
			}
		}
	case schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "StatefulSet"}:
		if h.statefulSets != nil {
			if ss, err := h.statefulSets.StatefulSets(pod.Namespace).Get(owner.Name); err == nil {
				addFrom(ss.Spec.Selector)
			}
		}
	}
	return selector
}
