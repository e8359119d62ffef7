package registry

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/fakeplane/fakeplane/store"
)

// Several control planes on one store
//
// With Config.SharedStore the store is written by other processes too (an
// etcd shared between fakeplanes), whose commits never pass through this
// registry's write path. The views that follow the store (the ClusterIP and
// node-port allocator, the served CRDs, the encoding cache, and the
// Hooks.CommitObserver ones: the RBAC cache, the garbage collector's owner
// index, the aggregator's routing) are then fed by ObserveStoreEvent with
// every process's commits, this one's included, in revision order, from
// the store's watch. What a commit makes the writing process do (a CRD's
// status, a Service's IPAddresses, quota usage) stays with that process.

// servicesBucket is where Services are stored.
const servicesBucket = "/services"

// ObserveStoreEvent brings the views that follow the store up to date with
// one committed event of any process. The store calls it in revision order
// before it publishes the revision (etcdstore.Config.Observe), so a write
// of this process is in the views by the time its Update returns. It must
// not write to or wait on the store. Without Config.SharedStore it does
// nothing: the write path keeps the views.
func (s *Registry) ObserveStoreEvent(ev store.Event) {
	if !s.shared {
		return
	}
	deleted := ev.Type == store.Deleted
	var obj runtime.Object
	var ok bool
	switch ev.Resource {
	case servicesBucket:
		obj, ok = decodeEvent(s, ev, &corev1.Service{})
	case ipAddressesBucket:
		obj, ok = decodeEvent(s, ev, &networkingv1.IPAddress{})
	case crdBucket:
		var def *apiextensionsv1.CustomResourceDefinition
		if def, ok = decodeEvent(s, ev, &apiextensionsv1.CustomResourceDefinition{}); ok && deleted {
			s.unserveDeletedCRD(&Object{Obj: def, Meta: def})
		} else if ok {
			s.serveCRD(def)
		}
		obj = def
	default:
		ok = true // the observers decode what they need of the bytes
	}
	if !ok {
		return
	}
	if deleted {
		s.enc.forget(ev.Resource, ev.Key)
	}
	s.observeView(ev.Resource, ev.Key, obj, ev.Value, deleted)
}

// claimsOf is what a write holds against other processes' writes with a
// shared store (store.Write.Claims): a Service's ClusterIPs and node
// ports, none once it is deleted. nil (claims untouched) for other
// resources, and without a shared store, where the allocator's check
// under the writer lock suffices.
func (s *Registry) claimsOf(res *Resource, o *Object, del bool) []string {
	svc, ok := o.Obj.(*corev1.Service)
	if !s.shared || !ok || res.Bucket != servicesBucket {
		return nil
	}
	claims := []string{}
	if !del {
		claims = append(claims, serviceItems(svc)...)
	}
	slices.Sort(claims)
	return slices.Compact(claims) // a node port may serve TCP and UDP
}

// reallocate gives a created Service a new ClusterIP and node ports when
// another process took those allocated first: what the client asked for
// is asked for again (and refused now if it is held), what was picked is
// picked anew.
func (s *Registry) reallocate(c *Request, o *Object) error {
	svc, ok := o.Obj.(*corev1.Service)
	if !ok {
		return nil
	}
	c.releaseReservations()
	before := c.unallocated
	svc.Spec.ClusterIP, svc.Spec.ClusterIPs = before.Spec.ClusterIP, slices.Clone(before.Spec.ClusterIPs)
	svc.Spec.HealthCheckNodePort = before.Spec.HealthCheckNodePort
	for i := range svc.Spec.Ports {
		if i < len(before.Spec.Ports) {
			svc.Spec.Ports[i].NodePort = before.Spec.Ports[i].NodePort
		}
	}
	return s.allocateServiceIP(c, svc)
}

// decodeEvent decodes the object of a store event into obj, logging what
// does not decode.
func decodeEvent[T runtime.Object](s *Registry, ev store.Event, obj T) (T, bool) {
	if err := JSONUnmarshal(ev.Value, obj); err != nil {
		s.log.Warn("shared store: decode", "resource", ev.Resource, "key", ev.Key, "err", err)
		return obj, false
	}
	return obj, true
}
