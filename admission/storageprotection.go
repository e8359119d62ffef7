package admission

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime"
	storagehelpers "k8s.io/component-helpers/storage/volume"
)

// The finalizers StorageObjectInUseProtection adds; kube-controller-manager's
// protection controllers (package controllers) remove them once nothing
// uses the object.
const (
	PVCProtectionFinalizer = "kubernetes.io/pvc-protection"
	PVProtectionFinalizer  = "kubernetes.io/pv-protection"
	VACProtectionFinalizer = "kubernetes.io/vac-protection"
)

// ProtectStorageObject is kube-apiserver's StorageObjectInUseProtection
// plugin on a new PersistentVolume, PersistentVolumeClaim or
// VolumeAttributesClass: it gets its protection finalizer, once.
func ProtectStorageObject(obj runtime.Object) {
	var finalizers *[]string
	var finalizer string
	switch o := obj.(type) {
	case *corev1.PersistentVolume:
		finalizers, finalizer = &o.Finalizers, PVProtectionFinalizer
	case *corev1.PersistentVolumeClaim:
		finalizers, finalizer = &o.Finalizers, PVCProtectionFinalizer
	case *storagev1.VolumeAttributesClass:
		finalizers, finalizer = &o.Finalizers, VACProtectionFinalizer
	default:
		return
	}
	if !slices.Contains(*finalizers, finalizer) {
		*finalizers = append(*finalizers, finalizer)
	}
}

// ClaimResizeRefusal is kube-apiserver's PersistentVolumeClaimResize plugin
// on an update of a claim: a claim may grow only once bound, and only when
// it names, before and after, a StorageClass that allows volume expansion
// (class is that StorageClass, nil when it does not exist). It returns the
// reason to refuse the update, or "".
func ClaimResizeRefusal(pvc, old *corev1.PersistentVolumeClaim, class func(name string) *storagev1.StorageClass) string {
	oldSize := old.Spec.Resources.Requests[corev1.ResourceStorage]
	newSize := pvc.Spec.Resources.Requests[corev1.ResourceStorage]
	if newSize.Cmp(oldSize) <= 0 {
		return ""
	}
	if old.Status.Phase != corev1.ClaimBound {
		return "Only bound persistent volume claims can be expanded"
	}
	name, oldName := storagehelpers.GetPersistentVolumeClaimClass(pvc), storagehelpers.GetPersistentVolumeClaimClass(old)
	if name != "" && name == oldName {
		if sc := class(name); sc != nil && sc.AllowVolumeExpansion != nil && *sc.AllowVolumeExpansion {
			return ""
		}
	}
	return "only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize"
}
