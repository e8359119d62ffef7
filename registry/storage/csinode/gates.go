package csinode

import (
	"context"

	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// PrepareForStatusUpdate clears status.storageHealth, whose feature gate
// (CSIVolumeHealth) is off by default in kube-apiserver v1.37, unless the
// stored CSINode already has it, as upstream's status strategy
// (dropDisabledCSINodeFields).
func (csiNodeStrategy) PrepareForStatusUpdate(_ context.Context, obj, old runtime.Object) {
	if len(old.(*storagev1.CSINode).Status.StorageHealth) == 0 {
		obj.(*storagev1.CSINode).Status.StorageHealth = nil
	}
}
