package printers

import (
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
)

// coordination returns the printers of the coordination.k8s.io group's resources, by resource.
func coordination() map[string]Printer {
	return map[string]Printer{
		"leases": {
			cells: typed(func(l *coordinationv1.Lease, now time.Time) []any {
				holder := ""
				if l.Spec.HolderIdentity != nil {
					holder = *l.Spec.HolderIdentity
				}
				return []any{l.Name, holder, age(now, l.CreationTimestamp)}
			}),
		},
	}
}
