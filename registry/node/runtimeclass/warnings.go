package runtimeclass

import (
	"context"
	"fmt"

	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate"
)

// WarningsOnCreate returns upstream's warnings for a new RuntimeClass
// (GetWarningsForRuntimeClass of pkg/api/node).
func (runtimeClassStrategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	return runtimeClassWarnings(obj.(*nodev1.RuntimeClass))
}

// WarningsOnUpdate returns the same warnings for the updated class.
func (runtimeClassStrategy) WarningsOnUpdate(_ context.Context, obj, _ runtime.Object) []string {
	return runtimeClassWarnings(obj.(*nodev1.RuntimeClass))
}

// runtimeClassWarnings warns once for each deprecated node label in the
// scheduling node selector; upstream's path does not name the label. The
// labels are taken in sorted order (upstream's is a map's).
func runtimeClassWarnings(rc *nodev1.RuntimeClass) []string {
	if rc.Scheduling == nil {
		return nil
	}
	var warnings []string
	for _, k := range validate.SortedKeys(rc.Scheduling.NodeSelector) {
		if msg, ok := validate.DeprecatedNodeLabel(k); ok {
			warnings = append(warnings, fmt.Sprintf("%s: %s", field.NewPath("scheduling", "nodeSelector"), msg))
		}
	}
	return warnings
}
