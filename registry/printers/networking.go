package printers

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// networking returns the printers of the networking.k8s.io group's resources, by resource.
func networking() map[string]Printer {
	return map[string]Printer{
		"servicecidrs": {
			cells: typed(func(sc *networkingv1.ServiceCIDR, now time.Time) []any {
				return []any{sc.Name, strings.Join(sc.Spec.CIDRs, ","), age(now, sc.CreationTimestamp)}
			}),
		},
		"ipaddresses": {
			// Upstream prints the age too, a cell past the two columns.
			cells: typed(func(ip *networkingv1.IPAddress, now time.Time) []any {
				parent := "<none>"
				if ref := ip.Spec.ParentRef; ref != nil {
					parent = strings.ToLower(schema.GroupResource{Group: ref.Group, Resource: ref.Resource}.String())
					if ref.Namespace != "" {
						parent += "/" + ref.Namespace
					}
					parent += "/" + ref.Name
				}
				return []any{ip.Name, parent, age(now, ip.CreationTimestamp)}
			}),
		},
		"ingresses": {
			cells: typed(func(ing *networkingv1.Ingress, now time.Time) []any {
				class := "<none>"
				if ing.Spec.IngressClassName != nil {
					class = *ing.Spec.IngressClassName
				}
				var hosts []string
				for _, r := range ing.Spec.Rules {
					if r.Host != "" && len(hosts) < 3 {
						hosts = append(hosts, r.Host)
					}
				}
				hostStr := strings.Join(hosts, ",")
				switch {
				case len(hosts) == 0:
					hostStr = "*"
				case len(ing.Spec.Rules) > 3 && len(hosts) == 3:
					hostStr = fmt.Sprintf("%s + %d more...", hostStr, len(ing.Spec.Rules)-3)
				}
				var addrs []string
				for _, in := range ing.Status.LoadBalancer.Ingress {
					if in.IP != "" {
						addrs = append(addrs, in.IP)
					} else if in.Hostname != "" {
						addrs = append(addrs, in.Hostname)
					}
				}
				sort.Strings(addrs)
				ports := "80"
				if len(ing.Spec.TLS) > 0 {
					ports = "80, 443"
				}
				return []any{ing.Name, class, hostStr, strings.Join(slices.Compact(addrs), ","), ports, age(now, ing.CreationTimestamp)}
			}),
		},
		"ingressclasses": {
			cells: typed(func(ic *networkingv1.IngressClass, now time.Time) []any {
				name := ic.Name
				if ic.Annotations[networkingv1.AnnotationIsDefaultIngressClass] == "true" {
					name += " (default)"
				}
				params := "<none>"
				if p := ic.Spec.Parameters; p != nil {
					params = p.Kind
					if p.APIGroup != nil {
						params += "." + *p.APIGroup
					}
					params += "/" + p.Name
				}
				return []any{name, ic.Spec.Controller, params, age(now, ic.CreationTimestamp)}
			}),
		},
		"networkpolicies": {
			cells: typed(func(np *networkingv1.NetworkPolicy, now time.Time) []any {
				return []any{np.Name, labelSelectorString(&np.Spec.PodSelector), age(now, np.CreationTimestamp)}
			}),
		},
	}
}
