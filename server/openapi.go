package server

import (
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/fakeplane/fakeplane/registry"
	openapibuilder "k8s.io/apiextensions-apiserver/pkg/controller/openapi/builder"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/handler"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// The OpenAPI v3 document of a built-in group/version has every operation
// path of its resources with their x-kubernetes-group-version-kind and query
// parameters (which kubectl reads to learn that the server validates fields
// itself), and the schemas of its kinds generated from k8s.io/api
// (openapidefs.go). Operations do not list their request and response
// bodies.

// openAPIv3GroupDoc builds the OpenAPI v3 document of one group/version.
func (s *Server) openAPIv3GroupDoc(group, version string) map[string]any {
	paths := map[string]any{}
	queryParams := func(names ...string) []any {
		var out []any
		for _, n := range names {
			out = append(out, map[string]any{"name": n, "in": "query", "schema": map[string]any{"type": "string", "uniqueItems": true}})
		}
		return out
	}
	var kinds []schema.GroupVersionKind
	verbs := map[string]bool{}
	for _, res := range s.Resources().All() {
		if res.Group != group || res.Version != version {
			continue
		}
		kinds = append(kinds, res.GVK)
		for _, v := range res.Verbs {
			verbs[v] = true
		}
		for _, sub := range res.Subresources {
			if !strings.HasSuffix(sub.Kind, "Options") { // connect subresources take options, not bodies
				kinds = append(kinds, schema.GroupVersionKind{Group: sub.Group, Version: sub.Version, Kind: sub.Kind})
			}
		}
		gvk := map[string]any{"group": res.Group, "version": res.Version, "kind": res.Kind}
		base := "/apis/" + group + "/" + version
		if group == "" {
			base = "/api/" + version
		}
		if res.Namespaced {
			base += "/namespaces/{namespace}"
		}
		coll := base + "/" + res.Resource.Resource
		item := coll + "/{name}"
		op := func(id string, params []any) map[string]any {
			return map[string]any{"operationId": id + res.Kind, "x-kubernetes-group-version-kind": gvk, "parameters": params, "responses": map[string]any{}}
		}
		ops := map[string]any{}
		for _, v := range res.Verbs {
			switch v {
			case "list":
				ops["get"] = op("list", queryParams("allowWatchBookmarks", "continue", "fieldSelector", "labelSelector", "limit", "resourceVersion", "resourceVersionMatch", "sendInitialEvents", "timeoutSeconds", "watch"))
			case "create":
				ops["post"] = op("create", queryParams("dryRun", "fieldManager", "fieldValidation"))
			case "deletecollection":
				ops["delete"] = op("deleteCollection", queryParams("dryRun", "gracePeriodSeconds", "propagationPolicy"))
			}
		}
		if len(ops) > 0 {
			paths[coll] = ops
		}
		ops = map[string]any{}
		for _, v := range res.Verbs {
			switch v {
			case "get":
				ops["get"] = op("read", nil)
			case "update":
				ops["put"] = op("replace", queryParams("dryRun", "fieldManager", "fieldValidation"))
			case "patch":
				ops["patch"] = op("patch", queryParams("dryRun", "fieldManager", "fieldValidation", "force"))
			case "delete":
				ops["delete"] = op("delete", queryParams("dryRun", "gracePeriodSeconds", "propagationPolicy"))
			}
		}
		if len(ops) > 0 {
			paths[item] = ops
		}
	}
	schemas := map[string]json.RawMessage{}
	if defs, err := registry.LoadBuiltinSchemas(); err != nil {
		s.log.Error("openapi definitions", "err", err)
	} else {
		schemas = defs.SchemasFor(schema.GroupVersion{Group: group, Version: version}, kinds, verbs)
	}
	return map[string]any{
		"openapi": "3.0.0",
		"info":    map[string]any{"title": "Kubernetes", "version": s.version().Major + "." + s.version().Minor},
		"paths":   paths,
		"components": map[string]any{
			"schemas":         schemas,
			"securitySchemes": map[string]any{"BearerToken": map[string]any{"type": "apiKey", "description": "Bearer Token authentication", "name": "authorization", "in": "header"}},
		},
	}
}

// version returns the reported version.
func (s *Server) version() VersionInfo {
	if s.cfg.Version.GitVersion == "" {
		return DefaultVersion()
	}
	return s.cfg.Version
}

// serveOpenAPI answers /openapi/v3 (the index), /openapi/v3/{api,apis}/...
// (one group/version) and /openapi/v2 (CRDs only).
func (s *Server) serveOpenAPI(w http.ResponseWriter, r *http.Request, path string) {
	switch {
	case path == "/openapi/v3":
		idx := map[string]any{}
		add := func(key string, b []byte) {
			sum := sha512.Sum512(b)
			idx[key] = map[string]any{"serverRelativeURL": "/openapi/v3/" + key + "?hash=" + strings.ToUpper(hex.EncodeToString(sum[:]))}
		}
		groups := map[string]bool{}
		for _, gv := range s.servedGroupVersions() {
			key := "apis/" + gv.String()
			if gv.Group == "" {
				key = "api/" + gv.Version
			} else if !groups[gv.Group] {
				groups[gv.Group] = true
				add("apis/"+gv.Group, s.openAPIv3DiscoveryDoc("apis/"+gv.Group))
			}
			add(key, s.openAPIv3Doc(gv.Group, gv.Version))
		}
		for key, b := range s.remoteOpenAPIv3() {
			add(key, b)
		}
		add("api", s.openAPIv3DiscoveryDoc("api"))
		add("apis", s.openAPIv3DiscoveryDoc("apis"))
		b, _ := json.Marshal(map[string]any{"paths": idx})
		writeBytes(w, r, http.StatusOK, mediaJSON, b)
	case strings.HasPrefix(path, "/openapi/v3/"):
		rel := strings.TrimPrefix(path, "/openapi/v3/")
		rest := strings.Split(rel, "/")
		var group, version string
		switch {
		case rel == "api" || rel == "apis":
			writeBytes(w, r, http.StatusOK, mediaJSON, s.openAPIv3DiscoveryDoc(rel))
			return
		case len(rest) == 2 && rest[0] == "apis":
			if _, ok := s.Resources().Preferred(rest[1]); !ok {
				writeError(w, r, registry.NotFoundPath())
				return
			}
			writeBytes(w, r, http.StatusOK, mediaJSON, s.openAPIv3DiscoveryDoc(rel))
			return
		case len(rest) == 2 && rest[0] == "api":
			version = rest[1]
		case len(rest) == 3 && rest[0] == "apis":
			group, version = rest[1], rest[2]
		default:
			writeError(w, r, registry.NotFoundPath())
			return
		}
		if b, ok := s.remoteOpenAPIv3()["apis/"+group+"/"+version]; ok && group != "" {
			w.Header().Set("Cache-Control", "public, immutable")
			writeBytes(w, r, http.StatusOK, mediaJSON, b)
			return
		}
		if _, ok := s.Resources().Preferred(group); !ok {
			writeError(w, r, registry.NotFoundPath())
			return
		}
		b := s.openAPIv3Doc(group, version)
		w.Header().Set("Cache-Control", "public, immutable")
		writeBytes(w, r, http.StatusOK, mediaJSON, b)
	case path == "/openapi/v2":
		s.serveOpenAPIv2(w, r)
	default:
		writeError(w, r, registry.NotFoundPath())
	}
}

// openAPIv2ProtobufMediaType is the protobuf form of /openapi/v2.
const openAPIv2ProtobufMediaType = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"

// openAPIv2ProtobufContentType is the Content-Type of that answer, as
// upstream's handler writes it (without the "@", which mime parsers refuse).
const openAPIv2ProtobufContentType = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"

// openAPIv2Doc is /openapi/v2 encoded, for one generation of the registry.
type openAPIv2Doc struct {
	gen      uint64
	json, pb []byte
	etag     string
}

// serveOpenAPIv2 answers /openapi/v2 with the definitions of the built-in
// types and the definitions and paths of the CRDs (upstream's builder,
// merged); the paths of built-in resources are in /openapi/v3 only.
func (s *Server) serveOpenAPIv2(w http.ResponseWriter, r *http.Request) {
	doc, err := s.openAPIv2()
	if err != nil {
		writeError(w, r, apierrors.NewInternalError(err))
		return
	}
	w.Header().Set("Etag", doc.etag)
	w.Header().Add("Vary", "Accept")
	if strings.Contains(r.Header.Get("Accept"), openAPIv2ProtobufMediaType) {
		writeRaw(w, http.StatusOK, openAPIv2ProtobufContentType, doc.pb)
		return
	}
	writeBytes(w, r, http.StatusOK, mediaJSON, doc.json)
}

// openAPIv2 builds (or returns the cached) /openapi/v2 document.
func (s *Server) openAPIv2() (*openAPIv2Doc, error) {
	gen := s.Resources().Generation()
	s.openAPIMu.Lock()
	defer s.openAPIMu.Unlock()
	if d := s.openAPIv2Cache; d != nil && d.gen == gen {
		return d, nil
	}
	static := &spec.Swagger{SwaggerProps: spec.SwaggerProps{
		Swagger: "2.0",
		Info:    &spec.Info{InfoProps: spec.InfoProps{Title: "Kubernetes", Version: s.version().GitVersion}},
		Paths:   &spec.Paths{Paths: map[string]spec.PathItem{}},
	}}
	if defs, err := registry.LoadBuiltinDefinitionsV2(); err != nil {
		s.log.Error("openapi v2 definitions", "err", err)
	} else {
		static.Definitions = defs
	}
	var crdSpecs []*spec.Swagger
	for _, crd := range s.Resources().AllCRDs() {
		for _, v := range crd.Spec.Versions {
			if !v.Served {
				continue
			}
			sw, err := openapibuilder.BuildOpenAPIV2(crd, v.Name, openapibuilder.Options{V2: true, IncludeSelectableFields: true})
			if err != nil {
				s.log.Warn("openapi v2 for CRD", "crd", crd.Name, "err", err)
				continue
			}
			crdSpecs = append(crdSpecs, sw)
		}
	}
	merged, err := openapibuilder.MergeSpecs(static, crdSpecs...)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(merged)
	if err != nil {
		return nil, err
	}
	pb, err := handler.ToProtoBinary(b)
	if err != nil {
		return nil, err
	}
	sum := sha512.Sum512(b)
	d := &openAPIv2Doc{gen: gen, json: b, pb: pb, etag: `"` + strings.ToUpper(hex.EncodeToString(sum[:])) + `"`}
	s.openAPIv2Cache = d
	return d, nil
}

// openAPIv3Doc is the OpenAPI v3 document of a group/version: for the
// group/versions of CRDs, upstream's builder output (schemas included, so
// kubectl explain works), merged over the CRDs serving it; for built-ins,
// the path index.
func (s *Server) openAPIv3Doc(group, version string) []byte {
	var specs []*spec3.OpenAPI
	for _, crd := range s.Resources().CRDsServing(group, version) {
		doc, err := openapibuilder.BuildOpenAPIV3(crd, version, openapibuilder.Options{IncludeSelectableFields: true})
		if err != nil {
			s.log.Warn("openapi v3 for CRD", "crd", crd.Name, "err", err)
			continue
		}
		specs = append(specs, doc)
	}
	if len(specs) > 0 {
		merged, err := openapibuilder.MergeSpecsV3(specs...)
		if err == nil {
			if b, err := json.Marshal(merged); err == nil {
				return b
			}
		}
	}
	gv := schema.GroupVersion{Group: group, Version: version}
	s.openAPIMu.Lock()
	defer s.openAPIMu.Unlock()
	if b, ok := s.openAPICache[gv]; ok {
		return b
	}
	b, _ := json.Marshal(s.openAPIv3GroupDoc(group, version))
	if s.Resources().IsBuiltinGroup(group) {
		// Built-in documents do not change while the server runs.
		if s.openAPICache == nil {
			s.openAPICache = map[schema.GroupVersion][]byte{}
		}
		s.openAPICache[gv] = b
	}
	return b
}

// openAPIv3DiscoveryDoc builds the OpenAPI v3 document of a discovery path
// ("api", "apis" or "apis/<group>"): its one GET operation, as upstream's
// operation IDs and tags name it, and the schema it answers with.
func (s *Server) openAPIv3DiscoveryDoc(rel string) []byte {
	s.openAPIMu.Lock()
	defer s.openAPIMu.Unlock()
	if b, ok := s.openAPIDiscoveryCache[rel]; ok {
		return b
	}
	var id, tag, desc, model string
	switch {
	case rel == "api":
		id, tag, desc, model = "getCoreAPIVersions", "core", "get available API versions", "APIVersions"
	case rel == "apis":
		id, tag, desc, model = "getAPIVersions", "apis", "get available API versions", "APIGroupList"
	default:
		camel := groupCamel(strings.TrimPrefix(rel, "apis/"))
		id, tag, desc, model = "get"+camel+"APIGroup", strings.ToLower(camel[:1])+camel[1:], "get information of a group", "APIGroup"
	}
	ref := "io.k8s.apimachinery.pkg.apis.meta.v1." + model
	content := map[string]any{}
	for _, mt := range []string{"application/json", "application/yaml", "application/vnd.kubernetes.protobuf"} {
		content[mt] = map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/" + ref}}
	}
	schemas := map[string]json.RawMessage{}
	if defs, err := registry.LoadBuiltinSchemas(); err != nil {
		s.log.Error("openapi definitions", "err", err)
	} else {
		schemas = defs.SchemasOf(schema.GroupVersion{Version: "v1"}, ref)
	}
	b, _ := json.Marshal(map[string]any{
		"openapi": "3.0.0",
		"info":    map[string]any{"title": "Kubernetes", "version": "unversioned"},
		"paths": map[string]any{"/" + rel + "/": map[string]any{"get": map[string]any{
			"tags": []string{tag}, "description": desc, "operationId": id,
			"responses": map[string]any{"200": map[string]any{"description": "OK", "content": content}, "401": map[string]any{"description": "Unauthorized"}},
		}}},
		"components": map[string]any{
			"schemas":         schemas,
			"securitySchemes": map[string]any{"BearerToken": map[string]any{"type": "apiKey", "description": "Bearer Token authentication", "name": "authorization", "in": "header"}},
		},
	})
	if s.openAPIDiscoveryCache == nil {
		s.openAPIDiscoveryCache = map[string][]byte{}
	}
	s.openAPIDiscoveryCache[rel] = b
	return b
}

// groupCamel is a group's name in upstream's operation IDs: its parts before
// .k8s.io capitalized ("rbac.authorization.k8s.io": "RbacAuthorization").
func groupCamel(group string) string {
	var b strings.Builder
	for _, p := range strings.Split(strings.TrimSuffix(group, ".k8s.io"), ".") {
		if p == "" {
			continue
		}
		b.WriteString(strings.ToUpper(p[:1]) + p[1:])
	}
	return b.String()
}
