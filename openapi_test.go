package fakeplane_test

import (
	"encoding/json"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/openapi3"
	"k8s.io/client-go/rest"

	"github.com/fakeplane/fakeplane"
)

func TestOpenAPIDescribesBuiltinTypes(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)

	// client-go's OpenAPI v3 client finds every built-in group/version
	// with the schemas of its kinds.
	root := openapi3.NewRoot(cs.Discovery().OpenAPIV3())
	gvs, err := root.GroupVersions()
	if err != nil {
		t.Fatal(err)
	}
	if len(gvs) < 20 {
		t.Errorf("group/versions: %v", gvs)
	}
	doc, err := root.GVSpec(schema.GroupVersion{Group: "apps", Version: "v1"})
	if err != nil {
		t.Fatal(err)
	}
	dep, ok := doc.Components.Schemas["io.k8s.api.apps.v1.Deployment"]
	if !ok {
		t.Fatalf("no Deployment schema among %d", len(doc.Components.Schemas))
	}
	gvk, _ := json.Marshal(dep.Extensions["x-kubernetes-group-version-kind"])
	if string(gvk) != `[{"group":"apps","kind":"Deployment","version":"v1"}]` {
		t.Errorf("Deployment x-kubernetes-group-version-kind: %s", gvk)
	}
	if ref := dep.Properties["spec"].AllOf[0].Ref.String(); ref != "#/components/schemas/io.k8s.api.apps.v1.DeploymentSpec" {
		t.Errorf("spec refers to %q", ref)
	}
	containers := doc.Components.Schemas["io.k8s.api.core.v1.PodSpec"].Properties["containers"]
	if containers.Extensions["x-kubernetes-patch-merge-key"] != "name" || containers.Extensions["x-kubernetes-list-type"] != "map" {
		t.Errorf("containers list extensions: %v", containers.Extensions)
	}
	// The meta types a group's verbs use are there, registered in the
	// group and in the core group, as kube-apiserver lists them.
	gvk, _ = json.Marshal(doc.Components.Schemas["io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions"].Extensions["x-kubernetes-group-version-kind"])
	if string(gvk) != `[{"group":"","kind":"DeleteOptions","version":"v1"},{"group":"apps","kind":"DeleteOptions","version":"v1"}]` {
		t.Errorf("DeleteOptions x-kubernetes-group-version-kind: %s", gvk)
	}

	// /openapi/v2 has the built-in definitions too.
	body, err := cs.RESTClient().Get().AbsPath("/openapi/v2").DoRaw(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	var v2 struct {
		Definitions map[string]json.RawMessage `json:"definitions"`
	}
	if err := json.Unmarshal(body, &v2); err != nil {
		t.Fatal(err)
	}
	if pod := string(v2.Definitions["io.k8s.api.core.v1.Pod"]); !strings.Contains(pod, `"$ref":"#/definitions/io.k8s.api.core.v1.PodSpec"`) {
		t.Errorf("v2 Pod definition: %.300s", pod)
	}
	// In protobuf, as kubectl's client-side validation asks for it (the
	// Content-Type must parse as a media type).
	v2doc, err := cs.Discovery().OpenAPISchema()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, d := range v2doc.GetDefinitions().GetAdditionalProperties() {
		found = found || d.GetName() == "io.k8s.api.apps.v1.Deployment"
	}
	if !found {
		t.Error("protobuf /openapi/v2 lacks io.k8s.api.apps.v1.Deployment")
	}
	hc, err := rest.HTTPClientFor(cp.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodGet, cp.URL()+"/openapi/v2", nil)
	req.Header.Set("Accept", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "application/com.github.proto-openapi.spec.v2.v1.0+protobuf" {
		t.Errorf("Content-Type %q", ct)
	} else if _, _, err := mime.ParseMediaType(ct); err != nil {
		t.Errorf("Content-Type %q: %v", ct, err)
	}
}

func TestKubectlExplain(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	out := mustKubectl(t, cp, "explain", "pods.spec.containers.ports")
	for _, want := range []string{`KIND:       Pod`, `VERSION:    v1`, `FIELD: ports <\[\]ContainerPort>`, `  containerPort	<integer> -required-`, `  protocol	<string>`} {
		wantLine(t, "explain", out, want)
	}
	out = mustKubectl(t, cp, "explain", "deployment.spec.strategy", "--recursive")
	for _, want := range []string{`GROUP:      apps`, `KIND:       Deployment`, `FIELD: strategy <DeploymentStrategy>`, `    maxSurge	<IntOrString>`} {
		wantLine(t, "explain --recursive", out, want)
	}
}

// TestOpenAPIV3DiscoveryDocuments: the /openapi/v3 index also names the
// discovery paths' documents ("api", "apis", "apis/<group>"), each with its
// GET operation and the schema it answers with, as kube-apiserver serves
// them (client-go's openapi client fetches them by these keys).
func TestOpenAPIV3DiscoveryDocuments(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	rc := clientset(t, cp).RESTClient()
	index := openAPIv3Index(t, rc)
	for _, tc := range []struct{ key, path, operationID, model string }{
		{"api", "/api/", "getCoreAPIVersions", "APIVersions"},
		{"apis", "/apis/", "getAPIVersions", "APIGroupList"},
		{"apis/apps", "/apis/apps/", "getAppsAPIGroup", "APIGroup"},
		{"apis/rbac.authorization.k8s.io", "/apis/rbac.authorization.k8s.io/", "getRbacAuthorizationAPIGroup", "APIGroup"},
	} {
		entry, ok := index.Paths[tc.key]
		if !ok {
			t.Errorf("index lacks %s", tc.key)
			continue
		}
		u, _ := url.Parse(entry.URL)
		b, err := rc.Get().AbsPath(u.Path).DoRaw(ctx)
		if err != nil {
			t.Errorf("%s: %v", entry.URL, err)
			continue
		}
		var doc struct {
			Paths map[string]struct {
				Get struct {
					OperationID string `json:"operationId"`
					Responses   map[string]struct {
						Content map[string]struct {
							Schema struct {
								Ref string `json:"$ref"`
							} `json:"schema"`
						} `json:"content"`
					} `json:"responses"`
				} `json:"get"`
			} `json:"paths"`
			Components struct {
				Schemas map[string]json.RawMessage `json:"schemas"`
			} `json:"components"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatalf("%s: %v", tc.key, err)
		}
		get := doc.Paths[tc.path].Get
		ref := "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1." + tc.model
		if get.OperationID != tc.operationID || get.Responses["200"].Content["application/json"].Schema.Ref != ref {
			t.Errorf("%s: GET %s = %+v, want %s answering %s", tc.key, tc.path, get, tc.operationID, ref)
		}
		if _, ok := doc.Components.Schemas["io.k8s.apimachinery.pkg.apis.meta.v1."+tc.model]; !ok {
			t.Errorf("%s: components lack %s", tc.key, tc.model)
		}
	}
	if _, err := rc.Get().AbsPath("/openapi/v3/apis/no.such.group").DoRaw(ctx); err == nil {
		t.Errorf("/openapi/v3/apis/no.such.group answered")
	}
}

// openAPIv3Index is the /openapi/v3 index: each document's key and URL
// (with its hash).
func openAPIv3Index(t *testing.T, rc rest.Interface) (index struct {
	Paths map[string]struct {
		URL string `json:"serverRelativeURL"`
	} `json:"paths"`
}) {
	t.Helper()
	idx, err := rc.Get().AbsPath("/openapi/v3").DoRaw(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(idx, &index); err != nil {
		t.Fatal(err)
	}
	return index
}
