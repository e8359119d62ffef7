package persistentvolumeclaim

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestPrepareForCreatePending(t *testing.T) {
	c := &corev1.PersistentVolumeClaim{Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound, AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}}}
	Strategy.PrepareForCreate(context.Background(), c)
	if c.Status.Phase != corev1.ClaimPending || c.Status.AccessModes != nil {
		t.Errorf("status %+v, want only the Pending phase", c.Status)
	}
}
