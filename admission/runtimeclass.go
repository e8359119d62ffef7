package admission

import (
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/api/equality"
)

// RuntimeClassNotFound is kube-apiserver's RuntimeClass plugin's refusal
// of a new pod whose spec.runtimeClassName names no RuntimeClass.
func RuntimeClassNotFound(name string) error {
	return fmt.Errorf("pod rejected: RuntimeClass %q not found", name)
}

// AdmitRuntimeClass is the mutating half of kube-apiserver's RuntimeClass
// plugin on a new pod whose RuntimeClass is rc (nil when the pod names
// none): the class's overhead.podFixed becomes spec.overhead (a pod that
// already sets a different one is refused), its scheduling.nodeSelector
// is merged into the pod's (a key with another value is refused) and its
// tolerations are merged with the pod's.
func AdmitRuntimeClass(pod *corev1.Pod, rc *nodev1.RuntimeClass) error {
	if rc == nil {
		return nil
	}
	if rc.Overhead != nil {
		fixed := rc.Overhead.PodFixed.DeepCopy()
		if len(pod.Spec.Overhead) > 0 && !equality.Semantic.DeepEqual(fixed, pod.Spec.Overhead) {
			return fmt.Errorf("pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead")
		}
		pod.Spec.Overhead = fixed
	}
	if rc.Scheduling == nil {
		return nil
	}
	selector := pod.Spec.NodeSelector
	if selector == nil {
		selector = copyStrings(rc.Scheduling.NodeSelector)
	} else {
		keys := make([]string, 0, len(rc.Scheduling.NodeSelector))
		for k := range rc.Scheduling.NodeSelector {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			want := rc.Scheduling.NodeSelector[k]
			if have, ok := selector[k]; ok && have != want {
				return fmt.Errorf("conflict: runtimeClass.scheduling.nodeSelector[%s] = %s; pod.spec.nodeSelector[%s] = %s", k, want, k, have)
			}
			selector[k] = want
		}
	}
	pod.Spec.NodeSelector = selector
	pod.Spec.Tolerations = MergeTolerations(pod.Spec.Tolerations, rc.Scheduling.Tolerations)
	return nil
}

// ValidateRuntimeClass is the validating half of kube-apiserver's
// RuntimeClass plugin on a new pod whose RuntimeClass is rc (nil when the
// pod names none): spec.overhead must be the class's overhead.podFixed,
// and a pod without a class that defines an overhead may set none.
func ValidateRuntimeClass(pod *corev1.Pod, rc *nodev1.RuntimeClass) error {
	if rc != nil && rc.Overhead != nil {
		if !equality.Semantic.DeepEqual(rc.Overhead.PodFixed, pod.Spec.Overhead) {
			return fmt.Errorf("pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead")
		}
		return nil
	}
	if pod.Spec.Overhead != nil {
		return fmt.Errorf("pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead")
	}
	return nil
}

// MergeTolerations is first and second in one list, in order, without
// the tolerations another one in the list tolerates a superset of (of
// two equal ones, the first is kept), as kube-apiserver merges a pod's
// tolerations with those its RuntimeClass or namespace adds.
func MergeTolerations(first, second []corev1.Toleration) []corev1.Toleration {
	all := make([]corev1.Toleration, 0, len(first)+len(second))
	all = append(append(all, first...), second...)
	var merged []corev1.Toleration
next:
	for i := range all {
		t := all[i]
		for _, m := range merged {
			if toleratesSuperset(m, t) {
				continue next
			}
		}
		for _, later := range all[i+1:] {
			if !equality.Semantic.DeepEqual(&t, &later) && toleratesSuperset(later, t) {
				continue next
			}
		}
		merged = append(merged, t)
	}
	return merged
}

// toleratesSuperset reports whether ss tolerates every taint t does.
func toleratesSuperset(ss, t corev1.Toleration) bool {
	if equality.Semantic.DeepEqual(&t, &ss) {
		return true
	}
	// An empty key with Exists matches every key.
	if t.Key != ss.Key && (ss.Key != "" || ss.Operator != corev1.TolerationOpExists) {
		return false
	}
	// An empty effect matches every effect.
	if t.Effect != ss.Effect && ss.Effect != "" {
		return false
	}
	if ss.Effect == corev1.TaintEffectNoExecute && ss.TolerationSeconds != nil {
		if t.TolerationSeconds == nil || *t.TolerationSeconds > *ss.TolerationSeconds {
			return false
		}
	}
	switch ss.Operator {
	case corev1.TolerationOpEqual, "":
		return t.Operator == corev1.TolerationOpEqual && t.Value == ss.Value
	case corev1.TolerationOpExists:
		return true
	}
	return false
}

// copyStrings is a copy of m (nil for nil).
func copyStrings(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
