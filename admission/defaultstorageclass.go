package admission

import (
	"sort"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
)

// Annotations marking a StorageClass as the default one.
const (
	IsDefaultStorageClassAnnotation     = "storageclass.kubernetes.io/is-default-class"
	BetaIsDefaultStorageClassAnnotation = "storageclass.beta.kubernetes.io/is-default-class"
	// BetaStorageClassAnnotation is the claim's storage class before
	// spec.storageClassName.
	BetaStorageClassAnnotation = "volume.beta.kubernetes.io/storage-class"
)

// DefaultStorageClass is kube-apiserver's DefaultStorageClass plugin on a
// new PersistentVolumeClaim: a claim that names no storage class (neither
// spec.storageClassName, even "", nor the beta annotation) gets the
// default StorageClass, the newest one if several are marked default
// (ties broken by name).
func DefaultStorageClass(pvc *corev1.PersistentVolumeClaim, classes []storagev1.StorageClass) {
	if pvc.Spec.StorageClassName != nil {
		return
	}
	if _, ok := pvc.Annotations[BetaStorageClassAnnotation]; ok {
		return
	}
	var defaults []storagev1.StorageClass
	for _, c := range classes {
		if c.Annotations[IsDefaultStorageClassAnnotation] == "true" || c.Annotations[BetaIsDefaultStorageClassAnnotation] == "true" {
			defaults = append(defaults, c)
		}
	}
	if len(defaults) == 0 {
		return
	}
	sort.Slice(defaults, func(i, j int) bool {
		a, b := defaults[i].CreationTimestamp, defaults[j].CreationTimestamp
		if !a.Equal(&b) {
			return b.Before(&a)
		}
		return defaults[i].Name < defaults[j].Name
	})
	name := defaults[0].Name
	pvc.Spec.StorageClassName = &name
}
