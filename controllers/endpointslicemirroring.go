package controllers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
	endpointsliceutil "k8s.io/endpointslice/util"
	netutils "k8s.io/utils/net"

	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
)

// endpointSliceMirroringName is the endpointslice.kubernetes.io/managed-by
// value of the slices the mirroring controller manages.
const endpointSliceMirroringName = "endpointslicemirroring-controller.k8s.io"

// mirroringMaxEndpointsPerSubset is kube-controller-manager's default
// --mirroring-max-endpoints-per-subset.
const mirroringMaxEndpointsPerSubset = 1000

// leaderElectionAnnotation marks an Endpoints object used as a leader
// election lock, which is not mirrored.
const leaderElectionAnnotation = "control-plane.alpha.kubernetes.io/leader"

// EndpointSliceMirroring is kube-controller-manager's
// endpointslice-mirroring-controller: the Endpoints of a Service without a
// selector (written by a client, not the endpoints controller) are mirrored
// into EndpointSlices, one per address type and port set, owned by the
// Endpoints, named <service>-<5 chars> and labelled with the Endpoints'
// labels, kubernetes.io/service-name and endpointslice.kubernetes.io/managed-by
// (annotations copied but the last-applied configuration and the trigger
// time), with at most 1000 addresses per subset; invalid IPs are skipped
// with an event. The slices go when the Endpoints or the Service go, when
// the Service gets a selector, or when the Endpoints are labelled
// endpointslice.kubernetes.io/skip-mirror=true or are a leader election lock.
type EndpointSliceMirroring struct {
	reg  registry.Interface
	log  *slog.Logger
	user user.Info
	rec  *Recorder
	// services tells, by store key, whether a Service has a selector.
	services map[string]bool
	// endpoints are the Endpoints by store key.
	endpoints map[string]*corev1.Endpoints
	// mirrored are the slices the controller manages, by the store key of
	// their Service, then by name.
	mirrored map[string]map[string]*discoveryv1.EndpointSlice
	// sliceService maps a managed slice's store key to its Service's key.
	sliceService map[string]string
	// dirty are the Services' keys to reconcile.
	dirty map[string]bool
}

// NewEndpointSliceMirroring returns the mirroring controller, writing
// through reg.
func NewEndpointSliceMirroring(reg registry.Interface, log *slog.Logger) *EndpointSliceMirroring {
	if log == nil {
		log = slog.Default()
	}
	u := controllerUser("endpointslicemirroring-controller")
	return &EndpointSliceMirroring{
		reg: reg, log: log, user: u,
		rec:          NewRecorder(reg, "endpoint-slice-mirroring-controller", u, nil, log),
		services:     map[string]bool{},
		endpoints:    map[string]*corev1.Endpoints{},
		mirrored:     map[string]map[string]*discoveryv1.EndpointSlice{},
		sliceService: map[string]string{},
		dirty:        map[string]bool{},
	}
}

// Name implements Controller.
func (c *EndpointSliceMirroring) Name() string { return EndpointSliceMirroringName }

// Resources implements Controller.
func (c *EndpointSliceMirroring) Resources() []string {
	return []string{servicesBucket, endpointsBucket, endpointSlicesBucket}
}

// Sync implements Controller.
func (c *EndpointSliceMirroring) Sync(ctx context.Context, events []store.Event) error {
	for _, ev := range events {
		switch ev.Resource {
		case servicesBucket:
			svc, err := decodeEvent[corev1.Service](ev)
			if err != nil {
				continue
			}
			if ev.Type == store.Deleted {
				delete(c.services, ev.Key)
			} else {
				c.services[ev.Key] = svc.Spec.Selector != nil
			}
			c.dirty[ev.Key] = true
		case endpointsBucket:
			if _, err := trackEvent(c.endpoints, ev); err != nil {
				c.log.Warn("undecodable Endpoints", "key", ev.Key, "err", err)
			}
			c.dirty[ev.Key] = true
		case endpointSlicesBucket:
			c.observeSlice(ev)
		}
	}
	ctx = registry.WithFieldManager(apirequest.WithUser(ctx, c.user), "kube-controller-manager")
	var errs []error
	for _, k := range sortedKeys(c.dirty) {
		if err := c.reconcile(ctx, k); err != nil {
			errs = append(errs, err)
			continue
		}
		delete(c.dirty, k)
	}
	return errors.Join(errs...)
}

// observeSlice keeps the slices the controller manages; a change to one
// (by anyone) makes its Service's mirror reconciled again.
func (c *EndpointSliceMirroring) observeSlice(ev store.Event) {
	if old, ok := c.sliceService[ev.Key]; ok {
		delete(c.mirrored[old], ev.Key)
		delete(c.sliceService, ev.Key)
		c.dirty[old] = true
	}
	if ev.Type == store.Deleted {
		return
	}
	// The endpointslice controller's slices, most of them, are told from
	// their labels alone.
	head, err := decodeEvent[struct {
		Metadata struct {
			Labels map[string]string `json:"labels"`
		} `json:"metadata"`
	}](ev)
	if err != nil || head.Metadata.Labels[discoveryv1.LabelManagedBy] != endpointSliceMirroringName {
		return
	}
	slice, err := decodeEvent[discoveryv1.EndpointSlice](ev)
	if err != nil {
		return
	}
	svc := slice.Labels[discoveryv1.LabelServiceName]
	if svc == "" {
		return
	}
	key := registry.ObjectKey(slice.Namespace, svc)
	if c.mirrored[key] == nil {
		c.mirrored[key] = map[string]*discoveryv1.EndpointSlice{}
	}
	c.mirrored[key][ev.Key] = slice
	c.sliceService[ev.Key] = key
	c.dirty[key] = true
}

// shouldMirror is upstream's: Endpoints not marked skip-mirror and not a
// leader election lock.
func shouldMirror(ep *corev1.Endpoints) bool {
	_, lock := ep.Annotations[leaderElectionAnnotation]
	return ep.Labels[discoveryv1.LabelSkipMirror] != "true" && !lock
}

// reconcile brings the mirror of the Endpoints at key in line.
func (c *EndpointSliceMirroring) reconcile(ctx context.Context, key string) error {
	existing := make([]*discoveryv1.EndpointSlice, 0, len(c.mirrored[key]))
	for _, k := range sortedKeys(c.mirrored[key]) {
		existing = append(existing, c.mirrored[key][k])
	}
	ep, ok := c.endpoints[key]
	hasSelector, svcOK := c.services[key]
	if !ok || !shouldMirror(ep) || !svcOK || hasSelector {
		return c.deleteSlices(ctx, existing)
	}

	// The desired endpoints, by address type and port set.
	type portKey struct {
		addressType discoveryv1.AddressType
		ports       string
	}
	desired := map[portKey][]discoveryv1.Endpoint{}
	portsOf := map[portKey][]discoveryv1.EndpointPort{}
	var keyOrder []portKey
	invalid, skipped := 0, 0
	for _, subset := range endpointRepack(ep.Subsets) {
		ports := mirroredPorts(subset.Ports)
		pm := string(endpointsliceutil.NewPortMapKey(ports))
		for _, at := range []discoveryv1.AddressType{discoveryv1.AddressTypeIPv4, discoveryv1.AddressTypeIPv6} {
			k := portKey{at, pm}
			if _, ok := portsOf[k]; !ok {
				keyOrder = append(keyOrder, k)
				desired[k] = nil
			}
			portsOf[k] = ports
		}
		added := 0
		for i, addr := range append(append([]corev1.EndpointAddress{}, subset.Addresses...), subset.NotReadyAddresses...) {
			if added >= mirroringMaxEndpointsPerSubset {
				break
			}
			e, at, ok := mirroredEndpoint(addr, i < len(subset.Addresses))
			if !ok {
				invalid++
				continue
			}
			k := portKey{at, pm}
			desired[k] = append(desired[k], e)
			added++
		}
		skipped += len(subset.Addresses) + len(subset.NotReadyAddresses) - added
	}
	if invalid > 0 {
		c.rec.Eventf(ctx, EventRef("v1", "Endpoints", ep), corev1.EventTypeWarning, "InvalidIPAddress",
			"Skipped %d invalid IP addresses when mirroring to EndpointSlices", invalid)
	}
	if skipped > invalid {
		c.rec.Eventf(ctx, EventRef("v1", "Endpoints", ep), corev1.EventTypeWarning, "TooManyAddressesToMirror",
			"A max of %d addresses can be mirrored to EndpointSlices per Endpoints subset. %d addresses were skipped", mirroringMaxEndpointsPerSubset, skipped)
	}

	existingByKey := map[portKey][]*discoveryv1.EndpointSlice{}
	for _, s := range existing {
		k := portKey{s.AddressType, string(endpointsliceutil.NewPortMapKey(s.Ports))}
		existingByKey[k] = append(existingByKey[k], s)
	}
	var toCreate, toUpdate, toDelete []*discoveryv1.EndpointSlice
	for _, k := range keyOrder {
		want, have := desired[k], existingByKey[k]
		if len(want) == 0 {
			toDelete = append(toDelete, have...)
			continue
		}
		name := ""
		if len(have) > 0 {
			toDelete = append(toDelete, have[1:]...)
			if c.mirrorCurrent(ep, have[0], want) {
				continue
			}
			name = have[0].Name
		}
		slice := newMirroredSlice(ep, portsOf[k], k.addressType, name, want)
		if name == "" {
			toCreate = append(toCreate, slice)
		} else {
			toUpdate = append(toUpdate, slice)
		}
	}
	for k, have := range existingByKey {
		if _, ok := desired[k]; !ok {
			toDelete = append(toDelete, have...)
		}
	}
	// A slice to create takes the name of one to delete of its address
	// type (keeping its generateName), as upstream's recycleSlices.
	for i := 0; i < len(toCreate); i++ {
		for j, d := range toDelete {
			if d.AddressType == toCreate[i].AddressType {
				toCreate[i].Name = d.Name
				toUpdate = append(toUpdate, toCreate[i])
				toCreate = append(toCreate[:i], toCreate[i+1:]...)
				toDelete = append(toDelete[:j], toDelete[j+1:]...)
				i--
				break
			}
		}
	}
	var errs []error
	if ep.DeletionTimestamp == nil {
		for _, s := range toCreate {
			if _, err := c.reg.Create(ctx, endpointSlicesGVR, s); err != nil && !apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause) {
				errs = append(errs, fmt.Errorf("failed to create EndpointSlice for Endpoints %s/%s: %w", ep.Namespace, ep.Name, err))
			}
		}
	}
	for _, s := range toUpdate {
		if _, err := c.reg.Update(ctx, endpointSlicesGVR, s.Namespace, s.Name, func(runtime.Object) (runtime.Object, error) { return s.DeepCopy(), nil }); err != nil {
			errs = append(errs, fmt.Errorf("failed to update %s EndpointSlice for Endpoints %s/%s: %w", s.Name, ep.Namespace, ep.Name, err))
		}
	}
	if err := c.deleteSlices(ctx, toDelete); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// mirrorCurrent reports whether a slice already mirrors want with the
// Endpoints' labels and annotations, as upstream's no-change check does.
func (c *EndpointSliceMirroring) mirrorCurrent(ep *corev1.Endpoints, have *discoveryv1.EndpointSlice, want []discoveryv1.Endpoint) bool {
	for _, o := range have.OwnerReferences {
		if o.Kind == "Endpoints" && o.Name == ep.Name && o.UID != ep.UID {
			return false
		}
	}
	labels := maps.Clone(have.Labels)
	delete(labels, discoveryv1.LabelManagedBy)
	delete(labels, discoveryv1.LabelServiceName)
	if !apiequality.Semantic.DeepEqual(nonEmpty(ep.Labels), nonEmpty(labels)) ||
		!apiequality.Semantic.DeepEqual(nonEmpty(mirroredAnnotations(ep)), nonEmpty(have.Annotations)) {
		return false
	}
	return apiequality.Semantic.DeepEqual(sortedEndpoints(have.Endpoints), sortedEndpoints(want))
}

// nonEmpty is m, or nil when it is empty (an empty map and none compare
// equal).
func nonEmpty(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return m
}

// sortedEndpoints orders endpoints by their first address, for comparing
// sets.
func sortedEndpoints(eps []discoveryv1.Endpoint) []discoveryv1.Endpoint {
	out := append([]discoveryv1.Endpoint(nil), eps...)
	sort.SliceStable(out, func(i, j int) bool { return strings.Join(out[i].Addresses, ",") < strings.Join(out[j].Addresses, ",") })
	return out
}

// deleteSlices deletes mirrored slices.
func (c *EndpointSliceMirroring) deleteSlices(ctx context.Context, slices []*discoveryv1.EndpointSlice) error {
	var errs []error
	for _, s := range slices {
		if _, err := c.reg.Delete(ctx, endpointSlicesGVR, s.Namespace, s.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("delete EndpointSlice %s/%s: %w", s.Namespace, s.Name, err))
		}
	}
	return errors.Join(errs...)
}

// mirroredAnnotations are the Endpoints' annotations a mirror carries.
func mirroredAnnotations(ep *corev1.Endpoints) map[string]string {
	out := map[string]string{}
	for k, v := range ep.Annotations {
		if k != corev1.EndpointsLastChangeTriggerTime && k != corev1.LastAppliedConfigAnnotation {
			out[k] = v
		}
	}
	return out
}

// newMirroredSlice is upstream's newEndpointSlice with its endpoints.
func newMirroredSlice(ep *corev1.Endpoints, ports []discoveryv1.EndpointPort, at discoveryv1.AddressType, name string, endpoints []discoveryv1.Endpoint) *discoveryv1.EndpointSlice {
	labels := maps.Clone(ep.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[discoveryv1.LabelServiceName] = ep.Name
	labels[discoveryv1.LabelManagedBy] = endpointSliceMirroringName
	s := &discoveryv1.EndpointSlice{
		TypeMeta: metav1.TypeMeta{APIVersion: "discovery.k8s.io/v1", Kind: "EndpointSlice"},
		ObjectMeta: metav1.ObjectMeta{
			Namespace: ep.Namespace, Name: name, Labels: labels, Annotations: mirroredAnnotations(ep),
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(ep, corev1.SchemeGroupVersion.WithKind("Endpoints"))},
		},
		AddressType: at,
		Ports:       ports,
		Endpoints:   append([]discoveryv1.Endpoint{}, endpoints...),
	}
	if name == "" {
		s.GenerateName = ep.Name + "-"
	}
	return s
}

// mirroredPorts are a subset's ports as a slice's.
func mirroredPorts(ports []corev1.EndpointPort) []discoveryv1.EndpointPort {
	out := []discoveryv1.EndpointPort{}
	for _, p := range ports {
		p := p
		out = append(out, discoveryv1.EndpointPort{Name: &p.Name, Port: &p.Port, Protocol: &p.Protocol, AppProtocol: p.AppProtocol})
	}
	return out
}

// mirroredEndpoint is upstream's addressToEndpoint: false for an address
// that is not an IP.
func mirroredEndpoint(addr corev1.EndpointAddress, ready bool) (discoveryv1.Endpoint, discoveryv1.AddressType, bool) {
	ip := netutils.ParseIPSloppy(addr.IP)
	if ip == nil {
		return discoveryv1.Endpoint{}, "", false
	}
	at := discoveryv1.AddressTypeIPv4
	if ip.To4() == nil {
		at = discoveryv1.AddressTypeIPv6
	}
	e := discoveryv1.Endpoint{
		Addresses:  []string{ip.String()},
		Conditions: discoveryv1.EndpointConditions{Ready: &ready},
		TargetRef:  addr.TargetRef,
		NodeName:   addr.NodeName,
	}
	if addr.Hostname != "" {
		h := addr.Hostname
		e.Hostname = &h
	}
	return e, at, true
}
