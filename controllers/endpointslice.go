package controllers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/endpointslice"
	endpointsliceutil "k8s.io/endpointslice/util"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
)

const endpointSlicesBucket = "discovery.k8s.io/endpointslices"

var endpointSlicesGVR = schema.GroupVersionResource{Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices"}

// endpointSliceControllerName is the endpointslice.kubernetes.io/managed-by
// value of the slices the controller manages.
const endpointSliceControllerName = "endpointslice-controller.k8s.io"

// endpointSliceMaxEndpoints is kube-controller-manager's default
// --max-endpoints-per-slice.
const endpointSliceMaxEndpoints = 100

// EndpointSlice keeps the EndpointSlices of every Service with a selector
// (not of type ExternalName), as kube-controller-manager's
// endpointslice-controller does: slices named <service>-<5 chars>, owned by
// the Service, labelled kubernetes.io/service-name and
// endpointslice.kubernetes.io/managed-by (and the Service's labels), one
// set per port mapping, at most 100 endpoints each, an endpoint per
// matching pod with an IP of the slice's address type (conditions ready,
// serving and terminating, nodeName, zone, targetRef, hostname), and one
// empty placeholder slice when there is no endpoint. It writes as
// kube-system/endpointslice-controller.
type EndpointSlice struct {
	reg     registry.Interface
	log     *slog.Logger
	user    user.Info
	src     *endpointSources
	nodes   *jobCache[corev1.Node]
	slices  *jobCache[discoveryv1.EndpointSlice]
	sliceOf map[types.UID]map[string]bool
	trigger *endpointsliceutil.TriggerTimeTracker
	// maxEndpoints is the size of a full slice.
	maxEndpoints int
}

// NewEndpointSlice returns the endpointslice controller.
func NewEndpointSlice(reg registry.Interface, log *slog.Logger) *EndpointSlice {
	if log == nil {
		log = slog.Default()
	}
	return &EndpointSlice{reg: reg, log: log, user: controllerUser("endpointslice-controller"),
		src:          newEndpointSources(),
		nodes:        newJobCache[corev1.Node](),
		slices:       newJobCache[discoveryv1.EndpointSlice](),
		sliceOf:      map[types.UID]map[string]bool{},
		trigger:      endpointsliceutil.NewTriggerTimeTracker(),
		maxEndpoints: endpointSliceMaxEndpoints,
	}
}

// Name implements Controller.
func (c *EndpointSlice) Name() string { return EndpointSliceName }

// Resources implements Controller.
func (c *EndpointSlice) Resources() []string {
	return []string{servicesBucket, podsBucket, endpointSlicesBucket, nodesBucket}
}

// endpointSliceOwner is the uid of the Service a managed slice belongs to,
// or "".
func endpointSliceOwner(s *discoveryv1.EndpointSlice) types.UID {
	if s.Labels[discoveryv1.LabelManagedBy] != endpointSliceControllerName {
		return ""
	}
	if ref := metav1.GetControllerOf(s); ref != nil && ref.Kind == "Service" && ref.APIVersion == "v1" {
		return ref.UID
	}
	return ""
}

// Sync implements Controller.
func (c *EndpointSlice) Sync(ctx context.Context, events []store.Event) error {
	for _, ev := range events {
		handled, err := c.src.observe(ev)
		if !handled {
			switch ev.Resource {
			case endpointSlicesBucket:
				var old, cur *discoveryv1.EndpointSlice
				var ok bool
				if old, cur, ok, err = c.slices.apply(ev); ok {
					c.indexSlice(ev.Key, old, cur)
				}
			case nodesBucket:
				var old, cur *corev1.Node
				var ok bool
				if old, cur, ok, err = c.nodes.apply(ev); ok && endpointZone(old) != endpointZone(cur) {
					c.nodeZoneChanged(ev.Key)
				}
			}
		}
		if err != nil {
			c.log.Warn("skipping undecodable object", "err", err)
		}
	}
	ctx = registry.WithFieldManager(apirequest.WithUser(ctx, c.user), "kube-controller-manager")
	var errs []error
	for _, key := range sortedKeys(c.src.dirty) {
		if ctx.Err() != nil {
			break
		}
		delete(c.src.dirty, key)
		if err := c.sync(ctx, key); err != nil {
			c.src.dirty[key] = true
			errs = append(errs, fmt.Errorf("service %s: %w", key, err))
		}
	}
	return errors.Join(errs...)
}

func endpointZone(n *corev1.Node) string {
	if n == nil {
		return ""
	}
	return n.Labels[corev1.LabelTopologyZone]
}

// nodeZoneChanged marks the Services of the pods on a node dirty.
func (c *EndpointSlice) nodeZoneChanged(node string) {
	for ns, keys := range c.src.podsIn {
		for pk := range keys {
			p := c.src.pods.get(pk)
			if p == nil || p.Spec.NodeName != node {
				continue
			}
			for sk := range c.src.servicesIn[ns] {
				c.src.dirty[sk] = true
			}
			break
		}
	}
}

// indexSlice keeps sliceOf and marks the owning Service dirty (a slice
// changed or deleted by someone else is put back).
func (c *EndpointSlice) indexSlice(key string, old, cur *discoveryv1.EndpointSlice) {
	for _, s := range []*discoveryv1.EndpointSlice{old, cur} {
		if s == nil {
			continue
		}
		if uid := endpointSliceOwner(s); uid != "" {
			delete(c.sliceOf[uid], key)
			c.src.dirty[s.Namespace+"/"+s.Labels[discoveryv1.LabelServiceName]] = true
		}
	}
	if cur != nil {
		if uid := endpointSliceOwner(cur); uid != "" {
			if c.sliceOf[uid] == nil {
				c.sliceOf[uid] = map[string]bool{}
			}
			c.sliceOf[uid][key] = true
		}
	}
}

// endpointSliceDesired is the endpoints and ports one slice group holds.
type endpointSliceDesired struct {
	ports     []discoveryv1.EndpointPort
	endpoints []discoveryv1.Endpoint
}

func (c *EndpointSlice) sync(ctx context.Context, key string) error {
	svc := c.src.services.get(key)
	if svc == nil {
		ns, name := splitKey(key)
		c.trigger.DeleteService(ns, name)
		return nil // the garbage collector deletes its slices
	}
	if svc.Spec.Type == corev1.ServiceTypeExternalName || svc.Spec.Selector == nil {
		return nil
	}
	pods := c.src.podsFor(svc)
	triggerTime := c.trigger.ComputeEndpointLastChangeTriggerTime(svc.Namespace, svc, pods)
	addressType := discoveryv1.AddressTypeIPv4
	if endpointWantsIPv6(svc) {
		addressType = discoveryv1.AddressTypeIPv6
	}
	desired := map[endpointsliceutil.PortMapKey]*endpointSliceDesired{}
	var order []endpointsliceutil.PortMapKey
	total := 0
	for _, pod := range pods {
		if !endpointsliceutil.ShouldPodBeInEndpoints(pod, true) {
			continue
		}
		ep := c.podEndpoint(pod, svc, addressType)
		if len(ep.Addresses) == 0 {
			continue
		}
		ports := endpointSlicePorts(svc, pod)
		pk := endpointsliceutil.NewPortMapKey(ports)
		d, ok := desired[pk]
		if !ok {
			d = &endpointSliceDesired{ports: ports}
			desired[pk] = d
			order = append(order, pk)
		}
		d.endpoints = append(d.endpoints, ep)
		total++
	}
	var existing []*discoveryv1.EndpointSlice
	for _, sk := range sortedKeys(c.sliceOf[svc.UID]) {
		if s := c.slices.get(sk); s != nil && s.DeletionTimestamp == nil {
			existing = append(existing, s)
		}
	}
	var toCreate, toUpdate, toDelete []*discoveryv1.EndpointSlice
	used := map[string]bool{}
	for _, pk := range order {
		d := desired[pk]
		want := map[types.UID]discoveryv1.Endpoint{}
		for _, ep := range d.endpoints {
			want[ep.TargetRef.UID] = ep
		}
		placed := map[types.UID]bool{}
		var group []*discoveryv1.EndpointSlice
		// Endpoints stay in the slice that holds them.
		for _, s := range existing {
			if used[s.Name] || s.AddressType != addressType || endpointsliceutil.NewPortMapKey(s.Ports) != pk {
				continue
			}
			used[s.Name] = true
			next := s.DeepCopy()
			next.Endpoints = next.Endpoints[:0]
			for _, ep := range s.Endpoints {
				if ep.TargetRef == nil || placed[ep.TargetRef.UID] {
					continue
				}
				if w, ok := want[ep.TargetRef.UID]; ok {
					next.Endpoints = append(next.Endpoints, w)
					placed[ep.TargetRef.UID] = true
				}
			}
			group = append(group, next)
		}
		// New ones fill the slices with room, then new slices.
		for _, ep := range d.endpoints {
			if placed[ep.TargetRef.UID] {
				continue
			}
			var dst *discoveryv1.EndpointSlice
			for _, s := range group {
				if len(s.Endpoints) < c.maxEndpoints {
					dst = s
					break
				}
			}
			if dst == nil {
				dst = newEndpointSliceFor(svc, d.ports, addressType)
				group = append(group, dst)
			}
			dst.Endpoints = append(dst.Endpoints, ep)
		}
		for _, s := range group {
			switch {
			case s.ResourceVersion == "":
				toCreate = append(toCreate, s)
			case len(s.Endpoints) == 0:
				toDelete = append(toDelete, s)
			default:
				toUpdate = append(toUpdate, s)
			}
		}
	}
	for _, s := range existing {
		if !used[s.Name] {
			toDelete = append(toDelete, s)
		}
	}
	if total == 0 {
		// One placeholder slice stands for no endpoints.
		toCreate = append(toCreate, newEndpointSliceFor(svc, []discoveryv1.EndpointPort{}, addressType))
	}
	// A slice to create takes the place of one to delete, as upstream's
	// reconciler turns such pairs into updates: a Service's placeholder
	// becomes the slice of its first endpoints, and a slice left without
	// endpoints the placeholder (an update that changes nothing is not
	// written).
	for i := 0; i < len(toDelete) && len(toCreate) > 0; {
		next := toCreate[len(toCreate)-1]
		if toDelete[i].AddressType != next.AddressType {
			i++
			continue
		}
		next.Name = toDelete[i].Name
		toCreate = toCreate[:len(toCreate)-1]
		toUpdate = append(toUpdate, next)
		toDelete = slices.Delete(toDelete, i, i+1)
	}
	// Creates, updates, then deletes, in upstream's order.
	var errs []error
	for _, s := range toCreate {
		if svc.DeletionTimestamp != nil {
			break // the garbage collector is deleting the Service's slices
		}
		endpointSetTrigger(s, triggerTime)
		out, err := c.reg.Create(ctx, endpointSlicesGVR, s)
		if err != nil {
			if apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause) {
				return nil
			}
			errs = append(errs, fmt.Errorf("create endpointslice: %w", err))
			continue
		}
		c.put(out.(*discoveryv1.EndpointSlice))
	}
	for _, s := range toUpdate {
		orig := c.slices.get(s.Namespace + "/" + s.Name)
		s.Labels = endpointSliceLabels(s.Labels, svc)
		if orig != nil && apiequality.Semantic.DeepEqual(orig.Endpoints, s.Endpoints) && apiequality.Semantic.DeepEqual(orig.Ports, s.Ports) &&
			apiequality.Semantic.DeepEqual(orig.Labels, s.Labels) {
			continue
		}
		endpointSetTrigger(s, triggerTime)
		want := s.DeepCopy()
		out, err := c.reg.Update(ctx, endpointSlicesGVR, s.Namespace, s.Name, func(runtime.Object) (runtime.Object, error) { return want.DeepCopy(), nil })
		if err != nil {
			errs = append(errs, fmt.Errorf("update endpointslice %s: %w", s.Name, err))
			continue
		}
		c.put(out.(*discoveryv1.EndpointSlice))
	}
	for _, s := range toDelete {
		if _, err := c.reg.Delete(ctx, endpointSlicesGVR, s.Namespace, s.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("delete endpointslice %s: %w", s.Name, err))
		}
	}
	return errors.Join(errs...)
}

// put records a slice the controller wrote.
func (c *EndpointSlice) put(s *discoveryv1.EndpointSlice) {
	key := s.Namespace + "/" + s.Name
	old := c.slices.get(key)
	c.slices.put(key, s, s.ResourceVersion)
	c.indexSlice(key, old, c.slices.get(key))
	delete(c.src.dirty, s.Namespace+"/"+s.Labels[discoveryv1.LabelServiceName])
}

// endpointSetTrigger sets or clears a slice's last-change-trigger-time.
func endpointSetTrigger(s *discoveryv1.EndpointSlice, t time.Time) {
	if s.Annotations == nil {
		s.Annotations = map[string]string{}
	}
	if !t.IsZero() {
		s.Annotations[corev1.EndpointsLastChangeTriggerTime] = t.UTC().Format(time.RFC3339Nano)
	} else {
		delete(s.Annotations, corev1.EndpointsLastChangeTriggerTime)
	}
}

// podEndpoint is the endpoint of a pod in a Service's slices, as
// upstream's podToEndpoint makes it.
func (c *EndpointSlice) podEndpoint(pod *corev1.Pod, svc *corev1.Service, at discoveryv1.AddressType) discoveryv1.Endpoint {
	serving := isPodReady(pod)
	terminating := pod.DeletionTimestamp != nil
	ready := svc.Spec.PublishNotReadyAddresses || (serving && !terminating)
	ep := discoveryv1.Endpoint{
		Addresses:  []string{},
		Conditions: discoveryv1.EndpointConditions{Ready: &ready, Serving: &serving, Terminating: &terminating},
		TargetRef:  &corev1.ObjectReference{Kind: "Pod", Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID},
	}
	for _, pip := range pod.Status.PodIPs {
		if a, err := netip.ParseAddr(pip.IP); err == nil && a.Is6() == (at == discoveryv1.AddressTypeIPv6) {
			ep.Addresses = append(ep.Addresses, a.String())
		}
	}
	if pod.Spec.NodeName != "" {
		ep.NodeName = ptr.To(pod.Spec.NodeName)
		if z := endpointZone(c.nodes.get(pod.Spec.NodeName)); z != "" {
			ep.Zone = ptr.To(z)
		}
	}
	if endpointsliceutil.ShouldSetHostname(pod, svc) {
		ep.Hostname = ptr.To(pod.Spec.Hostname)
	}
	return ep
}

// endpointSlicePorts are the ports of a Service on a pod: each service port
// whose target port the pod resolves (by number, or by name among its
// container ports).
func endpointSlicePorts(svc *corev1.Service, pod *corev1.Pod) []discoveryv1.EndpointPort {
	out := []discoveryv1.EndpointPort{}
	if len(svc.Spec.Ports) == 0 && svc.Spec.ClusterIP == corev1.ClusterIPNone {
		return out
	}
	for i := range svc.Spec.Ports {
		sp := &svc.Spec.Ports[i]
		n, err := endpointslice.FindPort(pod, sp)
		if err != nil {
			continue
		}
		out = append(out, discoveryv1.EndpointPort{Name: ptr.To(sp.Name), Port: ptr.To(int32(n)), Protocol: ptr.To(sp.Protocol), AppProtocol: sp.AppProtocol})
	}
	return out
}

// newEndpointSliceFor is a new, empty slice of the Service.
func newEndpointSliceFor(svc *corev1.Service, ports []discoveryv1.EndpointPort, at discoveryv1.AddressType) *discoveryv1.EndpointSlice {
	prefix := svc.Name + "-"
	if len(apivalidation.NameIsDNSSubdomain(prefix, true)) != 0 {
		prefix = svc.Name
	}
	return &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{
			GenerateName:    prefix,
			Namespace:       svc.Namespace,
			Labels:          endpointSliceLabels(nil, svc),
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(svc, corev1.SchemeGroupVersion.WithKind("Service"))},
		},
		Ports:       ports,
		AddressType: at,
		Endpoints:   []discoveryv1.Endpoint{},
	}
}

// endpointSliceReserved reports whether a label is one the controller
// owns on its slices.
func endpointSliceReserved(k string) bool {
	return k == discoveryv1.LabelServiceName || k == discoveryv1.LabelManagedBy || k == corev1.IsHeadlessService
}

// endpointSliceLabels are a slice's labels: the Service's (less the
// reserved ones), the headless label when it has no cluster IP, the
// service name and managed-by.
func endpointSliceLabels(_ map[string]string, svc *corev1.Service) map[string]string {
	out := map[string]string{}
	for k, v := range svc.Labels {
		if !endpointSliceReserved(k) {
			out[k] = v
		}
	}
	if !endpointServiceIPSet(svc) {
		out[corev1.IsHeadlessService] = ""
	}
	out[discoveryv1.LabelServiceName] = svc.Name
	out[discoveryv1.LabelManagedBy] = endpointSliceControllerName
	return out
}
