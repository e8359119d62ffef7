package storageclass

import (
	"context"
	"fmt"

	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate"
)

// WarningsOnCreate returns upstream's warnings for a new StorageClass
// (GetWarningsForStorageClass of pkg/api/storage).
func (storageClassStrategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	return storageClassWarnings(obj.(*storagev1.StorageClass))
}

// WarningsOnUpdate returns the same warnings for the updated class.
func (storageClassStrategy) WarningsOnUpdate(_ context.Context, obj, _ runtime.Object) []string {
	return storageClassWarnings(obj.(*storagev1.StorageClass))
}

// storageClassWarnings warns about deprecated node labels among the keys
// of the allowed topologies' expressions.
func storageClassWarnings(sc *storagev1.StorageClass) []string {
	var warnings []string
	for i, topo := range sc.AllowedTopologies {
		for j, e := range topo.MatchLabelExpressions {
			if msg, ok := validate.DeprecatedNodeLabel(e.Key); ok {
				warnings = append(warnings, fmt.Sprintf("%s: %s", field.NewPath("allowedTopologies").Index(i).Child("matchLabelExpressions").Index(j).Child("key"), msg))
			}
		}
	}
	return warnings
}
