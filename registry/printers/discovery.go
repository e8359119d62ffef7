package printers

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	discoveryv1 "k8s.io/api/discovery/v1"
)

// discovery returns the printers of the discovery.k8s.io group's resources, by resource.
func discovery() map[string]Printer {
	return map[string]Printer{
		"endpointslices": {
			cells: typed(func(es *discoveryv1.EndpointSlice, now time.Time) []any {
				var ports, addrs []string
				for _, p := range es.Ports {
					switch {
					case p.Port != nil:
						ports = append(ports, strconv.Itoa(int(*p.Port)))
					case p.Name != nil:
						ports = append(ports, *p.Name)
					default:
						// A port's name defaults to "" upstream.
						ports = append(ports, "")
					}
				}
				for _, e := range es.Endpoints {
					addrs = append(addrs, e.Addresses...)
				}
				return []any{es.Name, string(es.AddressType), firstThree(ports), firstThree(addrs), age(now, es.CreationTimestamp)}
			}),
		},
	}
}

// firstThree joins up to three items, saying how many more there are;
// "<unset>" when that prints nothing (no items, or only a port with an
// empty name).
func firstThree(items []string) string {
	if len(items) > 3 {
		return fmt.Sprintf("%s + %d more...", strings.Join(items[:3], ","), len(items)-3)
	}
	if s := strings.Join(items, ","); s != "" {
		return s
	}
	return "<unset>"
}
