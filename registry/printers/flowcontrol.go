package printers

import (
	"sort"
	"time"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// flowcontrol returns the printers of the flowcontrol.apiserver.k8s.io group's resources, by resource.
func flowcontrol() map[string]Printer {
	return map[string]Printer{
		"flowschemas": {
			cells: typed(flowSchemaCells),
			// A list is ordered as the schemas match: by precedence, then name.
			list: func(objs []runtime.Object, now time.Time) ([]int, [][]any) {
				order := make([]int, len(objs))
				for i := range order {
					order[i] = i
				}
				fs := func(i int) *flowcontrolv1.FlowSchema { return objs[i].(*flowcontrolv1.FlowSchema) }
				sort.SliceStable(order, func(a, b int) bool {
					pa, pb := flowSchemaPrecedence(fs(order[a])), flowSchemaPrecedence(fs(order[b]))
					if pa != pb {
						return pa < pb
					}
					return fs(order[a]).Name < fs(order[b]).Name
				})
				cells := make([][]any, len(order))
				for i, idx := range order {
					cells[i] = flowSchemaCells(fs(idx), now)
				}
				return order, cells
			},
		},
		"prioritylevelconfigurations": {
			cells: typed(func(pl *flowcontrolv1.PriorityLevelConfiguration, now time.Time) []any {
				var shares, queues, handSize, queueLength any = "<none>", "<none>", "<none>", "<none>"
				if l := pl.Spec.Limited; l != nil {
					// Defaults: 30 shares; 64 queues, hands of 8, 50 requests a queue.
					shares = int64(30)
					if l.NominalConcurrencyShares != nil {
						shares = int64(*l.NominalConcurrencyShares)
					}
					if q := l.LimitResponse.Queuing; q != nil {
						queues, handSize, queueLength = int64(orDefault(q.Queues, 64)), int64(orDefault(q.HandSize, 8)), int64(orDefault(q.QueueLengthLimit, 50))
					}
				}
				return []any{pl.Name, string(pl.Spec.Type), shares, queues, handSize, queueLength, age(now, pl.CreationTimestamp)}
			}),
		},
	}
}

// flowSchemaPrecedence is a schema's matching precedence, 1000 by default.
func flowSchemaPrecedence(fs *flowcontrolv1.FlowSchema) int32 {
	return orDefault(fs.Spec.MatchingPrecedence, 1000)
}

// flowSchemaCells prints a FlowSchema; an unset precedence prints as its
// default.
func flowSchemaCells(fs *flowcontrolv1.FlowSchema, now time.Time) []any {
	method := "<none>"
	if fs.Spec.DistinguisherMethod != nil {
		method = string(fs.Spec.DistinguisherMethod.Type)
	}
	missing := "?"
	for _, c := range fs.Status.Conditions {
		if c.Type == flowcontrolv1.FlowSchemaConditionDangling {
			missing = string(c.Status)
			break
		}
	}
	return []any{fs.Name, fs.Spec.PriorityLevelConfiguration.Name, int64(flowSchemaPrecedence(fs)), method, age(now, fs.CreationTimestamp), missing}
}
