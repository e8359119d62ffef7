package printers

import (
	"fmt"
	"time"

	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

// apiregistration returns the printers of the apiregistration.k8s.io group's resources, by resource.
func apiregistration() map[string]Printer {
	return map[string]Printer{
		"apiservices": {
			cells: typed(func(svc *apiregistrationv1.APIService, now time.Time) []any {
				service := "Local"
				if ref := svc.Spec.Service; ref != nil {
					service = ref.Namespace + "/" + ref.Name
				}
				available := string(apiregistrationv1.ConditionUnknown)
				for _, c := range svc.Status.Conditions {
					if c.Type != apiregistrationv1.Available {
						continue
					}
					available = string(c.Status)
					if c.Status != apiregistrationv1.ConditionTrue && c.Reason != "" {
						available = fmt.Sprintf("%s (%s)", c.Status, c.Reason)
					}
					break
				}
				return []any{svc.Name, service, available, age(now, svc.CreationTimestamp)}
			}),
		},
	}
}
