package csistoragecapacity

import (
	"context"

	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate"
)

// WarningsOnCreate returns upstream's warnings for a new CSIStorageCapacity
// (GetWarningsForCSIStorageCapacity): deprecated node labels in its node
// topology.
func (csiStorageCapacityStrategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	return validate.LabelSelectorNodeWarnings(obj.(*storagev1.CSIStorageCapacity).NodeTopology, field.NewPath("nodeTopology"))
}

// WarningsOnUpdate returns the same warnings for the updated object.
func (csiStorageCapacityStrategy) WarningsOnUpdate(_ context.Context, obj, _ runtime.Object) []string {
	return validate.LabelSelectorNodeWarnings(obj.(*storagev1.CSIStorageCapacity).NodeTopology, field.NewPath("nodeTopology"))
}
