package resourceslice

import (
	"context"
	"fmt"
	"strings"

	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// WarningsOnCreate returns upstream's warning for a new ResourceSlice whose
// driver name has uppercase letters (validation ignores case).
func (resourceSliceStrategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	return driverNameWarnings(obj.(*resourcev1.ResourceSlice).Spec.Driver)
}

// WarningsOnUpdate returns the same warning for the updated slice.
func (resourceSliceStrategy) WarningsOnUpdate(_ context.Context, obj, _ runtime.Object) []string {
	return driverNameWarnings(obj.(*resourcev1.ResourceSlice).Spec.Driver)
}

// driverNameWarnings warns about a driver name that is not lowercase.
func driverNameWarnings(driver string) []string {
	if driver == strings.ToLower(driver) {
		return nil
	}
	return []string{fmt.Sprintf("spec.driver: driver names should be lowercase; %q contains uppercase characters", driver)}
}
