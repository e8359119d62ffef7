package printers

import (
	"strings"
	"time"

	resourcev1 "k8s.io/api/resource/v1"
)

// resource returns the printers of the resource.k8s.io group's resources, by resource.
func resource() map[string]Printer {
	return map[string]Printer{
		"devicetaintrules": {
			cells: typed(func(r *resourcev1.DeviceTaintRule, now time.Time) []any {
				t := r.Spec.Taint
				added := ""
				if t.TimeAdded != nil {
					added = age(now, *t.TimeAdded)
				}
				return []any{r.Name, t.Key, t.Value, string(t.Effect), added, age(now, r.CreationTimestamp)}
			}),
		},
		"resourceclaims": {
			cells: typed(func(c *resourcev1.ResourceClaim, now time.Time) []any {
				var states []string
				if c.DeletionTimestamp != nil {
					states = append(states, "deleted")
				}
				if c.Status.Allocation == nil {
					if c.DeletionTimestamp == nil {
						states = append(states, "pending")
					}
				} else {
					states = append(states, "allocated")
					if len(c.Status.ReservedFor) > 0 {
						states = append(states, "reserved")
					}
				}
				return []any{c.Name, strings.Join(states, ","), age(now, c.CreationTimestamp)}
			}),
		},
		"resourceslices": {
			cells: typed(func(sl *resourcev1.ResourceSlice, now time.Time) []any {
				node := ""
				if sl.Spec.NodeName != nil {
					node = *sl.Spec.NodeName
				}
				return []any{sl.Name, node, sl.Spec.Driver, sl.Spec.Pool.Name, age(now, sl.CreationTimestamp)}
			}),
		},
	}
}
