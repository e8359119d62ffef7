package printers

import (
	"time"

	storagemigrationv1 "k8s.io/api/storagemigration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// storagemigration returns the printers of the storagemigration.k8s.io group's resources, by resource.
func storagemigration() map[string]Printer {
	return map[string]Printer{
		"storageversionmigrations": {
			cells: typed(func(m *storagemigrationv1.StorageVersionMigration, now time.Time) []any {
				status := "Unknown"
				for _, c := range m.Status.Conditions {
					if c.Status != metav1.ConditionTrue {
						continue
					}
					switch storagemigrationv1.MigrationConditionType(c.Type) {
					case storagemigrationv1.MigrationRunning, storagemigrationv1.MigrationFailed, storagemigrationv1.MigrationSucceeded:
						status = c.Type
					}
				}
				return []any{m.Name, m.Spec.Resource.String(), status}
			}),
		},
	}
}
