// Package storageversionmigration holds the StorageVersionMigration strategy: the flags of kube-apiserver's
// pkg/registry/storagemigration/storagemigration strategy and storage. Its validation is the
// object metadata validation the server runs for every resource; upstream's
// rules for the rest of a StorageVersionMigration are not reimplemented.
package storageversionmigration

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the StorageVersionMigration strategy.
var Strategy = storageVersionMigrationStrategy{strategy.Base{ResetStatusOnCreate: true}}

type storageVersionMigrationStrategy struct{ strategy.Base }

// Validate adds nothing to the metadata validation of a new StorageVersionMigration.
func (storageVersionMigrationStrategy) Validate(context.Context, runtime.Object) field.ErrorList {
	return nil
}

// ValidateUpdate adds nothing to the metadata validation of an update.
func (storageVersionMigrationStrategy) ValidateUpdate(context.Context, runtime.Object, runtime.Object) field.ErrorList {
	return nil
}
