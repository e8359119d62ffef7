package persistentvolumeclaim

import corev1 "k8s.io/api/core/v1"

// A claim's two data source fields, as upstream's strategy keeps them
// (KEP 1495): spec.dataSource is the old field, which only ever took
// PersistentVolumeClaims and VolumeSnapshots; spec.dataSourceRef is the new
// one, which may name any populator's object, in another namespace too.

// dropLegacyDataSource clears a dataSource that names neither a claim nor
// a VolumeSnapshot, as the old field always silently ignored them, unless
// the client also set dataSourceRef (a client that knows the new field) or
// the stored claim (old, nil on create) already has a data source.
func dropLegacyDataSource(spec, old *corev1.PersistentVolumeClaimSpec) {
	if old != nil && (old.DataSource != nil || old.DataSourceRef != nil) {
		return
	}
	if spec.DataSourceRef != nil || spec.DataSource == nil {
		return
	}
	group := ""
	if spec.DataSource.APIGroup != nil {
		group = *spec.DataSource.APIGroup
	}
	switch {
	case spec.DataSource.Kind == "PersistentVolumeClaim" && group == "":
	case spec.DataSource.Kind == "VolumeSnapshot" && group == "snapshot.storage.k8s.io":
	default:
		spec.DataSource = nil
	}
}

// mirrorDataSources fills in whichever of the two fields is empty from the
// other: dataSourceRef from dataSource, and dataSource from a dataSourceRef
// in the claim's own namespace.
func mirrorDataSources(spec *corev1.PersistentVolumeClaimSpec) {
	switch ds, ref := spec.DataSource, spec.DataSourceRef; {
	case ds != nil && ref == nil:
		spec.DataSourceRef = &corev1.TypedObjectReference{APIGroup: cloneString(ds.APIGroup), Kind: ds.Kind, Name: ds.Name}
	case ref != nil && ds == nil && (ref.Namespace == nil || *ref.Namespace == ""):
		spec.DataSource = &corev1.TypedLocalObjectReference{APIGroup: cloneString(ref.APIGroup), Kind: ref.Kind, Name: ref.Name}
	}
}

// cloneString copies what p points to.
func cloneString(p *string) *string {
	if p == nil {
		return nil
	}
	s := *p
	return &s
}
