package fakeplane_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fakeplane/fakeplane"
)

// abacPolicy is the policy file the answers below were recorded with, on
// kube-apiserver v1.37.2 started with --authorization-mode=ABAC,RBAC.
const abacPolicy = `{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "alice", "namespace": "projectCaribou", "resource": "pods", "readonly": true}}
{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"group": "devs", "namespace": "*", "resource": "configmaps", "apiGroup": ""}}
{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "bob", "nonResourcePath": "/version"}}
{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "bob", "nonResourcePath": "/logs/*", "readonly": true}}
# a comment
{"user": "carol", "namespace": "projectCaribou"}
`

// TestABACAuthorizerAsKubeAPIServer: --authorization-mode=ABAC,RBAC with a
// policy file answers as kube-apiserver did, through client-go.
func TestABACAuthorizerAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "policy.jsonl")
	if err := os.WriteFile(file, []byte(abacPolicy), 0o600); err != nil {
		t.Fatal(err)
	}
	cp := fakeplane.Start(t, fakeplane.WithAuthorizationMode("ABAC,RBAC"), fakeplane.WithAuthorizationPolicyFile(file))
	ctx := ctxT(t)

	alice := userClient(t, cp, "alice")
	if _, err := alice.CoreV1().Pods("projectCaribou").List(ctx, metav1.ListOptions{}); err != nil {
		t.Errorf("alice lists pods in projectCaribou: %v", err)
	}
	_, err := alice.CoreV1().ConfigMaps("projectCaribou").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x"}}, metav1.CreateOptions{})
	want := `configmaps is forbidden: User "alice" cannot create resource "configmaps" in API group "" in the namespace "projectCaribou": abac: No policy matched.`
	if !apierrors.IsForbidden(err) || err.Error() != want {
		t.Errorf("alice creates a ConfigMap: %v, want %q", err, want)
	}
	dave := userClient(t, cp, "dave", "devs")
	if _, err := dave.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "dc"}}, metav1.CreateOptions{}); err != nil {
		t.Errorf("dave, of group devs, creates a ConfigMap: %v", err)
	}

	bob := userClient(t, cp, "bob")
	for _, tc := range []struct {
		verb, path string
		allowed    bool
	}{
		{"post", "/version", true},
		{"get", "/logs/x", true},
		{"post", "/logs/x", false},
	} {
		r, err := bob.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
			NonResourceAttributes: &authorizationv1.NonResourceAttributes{Verb: tc.verb, Path: tc.path}}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status.Allowed != tc.allowed || !tc.allowed && r.Status.Reason != "abac: No policy matched." {
			t.Errorf("bob %s %s: allowed %v (%q), want %v", tc.verb, tc.path, r.Status.Allowed, r.Status.Reason, tc.allowed)
		}
	}

	// A v0 policy with a namespace: every resource of it, no path.
	carol := userClient(t, cp, "carol")
	rr, err := carol.AuthorizationV1().SelfSubjectRulesReviews().Create(ctx, &authorizationv1.SelfSubjectRulesReview{Spec: authorizationv1.SelfSubjectRulesReviewSpec{Namespace: "projectCaribou"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r := rr.Status.ResourceRules[0]; !slices.Equal(r.Verbs, []string{"*"}) || !slices.Equal(r.APIGroups, []string{"*"}) || !slices.Equal(r.Resources, []string{"*"}) || rr.Status.Incomplete {
		t.Errorf("carol's first rule in projectCaribou: %+v (incomplete %v), want * on */*", r, rr.Status.Incomplete)
	}
	for _, r := range rr.Status.NonResourceRules {
		if slices.Contains(r.NonResourceURLs, "*") {
			t.Errorf("carol has a rule on every path: %+v", r)
		}
	}
}

func TestABACPolicyFileErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{\"user\": \"a\"}\n{not json}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		opts []fakeplane.Option
		want string
	}{
		{"a policy file without mode ABAC", []fakeplane.Option{fakeplane.WithAuthorizationPolicyFile(bad)}, "fakeplane: cannot specify --authorization-policy-file without mode ABAC"},
		{"a line that is not JSON", []fakeplane.Option{fakeplane.WithAuthorizationMode("ABAC"), fakeplane.WithAuthorizationPolicyFile(bad)},
			"fakeplane: server: invalid authorization config: error reading policy file " + bad + ", line 2: {not json}: couldn't get version/kind; json parse error: invalid character 'n' looking for beginning of object key string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := startError(t, tc.opts...); err == nil || err.Error() != tc.want {
				t.Errorf("%v, want %q", err, tc.want)
			}
		})
	}
}
