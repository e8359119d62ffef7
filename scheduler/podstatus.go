package scheduler

import (
	"context"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
)

// patchStatus sets a pod condition and, when nominate is not nil, the
// nominatedNodeName, with a strategic merge patch of pods/status as
// kube-scheduler does; nothing is sent when nothing changes.
func (s *Scheduler) patchStatus(ctx context.Context, pod *corev1.Pod, cond *corev1.PodCondition, nominate *string) error {
	newStatus := pod.Status.DeepCopy()
	changed := false
	if cond != nil && updateCondition(newStatus, cond) {
		changed = true
	}
	if nominate != nil && newStatus.NominatedNodeName != *nominate {
		newStatus.NominatedNodeName = *nominate
		changed = true
	}
	if !changed {
		return nil
	}
	oldData, err := json.Marshal(corev1.Pod{Status: pod.Status})
	if err != nil {
		return err
	}
	newData, err := json.Marshal(corev1.Pod{Status: *newStatus})
	if err != nil {
		return err
	}
	patch, err := strategicpatch.CreateTwoWayMergePatch(oldData, newData, &corev1.Pod{})
	if err != nil {
		return fmt.Errorf("patch of pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	_, err = s.client.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status")
	return err
}

// updateCondition sets cond in st as kube's UpdatePodCondition does: the
// transition time changes only with the status; it reports whether
// anything changed.
func updateCondition(st *corev1.PodStatus, cond *corev1.PodCondition) bool {
	now := metav1.Now()
	c := *cond
	c.LastTransitionTime = now
	for i := range st.Conditions {
		old := &st.Conditions[i]
		if old.Type != c.Type {
			continue
		}
		if old.Status == c.Status {
			c.LastTransitionTime = old.LastTransitionTime
		}
		same := old.Status == c.Status && old.Reason == c.Reason && old.Message == c.Message &&
			old.LastProbeTime.Equal(&c.LastProbeTime) && old.ObservedGeneration == c.ObservedGeneration
		st.Conditions[i] = c
		return !same
	}
	st.Conditions = append(st.Conditions, c)
	return true
}
