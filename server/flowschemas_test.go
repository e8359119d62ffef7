package server

import (
	"testing"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
)

// TestFlowSchemaRulesMatchAsKubeAPIServers covers the corners of API
// priority and fairness's matching: a wildcard counts only alone in its
// list, a non-resource URL also matches as a path prefix, a request
// without a namespace needs clusterScope, a subresource is matched as
// resource/subresource, and a service account subject named "*" takes any
// account of its namespace (but not of a namespace it prefixes).
func TestFlowSchemaRulesMatchAsKubeAPIServers(t *testing.T) {
	resource := func(verb, group, res, sub, ns string) *apirequest.RequestInfo {
		return &apirequest.RequestInfo{IsResourceRequest: true, Verb: verb, APIGroup: group, Resource: res, Subresource: sub, Namespace: ns}
	}
	nonResource := func(verb, path string) *apirequest.RequestInfo {
		return &apirequest.RequestInfo{Verb: verb, Path: path}
	}
	group := func(name string) flowcontrolv1.Subject {
		return flowcontrolv1.Subject{Kind: flowcontrolv1.SubjectKindGroup, Group: &flowcontrolv1.GroupSubject{Name: name}}
	}
	sa := func(ns, name string) flowcontrolv1.Subject {
		return flowcontrolv1.Subject{Kind: flowcontrolv1.SubjectKindServiceAccount, ServiceAccount: &flowcontrolv1.ServiceAccountSubject{Namespace: ns, Name: name}}
	}
	alice := &user.DefaultInfo{Name: "alice", Groups: []string{"devs"}}
	for _, tc := range []struct {
		name    string
		subject flowcontrolv1.Subject
		res     *flowcontrolv1.ResourcePolicyRule
		nonRes  *flowcontrolv1.NonResourcePolicyRule
		u       user.Info
		info    *apirequest.RequestInfo
		want    bool
	}{
		{"a wildcard alone matches every verb", group("devs"), &flowcontrolv1.ResourcePolicyRule{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}, Namespaces: []string{"*"}},
			nil, alice, resource("list", "", "pods", "", "default"), true},
		{"a wildcard beside a verb is a verb named *", group("devs"), &flowcontrolv1.ResourcePolicyRule{Verbs: []string{"get", "*"}, APIGroups: []string{"*"}, Resources: []string{"*"}, Namespaces: []string{"*"}},
			nil, alice, resource("list", "", "pods", "", "default"), false},
		{"no namespace needs clusterScope", group("devs"), &flowcontrolv1.ResourcePolicyRule{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}, Namespaces: []string{"*"}},
			nil, alice, resource("list", "", "pods", "", ""), false},
		{"clusterScope takes a request without namespace", group("devs"), &flowcontrolv1.ResourcePolicyRule{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}, ClusterScope: true},
			nil, alice, resource("list", "", "pods", "", ""), true},
		{"a subresource is resource/subresource", group("devs"), &flowcontrolv1.ResourcePolicyRule{Verbs: []string{"*"}, APIGroups: []string{""}, Resources: []string{"nodes"}, ClusterScope: true},
			nil, alice, resource("patch", "", "nodes", "status", ""), false},
		{"a URL matches as a path prefix", group("devs"), nil, &flowcontrolv1.NonResourcePolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz"}},
			alice, nonResource("get", "/healthz/ping"), true},
		{"a URL with * matches under it", group("devs"), nil, &flowcontrolv1.NonResourcePolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/apis/*"}},
			alice, nonResource("get", "/apis/apps"), true},
		{"a URL does not match a longer name", group("devs"), nil, &flowcontrolv1.NonResourcePolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz"}},
			alice, nonResource("get", "/healthzz"), false},
		{"a resource rule does not take a non-resource request", group("devs"), &flowcontrolv1.ResourcePolicyRule{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}, ClusterScope: true},
			nil, alice, nonResource("get", "/version"), false},
		{"another group", group("ops"), nil, &flowcontrolv1.NonResourcePolicyRule{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}},
			alice, nonResource("get", "/version"), false},
		{"any account of a namespace", sa("kube-system", "*"), nil, &flowcontrolv1.NonResourcePolicyRule{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}},
			&user.DefaultInfo{Name: "system:serviceaccount:kube-system:x"}, nonResource("get", "/version"), true},
		{"not of a namespace it prefixes", sa("kube", "*"), nil, &flowcontrolv1.NonResourcePolicyRule{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}},
			&user.DefaultInfo{Name: "system:serviceaccount:kube-system:x"}, nonResource("get", "/version"), false},
		{"one account by name", sa("default", "bot"), nil, &flowcontrolv1.NonResourcePolicyRule{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}},
			&user.DefaultInfo{Name: "system:serviceaccount:default:bot"}, nonResource("get", "/version"), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rule := flowcontrolv1.PolicyRulesWithSubjects{Subjects: []flowcontrolv1.Subject{tc.subject}}
			if tc.res != nil {
				rule.ResourceRules = []flowcontrolv1.ResourcePolicyRule{*tc.res}
			}
			if tc.nonRes != nil {
				rule.NonResourceRules = []flowcontrolv1.NonResourcePolicyRule{*tc.nonRes}
			}
			if got := flowSchemaMatches([]flowcontrolv1.PolicyRulesWithSubjects{rule}, tc.u, tc.info); got != tc.want {
				t.Errorf("matches: %v, want %v", got, tc.want)
			}
		})
	}
}
