package fakeplane_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"testing"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/fakeplane/fakeplane"
)

// The ETags refplane (kube-apiserver v1.37.2, no CRDs or extension API
// servers) gives a fresh cluster's aggregated discovery (/apis) and
// /openapi/v2: a fresh control plane serves the same documents, byte for
// byte, so the same ETags.
const (
	refAPIsETag      = `"C1F1010597FE58AB064229356A99E46C1A393186FA4A195FB7F52CC9716570130AA2FD3A1637DC37D5C215C4A3A6022B5C46487215FF916DE5BA1DD781D395AE"`
	refOpenAPIv2ETag = `"DF2707FBB17B730BA6CFB1500097BA574D674EB780911FEFBF27F897FD0988F7A31E7707348ABE2C26C2478A7346599DE894C00EDD07B16E863D9183C1A93914"`
)

// TestDiscoveryAndOpenAPIAnswerAsKubeAPIServer: aggregated discovery has
// kube-apiserver's ETag (the SHA-512 of the list without its kind and
// apiVersion), is indented for curl and ends with a newline otherwise, and
// a 304 to If-None-Match is public as the 200 is; /openapi/v2 has
// kube-apiserver's ETag (kube-aggregator's own paths keep their
// group-version-kind's key order). Recorded from refplane.
func TestDiscoveryAndOpenAPIAnswerAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	const aggregated = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
	get := func(path string, header http.Header) (int, http.Header, []byte) {
		t.Helper()
		return rawExchange(t, cp, "GET", path, "", nil, header)
	}
	code, h, body := get("/apis", http.Header{"Accept": {aggregated}, "User-Agent": {"probe"}})
	if code != 200 || h.Get("Etag") != refAPIsETag || h.Get("Cache-Control") != "public" || h.Get("Vary") != "Accept" {
		t.Errorf("GET /apis: %d, ETag %s, Cache-Control %q, Vary %q; want 200, ETag %s, public, Accept", code, h.Get("Etag"), h.Get("Cache-Control"), h.Get("Vary"), refAPIsETag)
	}
	if !bytes.HasPrefix(body, []byte(`{"kind":"APIGroupDiscoveryList",`)) || !bytes.HasSuffix(body, []byte("}\n")) {
		t.Errorf("GET /apis is not compact JSON ending with a newline: %.60q ... %q", body, body[max(0, len(body)-10):])
	}
	_, _, pretty := get("/apis", http.Header{"Accept": {aggregated}, "User-Agent": {"curl/8.5.0"}})
	if !bytes.HasPrefix(pretty, []byte("{\n  \"kind\": \"APIGroupDiscoveryList\",")) || !bytes.HasSuffix(pretty, []byte("}")) {
		t.Errorf("GET /apis from curl is not indented: %.60q ... %q", pretty, pretty[max(0, len(pretty)-10):])
	}
	code, h, _ = get("/apis", http.Header{"Accept": {aggregated}, "If-None-Match": {refAPIsETag}})
	if code != http.StatusNotModified || h.Get("Cache-Control") != "public" || h.Get("Etag") != refAPIsETag {
		t.Errorf("GET /apis If-None-Match: %d, Cache-Control %q, ETag %s; want 304, public, the same ETag", code, h.Get("Cache-Control"), h.Get("Etag"))
	}
	code, h, _ = get("/openapi/v2", http.Header{"Accept": {"application/json"}})
	if code != 200 || h.Get("Etag") != refOpenAPIv2ETag {
		t.Errorf("GET /openapi/v2: %d, ETag %s; want 200, ETag %s", code, h.Get("Etag"), refOpenAPIv2ETag)
	}
}

// TestRootListsEveryPathItServes: GET / lists, as kube-apiserver's does, the
// discovery and OpenAPI paths, /flagz, /metrics, /metrics/slis, /statusz,
// /version and each health endpoint with each of its checks (recorded from
// refplane); every path listed answers.
func TestRootListsEveryPathItServes(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	code, _, body := rawRequest(t, cp, "GET", "/", "", nil, nil)
	var root struct {
		Paths []string `json:"paths"`
	}
	if err := json.Unmarshal(body, &root); code != 200 || err != nil {
		t.Fatalf("GET /: %d %v %s", code, err, body)
	}
	if !slices.IsSorted(root.Paths) {
		t.Errorf("the paths are not sorted: %v", root.Paths)
	}
	for _, want := range []string{"/flagz", "/metrics", "/metrics/slis", "/statusz", "/version", "/openapi/v2", "/healthz/etcd", "/livez/loopback-serving-certificate",
		"/readyz/informer-sync", "/readyz/shutdown", "/readyz/poststarthook/rbac/bootstrap-roles", "/livez/autoregister-completion"} {
		if !slices.Contains(root.Paths, want) {
			t.Errorf("GET / does not list %s", want)
		}
	}
	for _, p := range root.Paths {
		if code, _, _ := rawRequest(t, cp, "GET", p, "", nil, nil); code != 200 {
			t.Errorf("GET %s (listed by GET /): %d", p, code)
		}
	}
	// Written raw, as upstream's index handler writes it: indented JSON
	// without a final newline, whatever the Accept header or the method.
	want, _ := json.MarshalIndent(root, "", "  ")
	for _, tc := range []struct{ method, accept string }{{"GET", ""}, {"GET", "application/yaml"}, {"GET", "application/vnd.kubernetes.protobuf"}, {"POST", "text/html"}} {
		code, ctype, body := rawRequest(t, cp, tc.method, "/", "", nil, http.Header{"Accept": {tc.accept}})
		if code != 200 || ctype != "application/json" || string(body) != string(want) {
			t.Errorf("%s / (Accept %q): %d %s\n%s\nwant 200 application/json\n%s", tc.method, tc.accept, code, ctype, body, want)
		}
	}
}

// TestUnknownDocumentsAnswerAsKubeAPIServer: a path under /openapi/v3/
// naming no document (an unknown group, a version the group does not
// serve) is kube-openapi's bare 404; an unknown health check, or a health
// or metrics path with a trailing slash, is the mux's plain-text 404.
// Recorded from refplane.
func TestUnknownDocumentsAnswerAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	for _, tc := range []struct {
		path, contentType, body string
	}{
		{"/openapi/v3/api/v9", "", ""},
		{"/openapi/v3/apis/apps/v9", "", ""},
		{"/openapi/v3/apis/nope/v1", "", ""},
		{"/openapi/v3/apis/nope", "", ""},
		{"/openapi/v3/nope", "", ""},
		{"/healthz/nope", "text/plain; charset=utf-8", "404 page not found\n"},
		{"/livez/shutdown", "text/plain; charset=utf-8", "404 page not found\n"},
		{"/healthz/", "text/plain; charset=utf-8", "404 page not found\n"},
		{"/readyz/ping/", "text/plain; charset=utf-8", "404 page not found\n"},
		{"/metrics/", "text/plain; charset=utf-8", "404 page not found\n"},
	} {
		code, h, body := rawExchange(t, cp, "GET", tc.path, "", nil, nil)
		if code != 404 || h.Get("Content-Type") != tc.contentType || string(body) != tc.body {
			t.Errorf("GET %s: %d %q %q, want 404 %q %q", tc.path, code, h.Get("Content-Type"), body, tc.contentType, tc.body)
		}
	}
	if code, _, _ := rawExchange(t, cp, "GET", "/openapi/v3/apis/apps/v1", "", nil, nil); code != 200 {
		t.Errorf("GET /openapi/v3/apis/apps/v1: %d", code)
	}
}

// protoDoc is a discovery document that decodes from protobuf.
type protoDoc interface {
	runtime.Object
	Unmarshal([]byte) error
}

// TestDiscoveryInProtobufAndYAMLAsKubeAPIServer: every discovery document
// is served in protobuf when asked, in the envelope kube-apiserver writes
// (its apiVersion and kind as its JSON's), and holds what its JSON holds;
// aggregated discovery is served in protobuf and YAML too, with its
// parameters in the Content-Type and the JSON's ETag. Recorded from
// refplane: the bytes of /api's aggregated protobuf, /api/v1's,
// /apis/apps's and /apis/apps/v1's are its own.
func TestDiscoveryInProtobufAndYAMLAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	const aggregated = ";g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
	for _, tc := range []struct {
		path, accept, jsonAccept string
		apiVersion, kind         string
		obj                      func() protoDoc
	}{
		{"/api", "application/vnd.kubernetes.protobuf", "application/json", "", "APIVersions",
			func() protoDoc { return &metav1.APIVersions{} }},
		{"/apis", "application/vnd.kubernetes.protobuf", "application/json", "v1", "APIGroupList",
			func() protoDoc { return &metav1.APIGroupList{} }},
		{"/api/v1", "application/vnd.kubernetes.protobuf", "application/json", "", "APIResourceList",
			func() protoDoc { return &metav1.APIResourceList{} }},
		{"/apis/apps", "application/vnd.kubernetes.protobuf", "application/json", "v1", "APIGroup",
			func() protoDoc { return &metav1.APIGroup{} }},
		{"/apis/apps/v1", "application/vnd.kubernetes.protobuf, */*", "application/json", "v1", "APIResourceList",
			func() protoDoc { return &metav1.APIResourceList{} }},
		{"/apis", "application/vnd.kubernetes.protobuf" + aggregated, "application/json" + aggregated, "apidiscovery.k8s.io/v2", "APIGroupDiscoveryList",
			func() protoDoc { return &apidiscoveryv2.APIGroupDiscoveryList{} }},
	} {
		t.Run(tc.path+" "+tc.accept, func(t *testing.T) {
			code, h, body := rawExchange(t, cp, "GET", tc.path, "", nil, http.Header{"Accept": {tc.accept}})
			wantType := "application/vnd.kubernetes.protobuf"
			if tc.kind == "APIGroupDiscoveryList" {
				wantType += aggregated
			}
			if code != 200 || h.Get("Content-Type") != wantType || !bytes.HasPrefix(body, []byte("k8s\x00")) {
				t.Fatalf("%d %s %.20q", code, h.Get("Content-Type"), body)
			}
			var u runtime.Unknown
			if err := u.Unmarshal(body[4:]); err != nil {
				t.Fatal(err)
			}
			if u.APIVersion != tc.apiVersion || u.Kind != tc.kind {
				t.Errorf("envelope %q %q, want %q %q", u.APIVersion, u.Kind, tc.apiVersion, tc.kind)
			}
			fromProto := tc.obj()
			if err := fromProto.Unmarshal(u.Raw); err != nil {
				t.Fatal(err)
			}
			fromProto.GetObjectKind().SetGroupVersionKind(schema.FromAPIVersionAndKind(tc.apiVersion, tc.kind))
			_, jh, jsonBody := rawExchange(t, cp, "GET", tc.path, "", nil, http.Header{"Accept": {tc.jsonAccept}})
			fromJSON := tc.obj()
			if err := json.Unmarshal(jsonBody, fromJSON); err != nil {
				t.Fatal(err)
			}
			if !apiequality.Semantic.DeepEqual(fromProto, fromJSON) {
				t.Errorf("protobuf holds\n%+v\nJSON holds\n%+v", fromProto, fromJSON)
			}
			if e := h.Get("Etag"); e != jh.Get("Etag") {
				t.Errorf("ETag %s, the JSON's %s", e, jh.Get("Etag"))
			}
		})
	}
	code, h, body := rawExchange(t, cp, "GET", "/apis", "", nil, http.Header{"Accept": {"application/yaml" + aggregated}})
	_, jh, jsonBody := rawExchange(t, cp, "GET", "/apis", "", nil, http.Header{"Accept": {"application/json" + aggregated}})
	fromYAML, err := yaml.YAMLToJSON(body)
	if err != nil || code != 200 || h.Get("Content-Type") != "application/yaml"+aggregated || h.Get("Etag") != jh.Get("Etag") {
		t.Fatalf("YAML: %d %s %s %v", code, h.Get("Content-Type"), h.Get("Etag"), err)
	}
	var a, b any
	if err := json.Unmarshal(fromYAML, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(jsonBody, &b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Error("the YAML aggregated discovery is not the JSON's")
	}
}

// TestAggregatedDiscoveryNamesCustomResourcesGroupAndVersion: in aggregated
// discovery, apiextensions names a custom resource's response kind with its
// group and version, its status's too (the scale's is autoscaling/v1
// Scale), where a built-in resource's names its kind alone. Recorded from
// refplane.
func TestAggregatedDiscoveryNamesCustomResourcesGroupAndVersion(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithObjects(subresourceWidgetCRD()))
	_, _, body := rawExchange(t, cp, "GET", "/apis", "", nil, http.Header{"Accept": {"application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"}})
	var list apidiscoveryv2.APIGroupDiscoveryList
	if err := json.Unmarshal(body, &list); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]metav1.GroupVersionKind{}
	for _, g := range list.Items {
		for _, v := range g.Versions {
			for _, r := range v.Resources {
				if r.ResponseKind != nil {
					kinds[g.Name+"/"+v.Version+"/"+r.Resource] = *r.ResponseKind
				}
				for _, sub := range r.Subresources {
					if sub.ResponseKind != nil {
						kinds[g.Name+"/"+v.Version+"/"+r.Resource+"/"+sub.Subresource] = *sub.ResponseKind
					}
				}
			}
		}
	}
	for res, want := range map[string]metav1.GroupVersionKind{
		"h4.example.com/v1/h4widgets":        {Group: "h4.example.com", Version: "v1", Kind: "H4Widget"},
		"h4.example.com/v1/h4widgets/status": {Group: "h4.example.com", Version: "v1", Kind: "H4Widget"},
		"h4.example.com/v1/h4widgets/scale":  {Group: "autoscaling", Version: "v1", Kind: "Scale"},
		"apps/v1/deployments":                {Kind: "Deployment"},
		"apps/v1/deployments/status":         {Kind: "Deployment"},
		"apps/v1/deployments/scale":          {Group: "autoscaling", Version: "v1", Kind: "Scale"},
	} {
		if got, ok := kinds[res]; !ok || got != want {
			t.Errorf("%s: responseKind %+v (listed: %v), want %+v", res, got, ok, want)
		}
	}
}
