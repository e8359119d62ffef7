package server

import (
	"net/http"
	"slices"
	"strings"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	apiregistrationv1helper "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1/helper"
)

// Aggregator is the aggregation layer the server routes the group/versions
// of APIServices with a service to, and merges into discovery (package
// aggregator's Proxy implements it).
type Aggregator interface {
	// Handler returns the handler of requests under
	// /apis/<group>/<version> when an APIService with a service claims
	// that group/version, or nil when the server serves it itself.
	Handler(group, version string) http.Handler
	// APIServices returns the stored APIServices, read-only.
	APIServices() []*apiregistrationv1.APIService
	// Discovery returns a remote group/version's aggregated discovery,
	// with its freshness.
	Discovery(group, version string) apidiscoveryv2.APIVersionDiscovery
	// OpenAPIv3 returns a remote group/version's OpenAPI v3 document, if
	// its server has one.
	OpenAPIv3(group, version string) ([]byte, bool)
}

// SetAggregator routes remote group/versions to a and merges them into
// discovery. Call it before the server serves.
func (s *Server) SetAggregator(a Aggregator) { s.aggregator = a }

// remoteHandler returns the aggregator's handler of a request for a remote
// group/version, or nil. It runs after authentication and authorization,
// as kube-aggregator's proxy does behind kube-apiserver's filter chain.
func (s *Server) remoteHandler(r *http.Request) http.Handler {
	if s.aggregator == nil {
		return nil
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/apis/")
	if !ok {
		return nil
	}
	parts := strings.SplitN(rest, "/", 3)
	if len(parts) < 2 || parts[0] == "" || parts[1] == "" {
		return nil
	}
	return s.aggregator.Handler(parts[0], parts[1])
}

// groupOrder is one group of /apis in discovery order, with its versions
// in order and which of them are remote.
type groupOrder struct {
	name     string
	versions []string
	remote   map[string]bool
}

// mergedGroupOrder is the order of the named groups in /apis when remote
// APIServices exist, as kube-aggregator's apis handler orders them: by
// groupPriorityMinimum (highest first) then name, and within a group by
// versionPriority then kube-aware version order; apiregistration.k8s.io
// comes first. local lists the groups and versions served locally, in
// their own order; groups no APIService names (yet) follow. The legacy
// /apis (and its group documents) also lists the versions of local
// APIServices that nothing serves, as kube-aggregator's lists every
// APIService; aggregated discovery does not. ok is false when no
// APIService is to be merged: the local order stands.
func (s *Server) mergedGroupOrder(local []groupOrder, legacy bool) (out []groupOrder, ok bool) {
	if s.aggregator == nil {
		return nil, false
	}
	localIdx := map[string]int{}
	for i, g := range local {
		localIdx[g.name] = i
	}
	served := func(group, v string) bool {
		i, ok := localIdx[group]
		return ok && slices.Contains(local[i].versions, v)
	}
	all := s.aggregator.APIServices()
	if !slices.ContainsFunc(all, func(as *apiregistrationv1.APIService) bool {
		return as.Spec.Service != nil || legacy && as.Spec.Group != "" && !served(as.Spec.Group, as.Spec.Version)
	}) {
		return nil, false
	}
	done := map[string]bool{}
	if len(local) > 0 && local[0].name == apiregistrationv1.GroupName {
		out = append(out, local[0])
		done[local[0].name] = true
	}
	for _, group := range apiregistrationv1helper.SortedByGroupAndVersion(all) {
		name := group[0].Spec.Group
		if name == "" || done[name] {
			continue
		}
		g := groupOrder{name: name, remote: map[string]bool{}}
		for _, as := range group {
			v := as.Spec.Version
			switch {
			case as.Spec.Service != nil:
				g.remote[v] = true
			case !legacy && !served(name, v):
				continue // a local APIService nobody serves
			}
			g.versions = append(g.versions, v)
		}
		if i, ok := localIdx[name]; ok {
			for _, v := range local[i].versions {
				if !slices.Contains(g.versions, v) {
					g.versions = append(g.versions, v)
				}
			}
		}
		if len(g.versions) == 0 {
			continue
		}
		done[name] = true
		out = append(out, g)
	}
	for _, g := range local {
		if !done[g.name] {
			out = append(out, g)
		}
	}
	return out, true
}

// localGroupOrder is the order of the groups served locally.
func localGroupOrder(groups []metav1.APIGroup) []groupOrder {
	out := make([]groupOrder, 0, len(groups))
	for _, g := range groups {
		o := groupOrder{name: g.Name}
		for _, v := range g.Versions {
			o.versions = append(o.versions, v.Version)
		}
		out = append(out, o)
	}
	return out
}

// withRemoteGroups merges the APIServices' groups into the local /apis
// groups: the remote ones' and the local ones' that nothing serves.
func (s *Server) withRemoteGroups(local []metav1.APIGroup) []metav1.APIGroup {
	order, ok := s.mergedGroupOrder(localGroupOrder(local), true)
	if !ok {
		return local
	}
	out := make([]metav1.APIGroup, 0, len(order))
	for _, g := range order {
		ag := metav1.APIGroup{Name: g.name}
		for _, v := range g.versions {
			ag.Versions = append(ag.Versions, metav1.GroupVersionForDiscovery{GroupVersion: g.name + "/" + v, Version: v})
		}
		ag.PreferredVersion = ag.Versions[0]
		out = append(out, ag)
	}
	return out
}

// withRemoteDiscovery merges the remote APIServices' group/versions into
// the local aggregated discovery of /apis: a remote version's entry is
// what the aggregator last fetched from its server (Stale when that
// failed or the APIService is unavailable).
func (s *Server) withRemoteDiscovery(local []apidiscoveryv2.APIGroupDiscovery) []apidiscoveryv2.APIGroupDiscovery {
	lo := make([]groupOrder, 0, len(local))
	byName := map[string]apidiscoveryv2.APIGroupDiscovery{}
	for _, g := range local {
		o := groupOrder{name: g.Name}
		for _, v := range g.Versions {
			o.versions = append(o.versions, v.Version)
		}
		lo = append(lo, o)
		byName[g.Name] = g
	}
	order, ok := s.mergedGroupOrder(lo, false)
	if !ok {
		return local
	}
	out := make([]apidiscoveryv2.APIGroupDiscovery, 0, len(order))
	for _, g := range order {
		gd := apidiscoveryv2.APIGroupDiscovery{ObjectMeta: metav1.ObjectMeta{Name: g.name}}
		lg := byName[g.name]
		for _, v := range g.versions {
			if g.remote[v] {
				gd.Versions = append(gd.Versions, s.aggregator.Discovery(g.name, v))
				continue
			}
			for _, lv := range lg.Versions {
				if lv.Version == v {
					gd.Versions = append(gd.Versions, lv)
				}
			}
		}
		out = append(out, gd)
	}
	return out
}

// apiServicePaths are the paths kube-aggregator registers for APIServices,
// remote or local, which "/" lists: /apis/<group> and
// /apis/<group>/<version> (the legacy v1 is /api's, listed already).
func (s *Server) apiServicePaths() []string {
	if s.aggregator == nil {
		return nil
	}
	var out []string
	for _, as := range s.aggregator.APIServices() {
		if as.Spec.Group != "" {
			out = append(out, "/apis/"+as.Spec.Group, "/apis/"+as.Spec.Group+"/"+as.Spec.Version)
		}
	}
	return out
}

// remoteOpenAPIv3 returns the OpenAPI v3 documents of the remote
// group/versions, by their /openapi/v3 path ("apis/<group>/<version>").
func (s *Server) remoteOpenAPIv3() map[string][]byte {
	if s.aggregator == nil {
		return nil
	}
	out := map[string][]byte{}
	for _, as := range s.aggregator.APIServices() {
		if as.Spec.Service == nil || as.Spec.Group == "" {
			continue
		}
		if b, ok := s.aggregator.OpenAPIv3(as.Spec.Group, as.Spec.Version); ok {
			out["apis/"+as.Spec.Group+"/"+as.Spec.Version] = b
		}
	}
	return out
}
