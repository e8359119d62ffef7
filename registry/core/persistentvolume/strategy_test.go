package persistentvolume

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestPrepareForCreatePending(t *testing.T) {
	v := &corev1.PersistentVolume{Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumeBound, Message: "sent"}}
	Strategy.PrepareForCreate(context.Background(), v)
	if v.Status.Phase != corev1.VolumePending || v.Status.Message != "" || v.Status.LastPhaseTransitionTime == nil || v.Status.LastPhaseTransitionTime.IsZero() {
		t.Errorf("status %+v, want only the Pending phase since now", v.Status)
	}
	if Strategy.NamespaceScoped() || !Strategy.AllowUnconditionalUpdate(context.Background()) || Strategy.AllowCreateOnUpdate(context.Background()) {
		t.Error("scope or update flags differ from upstream's")
	}
}

// TestStatusWriteKeepsOrSetsThePhaseTransitionTime checks upstream's rule:
// the time stays while the phase stays, and is now when the phase changes
// unless the write gives a new one.
func TestStatusWriteKeepsOrSetsThePhaseTransitionTime(t *testing.T) {
	then := metav1.NewTime(time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC))
	given := metav1.NewTime(time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC))
	for _, tc := range []struct {
		name  string
		phase corev1.PersistentVolumePhase
		time  *metav1.Time
		want  func(*metav1.Time) bool
	}{
		{"same phase, no time: the stored one", corev1.VolumePending, nil, func(t *metav1.Time) bool { return t != nil && t.Equal(&then) }},
		{"new phase, no time: now", corev1.VolumeAvailable, nil, func(t *metav1.Time) bool { return t != nil && t.After(given.Time) }},
		{"new phase, the stored time: now", corev1.VolumeAvailable, &then, func(t *metav1.Time) bool { return t != nil && t.After(given.Time) }},
		{"new phase, a time of its own: kept", corev1.VolumeAvailable, &given, func(t *metav1.Time) bool { return t != nil && t.Equal(&given) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old := &corev1.PersistentVolume{Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumePending, LastPhaseTransitionTime: &then}}
			v := &corev1.PersistentVolume{Status: corev1.PersistentVolumeStatus{Phase: tc.phase, LastPhaseTransitionTime: tc.time}}
			Strategy.PrepareForStatusUpdate(context.Background(), v, old)
			if !tc.want(v.Status.LastPhaseTransitionTime) {
				t.Errorf("lastPhaseTransitionTime %v", v.Status.LastPhaseTransitionTime)
			}
		})
	}
}
