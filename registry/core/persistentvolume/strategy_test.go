package persistentvolume

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestPrepareForCreatePending(t *testing.T) {
	v := &corev1.PersistentVolume{Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumeBound, Message: "sent"}}
	Strategy.PrepareForCreate(context.Background(), v)
	if v.Status != (corev1.PersistentVolumeStatus{Phase: corev1.VolumePending}) {
		t.Errorf("status %+v, want only the Pending phase", v.Status)
	}
	if Strategy.NamespaceScoped() || !Strategy.AllowUnconditionalUpdate(context.Background()) || Strategy.AllowCreateOnUpdate(context.Background()) {
		t.Error("scope or update flags differ from upstream's")
	}
}
