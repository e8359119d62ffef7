package registry

import (
	"bytes"
	"compress/gzip"
	_ "embed" // the generated paths
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"

	"k8s.io/kube-openapi/pkg/validation/spec"
)

// The OpenAPI paths of the built-in resources and of the other go-restful
// routes kube-apiserver documents (discovery, /version, the service account
// issuer's OpenID documents): what kube-apiserver v1.37 serves in
// /openapi/v2 and in each built-in /openapi/v3 group/version document, built
// by hack/gen-openapi.sh with upstream's API installer and kube-openapi's
// builders for every built-in resource. A control plane serves the ones of
// the resources it serves (BuiltinPaths.V2, BuiltinPaths.V3).
//
//go:embed openapidata/builtin-paths.json.gz
var openAPIPathsData []byte

// PathOwner tells what serves an OpenAPI path.
type PathOwner struct {
	// Kind is "resource" for the paths of a resource or subresource,
	// "version" for a group/version's discovery (/apis/apps/v1/), "group"
	// for a group's (/apis/apps/), and "" for the other paths (/api/,
	// /apis/, /version/, the OpenID documents).
	Kind string
	// Group, Version, Resource and Subresource name what serves the path,
	// as far as Kind has them.
	Group, Version, Resource, Subresource string
}

// ParsePathOwner tells what serves a path of upstream's OpenAPI documents:
// /api/v1/namespaces/{namespace}/pods/{name}/log is the pods/log
// subresource, /apis/apps/v1/watch/deployments the deployments resource
// (watch and the all-namespaces forms included), /api/v1/namespaces/{name}
// the namespaces resource.
func ParsePathOwner(path string) PathOwner {
	var group, version, rest string
	switch {
	case strings.HasPrefix(path, "/api/"):
		version, rest, _ = strings.Cut(strings.TrimPrefix(path, "/api/"), "/")
		if version == "" {
			return PathOwner{}
		}
	case strings.HasPrefix(path, "/apis/"):
		var gv string
		group, gv, _ = strings.Cut(strings.TrimPrefix(path, "/apis/"), "/")
		if group == "" {
			return PathOwner{}
		}
		if gv == "" {
			return PathOwner{Kind: "group", Group: group}
		}
		version, rest, _ = strings.Cut(gv, "/")
	default:
		return PathOwner{}
	}
	if rest == "" {
		return PathOwner{Kind: "version", Group: group, Version: version}
	}
	rest = strings.TrimPrefix(rest, "watch/")
	if r, ok := strings.CutPrefix(rest, "namespaces/{namespace}/"); ok {
		rest = r
	}
	segs := strings.Split(rest, "/")
	o := PathOwner{Kind: "resource", Group: group, Version: version, Resource: segs[0]}
	if len(segs) >= 3 {
		o.Subresource = segs[2]
	}
	return o
}

// BuiltinPaths is the decoded path data, shared read-only by all servers.
type BuiltinPaths struct {
	v2       []builtinPath
	v2Params map[string]builtinParam
	v2Defs   map[string]builtinDef
	v3       map[string][]builtinPath
}

// builtinParam is a shared parameter of /openapi/v2, decoded and as JSON.
type builtinParam struct {
	param spec.Parameter
	raw   json.RawMessage
}

// builtinDef is a definition of /openapi/v2 and the definitions it refers
// to.
type builtinDef struct {
	schema spec.Schema
	refs   []string
}

// builtinPath is one path of a document: its item decoded (v2) or as JSON
// (v3), and what serves it.
type builtinPath struct {
	path  string
	owner PathOwner
	raw   json.RawMessage
	item  spec.PathItem
}

// LoadBuiltinPaths decodes the generated paths once.
var LoadBuiltinPaths = sync.OnceValues(func() (*BuiltinPaths, error) {
	zr, err := gzip.NewReader(bytes.NewReader(openAPIPathsData))
	if err != nil {
		return nil, fmt.Errorf("openapi paths: %w", err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("openapi paths: %w", err)
	}
	var doc struct {
		V2 struct {
			Paths      map[string]json.RawMessage `json:"paths"`
			Parameters map[string]json.RawMessage `json:"parameters"`
		} `json:"v2"`
		V3 map[string]map[string]json.RawMessage `json:"v3"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("openapi paths: %w", err)
	}
	p := &BuiltinPaths{v2Params: map[string]builtinParam{}, v2Defs: map[string]builtinDef{}, v3: map[string][]builtinPath{}}
	for name, raw := range doc.V2.Parameters {
		bp := builtinParam{raw: raw}
		if err := json.Unmarshal(raw, &bp.param); err != nil {
			return nil, fmt.Errorf("openapi parameter %s: %w", name, err)
		}
		p.v2Params[name] = bp
	}
	defs := map[string]json.RawMessage{}
	if err := readGzipJSON("openapidata/builtin-v2.json.gz", &defs); err != nil {
		return nil, err
	}
	for name, raw := range defs {
		var d builtinDef
		if err := json.Unmarshal(raw, &d.schema); err != nil {
			return nil, fmt.Errorf("openapi definition %s: %w", name, err)
		}
		for _, m := range definitionRef.FindAllSubmatch(raw, -1) {
			d.refs = append(d.refs, string(m[1]))
		}
		p.v2Defs[name] = d
	}
	for path, raw := range doc.V2.Paths {
		bp := builtinPath{path: path, owner: ParsePathOwner(path), raw: raw}
		if err := json.Unmarshal(raw, &bp.item); err != nil {
			return nil, fmt.Errorf("openapi path %s: %w", path, err)
		}
		if bp.owner.Group == "apiregistration.k8s.io" {
			orderAggregatorGVKs(&bp.item)
		}
		p.v2 = append(p.v2, bp)
	}
	for key, paths := range doc.V3 {
		for path, raw := range paths {
			p.v3[key] = append(p.v3[key], builtinPath{path: path, owner: ParsePathOwner(path), raw: raw})
		}
	}
	return p, nil
})

var (
	parameterRef  = regexp.MustCompile(`"#/parameters/([^"]+)"`)
	definitionRef = regexp.MustCompile(`"#/definitions/([^"]+)"`)
)

// V2 returns the /openapi/v2 paths whose owners served accepts, the shared
// parameters they refer to and the definitions of the models they use, as
// kube-apiserver's document has those of its routes. The values are
// shared: callers must not modify them.
func (p *BuiltinPaths) V2(served func(PathOwner) bool) (map[string]spec.PathItem, map[string]spec.Parameter, spec.Definitions) {
	paths := map[string]spec.PathItem{}
	params := map[string]spec.Parameter{}
	defs := spec.Definitions{}
	var addDef func(string)
	addDef = func(name string) {
		d, ok := p.v2Defs[name]
		if _, done := defs[name]; done || !ok {
			return
		}
		defs[name] = d.schema
		for _, r := range d.refs {
			addDef(r)
		}
	}
	addRefs := func(raw []byte) {
		for _, m := range definitionRef.FindAllSubmatch(raw, -1) {
			addDef(string(m[1]))
		}
	}
	for _, bp := range p.v2 {
		if !served(bp.owner) {
			continue
		}
		paths[bp.path] = bp.item
		addRefs(bp.raw)
		for _, m := range parameterRef.FindAllSubmatch(bp.raw, -1) {
			if param, ok := p.v2Params[string(m[1])]; ok {
				params[string(m[1])] = param.param
				addRefs(param.raw)
			}
		}
	}
	return paths, params, defs
}

// V3 returns the paths of the /openapi/v3 document key names ("api/v1",
// "apis/apps/v1", "version") whose owners served accepts, and the names of
// the schemas they refer to.
func (p *BuiltinPaths) V3(key string, served func(PathOwner) bool) (map[string]json.RawMessage, []string) {
	paths := map[string]json.RawMessage{}
	var refs []string
	seen := map[string]bool{}
	for _, bp := range p.v3[key] {
		if !served(bp.owner) {
			continue
		}
		paths[bp.path] = bp.raw
		for _, m := range schemaRef.FindAllSubmatch(bp.raw, -1) {
			if name := string(m[1]); !seen[name] {
				seen[name] = true
				refs = append(refs, name)
			}
		}
	}
	return paths, refs
}

// aggregatorGVK is an x-kubernetes-group-version-kind value written in the
// order kube-aggregator's own paths (apiregistration.k8s.io's) have it in
// /openapi/v2: group, version, kind. The other paths' values are maps,
// written with sorted keys (group, kind, version), as kube-apiserver's are.
type aggregatorGVK struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

// orderAggregatorGVKs gives the operations of one of kube-aggregator's
// paths their x-kubernetes-group-version-kind in its order.
func orderAggregatorGVKs(item *spec.PathItem) {
	const key = "x-kubernetes-group-version-kind"
	for _, op := range []*spec.Operation{item.Get, item.Put, item.Post, item.Delete, item.Options, item.Head, item.Patch} {
		if op == nil {
			continue
		}
		m, ok := op.Extensions[key].(map[string]any)
		if !ok {
			continue
		}
		g, _ := m["group"].(string)
		v, _ := m["version"].(string)
		k, _ := m["kind"].(string)
		op.Extensions[key] = aggregatorGVK{Group: g, Version: v, Kind: k}
	}
}
