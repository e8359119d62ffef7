package printers

import (
	"time"

	schedulingv1 "k8s.io/api/scheduling/v1"
)

// scheduling returns the printers of the scheduling.k8s.io group's resources, by resource.
func scheduling() map[string]Printer {
	return map[string]Printer{
		"priorityclasses": {
			cells: typed(func(pc *schedulingv1.PriorityClass, now time.Time) []any {
				policy := ""
				if pc.PreemptionPolicy != nil {
					policy = string(*pc.PreemptionPolicy)
				}
				return []any{pc.Name, int64(pc.Value), pc.GlobalDefault, age(now, pc.CreationTimestamp), policy}
			}),
		},
	}
}
