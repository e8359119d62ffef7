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
				hostStr := ingressHosts(ing.Spec.Rules)
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

// ingressHosts prints up to three of an Ingress's rules' hosts. When a rule
// follows the third host, it adds how many rules (with a host or not) there
// are past the first three: upstream's count.
func ingressHosts(rules []networkingv1.IngressRule) string {
	var hosts []string
	more := false
	for _, r := range rules {
		if len(hosts) == 3 {
			more = true
			break
		}
		if r.Host != "" {
			hosts = append(hosts, r.Host)
		}
	}
	if len(hosts) == 0 {
		return "*"
	}
	s := strings.Join(hosts, ",")
	if more {
		return fmt.Sprintf("%s + %d more...", s, len(rules)-3)
	}
	return s
}
