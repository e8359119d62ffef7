package persistentvolumeclaim

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// dropDisabledSpecFields clears the fields of a claim spec whose feature
// gates are off by default in kube-apiserver v1.37, as upstream's
// pkg/api/persistentvolumeclaim DropDisabledFields: a dataSourceRef naming
// another namespace (CrossNamespaceVolumeDataSource) goes, whole, unless
// old (nil on create) has a dataSourceRef.
func dropDisabledSpecFields(spec, old *corev1.PersistentVolumeClaimSpec) {
	if ref := spec.DataSourceRef; ref != nil && ref.Namespace != nil && *ref.Namespace != "" &&
		(old == nil || old.DataSourceRef == nil) {
		spec.DataSourceRef = nil
	}
}

// PrepareForUpdate clears the spec's fields of default-off gates the
// stored claim does not use and brings its data source fields in line, as
// upstream's PrepareForUpdate.
func (claimStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	spec, oldSpec := &obj.(*corev1.PersistentVolumeClaim).Spec, &old.(*corev1.PersistentVolumeClaim).Spec
	dropDisabledSpecFields(spec, oldSpec)
	// An older client may leave out the dataSourceRef the server filled in.
	dropLegacyDataSource(spec, oldSpec)
	mirrorDataSources(spec)
}

// PrepareForStatusUpdate clears the status's fields of default-off gates
// the stored claim does not use, as upstream's status strategy
// (DropDisabledFieldsFromStatus): status.healthStatus (CSIVolumeHealth).
func (claimStrategy) PrepareForStatusUpdate(_ context.Context, obj, old runtime.Object) {
	if old.(*corev1.PersistentVolumeClaim).Status.HealthStatus == nil {
		obj.(*corev1.PersistentVolumeClaim).Status.HealthStatus = nil
	}
}
