package fakeplane_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"testing"

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
// discovery and OpenAPI paths, /metrics, /version and each health endpoint
// with each of its checks (recorded from refplane, which also lists its
// /flagz, /statusz and /metrics/slis); every path listed answers.
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
	for _, want := range []string{"/metrics", "/version", "/openapi/v2", "/healthz/etcd", "/livez/loopback-serving-certificate",
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
