package controllers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"math"
	"net/netip"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/dump"
	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/endpointslice"
	endpointsliceutil "k8s.io/endpointslice/util"

	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
)

const endpointsBucket = "/endpoints"

var endpointsGVR = schema.GroupVersionResource{Version: "v1", Resource: "endpoints"}

// Labels and values of the Endpoints the endpoints controller manages.
const (
	endpointsManagedByLabel = "endpoints.kubernetes.io/managed-by"
	endpointsControllerName = "endpoint-controller"
)

// Endpoints keeps the Endpoints of every Service with a selector (not of
// type ExternalName), as kube-controller-manager's endpoints-controller
// does: an Endpoints named as the Service, with the Service's labels and
// endpoints.kubernetes.io/managed-by, whose subsets list the matching pods
// that have an IP (ready ones in addresses, the others in
// notReadyAddresses; terminating ones only with publishNotReadyAddresses)
// with the ports the Service's target ports resolve to, packed and sorted
// as upstream packs them, and the last-change-trigger-time annotation. The
// Endpoints of a deleted Service are deleted. It writes as
// kube-system/endpoint-controller.
type Endpoints struct {
	reg     registry.Interface
	log     *slog.Logger
	user    user.Info
	rec     *Recorder
	src     *endpointSources
	current *jobCache[corev1.Endpoints]
	trigger *endpointsliceutil.TriggerTimeTracker
}

// NewEndpoints returns the endpoints controller.
func NewEndpoints(reg registry.Interface, log *slog.Logger) *Endpoints {
	if log == nil {
		log = slog.Default()
	}
	u := controllerUser("endpoint-controller")
	return &Endpoints{reg: reg, log: log, user: u,
		rec:     NewRecorder(reg, endpointsControllerName, u, nil, log),
		src:     newEndpointSources(),
		current: newJobCache[corev1.Endpoints](),
		trigger: endpointsliceutil.NewTriggerTimeTracker(),
	}
}

// Name implements Controller.
func (c *Endpoints) Name() string { return EndpointsName }

// Resources implements Controller.
func (c *Endpoints) Resources() []string {
	return []string{servicesBucket, podsBucket, endpointsBucket}
}

// Sync implements Controller.
func (c *Endpoints) Sync(ctx context.Context, events []store.Event) error {
	for _, ev := range events {
		handled, err := c.src.observe(ev)
		if !handled && ev.Resource == endpointsBucket {
			var ok bool
			_, _, ok, err = c.current.apply(ev)
			// As upstream's controller, which handles only the deletion of
			// Endpoints (to write them again for their Service): Endpoints
			// written by others, a Service's or not, stay as they are
			// until their Service or its Pods change.
			if ok && ev.Type == store.Deleted {
				c.src.dirty[ev.Key] = true
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

func (c *Endpoints) sync(ctx context.Context, key string) error {
	ns, name := splitKey(key)
	svc := c.src.services.get(key)
	if svc == nil {
		// The Service is gone: so are its Endpoints (the Event of a
		// deletion that happened before the controller started is lost,
		// as upstream's is).
		if c.current.get(key) == nil {
			return nil
		}
		_, err := c.reg.Delete(ctx, endpointsGVR, ns, name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		c.trigger.DeleteService(ns, name)
		return nil
	}
	if svc.Spec.Type == corev1.ServiceTypeExternalName || svc.Spec.Selector == nil {
		return nil
	}
	pods := c.src.podsFor(svc)
	triggerTime := c.trigger.ComputeEndpointLastChangeTriggerTime(ns, svc, pods)
	subsets := endpointSubsets(svc, pods)

	cur := c.current.get(key)
	if cur != nil && apiequality.Semantic.DeepEqual(endpointIgnoreRV(cur.Subsets), endpointIgnoreRV(subsets)) &&
		endpointLabelsCorrect(cur.Labels, svc) && endpointCapacityAnnotationCorrect(cur) {
		return nil
	}
	next := &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}
	if cur != nil {
		next = cur.DeepCopy()
	}
	next.Subsets = subsets
	next.Labels = map[string]string{}
	for k, v := range svc.Labels {
		next.Labels[k] = v
	}
	if next.Annotations == nil {
		next.Annotations = map[string]string{}
	}
	if !triggerTime.IsZero() {
		next.Annotations[corev1.EndpointsLastChangeTriggerTime] = triggerTime.UTC().Format(time.RFC3339Nano)
	} else {
		delete(next.Annotations, corev1.EndpointsLastChangeTriggerTime)
	}
	if endpointTruncate(next) {
		next.Annotations[corev1.EndpointsOverCapacity] = "truncated"
	} else {
		delete(next.Annotations, corev1.EndpointsOverCapacity)
	}
	if !endpointServiceIPSet(svc) {
		next.Labels[corev1.IsHeadlessService] = ""
	} else {
		delete(next.Labels, corev1.IsHeadlessService)
	}
	next.Labels[endpointsManagedByLabel] = endpointsControllerName
	var out runtime.Object
	var err error
	if cur == nil {
		out, err = c.reg.Create(ctx, endpointsGVR, next)
	} else {
		out, err = c.reg.Update(ctx, endpointsGVR, ns, name, func(runtime.Object) (runtime.Object, error) { return next.DeepCopy(), nil })
	}
	if err != nil {
		if apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause) {
			return nil
		}
		ref := corev1.ObjectReference{Kind: "Endpoints", APIVersion: "v1", Namespace: ns, Name: name, UID: next.UID, ResourceVersion: next.ResourceVersion}
		if cur == nil {
			c.rec.Eventf(ctx, ref, corev1.EventTypeWarning, "FailedToCreateEndpoint", "Failed to create endpoint for service %v/%v: %v", ns, name, err)
		} else {
			c.rec.Eventf(ctx, ref, corev1.EventTypeWarning, "FailedToUpdateEndpoint", "Failed to update endpoint %v/%v: %v", ns, name, err)
		}
		return err
	}
	ep := out.(*corev1.Endpoints)
	c.current.put(key, ep, ep.ResourceVersion)
	return nil
}

// endpointsMaxCapacity is the most addresses an Endpoints keeps.
const endpointsMaxCapacity = 1000

// endpointCapacityAnnotationCorrect reports whether Endpoints within
// capacity are without the over-capacity annotation (Endpoints over it are
// always rewritten, as upstream rewrites them).
func endpointCapacityAnnotationCorrect(ep *corev1.Endpoints) bool {
	n := 0
	for _, s := range ep.Subsets {
		n += len(s.Addresses) + len(s.NotReadyAddresses)
	}
	_, annotated := ep.Annotations[corev1.EndpointsOverCapacity]
	return n <= endpointsMaxCapacity && !annotated
}

// endpointTruncate cuts Endpoints down to endpointsMaxCapacity addresses
// as upstream does: not-ready addresses go first; each subset keeps its
// share, rounded up. It reports whether it cut anything.
func endpointTruncate(ep *corev1.Endpoints) bool {
	ready, notReady := 0, 0
	for _, s := range ep.Subsets {
		ready += len(s.Addresses)
		notReady += len(s.NotReadyAddresses)
	}
	if ready+notReady <= endpointsMaxCapacity {
		return false
	}
	truncateReady := ready > endpointsMaxCapacity
	limit, total := endpointsMaxCapacity-ready, notReady
	if truncateReady {
		limit, total = endpointsMaxCapacity, ready
	}
	left := limit
	for i := range ep.Subsets {
		s := &ep.Subsets[i]
		n := len(s.NotReadyAddresses)
		if truncateReady {
			n = len(s.Addresses)
		}
		share := min(int(math.Ceil(float64(n)/float64(total)*float64(limit))), left)
		if truncateReady {
			s.Addresses = s.Addresses[:min(len(s.Addresses), share)]
			s.NotReadyAddresses = []corev1.EndpointAddress{}
			left -= len(s.Addresses)
		} else {
			s.NotReadyAddresses = s.NotReadyAddresses[:min(len(s.NotReadyAddresses), share)]
			left -= len(s.NotReadyAddresses)
		}
	}
	return true
}

// endpointLabelsCorrect reports whether Endpoints carry the managed-by
// label and every label of the Service, as upstream checks.
func endpointLabelsCorrect(have map[string]string, svc *corev1.Service) bool {
	if have[endpointsManagedByLabel] != endpointsControllerName {
		return false
	}
	for k, v := range svc.Labels {
		if got, ok := have[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// endpointIgnoreRV is subsets without the pods' resourceVersions, which
// upstream leaves out of its comparison.
func endpointIgnoreRV(subsets []corev1.EndpointSubset) []corev1.EndpointSubset {
	out := make([]corev1.EndpointSubset, len(subsets))
	for i := range subsets {
		s := subsets[i].DeepCopy()
		for _, l := range [][]corev1.EndpointAddress{s.Addresses, s.NotReadyAddresses} {
			for j := range l {
				if l[j].TargetRef != nil {
					l[j].TargetRef.ResourceVersion = ""
				}
			}
		}
		out[i] = *s
	}
	return out
}

// endpointSubsets are the subsets of a Service's Endpoints from its pods.
func endpointSubsets(svc *corev1.Service, pods []*corev1.Pod) []corev1.EndpointSubset {
	var subsets []corev1.EndpointSubset
	wantIPv6 := endpointWantsIPv6(svc)
	for _, pod := range pods {
		if !endpointsliceutil.ShouldPodBeInEndpoints(pod, svc.Spec.PublishNotReadyAddresses) {
			continue
		}
		ip := ""
		for _, pip := range pod.Status.PodIPs {
			if a, err := netip.ParseAddr(pip.IP); err == nil && a.Is6() == wantIPv6 {
				ip = a.String()
				break
			}
		}
		if ip == "" {
			continue
		}
		addr := corev1.EndpointAddress{IP: ip, NodeName: &pod.Spec.NodeName,
			TargetRef: &corev1.ObjectReference{Kind: "Pod", Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID}}
		if endpointsliceutil.ShouldSetHostname(pod, svc) {
			addr.Hostname = pod.Spec.Hostname
		}
		ready := svc.Spec.PublishNotReadyAddresses || isPodReady(pod)
		add := func(ports []corev1.EndpointPort) {
			s := corev1.EndpointSubset{Ports: ports}
			if ready {
				s.Addresses = []corev1.EndpointAddress{addr}
			} else {
				s.NotReadyAddresses = []corev1.EndpointAddress{addr}
			}
			subsets = append(subsets, s)
		}
		if len(svc.Spec.Ports) == 0 {
			if svc.Spec.ClusterIP == corev1.ClusterIPNone {
				add([]corev1.EndpointPort{})
			}
			continue
		}
		for i := range svc.Spec.Ports {
			sp := &svc.Spec.Ports[i]
			port, err := endpointslice.FindPort(pod, sp)
			if err != nil {
				continue
			}
			add([]corev1.EndpointPort{{Name: sp.Name, Port: int32(port), Protocol: sp.Protocol, AppProtocol: sp.AppProtocol}})
		}
	}
	return endpointRepack(subsets)
}

// endpointRepack packs subsets as upstream's RepackSubsets does: the
// addresses that offer the same ports share a subset (an address not ready
// on one port is not ready on all), and the subsets, their addresses and
// ports are sorted as upstream sorts them.
func endpointRepack(subsets []corev1.EndpointSubset) []corev1.EndpointSubset {
	type addrKey struct {
		ip  string
		uid types.UID
	}
	keyOf := func(a *corev1.EndpointAddress) addrKey {
		k := addrKey{ip: a.IP}
		if a.TargetRef != nil {
			k.uid = a.TargetRef.UID
		}
		return k
	}
	all := map[addrKey]corev1.EndpointAddress{}
	noPort := corev1.EndpointPort{Port: -1}
	byPort := map[corev1.EndpointPort]map[addrKey]bool{}
	var portOrder []corev1.EndpointPort
	mark := func(port corev1.EndpointPort, a *corev1.EndpointAddress, ready bool) {
		k := keyOf(a)
		if _, ok := all[k]; !ok {
			all[k] = *a
		}
		if byPort[port] == nil {
			byPort[port] = map[addrKey]bool{}
			portOrder = append(portOrder, port)
		}
		if was, ok := byPort[port][k]; !ok || was {
			byPort[port][k] = ready
		}
	}
	for i := range subsets {
		ports := subsets[i].Ports
		if len(ports) == 0 {
			ports = []corev1.EndpointPort{noPort}
		}
		for _, p := range ports {
			for j := range subsets[i].Addresses {
				mark(p, &subsets[i].Addresses[j], true)
			}
			for j := range subsets[i].NotReadyAddresses {
				mark(p, &subsets[i].NotReadyAddresses[j], false)
			}
		}
	}
	// Ports whose address sets are equal share a subset.
	setKey := func(m map[addrKey]bool) string {
		keys := make([]string, 0, len(m))
		for k, r := range m {
			keys = append(keys, fmt.Sprintf("%s|%s|%t", k.ip, k.uid, r))
		}
		sort.Strings(keys)
		return fmt.Sprint(keys)
	}
	groups := map[string]*corev1.EndpointSubset{}
	var order []string
	for _, p := range portOrder {
		sk := setKey(byPort[p])
		g, ok := groups[sk]
		if !ok {
			g = &corev1.EndpointSubset{}
			for k, ready := range byPort[p] {
				if ready {
					g.Addresses = append(g.Addresses, all[k])
				} else {
					g.NotReadyAddresses = append(g.NotReadyAddresses, all[k])
				}
			}
			groups[sk] = g
			order = append(order, sk)
		}
		if p.Port > 0 {
			g.Ports = append(g.Ports, p)
		}
	}
	final := make([]corev1.EndpointSubset, 0, len(order))
	for _, sk := range order {
		final = append(final, *groups[sk])
	}
	for i := range final {
		s := &final[i]
		endpointSortAddresses(s.Addresses)
		endpointSortAddresses(s.NotReadyAddresses)
		sort.SliceStable(s.Ports, func(a, b int) bool { return bytes.Compare(endpointHash(s.Ports[a]), endpointHash(s.Ports[b])) < 0 })
	}
	sort.SliceStable(final, func(a, b int) bool { return bytes.Compare(endpointHash(final[a]), endpointHash(final[b])) < 0 })
	return final
}

// endpointSortAddresses sorts addresses by IP, then target uid.
func endpointSortAddresses(as []corev1.EndpointAddress) {
	sort.SliceStable(as, func(i, j int) bool {
		a, b := &as[i], &as[j]
		if c := bytes.Compare([]byte(a.IP), []byte(b.IP)); c != 0 {
			return c < 0
		}
		if b.TargetRef == nil {
			return false
		}
		if a.TargetRef == nil {
			return true
		}
		return a.TargetRef.UID < b.TargetRef.UID
	})
}

// endpointHash is the hash upstream orders subsets and ports by (FNV-128a
// of the object as dump.ForHash prints it).
func endpointHash(obj any) []byte {
	h := fnv.New128a()
	fmt.Fprintf(h, "%v", dump.ForHash(obj))
	return h.Sum(nil)
}
