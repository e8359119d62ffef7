package persistentvolumeclaim

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate"
)

// WarningsOnCreate returns upstream's warnings for a new claim
// (GetWarningsForPersistentVolumeClaim of pkg/api/persistentvolumeclaim).
func (claimStrategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	return claimWarnings(obj.(*corev1.PersistentVolumeClaim))
}

// WarningsOnUpdate returns the same warnings for the updated claim. (A
// write to its status has none, as upstream's status strategy.)
func (claimStrategy) WarningsOnUpdate(_ context.Context, obj, _ runtime.Object) []string {
	return claimWarnings(obj.(*corev1.PersistentVolumeClaim))
}

// claimWarnings is upstream's GetWarningsForPersistentVolumeClaim: the
// deprecated storage class annotation, then a storage request or limit that
// is not a whole number of bytes.
func claimWarnings(pvc *corev1.PersistentVolumeClaim) []string {
	var warnings []string
	if _, ok := pvc.Annotations[corev1.BetaStorageClassAnnotation]; ok {
		warnings = append(warnings, fmt.Sprintf(`%s: deprecated since v1.8; use "storageClassName" attribute instead`,
			field.NewPath("metadata", "annotations").Key(corev1.BetaStorageClassAnnotation)))
	}
	return append(warnings, validate.PVCSpecWarnings(field.NewPath("spec"), pvc.Spec)...)
}
