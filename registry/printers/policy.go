package printers

import (
	"time"

	policyv1 "k8s.io/api/policy/v1"
)

// policy returns the printers of the policy group's resources, by resource.
func policy() map[string]Printer {
	return map[string]Printer{
		"poddisruptionbudgets": {
			cells: typed(func(pdb *policyv1.PodDisruptionBudget, now time.Time) []any {
				minAvailable, maxUnavailable := "N/A", "N/A"
				if pdb.Spec.MinAvailable != nil {
					minAvailable = pdb.Spec.MinAvailable.String()
				}
				if pdb.Spec.MaxUnavailable != nil {
					maxUnavailable = pdb.Spec.MaxUnavailable.String()
				}
				return []any{pdb.Name, minAvailable, maxUnavailable, int64(pdb.Status.DisruptionsAllowed), age(now, pdb.CreationTimestamp)}
			}),
		},
	}
}
