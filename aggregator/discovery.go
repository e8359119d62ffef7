package aggregator

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/endpoints"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/transport"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

// discoveryTimeout bounds one discovery download, as upstream's discovery
// manager does (5s).
const discoveryTimeout = 5 * time.Second

// aggregatorUser is the identity the aggregator fetches discovery and
// checks availability as.
const aggregatorUser = "system:kube-aggregator"

// discoveryEntry is what was last fetched of a remote group/version.
type discoveryEntry struct {
	version apidiscoveryv2.APIVersionDiscovery
	current bool
	// openAPIv3 is the group/version's OpenAPI v3 document, nil when the
	// server has none.
	openAPIv3 []byte
}

// OpenAPIv3 returns the OpenAPI v3 document of a remote group/version as
// last fetched from its server (/openapi/v3/apis/<group>/<version>), as
// kube-aggregator's OpenAPI v3 aggregation serves it; false when there is
// none.
func (p *Proxy) OpenAPIv3(group, version string) ([]byte, bool) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	e, ok := p.discovery[version+"."+group]
	if !ok || e.openAPIv3 == nil {
		return nil, false
	}
	return e.openAPIv3, true
}

// v2GVK is aggregated discovery's content type.
var v2GVK = schema.GroupVersionKind{Group: "apidiscovery.k8s.io", Version: "v2", Kind: "APIGroupDiscoveryList"}

// Discovery returns the aggregated discovery (v2) of a remote
// group/version, as upstream's discovery manager merges it: the resources
// last fetched from its server, with freshness Current when the last fetch
// succeeded and Stale otherwise (no resources if none ever was).
func (p *Proxy) Discovery(group, version string) apidiscoveryv2.APIVersionDiscovery {
	p.mu.RLock()
	defer p.mu.RUnlock()
	e, ok := p.discovery[version+"."+group]
	if !ok {
		return apidiscoveryv2.APIVersionDiscovery{Version: version, Freshness: apidiscoveryv2.DiscoveryFreshnessStale}
	}
	v := e.version
	v.Freshness = apidiscoveryv2.DiscoveryFreshnessStale
	if e.current {
		v.Freshness = apidiscoveryv2.DiscoveryFreshnessCurrent
	}
	return v
}

// markStale keeps what was fetched of an APIService's group/version but
// marks it Stale.
func (p *Proxy) markStale(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e, ok := p.discovery[name]; ok {
		e.current = false
		p.discovery[name] = e
	}
}

// refreshDiscovery downloads the discovery of a remote APIService's
// group/version from its server, as upstream's discovery manager does:
// aggregated discovery from /apis as system:kube-aggregator in
// system:masters, or, when the server does not answer with it, the legacy
// /apis/<group>/<version> document as system:kube-aggregator alone. On
// failure the entry is kept and marked Stale.
func (p *Proxy) refreshDiscovery(ctx context.Context, as *apiregistrationv1.APIService, addr string) error {
	v, err := p.fetchDiscovery(ctx, as, addr)
	if err != nil {
		p.markStale(as.Name)
		return err
	}
	doc := p.fetchOpenAPIv3(ctx, as, addr)
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.services[as.Name]; ok {
		p.discovery[as.Name] = discoveryEntry{version: v, current: true, openAPIv3: doc}
	}
	return nil
}

// fetchOpenAPIv3 downloads a remote group/version's OpenAPI v3 document
// as system:kube-aggregator in system:masters; nil when the server has
// none or fails.
func (p *Proxy) fetchOpenAPIv3(ctx context.Context, as *apiregistrationv1.APIService, addr string) []byte {
	rt, err := p.roundTripper(as)
	if err != nil {
		return nil
	}
	client := &http.Client{Transport: rt, Timeout: discoveryTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	code, _, body, err := get(ctx, client, "https://"+addr+"/openapi/v3/apis/"+as.Spec.Group+"/"+as.Spec.Version, "application/json", []string{"system:masters"})
	if err != nil || code != http.StatusOK || !json.Valid(body) {
		return nil
	}
	return body
}

func (p *Proxy) fetchDiscovery(ctx context.Context, as *apiregistrationv1.APIService, addr string) (apidiscoveryv2.APIVersionDiscovery, error) {
	rt, err := p.roundTripper(as)
	if err != nil {
		return apidiscoveryv2.APIVersionDiscovery{}, err
	}
	client := &http.Client{Transport: rt, Timeout: discoveryTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	gv := metav1.GroupVersion{Group: as.Spec.Group, Version: as.Spec.Version}

	code, ct, body, err := get(ctx, client, "https://"+addr+"/apis", discovery.AcceptV2, []string{"system:masters"})
	if err != nil {
		return apidiscoveryv2.APIVersionDiscovery{}, err
	}
	if isV2, _ := discovery.ContentTypeIsGVK(ct, v2GVK); code == http.StatusOK && isV2 {
		var list apidiscoveryv2.APIGroupDiscoveryList
		if err := json.Unmarshal(body, &list); err != nil {
			return apidiscoveryv2.APIVersionDiscovery{}, err
		}
		for _, g := range list.Items {
			for _, v := range g.Versions {
				if g.Name == gv.Group && v.Version == gv.Version {
					return v, nil
				}
			}
		}
		// The server does not serve the group/version it claims.
		return apidiscoveryv2.APIVersionDiscovery{Version: gv.Version}, nil
	}
	if code == http.StatusServiceUnavailable {
		return apidiscoveryv2.APIVersionDiscovery{}, fmt.Errorf("service %s/%s returned non-success response code: %d", as.Spec.Service.Namespace, as.Spec.Service.Name, code)
	}
	path := "/apis/" + gv.Group + "/" + gv.Version
	code, _, body, err = get(ctx, client, "https://"+addr+path, "application/json", nil)
	if err != nil {
		return apidiscoveryv2.APIVersionDiscovery{}, err
	}
	if code != http.StatusOK {
		return apidiscoveryv2.APIVersionDiscovery{}, fmt.Errorf("failed to download legacy discovery for %s: %s", path, body)
	}
	var rl metav1.APIResourceList
	if err := json.Unmarshal(body, &rl); err != nil {
		return apidiscoveryv2.APIVersionDiscovery{}, err
	}
	resources, err := endpoints.ConvertGroupVersionIntoToDiscovery(rl.APIResources)
	if err != nil {
		return apidiscoveryv2.APIVersionDiscovery{}, err
	}
	return apidiscoveryv2.APIVersionDiscovery{Version: gv.Version, Resources: resources}, nil
}

// roundTripper is the transport of a remote APIService's backend.
func (p *Proxy) roundTripper(as *apiregistrationv1.APIService) (http.RoundTripper, error) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	b := p.backends[schema.GroupVersion{Group: as.Spec.Group, Version: as.Spec.Version}]
	switch {
	case b == nil || b.name != as.Name:
		return nil, fmt.Errorf("APIService %s is not routed", as.Name)
	case b.transportErr != nil:
		return nil, b.transportErr
	}
	return b.transport, nil
}

// get does one GET as the aggregator, in groups, and reads the answer.
func get(ctx context.Context, client *http.Client, url, accept string, groups []string) (code int, contentType string, body []byte, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, "", nil, err
	}
	req.Header.Set("Accept", accept)
	transport.SetAuthProxyHeaders(req, aggregatorUser, "", groups, nil)
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", nil, err
	}
	defer resp.Body.Close()
	body, err = io.ReadAll(io.LimitReader(resp.Body, 32<<20))
	return resp.StatusCode, resp.Header.Get("Content-Type"), body, err
}
