package aggregator

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sort"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/client-go/transport"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	apiregistrationv1helper "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1/helper"

	"github.com/fakeplane/fakeplane/controllers"
	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
)

// DefaultAvailabilityInterval is how often upstream's availability
// controller checks every remote APIService again (30s).
const DefaultAvailabilityInterval = 30 * time.Second

// Store buckets the availability controller follows.
const (
	servicesBucket       = "/services"
	endpointsBucket      = "/endpoints"
	endpointSlicesBucket = "discovery.k8s.io/endpointslices"
)

// discoveryAttempts and the timeouts are upstream's: five concurrent GETs
// of /apis/<group>/<version>, one success is enough.
const (
	discoveryAttempts     = 5
	discoveryCheckTimeout = 5 * time.Second
	discoveryCheckWait    = 6 * time.Second
)

var _ controllers.Controller = (*AvailableConditionController)(nil)

// AvailableConditionController keeps the Available condition of every
// APIService current, as kube-aggregator's remote availability controller
// does (and its local one, for APIServices without a service): a remote
// APIService is Available when its Service exists, listens on the port,
// has a ready endpoint with the port's name, and answers a GET of
// /apis/<group>/<version> with a 2xx or 3xx as system:kube-aggregator in
// system:masters through the front-proxy client certificate. The reasons
// and messages are upstream's: ServiceNotFound, ServicePortError,
// EndpointsNotFound, MissingEndpoints, FailedDiscoveryCheck, Passed (and
// Local). It checks an APIService again when it, its Service, Endpoints or
// EndpointSlices change, and all of them every Interval.
//
// Without an endpoint-slice mirroring controller in the control plane, an
// Endpoints object counts as the EndpointSlice kube-controller-manager
// would mirror from it.
//
// When a check passes, it also downloads the group/version's discovery for
// aggregated discovery (Proxy.Discovery); when it fails, that is marked
// Stale.
type AvailableConditionController struct {
	reg   registry.Interface
	proxy *Proxy
	log   *slog.Logger
	user  user.Info
	// Interval is the period of the check of every remote APIService
	// (default DefaultAvailabilityInterval). Set it before the controller runs.
	Interval time.Duration
	// Now returns the time conditions are stamped with (time.Now when nil).
	Now func() time.Time

	apiServices map[string]*apiregistrationv1.APIService
	services    map[string]*corev1.Service
	endpoints   map[string]*corev1.Endpoints
	slices      map[string]*discoveryv1.EndpointSlice
	dirty       map[string]bool
	lastAll     time.Time
}

// NewAvailableConditionController returns the availability controller for
// the APIServices proxy routes, writing status through reg.
func NewAvailableConditionController(reg registry.Interface, proxy *Proxy, log *slog.Logger) *AvailableConditionController {
	if log == nil {
		log = slog.Default()
	}
	return &AvailableConditionController{
		reg:         reg,
		proxy:       proxy,
		log:         log,
		user:        &user.DefaultInfo{Name: user.APIServerUser, Groups: []string{user.SystemPrivilegedGroup}},
		Interval:    DefaultAvailabilityInterval,
		apiServices: map[string]*apiregistrationv1.APIService{},
		services:    map[string]*corev1.Service{},
		endpoints:   map[string]*corev1.Endpoints{},
		slices:      map[string]*discoveryv1.EndpointSlice{},
		dirty:       map[string]bool{},
	}
}

// Name implements controllers.Controller.
func (c *AvailableConditionController) Name() string {
	return "apiservice-available-condition-controller"
}

// Resources implements controllers.Controller.
func (c *AvailableConditionController) Resources() []string {
	return []string{apiServiceBucket, servicesBucket, endpointsBucket, endpointSlicesBucket}
}

// Sync implements controllers.Controller. It always asks to be called
// again for the next periodic check.
func (c *AvailableConditionController) Sync(ctx context.Context, events []store.Event) error {
	for _, ev := range events {
		c.observe(ev)
	}
	now := time.Now() // the schedule follows the real clock, even with Now set
	interval := c.Interval
	if interval <= 0 {
		interval = DefaultAvailabilityInterval
	}
	if now.Sub(c.lastAll) >= interval {
		c.lastAll = now
		for name := range c.apiServices {
			c.dirty[name] = true
		}
	}
	names := make([]string, 0, len(c.dirty))
	for name := range c.dirty {
		names = append(names, name)
	}
	sort.Strings(names)
	wctx := registry.WithFieldManager(apirequest.WithUser(ctx, c.user), "kube-apiserver")
	var errs []error
	for _, name := range names {
		if ctx.Err() != nil {
			break
		}
		delete(c.dirty, name)
		as, ok := c.apiServices[name]
		if !ok {
			continue
		}
		if err := c.sync(wctx, as); err != nil {
			errs = append(errs, fmt.Errorf("APIService %s: %w", name, err))
			c.dirty[name] = true
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	next := interval - time.Since(c.lastAll)
	if next < 0 {
		next = 0
	}
	return &controllers.Requeue{After: next}
}

func (c *AvailableConditionController) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// observe updates the controller's view with one change and marks the
// APIServices it concerns.
func (c *AvailableConditionController) observe(ev store.Event) {
	switch ev.Resource {
	case apiServiceBucket:
		if ev.Type == store.Deleted {
			delete(c.apiServices, ev.Key)
			delete(c.dirty, ev.Key)
			return
		}
		as := &apiregistrationv1.APIService{}
		if err := registry.DecodeWithoutManagedFields(ev.Value, as); err != nil {
			c.log.Error("decode APIService", "key", ev.Key, "err", err)
			return
		}
		// Any change calls for a check, as upstream's informer handler
		// queues every update: a status someone else wrote is put right
		// (the controller's own writes check again and change nothing).
		c.apiServices[ev.Key] = as
		c.dirty[ev.Key] = true
	case servicesBucket:
		decodeInto(c, ev, c.services, func() *corev1.Service { return &corev1.Service{} })
		c.markService(ev.Key)
	case endpointsBucket:
		decodeInto(c, ev, c.endpoints, func() *corev1.Endpoints { return &corev1.Endpoints{} })
		c.markService(ev.Key)
	case endpointSlicesBucket:
		if old, ok := c.slices[ev.Key]; ok {
			c.markService(old.Namespace + "/" + old.Labels[discoveryv1.LabelServiceName])
		}
		decodeInto(c, ev, c.slices, func() *discoveryv1.EndpointSlice { return &discoveryv1.EndpointSlice{} })
		if es, ok := c.slices[ev.Key]; ok {
			c.markService(es.Namespace + "/" + es.Labels[discoveryv1.LabelServiceName])
		}
	}
}

// decodeInto keeps the object of an event in m (or drops it).
func decodeInto[T any](c *AvailableConditionController, ev store.Event, m map[string]*T, newT func() *T) {
	if ev.Type == store.Deleted {
		delete(m, ev.Key)
		return
	}
	obj := newT()
	if err := registry.DecodeWithoutManagedFields(ev.Value, obj); err != nil {
		c.log.Error("decode", "resource", ev.Resource, "key", ev.Key, "err", err)
		delete(m, ev.Key)
		return
	}
	m[ev.Key] = obj
}

// markService marks the APIServices served by the Service at key.
func (c *AvailableConditionController) markService(key string) {
	for name, as := range c.apiServices {
		if s := as.Spec.Service; s != nil && s.Namespace+"/"+s.Name == key {
			c.dirty[name] = true
		}
	}
}

// sync checks one APIService and records the outcome in its status.
func (c *AvailableConditionController) sync(ctx context.Context, as *apiregistrationv1.APIService) error {
	cond := apiregistrationv1.APIServiceCondition{Type: apiregistrationv1.Available, Status: apiregistrationv1.ConditionTrue}
	if as.Spec.Service == nil {
		cond.Reason, cond.Message = "Local", "Local APIServices are always available"
		return c.setCondition(ctx, as, cond)
	}
	cond.Status, cond.Reason, cond.Message = c.check(ctx, as)
	if cond.Reason != "Passed" {
		c.proxy.markStale(as.Name)
	}
	return c.setCondition(ctx, as, cond)
}

// check runs upstream's checks in upstream's order.
func (c *AvailableConditionController) check(ctx context.Context, as *apiregistrationv1.APIService) (apiregistrationv1.ConditionStatus, string, string) {
	ref := as.Spec.Service
	svc, ok := c.services[ref.Namespace+"/"+ref.Name]
	if !ok {
		return apiregistrationv1.ConditionFalse, "ServiceNotFound", fmt.Sprintf("service/%s in %q is not present", ref.Name, ref.Namespace)
	}
	port := int32(443)
	if ref.Port != nil {
		port = *ref.Port
	}
	if svc.Spec.Type == corev1.ServiceTypeClusterIP {
		portName, found := "", false
		for _, p := range svc.Spec.Ports {
			if p.Port == port {
				portName, found = p.Name, true
				break
			}
		}
		if !found {
			return apiregistrationv1.ConditionFalse, "ServicePortError", fmt.Sprintf("service/%s in %q is not listening on port %d", ref.Name, ref.Namespace, port)
		}
		slices := c.endpointSlicesFor(ref.Namespace, ref.Name)
		if len(slices) == 0 {
			return apiregistrationv1.ConditionFalse, "EndpointsNotFound", fmt.Sprintf("cannot find endpointslices for service/%s in %q", ref.Name, ref.Namespace)
		}
		if !hasAvailableEndpoint(portName, slices) {
			return apiregistrationv1.ConditionFalse, "MissingEndpoints", fmt.Sprintf("endpointslices for service/%s in %q have no addresses with port name %q", ref.Name, ref.Namespace, portName)
		}
	}
	addr, err := c.checkDiscovery(ctx, as, port)
	if err != nil {
		return apiregistrationv1.ConditionFalse, "FailedDiscoveryCheck", err.Error()
	}
	if err := c.proxy.refreshDiscovery(ctx, as, addr); err != nil {
		c.log.Warn("APIService discovery", "apiservice", as.Name, "err", err)
	}
	return apiregistrationv1.ConditionTrue, "Passed", "all checks passed"
}

// endpointSlicesFor returns the Service's EndpointSlices, or, when it has
// none, the one the mirroring controller would make of its Endpoints.
func (c *AvailableConditionController) endpointSlicesFor(ns, name string) []*discoveryv1.EndpointSlice {
	var out []*discoveryv1.EndpointSlice
	for _, es := range c.slices {
		if es.Namespace == ns && es.Labels[discoveryv1.LabelServiceName] == name {
			out = append(out, es)
		}
	}
	if len(out) > 0 {
		return out
	}
	eps, ok := c.endpoints[ns+"/"+name]
	if !ok {
		return nil
	}
	for _, ss := range eps.Subsets {
		es := &discoveryv1.EndpointSlice{}
		for _, p := range ss.Ports {
			es.Ports = append(es.Ports, discoveryv1.EndpointPort{Name: &p.Name, Port: &p.Port})
		}
		ready, notReady := true, false
		for _, a := range ss.Addresses {
			es.Endpoints = append(es.Endpoints, discoveryv1.Endpoint{Addresses: []string{a.IP}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}})
		}
		for _, a := range ss.NotReadyAddresses {
			es.Endpoints = append(es.Endpoints, discoveryv1.Endpoint{Addresses: []string{a.IP}, Conditions: discoveryv1.EndpointConditions{Ready: &notReady}})
		}
		out = append(out, es)
	}
	return out
}

// hasAvailableEndpoint is upstream's test: a slice with a ready endpoint
// and a port of that name.
func hasAvailableEndpoint(portName string, slices []*discoveryv1.EndpointSlice) bool {
	for _, s := range slices {
		ready := false
		for _, e := range s.Endpoints {
			if e.Conditions.Ready == nil || *e.Conditions.Ready {
				ready = true
				break
			}
		}
		if !ready {
			continue
		}
		for _, p := range s.Ports {
			if p.Name != nil && *p.Name == portName && p.Port != nil {
				return true
			}
		}
	}
	return false
}

// checkDiscovery GETs /apis/<group>/<version> from the APIService's
// server as upstream does, and returns the address that answered.
func (c *AvailableConditionController) checkDiscovery(ctx context.Context, as *apiregistrationv1.APIService, port int32) (string, error) {
	rt, err := c.proxy.roundTripper(as)
	if err != nil {
		return "", err
	}
	client := &http.Client{Transport: rt, Timeout: discoveryCheckTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	// The attempts still under way are cancelled, then waited for.
	var wg sync.WaitGroup
	defer wg.Wait()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type result struct {
		addr string
		err  error
	}
	results := make(chan result, discoveryAttempts)
	for range discoveryAttempts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			addr, err := c.probe(ctx, client, as, port)
			results <- result{addr, err}
		}()
	}
	var last result
	for range discoveryAttempts {
		if last = <-results; last.err == nil {
			return last.addr, nil
		}
	}
	return "", last.err
}

// probe is one attempt of the discovery check, with upstream's messages.
func (c *AvailableConditionController) probe(ctx context.Context, client *http.Client, as *apiregistrationv1.APIService, port int32) (string, error) {
	u, err := c.proxy.resolver.ResolveEndpoint(as.Spec.Service.Namespace, as.Spec.Service.Name, port)
	if err != nil {
		return "", err
	}
	u.Path = "/apis/" + as.Spec.Group + "/" + as.Spec.Version
	if as.Name == "v1." {
		u.Path = "/api/" + as.Spec.Version
	}
	errCh := make(chan error, 1)
	go func() {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
		if err != nil {
			errCh <- err
			return
		}
		transport.SetAuthProxyHeaders(req, aggregatorUser, "", []string{user.SystemPrivilegedGroup}, nil)
		resp, err := client.Do(req)
		if resp != nil {
			resp.Body.Close()
			if resp.StatusCode < http.StatusOK || resp.StatusCode >= http.StatusMultipleChoices {
				errCh <- fmt.Errorf("bad status from %v: %d", u, resp.StatusCode)
				return
			}
		}
		errCh <- err
	}()
	timer := time.NewTimer(discoveryCheckWait)
	defer timer.Stop()
	select {
	case err := <-errCh:
		if err != nil {
			return "", fmt.Errorf("failing or missing response from %v: %w", u, err)
		}
		return u.Host, nil
	case <-timer.C:
		<-errCh // the client's own timeout ends it
		return "", fmt.Errorf("timed out waiting for %v", u)
	}
}

// setCondition writes the Available condition when it changed, keeping its
// lastTransitionTime unless the status changed.
func (c *AvailableConditionController) setCondition(ctx context.Context, as *apiregistrationv1.APIService, cond apiregistrationv1.APIServiceCondition) error {
	if cur := apiregistrationv1helper.GetAPIServiceConditionByType(as, apiregistrationv1.Available); cur != nil &&
		cur.Status == cond.Status && cur.Reason == cond.Reason && cur.Message == cond.Message {
		return nil
	}
	cond.LastTransitionTime = metav1.NewTime(c.now())
	_, err := c.reg.UpdateSubresource(ctx, apiServicesGVR, "status", "", as.Name, func(cur runtime.Object) (runtime.Object, error) {
		obj := cur.(*apiregistrationv1.APIService)
		apiregistrationv1helper.SetAPIServiceCondition(obj, cond)
		return obj, nil
	})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}
