package server

import (
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"sync"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/conversion"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fakeplane/fakeplane/store"
)

// CRD versions are converted as the CRD's spec.conversion says: "None"
// rewrites apiVersion (apiVersionConverter), "Webhook" calls the CRD's
// conversion webhook through upstream's converter, which sends the
// ConversionReview version the CRD asks for and checks the answer as
// kube-apiserver does. A webhook given as a Service is reached at an
// address of the Service's Endpoints or EndpointSlices, since there is no
// cluster network to route its ClusterIP.

// webhookConverter converts one served version of a CRD to and from the
// storage version through the conversion webhook.
type webhookConverter struct {
	conv    runtime.ObjectConvertor
	served  schema.GroupVersion
	storage schema.GroupVersion
}

func (w webhookConverter) toStorage(served []byte) ([]byte, error) {
	return w.convert(served, w.storage)
}

func (w webhookConverter) fromStorage(stored []byte) ([]byte, error) {
	return w.convert(stored, w.served)
}

// convert returns data in version to, calling the webhook when the object
// is in another version.
func (w webhookConverter) convert(data []byte, to schema.GroupVersion) ([]byte, error) {
	var m map[string]any
	if err := jsonUnmarshal(data, &m); err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: m}
	if u.GroupVersionKind().GroupVersion() == to {
		return data, nil
	}
	out, err := w.conv.ConvertToVersion(u, to)
	if err != nil {
		return nil, err
	}
	ou, ok := out.(*unstructured.Unstructured)
	if !ok {
		return nil, fmt.Errorf("conversion returned %T", out)
	}
	return json.Marshal(ou.Object)
}

// fromStorageMany converts stored objects to the served version with one
// webhook call for all those in another version.
func (w webhookConverter) fromStorageMany(stored [][]byte) ([][]byte, error) {
	out := make([][]byte, len(stored))
	list := &unstructured.UnstructuredList{Object: map[string]any{"apiVersion": w.storage.String(), "kind": "List"}}
	var at []int
	for i, data := range stored {
		var m map[string]any
		if err := jsonUnmarshal(data, &m); err != nil {
			return nil, err
		}
		u := unstructured.Unstructured{Object: m}
		if u.GroupVersionKind().GroupVersion() == w.served {
			out[i] = data
			continue
		}
		list.Items = append(list.Items, u)
		at = append(at, i)
	}
	if len(at) == 0 {
		return out, nil
	}
	converted, err := w.conv.ConvertToVersion(list, w.served)
	if err != nil {
		return nil, err
	}
	cl, ok := converted.(*unstructured.UnstructuredList)
	if !ok || len(cl.Items) != len(at) {
		return nil, fmt.Errorf("conversion of %d objects returned %T", len(at), converted)
	}
	for j, i := range at {
		b, err := json.Marshal(cl.Items[j].Object)
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

// crdConverters builds upstream's CR converters, one webhook client manager
// per server.
type crdConverters struct {
	once    sync.Once
	factory *conversion.CRConverterFactory
	err     error
	s       *Server
}

// converterFor returns the converter of a CRD with webhook conversion.
func (cc *crdConverters) converterFor(crd *apiextensionsv1.CustomResourceDefinition) (runtime.ObjectConvertor, error) {
	cc.once.Do(func() {
		cc.factory, cc.err = conversion.NewCRConverterFactory(endpointResolver{cc.s}, nil)
	})
	if cc.err != nil {
		return nil, cc.err
	}
	safe, _, err := cc.factory.NewConverter(crd)
	return safe, err
}

// endpointResolver finds where a Service's port is served: an address of
// its Endpoints or EndpointSlices, as kube-aggregator's endpoint resolver
// does.
type endpointResolver struct{ s *Server }

// ResolveEndpoint implements k8s.io/apiserver/pkg/util/webhook.ServiceResolver.
func (r endpointResolver) ResolveEndpoint(namespace, name string, port int32) (*url.URL, error) {
	cur, err := r.s.store.Get("/services", objectKey(namespace, name))
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
	if cur, err := r.s.store.Get("/endpoints", objectKey(namespace, name)); err == nil {
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
