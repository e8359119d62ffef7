package registry

import (
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apiserver/pkg/util/webhook"

	"github.com/fakeplane/fakeplane/store"
)

// ServiceResolver returns the resolver that finds where a Service's port
// is served. CRD conversion webhooks and the aggregator's proxy to
// extension API servers share it.
func (r *Registry) ServiceResolver() webhook.ServiceResolver { return endpointResolver{r} }

// endpointResolver finds where a Service's port is served: an address of
// its Endpoints or EndpointSlices, as kube-aggregator's endpoint resolver
// does, since there is no cluster network to route the Service's
// ClusterIP. CRD conversion webhooks given as a Service are reached through
// it (crd.NewWebhookConverters), and so is the aggregator's proxy.
type endpointResolver struct{ s *Registry }

// ResolveEndpoint implements k8s.io/apiserver/pkg/util/webhook.ServiceResolver.
func (r endpointResolver) ResolveEndpoint(namespace, name string, port int32) (*url.URL, error) {
	cur, err := r.s.store.Get("/services", ObjectKey(namespace, name))
	if err != nil {
		return nil, fmt.Errorf("service %s/%s not found", namespace, name)
	}
	var svc corev1.Service
	if err := json.Unmarshal(cur.Value, &svc); err != nil {
		return nil, err
	}
	if svc.Spec.Type == corev1.ServiceTypeExternalName {
		return &url.URL{Scheme: "https", Host: net.JoinHostPort(svc.Spec.ExternalName, strconv.Itoa(int(port)))}, nil
	}
	var svcPort *corev1.ServicePort
	for i := range svc.Spec.Ports {
		if svc.Spec.Ports[i].Port == port {
			svcPort = &svc.Spec.Ports[i]
		}
	}
	if svcPort == nil {
		return nil, fmt.Errorf("no service port %d found for service %q", port, svc.Name)
	}
	if addr, ok := r.fromEndpointSlices(namespace, name, svcPort.Name); ok {
		return &url.URL{Scheme: "https", Host: addr}, nil
	}
	if cur, err := r.s.store.Get("/endpoints", ObjectKey(namespace, name)); err == nil {
		var eps corev1.Endpoints
		if err := json.Unmarshal(cur.Value, &eps); err == nil {
			for _, ss := range eps.Subsets {
				for _, p := range ss.Ports {
					if p.Name == svcPort.Name && len(ss.Addresses) > 0 {
						return &url.URL{Scheme: "https", Host: net.JoinHostPort(ss.Addresses[0].IP, strconv.Itoa(int(p.Port)))}, nil
					}
				}
			}
		}
	}
	return nil, fmt.Errorf("no endpoints available for service %q", name)
}

// fromEndpointSlices picks a ready address of the Service's EndpointSlices.
func (r endpointResolver) fromEndpointSlices(namespace, name, portName string) (string, bool) {
	lst, err := r.s.store.List("discovery.k8s.io/endpointslices", store.ListOptions{Prefix: namespace + "/"})
	if err != nil {
		return "", false
	}
	for _, it := range lst.Items {
		var es discoveryv1.EndpointSlice
		if err := json.Unmarshal(it.Value, &es); err != nil || es.Labels[discoveryv1.LabelServiceName] != name {
			continue
		}
		for _, p := range es.Ports {
			if p.Port == nil || (p.Name != nil && *p.Name != portName) || (p.Name == nil && portName != "") {
				continue
			}
			for _, ep := range es.Endpoints {
				if ep.Conditions.Ready != nil && !*ep.Conditions.Ready || len(ep.Addresses) == 0 {
					continue
				}
				return net.JoinHostPort(ep.Addresses[0], strconv.Itoa(int(*p.Port))), true
			}
		}
	}
	return "", false
}
