package registry

import (
	"strings"
	"testing"
)

func TestParsePathOwner(t *testing.T) {
	for _, tc := range []struct {
		path string
		want PathOwner
	}{
		{"/api/", PathOwner{}},
		{"/apis/", PathOwner{}},
		{"/version/", PathOwner{}},
		{"/.well-known/openid-configuration/", PathOwner{}},
		{"/api/v1/", PathOwner{Kind: "version", Version: "v1"}},
		{"/apis/apps/", PathOwner{Kind: "group", Group: "apps"}},
		{"/apis/apps/v1/", PathOwner{Kind: "version", Group: "apps", Version: "v1"}},
		{"/api/v1/configmaps", PathOwner{Kind: "resource", Version: "v1", Resource: "configmaps"}},
		{"/api/v1/namespaces/{namespace}/configmaps/{name}", PathOwner{Kind: "resource", Version: "v1", Resource: "configmaps"}},
		{"/api/v1/watch/namespaces/{namespace}/pods", PathOwner{Kind: "resource", Version: "v1", Resource: "pods"}},
		{"/api/v1/namespaces/{namespace}/pods/{name}/log", PathOwner{Kind: "resource", Version: "v1", Resource: "pods", Subresource: "log"}},
		{"/api/v1/namespaces/{namespace}/pods/{name}/proxy/{path}", PathOwner{Kind: "resource", Version: "v1", Resource: "pods", Subresource: "proxy"}},
		{"/api/v1/namespaces/{name}", PathOwner{Kind: "resource", Version: "v1", Resource: "namespaces"}},
		{"/api/v1/namespaces/{name}/finalize", PathOwner{Kind: "resource", Version: "v1", Resource: "namespaces", Subresource: "finalize"}},
		{"/api/v1/nodes/{name}/proxy/{path}", PathOwner{Kind: "resource", Version: "v1", Resource: "nodes", Subresource: "proxy"}},
		{"/apis/apps/v1/watch/deployments", PathOwner{Kind: "resource", Group: "apps", Version: "v1", Resource: "deployments"}},
		{"/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale", PathOwner{Kind: "resource", Group: "apps", Version: "v1", Resource: "deployments", Subresource: "scale"}},
	} {
		if got := ParsePathOwner(tc.path); got != tc.want {
			t.Errorf("ParsePathOwner(%q) = %+v, want %+v", tc.path, got, tc.want)
		}
	}
}

// TestBuiltinPathsServeOnlyWhatIsServed: a resource or subresource left out
// takes its paths, and the parameters and definitions only they use, out of
// the documents.
func TestBuiltinPathsServeOnlyWhatIsServed(t *testing.T) {
	p, err := LoadBuiltinPaths()
	if err != nil {
		t.Fatal(err)
	}
	all := func(PathOwner) bool { return true }
	without := func(o PathOwner) bool {
		return !(o.Resource == "pods" && o.Subresource == "log") && !(o.Group == "apps" && o.Resource == "deployments")
	}
	const logPath = "/api/v1/namespaces/{namespace}/pods/{name}/log"
	const deployPath = "/apis/apps/v1/namespaces/{namespace}/deployments/{name}"
	const deployment = "io.k8s.api.apps.v1.Deployment"
	hasParam := func(params map[string]bool, prefix string) bool {
		for n := range params {
			if strings.HasPrefix(n, prefix) {
				return true
			}
		}
		return false
	}
	for _, tc := range []struct {
		name   string
		served func(PathOwner) bool
		want   bool
	}{{"all served", all, true}, {"pods/log and deployments not served", without, false}} {
		t.Run(tc.name, func(t *testing.T) {
			paths, params, defs := p.V2(tc.served)
			names := map[string]bool{}
			for n := range params {
				names[n] = true
			}
			if _, ok := paths[logPath]; ok != tc.want {
				t.Errorf("v2 %s: %v", logPath, ok)
			}
			if _, ok := paths[deployPath]; ok != tc.want {
				t.Errorf("v2 %s: %v", deployPath, ok)
			}
			// follow and tailLines are parameters of pods/log alone.
			if got := hasParam(names, "follow-") && hasParam(names, "tailLines-"); got != tc.want {
				t.Errorf("v2 log parameters: %v", got)
			}
			if _, ok := defs[deployment]; ok != tc.want {
				t.Errorf("v2 definition %s: %v", deployment, ok)
			}
			if _, ok := paths["/api/v1/namespaces/{namespace}/pods/{name}/exec"]; !ok {
				t.Error("v2 lacks pods/exec")
			}
			if _, ok := defs["io.k8s.api.apps.v1.StatefulSet"]; !ok {
				t.Error("v2 lacks the StatefulSet definition")
			}

			v3, refs := p.V3("apis/apps/v1", tc.served)
			if _, ok := v3[deployPath]; ok != tc.want {
				t.Errorf("v3 %s: %v", deployPath, ok)
			}
			if _, ok := v3["/apis/apps/v1/namespaces/{namespace}/statefulsets/{name}/scale"]; !ok {
				t.Error("v3 lacks statefulsets/scale")
			}
			found := false
			for _, r := range refs {
				found = found || r == deployment
			}
			if found != tc.want {
				t.Errorf("v3 refers to %s: %v", deployment, found)
			}
		})
	}
}
