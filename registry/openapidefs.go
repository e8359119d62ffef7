package registry

import (
	"bytes"
	"compress/gzip"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// The OpenAPI definitions of the built-in types, generated from the
// k8s.io/api sources by kube-openapi (hack/gen-openapi.sh): v3 schemas for
// the per-group-version documents under /openapi/v3 (what kubectl explain
// and schema-aware clients read) and v2 definitions for /openapi/v2 (those
// of the models kube-apiserver's routes use: openapipaths.go).
//
//go:embed openapidata/builtin-v3.json.gz openapidata/builtin-v2.json.gz openapidata/builtin-smd.gob.gz
var openAPIData embed.FS

// BuiltinSchemas is the decoded v3 data, shared read-only by all servers.
type BuiltinSchemas struct {
	// raw maps a model name (io.k8s.api.core.v1.Pod) to its v3 schema.
	raw map[string]json.RawMessage
	// gvks lists the kinds each model is registered as.
	gvks map[string][]schema.GroupVersionKind
}

// LoadBuiltinSchemas reads the built-in OpenAPI v3 schemas once.
var LoadBuiltinSchemas = sync.OnceValues(func() (*BuiltinSchemas, error) {
	raw := map[string]json.RawMessage{}
	if err := readGzipJSON("openapidata/builtin-v3.json.gz", &raw); err != nil {
		return nil, err
	}
	b := &BuiltinSchemas{raw: raw, gvks: map[string][]schema.GroupVersionKind{}}
	for name, s := range raw {
		var head struct {
			GVK []schema.GroupVersionKind `json:"x-kubernetes-group-version-kind"`
		}
		if !bytes.Contains(s, []byte("x-kubernetes-group-version-kind")) {
			continue
		}
		if err := json.Unmarshal(s, &head); err != nil {
			return nil, fmt.Errorf("openapi definition %s: %w", name, err)
		}
		b.gvks[name] = head.GVK
	}
	return b, nil
})

// readGzipJSON decodes one of the embedded gzipped JSON files into v.
func readGzipJSON(name string, v any) error {
	f, err := openAPIData.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

var schemaRef = regexp.MustCompile(`"#/components/schemas/([^"]+)"`)

// SchemasOf returns the components/schemas of a document of gv that refers
// to the models named roots: theirs and those of what they refer to. Each
// schema's x-kubernetes-group-version-kind keeps the registrations in this
// group/version and in the type's own, as kube-apiserver serves them.
func (b *BuiltinSchemas) SchemasOf(gv schema.GroupVersion, roots ...string) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	var walk func(string)
	walk = func(name string) {
		if _, done := out[name]; done {
			return
		}
		s, ok := b.raw[name]
		if !ok {
			return
		}
		out[name] = s
		for _, m := range schemaRef.FindAllSubmatch(s, -1) {
			walk(string(m[1]))
		}
	}
	for _, r := range roots {
		walk(r)
	}
	for name := range out {
		all, ok := b.gvks[name]
		if !ok {
			continue
		}
		var keep []schema.GroupVersionKind
		for _, g := range all {
			if g.GroupVersion() == gv || isHomeGroupVersion(name, g.GroupVersion()) {
				keep = append(keep, g)
			}
		}
		if len(keep) == len(all) {
			continue
		}
		// Through spec.Schema, which writes the fields in kube-openapi's
		// order, as the rest of the document.
		var m spec.Schema
		if err := json.Unmarshal(out[name], &m); err != nil {
			continue
		}
		if len(keep) == 0 {
			delete(m.Extensions, "x-kubernetes-group-version-kind")
		} else {
			l := make([]map[string]string, len(keep))
			for i, g := range keep {
				l[i] = map[string]string{"group": g.Group, "version": g.Version, "kind": g.Kind}
			}
			m.Extensions["x-kubernetes-group-version-kind"] = l
		}
		if b, err := json.Marshal(&m); err == nil {
			out[name] = b
		}
	}
	return out
}

// isHomeGroupVersion reports whether gv is the group/version whose package
// defines a model: io.k8s.api.autoscaling.v1.Scale is at home in
// autoscaling/v1, the meta.k8s.io types (io.k8s.apimachinery.pkg.apis.meta.v1)
// and io.k8s.api.core.v1 in the core group.
func isHomeGroupVersion(model string, gv schema.GroupVersion) bool {
	parts := strings.Split(model, ".")
	if len(parts) < 3 {
		return false
	}
	pkg, version := parts[len(parts)-3], parts[len(parts)-2]
	if gv.Version != version {
		return false
	}
	if pkg == "core" || pkg == "meta" {
		return gv.Group == ""
	}
	first, _, _ := strings.Cut(gv.Group, ".")
	return gv.Group != "" && first == pkg
}
