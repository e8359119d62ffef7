package fakeplane_test

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/openapi3"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/fakeplane/fakeplane"
)

// TestOpenAPIV3BuiltinPaths: a built-in group/version's /openapi/v3
// document has kube-apiserver's operations for every resource and
// subresource, with their parameters, request bodies and responses.
func TestOpenAPIV3BuiltinPaths(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	root := openapi3.NewRoot(clientset(t, cp).Discovery().OpenAPIV3())
	core, err := root.GVSpec(schema.GroupVersion{Version: "v1"})
	if err != nil {
		t.Fatal(err)
	}
	apps, err := root.GVSpec(schema.GroupVersion{Group: "apps", Version: "v1"})
	if err != nil {
		t.Fatal(err)
	}

	for _, p := range []string{
		"/api/v1/",
		"/api/v1/configmaps",
		"/api/v1/namespaces/{namespace}/pods/{name}/status",
		"/api/v1/namespaces/{namespace}/pods/{name}/exec",
		"/api/v1/namespaces/{namespace}/pods/{name}/attach",
		"/api/v1/namespaces/{namespace}/pods/{name}/portforward",
		"/api/v1/namespaces/{namespace}/pods/{name}/proxy/{path}",
		"/api/v1/namespaces/{namespace}/pods/{name}/binding",
		"/api/v1/namespaces/{namespace}/pods/{name}/eviction",
		"/api/v1/namespaces/{namespace}/pods/{name}/ephemeralcontainers",
		"/api/v1/namespaces/{namespace}/pods/{name}/resize",
		"/api/v1/namespaces/{namespace}/serviceaccounts/{name}/token",
		"/api/v1/namespaces/{name}/finalize",
		"/api/v1/nodes/{name}/proxy",
		"/api/v1/namespaces/{namespace}/replicationcontrollers/{name}/scale",
		"/api/v1/watch/namespaces/{namespace}/configmaps/{name}",
	} {
		if _, ok := core.Paths.Paths[p]; !ok {
			t.Errorf("/openapi/v3/api/v1 lacks %s", p)
		}
	}
	if n := len(core.Paths.Paths); n != 113 {
		t.Errorf("/openapi/v3/api/v1 has %d paths, kube-apiserver 113", n)
	}
	if n := len(apps.Paths.Paths); n != 38 {
		t.Errorf("/openapi/v3/apis/apps/v1 has %d paths, kube-apiserver 38", n)
	}

	// pods/log: a GET with the log options as query parameters, answering
	// text.
	log := core.Paths.Paths["/api/v1/namespaces/{namespace}/pods/{name}/log"]
	if log == nil || log.Get == nil {
		t.Fatal("no GET pods/log")
	}
	if got, want := v3ParamNames(log, log.Get), "container follow insecureSkipTLSVerifyBackend limitBytes name namespace pretty previous sinceSeconds stream tailLines timestamps"; got != want {
		t.Errorf("pods/log parameters: %s, want %s", got, want)
	}
	if id := log.Get.OperationId; id != "readCoreV1NamespacedPodLog" {
		t.Errorf("pods/log operationId %q", id)
	}
	if desc := v3Param(log, log.Get, "tailLines"); desc == nil || !strings.Contains(desc.Description, "lines from the end of the logs") {
		t.Errorf("tailLines: %+v", desc)
	}

	// POST configmaps takes and answers a ConfigMap.
	cms := core.Paths.Paths["/api/v1/namespaces/{namespace}/configmaps"]
	if cms == nil || cms.Post == nil || cms.Post.RequestBody == nil {
		t.Fatal("POST configmaps has no requestBody")
	}
	// The body's media type is the route's: any.
	const configMapRef = "#/components/schemas/io.k8s.api.core.v1.ConfigMap"
	if c := cms.Post.RequestBody.Content["*/*"]; c == nil || c.Schema.Ref.String() != configMapRef || !cms.Post.RequestBody.Required {
		t.Errorf("POST configmaps requestBody: %+v", cms.Post.RequestBody)
	}
	if got, want := v3ParamNames(cms, cms.Post), "dryRun fieldManager fieldValidation namespace pretty"; got != want {
		t.Errorf("POST configmaps parameters: %s, want %s", got, want)
	}
	for _, code := range []int{200, 201, 202} {
		r := cms.Post.Responses.StatusCodeResponses[code]
		if r == nil || r.Content["application/json"] == nil || r.Content["application/json"].Schema.Ref.String() != configMapRef {
			t.Errorf("POST configmaps response %d: %+v", code, r)
		}
	}
	if _, ok := core.Components.Schemas["io.k8s.api.core.v1.ConfigMap"]; !ok {
		t.Error("no ConfigMap schema")
	}
	// PATCH takes the patch types kube-apiserver accepts.
	item := core.Paths.Paths["/api/v1/namespaces/{namespace}/configmaps/{name}"]
	var patchTypes []string
	for mt := range item.Patch.RequestBody.Content {
		patchTypes = append(patchTypes, mt)
	}
	sort.Strings(patchTypes)
	if got := strings.Join(patchTypes, " "); got != "application/apply-patch+yaml application/json-patch+json application/merge-patch+json application/strategic-merge-patch+json" {
		t.Errorf("PATCH configmaps body types: %s", got)
	}

	// The scale subresource of deployments reads and writes an
	// autoscaling/v1 Scale.
	scale := apps.Paths.Paths["/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale"]
	if scale == nil || scale.Put == nil {
		t.Fatal("no PUT deployments/scale")
	}
	if c := scale.Put.RequestBody.Content["*/*"]; c == nil || c.Schema.Ref.String() != "#/components/schemas/io.k8s.api.autoscaling.v1.Scale" {
		t.Errorf("PUT deployments/scale body: %+v", scale.Put.RequestBody)
	}
	gvk, _ := json.Marshal(scale.Put.Extensions["x-kubernetes-group-version-kind"])
	if string(gvk) != `{"group":"autoscaling","kind":"Scale","version":"v1"}` {
		t.Errorf("PUT deployments/scale x-kubernetes-group-version-kind: %s", gvk)
	}
}

// v3Param finds a parameter of an operation or its path.
func v3Param(p *spec3.Path, op *spec3.Operation, name string) *spec3.Parameter {
	for _, l := range [][]*spec3.Parameter{p.Parameters, op.Parameters} {
		for _, prm := range l {
			if prm.Name == name {
				return prm
			}
		}
	}
	return nil
}

// v3ParamNames lists the names of an operation's parameters and its path's,
// sorted.
func v3ParamNames(p *spec3.Path, op *spec3.Operation) string {
	var names []string
	for _, l := range [][]*spec3.Parameter{p.Parameters, op.Parameters} {
		for _, prm := range l {
			names = append(names, prm.Name)
		}
	}
	sort.Strings(names)
	return strings.Join(names, " ")
}

// TestOpenAPIV2BuiltinPaths: /openapi/v2 has kube-apiserver's paths of the
// built-in resources (watch paths included), with shared parameters and
// the definitions they refer to; it is gzipped for a client that accepts
// it, and says it varies by Accept-Encoding.
func TestOpenAPIV2BuiltinPaths(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	hc, err := rest.HTTPClientFor(cp.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequestWithContext(ctxT(t), http.MethodGet, cp.URL()+"/openapi/v2", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("status %d, Content-Encoding %q", resp.StatusCode, resp.Header.Get("Content-Encoding"))
	}
	if vary := strings.Join(resp.Header.Values("Vary"), ","); vary != "Accept-Encoding,Accept" {
		t.Errorf("Vary: %s", vary)
	}
	zr, err := gzip.NewReader(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	var doc spec.Swagger
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	if n := len(doc.Paths.Paths); n != 432 {
		t.Errorf("%d paths, kube-apiserver 432", n)
	}
	scale, ok := doc.Paths.Paths["/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale"]
	if !ok || scale.Put == nil {
		t.Fatal("no PUT deployments/scale")
	}
	if scale.Put.ID != "replaceAppsV1NamespacedDeploymentScale" {
		t.Errorf("PUT deployments/scale operationId %q", scale.Put.ID)
	}
	for _, p := range []string{"/api/v1/watch/namespaces/{namespace}/pods", "/api/v1/watch/pods", "/api/v1/pods", "/apis/apps/", "/apis/apps/v1/", "/version/", "/api/"} {
		if _, ok := doc.Paths.Paths[p]; !ok {
			t.Errorf("no %s", p)
		}
	}
	// Every shared parameter and definition referred to is there.
	for _, m := range refPattern.FindAllStringSubmatch(string(body), -1) {
		switch m[1] {
		case "parameters":
			if _, ok := doc.Parameters[m[2]]; !ok {
				t.Errorf("no parameter %s", m[2])
			}
		case "definitions":
			if _, ok := doc.Definitions[m[2]]; !ok {
				t.Errorf("no definition %s", m[2])
			}
		}
	}
	if len(doc.SecurityDefinitions) != 1 || doc.SecurityDefinitions["BearerToken"] == nil {
		t.Errorf("securityDefinitions: %v", doc.SecurityDefinitions)
	}
}

// TestOpenAPIV3DocumentCaching: an /openapi/v3 document is served as
// kube-openapi's handler3 serves it: with its hash as ETag; asked for by
// the hash the index gives, cacheable for good; by another hash, redirected
// to the current one; 406 for a media type it does not have. The index
// lists the documents of /version and the OpenID routes too.
func TestOpenAPIV3DocumentCaching(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	rc := clientset(t, cp).RESTClient()
	index := openAPIv3Index(t, rc)
	for _, key := range []string{"version", ".well-known/openid-configuration", "openid/v1/jwks", "api/v1", "apis/apps/v1"} {
		if _, ok := index.Paths[key]; !ok {
			t.Errorf("the index lacks %s", key)
		}
	}
	u := index.Paths["apis/apps/v1"].URL
	hash := u[strings.Index(u, "hash=")+len("hash="):]
	hc, err := rest.HTTPClientFor(cp.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	for _, tc := range []struct {
		name, path, accept string
		code               int
		cacheControl       string
		location           string
	}{
		{"without hash", "/openapi/v3/apis/apps/v1", "application/json", http.StatusOK, "no-cache, private", ""},
		{"with its hash", u, "application/json", http.StatusOK, "public, immutable", ""},
		{"with another hash", "/openapi/v3/apis/apps/v1?hash=ABC", "application/json", http.StatusMovedPermanently, "no-cache, private", u},
		{"protobuf", u, "application/com.github.proto-openapi.spec.v3@v1.0+protobuf", http.StatusOK, "public, immutable", ""},
		{"not acceptable", u, "text/html", http.StatusNotAcceptable, "no-cache, private", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequestWithContext(ctxT(t), http.MethodGet, cp.URL()+tc.path, nil)
			req.Header.Set("Accept", tc.accept)
			resp, err := hc.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.code {
				t.Fatalf("status %d: %.200s", resp.StatusCode, body)
			}
			if cc := resp.Header.Get("Cache-Control"); cc != tc.cacheControl {
				t.Errorf("Cache-Control %q, want %q", cc, tc.cacheControl)
			}
			if loc := resp.Header.Get("Location"); loc != tc.location {
				t.Errorf("Location %q, want %q", loc, tc.location)
			}
			if tc.code == http.StatusOK {
				if etag := resp.Header.Get("Etag"); etag != `"`+hash+`"` {
					t.Errorf("Etag %s, want the hash %s", etag, hash)
				}
				if vary := resp.Header.Get("Vary"); vary != "Accept" {
					t.Errorf("Vary %q", vary)
				}
				if (resp.Header.Get("Expires") != "") != (tc.cacheControl == "public, immutable") {
					t.Errorf("Expires %q with Cache-Control %q", resp.Header.Get("Expires"), tc.cacheControl)
				}
				if strings.HasPrefix(tc.accept, "application/json") && !json.Valid(body) {
					t.Errorf("not JSON: %.200s", body)
				}
				if strings.Contains(tc.accept, "protobuf") && (json.Valid(body) || len(body) == 0 ||
					resp.Header.Get("Content-Type") != "application/com.github.proto-openapi.spec.v3.v1.0+protobuf") {
					t.Errorf("protobuf answer: Content-Type %q, %d bytes", resp.Header.Get("Content-Type"), len(body))
				}
			}
		})
	}
}

// TestKubectlCreateValidateStrict: kubectl's --validate=strict learns from
// the OpenAPI documents that the server validates fields, and the server
// refuses an unknown field.
func TestKubectlCreateValidateStrict(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good.yaml"), filepath.Join(dir, "bad.yaml")
	const cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\n  namespace: default\n%s"
	if err := os.WriteFile(good, fmt.Appendf(nil, cm, "good", "data:\n  a: b\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, fmt.Appendf(nil, cm, "bad", "bogus: 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	wantLine(t, "create", mustKubectl(t, cp, "create", "--validate=strict", "-f", good), `configmap/good created`)
	stderr := failKubectl(t, cp, "create", "--validate=strict", "-f", bad)
	wantLine(t, "create bad", stderr, `Error from server \(BadRequest\): error when creating ".*bad.yaml": ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "bogus"`)
}

var refPattern = regexp.MustCompile(`"#/(parameters|definitions)/([^"]+)"`)

// TestOpenAPIMatchesReferenceServer compares the OpenAPI documents with
// those of the kube-apiserver FAKEPLANE_REF_KUBECONFIG points at: for
// /openapi/v2 and every built-in group/version both serve in /openapi/v3,
// the same operations (path, method, operationId), with the same parameter
// names and request and response bodies. Paths of group/versions fakeplane
// does not serve (the reference's CRDs and aggregated APIs) are left out.
func TestOpenAPIMatchesReferenceServer(t *testing.T) {
	path := os.Getenv("FAKEPLANE_REF_KUBECONFIG")
	if path == "" {
		t.Skip("FAKEPLANE_REF_KUBECONFIG is not set")
	}
	t.Parallel()
	refCfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		t.Fatal(err)
	}
	cp := fakeplane.Start(t)
	get := func(cfg *rest.Config, p string) map[string]any {
		t.Helper()
		hc, err := rest.HTTPClientFor(cfg)
		if err != nil {
			t.Fatal(err)
		}
		req, _ := http.NewRequestWithContext(ctxT(t), http.MethodGet, strings.TrimSuffix(cfg.Host, "/")+p, nil)
		req.Header.Set("Accept", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %v: %.200s", p, resp.StatusCode, err, body)
		}
		var doc map[string]any
		if err := json.Unmarshal(body, &doc); err != nil {
			t.Fatalf("GET %s: %v", p, err)
		}
		return doc
	}
	ours := cp.RESTConfig()

	// The built-in group/versions fakeplane serves, by /openapi/v3 key.
	served := map[string]bool{}
	for key := range get(ours, "/openapi/v3")["paths"].(map[string]any) {
		if parts := strings.Split(key, "/"); (parts[0] == "api" && len(parts) == 2) || (parts[0] == "apis" && len(parts) == 3) {
			served[key] = true
		}
	}
	inServedGV := func(p string) bool {
		parts := strings.Split(strings.Trim(p, "/"), "/")
		switch {
		case parts[0] == "api" && len(parts) >= 2:
			return served["api/"+parts[1]]
		case parts[0] == "apis" && len(parts) >= 3:
			return served["apis/"+parts[1]+"/"+parts[2]]
		case parts[0] == "apis" && len(parts) == 2:
			for key := range served {
				if strings.HasPrefix(key, "apis/"+parts[1]+"/") {
					return true
				}
			}
			return false
		}
		return true
	}
	compare := func(what string, ref, fake map[string]string) {
		t.Helper()
		n := 0
		for k, want := range ref {
			got, ok := fake[k]
			switch {
			case !ok:
				t.Errorf("%s: fakeplane lacks %s", what, k)
			case got != want:
				t.Errorf("%s: %s\n got %s\nwant %s", what, k, got, want)
			default:
				n++
			}
		}
		for k := range fake {
			if _, ok := ref[k]; !ok {
				t.Errorf("%s: fakeplane has %s, the reference does not", what, k)
			}
		}
		t.Logf("%s: %d operations match", what, n)
	}

	compare("/openapi/v2", openAPIOperations(get(refCfg, "/openapi/v2"), inServedGV), openAPIOperations(get(ours, "/openapi/v2"), inServedGV))
	refIndex := get(refCfg, "/openapi/v3")["paths"].(map[string]any)
	var keys []string
	for key := range served {
		if _, ok := refIndex[key]; ok {
			keys = append(keys, key)
		} else {
			t.Logf("the reference does not serve %s", key)
		}
	}
	sort.Strings(keys)
	// Documents both list are byte for byte the same: their hashes are.
	for key, entry := range get(ours, "/openapi/v3")["paths"].(map[string]any) {
		if refEntry, ok := refIndex[key]; !ok {
			t.Errorf("/openapi/v3 lists %s, the reference does not", key)
		} else if got, want := entry.(map[string]any)["serverRelativeURL"], refEntry.(map[string]any)["serverRelativeURL"]; got != want {
			t.Errorf("/openapi/v3 %s: %s, the reference %s", key, got, want)
		}
	}
	for _, key := range keys {
		all := func(string) bool { return true }
		compare("/openapi/v3/"+key, openAPIOperations(get(refCfg, "/openapi/v3/"+key), all), openAPIOperations(get(ours, "/openapi/v3/"+key), all))
	}
}

// openAPIOperations summarizes the operations of a v2 or v3 document whose
// paths keep accepts: by "path METHOD", the operationId, the sorted
// parameter names (the path's and the operation's, shared v2 parameters
// resolved), the request body's schemas and each response's.
func openAPIOperations(doc map[string]any, keep func(path string) bool) map[string]string {
	shared, _ := doc["parameters"].(map[string]any)
	param := func(p any) map[string]any {
		m, _ := p.(map[string]any)
		if ref, ok := m["$ref"].(string); ok {
			m, _ = shared[strings.TrimPrefix(ref, "#/parameters/")].(map[string]any)
		}
		return m
	}
	schemaOf := func(s any) string {
		m, _ := s.(map[string]any)
		if ref, ok := m["$ref"].(string); ok {
			return ref[strings.LastIndex(ref, "/")+1:]
		}
		if typ, ok := m["type"].(string); ok {
			return typ
		}
		return ""
	}
	// contentSchemas lists a v3 body's schemas by media type.
	contentSchemas := func(c any) string {
		m, _ := c.(map[string]any)
		var out []string
		for mt, v := range m {
			out = append(out, mt+"="+schemaOf(v.(map[string]any)["schema"]))
		}
		sort.Strings(out)
		return strings.Join(out, ",")
	}
	ops := map[string]string{}
	paths, _ := doc["paths"].(map[string]any)
	for p, item := range paths {
		if !keep(p) {
			continue
		}
		itemMap := item.(map[string]any)
		pathParams, _ := itemMap["parameters"].([]any)
		for method, op := range itemMap {
			if method == "parameters" {
				continue
			}
			o := op.(map[string]any)
			var names []string
			body := ""
			for _, prm := range append(append([]any(nil), pathParams...), asSlice(o["parameters"])...) {
				m := param(prm)
				names = append(names, fmt.Sprint(m["name"], "(", m["in"], ")"))
				if m["in"] == "body" {
					body = schemaOf(m["schema"])
				}
			}
			sort.Strings(names)
			if rb, ok := o["requestBody"].(map[string]any); ok {
				body = contentSchemas(rb["content"])
			}
			var responses []string
			rs, _ := o["responses"].(map[string]any)
			for code, r := range rs {
				rm := r.(map[string]any)
				s := schemaOf(rm["schema"])
				if c, ok := rm["content"]; ok {
					s = contentSchemas(c)
				}
				responses = append(responses, code+":"+s)
			}
			sort.Strings(responses)
			ops[p+" "+strings.ToUpper(method)] = fmt.Sprintf("id=%v params=[%s] body=%s responses=[%s]", o["operationId"], strings.Join(names, " "), body, strings.Join(responses, " "))
		}
	}
	return ops
}

// asSlice returns v as a slice, or nil.
func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}
