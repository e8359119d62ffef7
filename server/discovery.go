package server

import (
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"sort"
	"strconv"
	"strings"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/endpoints/discovery/aggregated"
	"k8s.io/apiserver/pkg/endpoints/handlers/negotiation"

	"sigs.k8s.io/yaml"

	"github.com/fakeplane/fakeplane/internal/builtin"
	"github.com/fakeplane/fakeplane/registry"
)

// withAggregatedTypeMeta returns the JSON of an aggregated discovery list
// encoded without kind and apiVersion, with them: they are TypeMeta's
// fields, which lead the list's, so they go in front of its members. The
// list is encoded once for its ETag and its answer.
func withAggregatedTypeMeta(encoded []byte) []byte {
	const typeMeta = `{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2",`
	return append([]byte(typeMeta), encoded[1:]...)
}

// apiregistrationGroup is kube-aggregator's own group, whose discovery is
// a go-restful route of kube-aggregator's server.
const apiregistrationGroup = "apiregistration.k8s.io"

// aggregatedDiscoveryParams are the parameters of aggregated discovery's
// (v2) Content-Type, after its media type.
const aggregatedDiscoveryParams = ";g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"

// aggregatedMedia returns the media type (JSON, YAML or protobuf) in which
// the Accept header asks for aggregated discovery, if it does: kube-apiserver's
// discovery wrapper negotiates with upstream's discovery restrictions, and
// serves aggregated discovery when the clause chosen converts to it (the
// most specific clause of the highest weight wins, so
// "application/json, application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
// asks for it).
func aggregatedMedia(accept string) (string, bool) {
	opts, ok := negotiation.NegotiateMediaTypeOptions(accept, resourceSerializers(), aggregated.DiscoveryEndpointRestrictions)
	if !ok || !aggregated.IsAggregatedDiscoveryGVK(opts.Convert) {
		return "", false
	}
	return opts.Accepted.MediaType, true
}

// writeDiscoveryDoc answers with a discovery document (its TypeMeta set),
// or with kube-apiserver's 405 or 406 when the request cannot have it (see
// discoveryAcceptable), in the media type the request negotiated: JSON,
// YAML or protobuf, as kube-apiserver's discovery handlers write it (the
// protobuf envelope carries the document's apiVersion and kind as its JSON
// does).
func writeDiscoveryDoc(w http.ResponseWriter, r *http.Request, restful bool, doc interface {
	runtime.Object
	protoMessage
}) {
	media, ok := discoveryAcceptable(w, r, restful)
	if !ok {
		return
	}
	var b []byte
	var err error
	if media.kind == mediaProtobuf {
		apiVersion, kind := doc.GetObjectKind().GroupVersionKind().ToAPIVersionAndKind()
		b, err = protobufDoc(apiVersion, kind, doc)
		if err == nil && auditWantsResponse(r) {
			if j, err := json.Marshal(doc); err == nil {
				auditResponseJSON(r, j)
			}
		}
	} else {
		b, err = json.Marshal(doc)
		auditResponseJSON(r, b)
	}
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeBytes(w, r, http.StatusOK, media.kind, b)
}

// storageVersionHash is discovery's opaque hash of a resource's storage
// group/version/kind.
func storageVersionHash(r *registry.Resource) string {
	if r.Virtual || r.StorageVersion == "" {
		return ""
	}
	gv, err := schema.ParseGroupVersion(r.StorageVersion)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256([]byte(gv.Group + "/" + gv.Version + "/" + r.Kind))
	return base64.StdEncoding.EncodeToString(sum[:8])
}

// servedGroupVersions lists the group/versions that have at least one resource.
func (s *Server) servedGroupVersions() []builtin.GroupVersion {
	return s.Resources().GroupVersions()
}

// serveDiscovery answers /api, /apis and their group and version documents.
func (s *Server) serveDiscovery(w http.ResponseWriter, r *http.Request, path string) {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	aggMedia, agg := aggregatedMedia(r.Header.Get("Accept"))
	switch {
	case path == "/api":
		if agg {
			// The route chooses before its handler serves aggregated
			// discovery.
			if routeMatches(w, r, discoveryRouteConsumes, routeProduces) {
				s.writeAggregated(w, r, true, aggMedia)
			}
			return
		}
		addr := s.cfg.ServerAddress
		writeDiscoveryDoc(w, r, true, &metav1.APIVersions{
			TypeMeta:                   metav1.TypeMeta{Kind: "APIVersions"},
			Versions:                   []string{"v1"},
			ServerAddressByClientCIDRs: []metav1.ServerAddressByClientCIDR{{ClientCIDR: "0.0.0.0/0", ServerAddress: addr}},
		})
	case path == "/apis":
		if agg {
			s.writeAggregated(w, r, false, aggMedia)
			return
		}
		list := &metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}, Groups: []metav1.APIGroup{}}
		list.Groups = append(list.Groups, s.withRemoteGroups(s.apiGroups())...)
		writeDiscoveryDoc(w, r, false, list)
	case parts[0] == "api" && len(parts) == 2 && parts[1] == "v1":
		s.writeResourceList(w, r, "", "v1")
	case parts[0] == "apis" && len(parts) == 2:
		for _, g := range s.withRemoteGroups(s.apiGroups()) {
			if g.Name == parts[1] {
				g.TypeMeta = metav1.TypeMeta{Kind: "APIGroup", APIVersion: "v1"}
				// kube-aggregator answers every group's document but
				// its own, which is a go-restful route of its server.
				writeDiscoveryDoc(w, r, g.Name == apiregistrationGroup, &g)
				return
			}
		}
		http.NotFound(w, r)
	case parts[0] == "apis" && len(parts) == 3:
		if _, ok := s.Resources().Preferred(parts[1]); !ok {
			http.NotFound(w, r)
			return
		}
		s.writeResourceList(w, r, parts[1], parts[2])
	default:
		if parts[0] == "apis" {
			if _, ok := s.Resources().Preferred(parts[1]); !ok {
				http.NotFound(w, r)
				return
			}
		}
		writeError(w, r, registry.NotFoundPath())
	}
}

// discoveryAcceptable returns the media type a discovery document is
// written in, negotiated from the Accept header, and writes
// kube-apiserver's 406 when there is none: go-restful's when the document
// is a route's (restful), else the discovery handler's negotiation's. A
// route refuses methods other than GET first (405).
func discoveryAcceptable(w http.ResponseWriter, r *http.Request, restful bool) (mediaChoice, bool) {
	if restful && !routeMatches(w, r, discoveryRouteConsumes, routeProduces) {
		return mediaChoice{}, false
	}
	media, ok := negotiateAmong(r.Header.Get("Accept"), resourceSerializers(), negotiation.DefaultEndpointRestrictions)
	if !ok {
		writeError(w, r, errNotAcceptable(acceptedMediaTypes))
	}
	return media, ok
}

// apiGroups lists the named groups in discovery order.
func (s *Server) apiGroups() []metav1.APIGroup {
	var out []metav1.APIGroup
	idx := map[string]int{}
	for _, gv := range s.servedGroupVersions() {
		if gv.Group == "" {
			continue
		}
		gvd := metav1.GroupVersionForDiscovery{GroupVersion: gv.String(), Version: gv.Version}
		i, ok := idx[gv.Group]
		if !ok {
			idx[gv.Group] = len(out)
			out = append(out, metav1.APIGroup{Name: gv.Group, PreferredVersion: gvd})
			i = len(out) - 1
		}
		out[i].Versions = append(out[i].Versions, gvd)
	}
	return out
}

// writeResourceList answers /api/v1 or /apis/{group}/{version}.
func (s *Server) writeResourceList(w http.ResponseWriter, r *http.Request, group, version string) {
	list := &metav1.APIResourceList{
		TypeMeta:     metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
		GroupVersion: schema.GroupVersion{Group: group, Version: version}.String(),
		APIResources: []metav1.APIResource{},
	}
	if group == "" {
		list.APIVersion = "" // /api/v1 carries no apiVersion upstream
	}
	found := false
	for _, res := range s.Resources().All() {
		if res.Group != group || res.Version != version {
			continue
		}
		found = true
		list.APIResources = append(list.APIResources, metav1.APIResource{
			Name: res.Resource.Resource, SingularName: res.SingularName, Namespaced: res.Namespaced,
			Kind: res.Kind, Verbs: res.Verbs, ShortNames: res.ShortNames, Categories: res.Categories,
			StorageVersionHash: storageVersionHash(res),
		})
		for _, sub := range res.Subresources {
			ar := metav1.APIResource{Name: res.Resource.Resource + "/" + sub.Name, Namespaced: res.Namespaced, Kind: sub.Kind, Verbs: sub.Verbs}
			if sub.Group != res.Group || sub.Version != res.Version {
				ar.Group, ar.Version = sub.Group, sub.Version
			}
			list.APIResources = append(list.APIResources, ar)
		}
	}
	// A built-in group version is a go-restful route; a CRD's is
	// apiextensions' handler, which only negotiates and hands a version
	// no CRD serves to the mux's plain 404.
	restful := builtin.PreferredVersion(group) != ""
	if !found {
		if !restful {
			http.NotFound(w, r)
			return
		}
		writeError(w, r, registry.NotFoundPath())
		return
	}
	writeDiscoveryDoc(w, r, restful, list)
}

// writeAggregated answers aggregated discovery for /api (core) or /apis.
func (s *Server) writeAggregated(w http.ResponseWriter, r *http.Request, core bool, media string) {
	// Without kind and apiVersion: the ETag is the hash of the list so
	// encoded, as upstream's, and the answer that encoding with them.
	list := &apidiscoveryv2.APIGroupDiscoveryList{
		Items: []apidiscoveryv2.APIGroupDiscovery{},
	}
	idx := map[string]int{}
	all := s.Resources().All()
	for _, gv := range s.servedGroupVersions() {
		if (gv.Group == "") != core {
			continue
		}
		i, ok := idx[gv.Group]
		if !ok {
			idx[gv.Group] = len(list.Items)
			list.Items = append(list.Items, apidiscoveryv2.APIGroupDiscovery{ObjectMeta: metav1.ObjectMeta{Name: gv.Group}})
			i = len(list.Items) - 1
		}
		vd := apidiscoveryv2.APIVersionDiscovery{Version: gv.Version, Freshness: apidiscoveryv2.DiscoveryFreshnessCurrent, Resources: []apidiscoveryv2.APIResourceDiscovery{}}
		for _, res := range all {
			if res.Group != gv.Group || res.Version != gv.Version {
				continue
			}
			scope := apidiscoveryv2.ScopeCluster
			if res.Namespaced {
				scope = apidiscoveryv2.ScopeNamespace
			}
			// Built-in resources name their kind alone; apiextensions'
			// discovery names a custom resource's group and version too,
			// its status's as well.
			custom := res.CRD != ""
			rk := &metav1.GroupVersionKind{Kind: res.Kind}
			if custom {
				rk.Group, rk.Version = res.Group, res.Version
			}
			rd := apidiscoveryv2.APIResourceDiscovery{
				Resource: res.Resource.Resource, ResponseKind: rk,
				Scope: scope, SingularResource: res.SingularName, Verbs: res.Verbs,
				ShortNames: res.ShortNames, Categories: res.Categories,
			}
			for _, sub := range res.Subresources {
				rk := &metav1.GroupVersionKind{Kind: sub.Kind}
				if custom || sub.Group != res.Group || sub.Version != res.Version {
					rk.Group, rk.Version = sub.Group, sub.Version
				}
				rd.Subresources = append(rd.Subresources, apidiscoveryv2.APISubresourceDiscovery{Subresource: sub.Name, ResponseKind: rk, Verbs: sub.Verbs})
			}
			vd.Resources = append(vd.Resources, rd)
		}
		list.Items[i].Versions = append(list.Items[i].Versions, vd)
	}
	if !core {
		list.Items = s.withRemoteDiscovery(list.Items)
	}
	// As upstream's: the ETag is the SHA-512 of the list without its kind
	// and apiVersion, and a 304 is public too.
	hashed, err := json.Marshal(list)
	if err != nil {
		writeError(w, r, err)
		return
	}
	sum := sha512.Sum512(hashed)
	etag := strconv.Quote(strings.ToUpper(hex.EncodeToString(sum[:])))
	w.Header().Set("Etag", etag)
	w.Header().Set("Vary", "Accept")
	w.Header().Set("Cache-Control", "public")
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	// As upstream's handler, once the ETag did not match.
	if auditWantsResponse(r) {
		auditResponseJSON(r, withAggregatedTypeMeta(hashed))
	}
	if media == mediaProtobuf {
		raw, err := protobufDoc("apidiscovery.k8s.io/v2", "APIGroupDiscoveryList", list)
		if err != nil {
			writeError(w, r, err)
			return
		}
		writeBytes(w, r, http.StatusOK, mediaProtobuf+aggregatedDiscoveryParams, raw)
		return
	}
	body := withAggregatedTypeMeta(hashed)
	if media == mediaYAML {
		if body, err = yaml.JSONToYAML(body); err != nil {
			writeError(w, r, err)
			return
		}
	}
	writeBytes(w, r, http.StatusOK, media+aggregatedDiscoveryParams, body)
}

// serveRootPaths answers "/" with the list of served paths.
func (s *Server) serveRootPaths(w http.ResponseWriter, r *http.Request) {
	paths := []string{"/api", "/api/v1", "/apis", "/apis/"}
	for _, gv := range s.servedGroupVersions() {
		if gv.Group == "" {
			continue
		}
		paths = append(paths, "/apis/"+gv.Group, "/apis/"+gv.String())
	}
	paths = append(paths, s.apiServicePaths()...)
	if s.auth.openID != nil {
		paths = append(paths, openIDConfigPath, openIDKeysPath)
	}
	paths = append(paths, "/openapi/v2", "/openapi/v3", "/openapi/v3/")
	paths = append(paths, s.debugPaths()...)
	paths = dedupe(paths)
	sort.Strings(paths) // as upstream's ListedPathProvider
	// Upstream's index handler writes it raw (WriteRawJSON): indented JSON
	// without a final newline, whatever the Accept header asks for.
	b, err := json.MarshalIndent(metav1.RootPaths{Paths: paths}, "", "  ")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	writeRaw(w, nil, http.StatusOK, mediaJSON, b)
}

// debugPaths are the served paths /statusz lists the folders of: /flagz,
// /metrics, /metrics/slis, /statusz, /version, and each health endpoint and each of
// its checks, as upstream's healthz.InstallPathHandler lists them.
func (s *Server) debugPaths() []string {
	paths := []string{"/flagz", "/metrics", "/metrics/slis", "/statusz", "/version"}
	if s.cfg.EnableLogsHandler {
		paths = append(paths, "/logs")
	}
	for _, ep := range healthEndpoints {
		paths = append(paths, "/"+ep)
		for _, check := range healthChecks("/"+ep, s.cfg.ProxyClientCertificate != nil, s.cfg.NoPriorityAndFairness) {
			paths = append(paths, "/"+ep+"/"+check)
		}
	}
	return paths
}

func dedupe(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range in {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}
