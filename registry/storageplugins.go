package registry

// The storage admission plugins' glue: StorageObjectInUseProtection and
// PersistentVolumeClaimResize (package admission has their logic).

import (
	"errors"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"

	admissionplugins "github.com/fakeplane/fakeplane/admission"
)

// The resources StorageObjectInUseProtection protects.
var (
	pvsGR  = schema.GroupResource{Resource: "persistentvolumes"}
	pvcsGR = schema.GroupResource{Resource: "persistentvolumeclaims"}
	vacsGR = schema.GroupResource{Group: "storage.k8s.io", Resource: "volumeattributesclasses"}
)

// handlesStorageProtection: StorageObjectInUseProtection looks at the
// creation of volumes, claims and VolumeAttributesClasses.
func handlesStorageProtection(op admission.Operation, gr schema.GroupResource, sub string) bool {
	return op == admission.Create && sub == "" && (gr == pvsGR || gr == pvcsGR || gr == vacsGR)
}

// admitStorageProtection adds the protection finalizer.
func admitStorageProtection(_ *Registry, _ *Request, a admission.Attributes) error {
	admissionplugins.ProtectStorageObject(a.GetObject())
	return nil
}

// validateClaimResize is PersistentVolumeClaimResize on a claim's update.
func validateClaimResize(s *Registry, _ *Request, a admission.Attributes) error {
	pvc, ok := a.GetObject().(*corev1.PersistentVolumeClaim)
	old, ok2 := a.GetOldObject().(*corev1.PersistentVolumeClaim)
	if !ok || !ok2 {
		return nil
	}
	if why := admissionplugins.ClaimResizeRefusal(pvc, old, s.storageClass); why != "" {
		return errors.New(why)
	}
	return nil
}

// storageClass is the stored StorageClass of that name, or nil.
func (s *Registry) storageClass(name string) *storagev1.StorageClass {
	sc, err := getTyped[storagev1.StorageClass](s, "storage.k8s.io", "storageclasses", "", name)
	if err != nil {
		return nil
	}
	return sc
}
