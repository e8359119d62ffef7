package aggregator

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/util/proxy"
	"k8s.io/apiserver/pkg/audit"
	"k8s.io/apiserver/pkg/endpoints/handlers/responsewriters"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
	apiserverproxy "k8s.io/apiserver/pkg/util/proxy"
	"k8s.io/client-go/transport"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	apiregistrationv1helper "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1/helper"
	"k8s.io/kube-aggregator/pkg/controllers/status/remote"
	"k8s.io/streaming/pkg/httpstream"

	"github.com/fakeplane/fakeplane/store"
)

// ServiceResolver finds the address a Service's port is served at
// (registry.Registry.ServiceResolver: an address of its EndpointSlices or
// Endpoints, as kube-apiserver's --enable-aggregator-routing does).
type ServiceResolver interface {
	ResolveEndpoint(namespace, name string, port int32) (*url.URL, error)
}

// Proxy is kube-aggregator's proxy: it knows every stored APIService and
// sends the requests of a group/version that an APIService with a service
// claims to that service, over TLS verified with the APIService's caBundle
// (ServerName <service>.<namespace>.svc), presenting the front-proxy client
// certificate and naming the caller in X-Remote-User, X-Remote-Uid,
// X-Remote-Group and X-Remote-Extra-* headers. An APIService with a
// service wins over a group/version the control plane serves itself, as
// upstream's proxy handler does (it is registered at the group/version's
// path and takes it over).
//
// It follows the store through Observe (a commit observer), so that a
// created, changed or deleted APIService reroutes the next request.
type Proxy struct {
	resolver ServiceResolver
	cert     ProxyClientCert
	log      *slog.Logger
	// dial opens the connections to extension API servers (SetDialer);
	// nil dials directly.
	dial *transport.DialHolder
	// forwardRedirects is SetRejectForwardingRedirects(false)'s: an
	// extension server's redirects reach the client.
	forwardRedirects bool

	mu sync.RWMutex
	// services are the stored APIServices, by name.
	services map[string]*apiregistrationv1.APIService
	// backends are the remote group/versions' handling, by group/version.
	backends map[schema.GroupVersion]*backend
	// discovery is what was last fetched of each remote APIService's
	// group/version, by APIService name.
	discovery map[string]discoveryEntry
	// retired are the transports of replaced backends: requests under way
	// may still use them; Close ends their connections.
	retired []*http.Transport
}

// backend is how requests of one remote APIService are proxied.
type backend struct {
	p         *Proxy
	name      string
	spec      apiregistrationv1.APIServiceSpec
	available bool
	transport *http.Transport
	// transportErr is why no transport could be built (a bad caBundle or
	// client certificate); clients get it as a 500, as upstream.
	transportErr error
}

// NewProxy returns a Proxy that reaches services through resolver and
// presents cert (none when cert is zero). log receives proxy errors.
func NewProxy(resolver ServiceResolver, cert ProxyClientCert, log *slog.Logger) *Proxy {
	if log == nil {
		log = slog.Default()
	}
	return &Proxy{
		resolver:  resolver,
		cert:      cert,
		log:       log,
		services:  map[string]*apiregistrationv1.APIService{},
		backends:  map[schema.GroupVersion]*backend{},
		discovery: map[string]discoveryEntry{},
	}
}

// SetDialer makes the proxy open its connections to extension API servers
// (requests, availability checks, discovery) with dial, as kube-aggregator
// uses the "cluster" egress selection; nil dials directly. Call it before
// Load and Observe.
func (p *Proxy) SetDialer(dial utilnet.DialFunc) {
	p.dial = nil
	if dial != nil {
		p.dial = &transport.DialHolder{Dial: dial}
	}
}

// SetRejectForwardingRedirects says whether an extension API server's
// redirect (a 3xx with a Location) is refused, as kube-apiserver's
// --aggregator-reject-forwarding-redirect (true, the default: the client
// gets 502 "the backend attempted to redirect this request, which is not
// permitted") or passed to the client. Call it before the proxy serves.
func (p *Proxy) SetRejectForwardingRedirects(reject bool) { p.forwardRedirects = !reject }

// Load reads the APIServices stored in st, for a control plane whose store
// already holds some (a data directory). Call it before Observe sees a
// commit.
func (p *Proxy) Load(st store.Interface) error {
	lst, err := st.List(apiServiceBucket, store.ListOptions{})
	if err != nil {
		return fmt.Errorf("aggregator: list APIServices: %w", err)
	}
	for _, it := range lst.Items {
		p.Observe(apiServiceBucket, it.Key, nil, it.Value, false)
	}
	return nil
}

// Observe follows a committed write: changes of APIServices change the
// routing; other resources are ignored. It is a commit observer
// (server.Server.AddCommitObserver), called in revision order.
func (p *Proxy) Observe(bucket, key string, obj runtime.Object, data []byte, deleted bool) {
	if bucket != apiServiceBucket {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if deleted {
		if old, ok := p.services[key]; ok {
			p.dropBackend(key, old.Spec.Group, old.Spec.Version)
		}
		delete(p.services, key)
		delete(p.discovery, key)
		return
	}
	as, ok := obj.(*apiregistrationv1.APIService)
	if !ok || as == nil {
		as = &apiregistrationv1.APIService{}
		if err := json.Unmarshal(data, as); err != nil {
			p.log.Error("decode APIService", "key", key, "err", err)
			return
		}
	} else {
		as = as.DeepCopy()
	}
	p.services[key] = as
	if as.Spec.Service == nil {
		p.dropBackend(key, as.Spec.Group, as.Spec.Version)
		delete(p.discovery, key)
		return
	}
	gv := schema.GroupVersion{Group: as.Spec.Group, Version: as.Spec.Version}
	available := apiregistrationv1helper.IsAPIServiceConditionTrue(as, apiregistrationv1.Available)
	if b := p.backends[gv]; b != nil && b.name == key && equality.Semantic.DeepEqual(b.spec, as.Spec) {
		nb := *b // requests under way keep the one they took
		nb.available = available
		p.backends[gv] = &nb
		return
	}
	if b := p.backends[gv]; b != nil {
		b.close()
	}
	p.backends[gv] = p.newBackend(as, available)
}

// dropBackend removes the backend APIService name had for a group/version.
func (p *Proxy) dropBackend(name, group, version string) {
	gv := schema.GroupVersion{Group: group, Version: version}
	if b := p.backends[gv]; b != nil && b.name == name {
		b.close()
		delete(p.backends, gv)
	}
}

// newBackend builds the transport of a remote APIService as upstream's
// proxy handler does (remote.BuildTransportConfig), with an HTTP
// transport of its own so that Close can end its connections.
func (p *Proxy) newBackend(as *apiregistrationv1.APIService, available bool) *backend {
	b := &backend{p: p, name: as.Name, spec: *as.Spec.DeepCopy(), available: available}
	certPEM, keyPEM := p.cert.CertPEM, p.cert.KeyPEM
	cfg := remote.BuildTransportConfig(p.dial, certPEM, keyPEM, as)
	tlsCfg, err := transport.TLSConfigFor(cfg)
	if err != nil {
		b.transportErr = err
		p.log.Warn("APIService transport", "apiservice", as.Name, "err", err)
		return b
	}
	t := &http.Transport{TLSClientConfig: tlsCfg}
	if cfg.DialHolder != nil {
		t.DialContext = cfg.DialHolder.Dial
	}
	b.transport = utilnet.SetTransportDefaults(t)
	return b
}

// close ends the backend's idle connections and keeps its transport for
// Close, for the requests still using it. Call with p.mu held.
func (b *backend) close() {
	if b.transport != nil {
		b.transport.CloseIdleConnections()
		b.p.retired = append(b.p.retired, b.transport)
	}
}

// Close ends the idle connections to every extension API server. Call it
// when the control plane stops, once no request is being served.
func (p *Proxy) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, b := range p.backends {
		b.close()
	}
	for _, t := range p.retired {
		t.CloseIdleConnections()
	}
	p.retired = nil
}

// Handler returns the handler of requests under /apis/<group>/<version>
// (the group/version's discovery document included) when an APIService
// with a service claims that group/version, or nil when the control plane
// serves it itself (or nobody does).
func (p *Proxy) Handler(group, version string) http.Handler {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if b := p.backends[schema.GroupVersion{Group: group, Version: version}]; b != nil {
		return b
	}
	return nil
}

// APIServices returns the stored APIServices (read-only copies shared by
// callers: do not modify them).
func (p *Proxy) APIServices() []*apiregistrationv1.APIService {
	p.mu.RLock()
	defer p.mu.RUnlock()
	out := make([]*apiregistrationv1.APIService, 0, len(p.services))
	for _, as := range p.services {
		out = append(out, as)
	}
	slices.SortFunc(out, func(a, b *apiregistrationv1.APIService) int {
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
	return out
}

// ServeHTTP proxies one request that passed the control plane's
// authentication and authorization, as upstream's proxyHandler does:
// 503 "service unavailable" while the APIService is not Available or its
// service has no address, the caller's identity in the X-Remote-* headers
// (any the client sent are replaced), and upgrades and streams passed
// through by UpgradeAwareHandler.
func (b *backend) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if !b.available {
		http.Error(w, "service unavailable", http.StatusServiceUnavailable)
		return
	}
	if b.transportErr != nil {
		http.Error(w, b.transportErr.Error(), http.StatusInternalServerError)
		return
	}
	u, ok := apirequest.UserFrom(req.Context())
	if !ok {
		http.Error(w, "missing user", http.StatusInternalServerError)
		return
	}
	svc := b.spec.Service
	port := int32(443)
	if svc.Port != nil {
		port = *svc.Port
	}
	rloc, err := b.p.resolver.ResolveEndpoint(svc.Namespace, svc.Name, port)
	if err != nil {
		b.p.log.Error("resolve APIService service", "apiservice", b.name, "service", svc.Namespace+"/"+svc.Name, "err", err)
		http.Error(w, "service unavailable", http.StatusServiceUnavailable)
		return
	}
	location := &url.URL{Scheme: "https", Host: rloc.Host, Path: req.URL.Path, RawQuery: req.URL.Query().Encode()}
	newReq, cancel := apiserverproxy.NewRequestForProxy(location, req)
	defer cancel()
	if _, audited := audit.AuditIDFrom(req.Context()); !audited {
		// kube-apiserver always has an audit ID, which the request carries
		// to the extension server; unaudited, the control plane's is the
		// answer's Audit-Id.
		if id := w.Header().Get("Audit-Id"); id != "" {
			newReq.Header.Set("Audit-ID", id)
		}
	}
	// The headers go on the request itself for upgrades too: an upgrade
	// dials directly and does not pass a round tripper. RemoteRequestHeaderUID
	// is on by default in v1.37, so the UID goes along.
	transport.SetAuthProxyHeaders(newReq, u.GetName(), u.GetUID(), u.GetGroups(), u.GetExtra())
	upgrade := httpstream.IsUpgradeRequest(req)
	h := proxy.NewUpgradeAwareHandler(location, b.transport, true, upgrade, &responder{w: w})
	h.RejectForwardingRedirects = !b.p.forwardRedirects
	h.ServeHTTP(w, newReq)
}

// responder writes the errors of UpgradeAwareHandler as upstream's does.
type responder struct{ w http.ResponseWriter }

// Object implements proxy.ErrorResponder's companion (rest.Responder).
func (r *responder) Object(statusCode int, obj runtime.Object) {
	responsewriters.WriteRawJSON(statusCode, obj, r.w)
}

// Error implements proxy.ErrorResponder: 503 with the error's text.
func (r *responder) Error(_ http.ResponseWriter, _ *http.Request, err error) {
	http.Error(r.w, err.Error(), http.StatusServiceUnavailable)
}

// gvOf is an APIService's group/version.
func gvOf(as *apiregistrationv1.APIService) schema.GroupVersion {
	return schema.GroupVersion{Group: as.Spec.Group, Version: as.Spec.Version}
}
