package printers

import (
	"time"

	nodev1 "k8s.io/api/node/v1"
)

// node returns the printers of the node.k8s.io group's resources, by resource.
func node() map[string]Printer {
	return map[string]Printer{
		"runtimeclasses": {
			cells: typed(func(rc *nodev1.RuntimeClass, now time.Time) []any {
				return []any{rc.Name, rc.Handler, age(now, rc.CreationTimestamp)}
			}),
		},
	}
}
