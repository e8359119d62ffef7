package auth

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// abacPolicyFile is the policy file the ABAC tests load (also the one the
// answers of TestABACAuthorizerAsKubeAPIServer were recorded with).
const abacPolicyFile = `{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "alice", "namespace": "projectCaribou", "resource": "pods", "readonly": true}}
{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"group": "devs", "namespace": "*", "resource": "configmaps", "apiGroup": ""}}
{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "bob", "nonResourcePath": "/version"}}
{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "bob", "nonResourcePath": "/logs/*", "readonly": true}}

  # a comment, after a blank line
{"user": "carol", "namespace": "projectCaribou"}
{"group": "ops"}
{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "*", "namespace": "public", "resource": "*", "apiGroup": "*", "readonly": true}}
{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "erin", "namespace": "*", "resource": "deployments", "apiGroup": "apps"}}
`

// writeABACPolicy writes policy to a file and returns its path.
func writeABACPolicy(t *testing.T, policy string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "policy.jsonl")
	if err := os.WriteFile(path, []byte(policy), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestABACAuthorizerMatchesAsKubeAPIServers(t *testing.T) {
	a, err := LoadABACPolicyFile(writeABACPolicy(t, abacPolicyFile))
	if err != nil {
		t.Fatal(err)
	}
	alice := &user.DefaultInfo{Name: "alice", Groups: []string{user.AllAuthenticated}}
	dave := &user.DefaultInfo{Name: "dave", Groups: []string{"devs", user.AllAuthenticated}}
	bob := &user.DefaultInfo{Name: "bob", Groups: []string{user.AllAuthenticated}}
	carol := &user.DefaultInfo{Name: "carol", Groups: []string{user.AllAuthenticated}}
	erin := &user.DefaultInfo{Name: "erin", Groups: []string{user.AllAuthenticated}}
	frank := &user.DefaultInfo{Name: "frank", Groups: []string{"ops", user.AllAuthenticated}}
	anonymous := &user.DefaultInfo{Name: user.Anonymous, Groups: []string{user.AllUnauthenticated}}
	res := func(u user.Info, verb, group, resource, ns string) authorizer.AttributesRecord {
		return authorizer.AttributesRecord{User: u, Verb: verb, APIGroup: group, Resource: resource, Namespace: ns, ResourceRequest: true}
	}
	path := func(u user.Info, verb, p string) authorizer.AttributesRecord {
		return authorizer.AttributesRecord{User: u, Verb: verb, Path: p}
	}
	for _, tt := range []struct {
		name  string
		attrs authorizer.AttributesRecord
		allow bool
	}{
		{"a read-only policy lets its user read", res(alice, "list", "", "pods", "projectCaribou"), true},
		{"but not write", res(alice, "create", "", "pods", "projectCaribou"), false},
		{"nor read elsewhere", res(alice, "get", "", "pods", "default"), false},
		{"nor read another resource", res(alice, "get", "", "secrets", "projectCaribou"), false},
		{"a group's policy, any namespace", res(dave, "delete", "", "configmaps", "x"), true},
		{"a group's policy is the core group's only", res(dave, "get", "apps", "configmaps", "x"), false},
		{"not for another user", res(alice, "get", "", "configmaps", "x"), false},
		{"an exact non-resource path", path(bob, "post", "/version"), true},
		{"not another path", path(bob, "get", "/versions"), false},
		{"a path prefix", path(bob, "get", "/logs/kube-apiserver.log"), true},
		{"read-only there", path(bob, "post", "/logs/x"), false},
		{"a non-resource policy never matches a resource", res(bob, "get", "", "version", ""), false},
		{"v0: a user's policy with no resource is every resource of its namespace", res(carol, "delete", "batch", "jobs", "projectCaribou"), true},
		{"v0: not a non-resource path when it gives a namespace", path(carol, "get", "/anything"), false},
		{"v0: not another namespace", res(carol, "get", "", "pods", "default"), false},
		{"v0: a policy with neither namespace nor resource is every resource", res(frank, "delete", "apps", "daemonsets", "kube-system"), true},
		{"v0: and every non-resource path", path(frank, "post", "/anything"), true},
		{"user * is every authenticated user", res(alice, "get", "apps", "deployments", "public"), true},
		{"but not the anonymous one", res(anonymous, "get", "apps", "deployments", "public"), false},
		{"a policy's API group", res(erin, "update", "apps", "deployments", "y"), true},
		{"not another group's resource of that name", res(erin, "update", "extensions", "deployments", "y"), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d, reason, err := a.Authorize(context.Background(), tt.attrs)
			if err != nil {
				t.Fatal(err)
			}
			if got := d == authorizer.DecisionAllow; got != tt.allow {
				t.Fatalf("allowed %v, want %v", got, tt.allow)
			}
			if !tt.allow && (d != authorizer.DecisionNoOpinion || reason != "No policy matched.") {
				t.Fatalf("decision %v %q, want no opinion, %q", d, reason, "No policy matched.")
			}
		})
	}
}

func TestABACRulesFor(t *testing.T) {
	a, err := LoadABACPolicyFile(writeABACPolicy(t, abacPolicyFile))
	if err != nil {
		t.Fatal(err)
	}
	carol := &user.DefaultInfo{Name: "carol", Groups: []string{user.AllAuthenticated}}
	resource, nonResource, incomplete, err := a.RulesFor(context.Background(), carol, "projectCaribou")
	if err != nil || incomplete {
		t.Fatalf("RulesFor: incomplete %v, %v", incomplete, err)
	}
	var got []string
	for _, r := range resource {
		got = append(got, r.GetVerbs()[0]+" "+r.GetAPIGroups()[0]+"/"+r.GetResources()[0])
	}
	for _, r := range nonResource {
		got = append(got, r.GetVerbs()[0]+" "+r.GetNonResourceURLs()[0])
	}
	// carol's v0 policy (every resource of the namespace, no path).
	if want := []string{"* */*"}; !slices.Equal(got, want) {
		t.Errorf("carol's rules in projectCaribou: %q, want %q", got, want)
	}
}

func TestLoadABACPolicyFileFailsAsKubeAPIServer(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	if _, err := LoadABACPolicyFile(missing); err == nil || err.Error() != "open "+missing+": no such file or directory" {
		t.Errorf("missing file: %v", err)
	}
	// Recorded from kube-apiserver v1.37.2 (which prefixes them with
	// "invalid authorization config: ").
	for _, tt := range []struct{ name, line, want string }{
		{"not JSON", `{not json}`, `couldn't get version/kind; json parse error: invalid character 'n' looking for beginning of object key string`},
		{"another kind", `{"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Foo","spec":{"user":"eve"}}`,
			`no kind "Foo" is registered for version "abac.authorization.kubernetes.io/v1beta1" in scheme "pkg/runtime/scheme.go:111"`},
		{"another group's kind", `{"apiVersion":"v1","kind":"Pod","user":"x"}`, `no kind "Pod" is registered for version "v1" in scheme "pkg/runtime/scheme.go:111"`},
		{"another version, no kind", `{"apiVersion":"v1","user":"x"}`, `no kind "Policy" is registered for version "v1" in scheme "pkg/runtime/scheme.go:111"`},
		{"v1beta1 without a kind", `{"apiVersion":"abac.authorization.kubernetes.io/v1beta1","spec":{"user":"eve"}}`, `converting (v1beta1.Policy) to (v0.Policy): unknown conversion`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := writeABACPolicy(t, "{\"user\": \"a\"}\n"+tt.line+"\n")
			want := "error reading policy file " + path + ", line 2: " + tt.line + ": " + tt.want
			if _, err := LoadABACPolicyFile(path); err == nil || err.Error() != want {
				t.Errorf("%v, want %q", err, want)
			}
		})
	}
	// Accepted, as v0: no apiVersion, or v0's with or without a kind.
	for _, line := range []string{`{"kind":"Policy","spec":{"user":"eve"}}`, `{"apiVersion":"abac.authorization.kubernetes.io/v0","user":"x"}`,
		`{"apiVersion":"abac.authorization.kubernetes.io/v0","kind":"Policy","user":"gina","resource":"pods"}`} {
		if _, err := LoadABACPolicyFile(writeABACPolicy(t, line+"\n")); err != nil {
			t.Errorf("%s: %v", line, err)
		}
	}
}
