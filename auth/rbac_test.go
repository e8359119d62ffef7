package auth

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

func role(ns, name string, rules ...rbacv1.PolicyRule) *rbacv1.Role {
	return &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Rules: rules}
}

func clusterRole(name string, labels map[string]string, rules ...rbacv1.PolicyRule) *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}, Rules: rules}
}

func roleBinding(ns, name, kind, roleName string, subjects ...rbacv1.Subject) *rbacv1.RoleBinding {
	return &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: kind, Name: roleName},
		Subjects:   subjects,
	}
}

func clusterRoleBinding(name, roleName string, subjects ...rbacv1.Subject) *rbacv1.ClusterRoleBinding {
	return &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: roleName},
		Subjects:   subjects,
	}
}

func userSubject(name string) rbacv1.Subject {
	return rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: name}
}

func groupSubject(name string) rbacv1.Subject {
	return rbacv1.Subject{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: name}
}

func saSubject(ns, name string) rbacv1.Subject {
	return rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: name}
}

func rule(verbs, groups, resources []string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{Verbs: verbs, APIGroups: groups, Resources: resources}
}

func l(s ...string) []string { return s }

// rbacFixture mirrors what the reference kube-apiserver was probed with.
func rbacFixture() *StaticRBAC {
	return NewStaticRBAC(
		clusterRole("cluster-admin", nil,
			rule(l("*"), l("*"), l("*")),
			rbacv1.PolicyRule{Verbs: l("*"), NonResourceURLs: l("*")}),
		clusterRoleBinding("cluster-admin", "cluster-admin", groupSubject(user.SystemPrivilegedGroup)),
		clusterRole("system:discovery", nil, rbacv1.PolicyRule{Verbs: l("get"), NonResourceURLs: l("/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/openapi", "/openapi/*", "/readyz", "/version", "/version/")}),
		clusterRoleBinding("system:discovery", "system:discovery", groupSubject(user.AllAuthenticated)),
		clusterRole("node-reader", nil, rule(l("get", "list"), l(""), l("nodes"))),
		clusterRoleBinding("ops-nodes", "node-reader", groupSubject("ops")),
		clusterRole("secret-reader", nil, rbacv1.PolicyRule{Verbs: l("get"), APIGroups: l(""), Resources: l("secrets"), ResourceNames: l("allowed")}),
		clusterRole("deploy-scaler", nil,
			rule(l("get", "update"), l("apps"), l("deployments/scale")),
			rule(l("get"), l(""), l("*/status"))),
		clusterRole("everything-in-apps", nil, rule(l("*"), l("apps"), l("*"))),
		role("authprobe", "r1", rule(l("get"), l(""), l("pods"))),
		roleBinding("authprobe", "rb1", "Role", "r1", userSubject("bob")),
		roleBinding("authprobe", "secrets", "ClusterRole", "secret-reader", userSubject("bob")),
		roleBinding("authprobe", "scaler", "ClusterRole", "deploy-scaler", userSubject("bob")),
		roleBinding("authprobe", "robot", "ClusterRole", "everything-in-apps", saSubject("", "robot")),
		roleBinding("other", "robot", "ClusterRole", "everything-in-apps", saSubject("authprobe", "robot")),
		roleBinding("other", "default-ns-robot", "ClusterRole", "node-reader", saSubject("", "robot")),
		// Bindings to roles that do not exist.
		clusterRoleBinding("authprobe-crb-missing", "nope3", userSubject("carol")),
		roleBinding("authprobe", "rb-missing", "Role", "nope", userSubject("carol")),
		roleBinding("authprobe", "rb-missing2", "ClusterRole", "nope2", userSubject("carol")),
	)
}

func resourceAttrs(u user.Info, verb, group, resource, sub, ns, name string) authorizer.AttributesRecord {
	return authorizer.AttributesRecord{User: u, Verb: verb, APIGroup: group, APIVersion: "v1", Resource: resource,
		Subresource: sub, Namespace: ns, Name: name, ResourceRequest: true}
}

func pathAttrs(u user.Info, verb, path string) authorizer.AttributesRecord {
	return authorizer.AttributesRecord{User: u, Verb: verb, Path: path}
}

func TestRBACAuthorize(t *testing.T) {
	bob := &user.DefaultInfo{Name: "bob", Groups: l(user.AllAuthenticated)}
	opsUser := &user.DefaultInfo{Name: "dave", Groups: l("ops", user.AllAuthenticated)}
	robot := &user.DefaultInfo{Name: "system:serviceaccount:authprobe:robot", Groups: l("system:serviceaccounts", "system:serviceaccounts:authprobe", user.AllAuthenticated)}
	carol := &user.DefaultInfo{Name: "carol", Groups: l(user.AllAuthenticated)}
	anonymous := &user.DefaultInfo{Name: user.Anonymous, Groups: l(user.AllUnauthenticated)}

	tests := []struct {
		name       string
		attrs      authorizer.AttributesRecord
		allow      bool
		wantReason string
	}{
		{
			name:       "rolebinding to a role allows in its namespace",
			attrs:      resourceAttrs(bob, "get", "", "pods", "", "authprobe", "p"),
			allow:      true,
			wantReason: `RBAC: allowed by RoleBinding "rb1/authprobe" of Role "r1" to User "bob"`,
		},
		{
			name:  "rolebinding does not reach another namespace",
			attrs: resourceAttrs(bob, "get", "", "pods", "", "default", "p"),
		},
		{
			name:  "rolebinding does not reach cluster scope",
			attrs: resourceAttrs(bob, "get", "", "pods", "", "", ""),
		},
		{
			name:  "verb must match",
			attrs: resourceAttrs(bob, "delete", "", "pods", "", "authprobe", "p"),
		},
		{
			name:  "API group must match",
			attrs: resourceAttrs(bob, "get", "apps", "pods", "", "authprobe", "p"),
		},
		{
			name:       "clusterrolebinding to a group allows cluster-wide",
			attrs:      resourceAttrs(opsUser, "list", "", "nodes", "", "", ""),
			allow:      true,
			wantReason: `RBAC: allowed by ClusterRoleBinding "ops-nodes" of ClusterRole "node-reader" to Group "ops"`,
		},
		{
			name:  "clusterrolebinding to a group allows in namespaces too",
			attrs: resourceAttrs(opsUser, "get", "", "nodes", "", "authprobe", "n"),
			allow: true,
		},
		{
			name:       "serviceaccount subject without namespace means the binding's namespace",
			attrs:      resourceAttrs(robot, "create", "apps", "deployments", "", "authprobe", ""),
			allow:      true,
			wantReason: `RBAC: allowed by RoleBinding "robot/authprobe" of ClusterRole "everything-in-apps" to ServiceAccount "robot/authprobe"`,
		},
		{
			name:  "serviceaccount subject with an explicit namespace",
			attrs: resourceAttrs(robot, "delete", "apps", "statefulsets", "", "other", "x"),
			allow: true,
		},
		{
			name:  "serviceaccount subject without namespace does not match a serviceaccount of another namespace",
			attrs: resourceAttrs(robot, "get", "", "nodes", "", "other", "x"),
		},
		{
			name:  "resourceNames: the named object",
			attrs: resourceAttrs(bob, "get", "", "secrets", "", "authprobe", "allowed"),
			allow: true,
		},
		{
			name:  "resourceNames: another object",
			attrs: resourceAttrs(bob, "get", "", "secrets", "", "authprobe", "other"),
		},
		{
			name:  "resourceNames: a request without a name",
			attrs: resourceAttrs(bob, "get", "", "secrets", "", "authprobe", ""),
		},
		{
			name:  "subresource named as res/sub",
			attrs: resourceAttrs(bob, "update", "apps", "deployments", "scale", "authprobe", "d"),
			allow: true,
		},
		{
			name:  "res/sub does not grant the resource itself",
			attrs: resourceAttrs(bob, "get", "apps", "deployments", "", "authprobe", "d"),
		},
		{
			name:  "*/sub grants that subresource of any resource",
			attrs: resourceAttrs(bob, "get", "", "pods", "status", "authprobe", "p"),
			allow: true,
		},
		{
			name:  "*/sub does not grant another subresource",
			attrs: resourceAttrs(bob, "get", "", "pods", "log", "authprobe", "p"),
		},
		{
			name:  "a plain resource rule does not grant its subresources",
			attrs: resourceAttrs(bob, "get", "", "pods", "exec", "authprobe", "p"),
		},
		{
			name:  "resource * grants subresources",
			attrs: resourceAttrs(robot, "update", "apps", "deployments", "scale", "authprobe", "d"),
			allow: true,
		},
		{
			name:       "nonResourceURL exact",
			attrs:      pathAttrs(bob, "get", "/healthz"),
			allow:      true,
			wantReason: `RBAC: allowed by ClusterRoleBinding "system:discovery" of ClusterRole "system:discovery" to Group "system:authenticated"`,
		},
		{
			name:  "nonResourceURL trailing * is a prefix",
			attrs: pathAttrs(bob, "get", "/apis/apps/v1"),
			allow: true,
		},
		{
			name:  "nonResourceURL without * is exact",
			attrs: pathAttrs(bob, "get", "/healthz/etcd"),
		},
		{
			name:  "nonResourceURL verb must match",
			attrs: pathAttrs(bob, "post", "/healthz"),
		},
		{
			name:  "anonymous has no bindings here",
			attrs: pathAttrs(anonymous, "get", "/healthz"),
		},
		{
			name:       "bindings to missing roles give the reason text",
			attrs:      resourceAttrs(carol, "get", "", "pods", "", "authprobe", ""),
			wantReason: `RBAC: [clusterrole.rbac.authorization.k8s.io "nope3" not found, role.rbac.authorization.k8s.io "nope" not found, clusterrole.rbac.authorization.k8s.io "nope2" not found]`,
		},
		{
			name:       "one missing role is not bracketed",
			attrs:      resourceAttrs(carol, "get", "", "pods", "", "", ""),
			wantReason: `RBAC: clusterrole.rbac.authorization.k8s.io "nope3" not found`,
		},
		{
			name:  "system:masters via the cluster-admin binding",
			attrs: resourceAttrs(&user.DefaultInfo{Name: "root", Groups: l(user.SystemPrivilegedGroup)}, "delete", "", "namespaces", "", "", "kube-system"),
			allow: true,
		},
	}
	authz := NewRBACAuthorizer(rbacFixture())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, reason, err := authz.Authorize(context.Background(), tt.attrs)
			if err != nil {
				t.Fatalf("error: %v", err)
			}
			want := authorizer.DecisionNoOpinion
			if tt.allow {
				want = authorizer.DecisionAllow
			}
			if d != want {
				t.Fatalf("decision = %v (%s), want %v", d, reason, want)
			}
			if tt.wantReason != "" && reason != tt.wantReason {
				t.Errorf("reason:\n got %s\nwant %s", reason, tt.wantReason)
			}
			if !tt.allow && tt.wantReason == "" && reason != "" {
				t.Errorf("unexpected reason %q", reason)
			}
		})
	}
}

func TestNewAuthorizerModes(t *testing.T) {
	rbac := NewRBACAuthorizer(NewStaticRBAC(
		clusterRoleBinding("authprobe-crb-missing", "nope3", userSubject("carol")),
	))
	masters := &user.DefaultInfo{Name: "someone", Groups: l(user.SystemPrivilegedGroup, user.AllAuthenticated)}
	carol := &user.DefaultInfo{Name: "carol", Groups: l(user.AllAuthenticated)}
	get := func(u user.Info) authorizer.AttributesRecord {
		return resourceAttrs(u, "get", "", "pods", "", "authprobe", "")
	}
	tests := []struct {
		name       string
		mode       string
		attrs      authorizer.AttributesRecord
		allow      bool
		wantReason string
	}{
		{name: "RBAC mode allows system:masters without any binding", mode: "RBAC", attrs: get(masters), allow: true},
		{name: "RBAC mode prefixes the RBAC reason with the mode name", mode: "RBAC", attrs: get(carol),
			wantReason: `rbac: RBAC: clusterrole.rbac.authorization.k8s.io "nope3" not found`},
		{name: "AlwaysAllow allows anyone", mode: "AlwaysAllow", attrs: get(&user.DefaultInfo{Name: user.Anonymous}), allow: true},
		{name: "AlwaysDeny denies all but system:masters", mode: "AlwaysDeny", attrs: get(carol), wantReason: "alwaysdeny: Everything is forbidden."},
		{name: "RBAC then AlwaysAllow falls through to AlwaysAllow", mode: "RBAC,AlwaysAllow", attrs: get(carol), allow: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			authz, _, err := newModeAuthorizer(tt.mode, rbac)
			if err != nil {
				t.Fatal(err)
			}
			d, reason, err := authz.Authorize(context.Background(), tt.attrs)
			if err != nil {
				t.Fatal(err)
			}
			if (d == authorizer.DecisionAllow) != tt.allow {
				t.Fatalf("decision = %v (%q), want allow=%v", d, reason, tt.allow)
			}
			if tt.wantReason != "" && reason != tt.wantReason {
				t.Errorf("reason = %q, want %q", reason, tt.wantReason)
			}
		})
	}
	for _, bad := range []string{"ABAC", "Webhook", "Foo", "RBAC,RBAC", " RBAC"} {
		if _, _, err := newModeAuthorizer(bad, rbac); err == nil {
			t.Errorf("mode %q accepted", bad)
		}
	}
	if _, _, err := newModeAuthorizer("RBAC", nil); err == nil {
		t.Error("RBAC mode without an RBAC authorizer accepted")
	}
}

func TestRulesForSelfSubjectRulesReview(t *testing.T) {
	rbac := NewRBACAuthorizer(rbacFixture())
	bob := &user.DefaultInfo{Name: "bob", Groups: l(user.AllAuthenticated)}
	carol := &user.DefaultInfo{Name: "carol", Groups: l(user.AllAuthenticated)}

	_, resolver, err := newModeAuthorizer("RBAC", rbac)
	if err != nil {
		t.Fatal(err)
	}
	got := RulesFor(context.Background(), resolver, bob, "authprobe")
	want := authorizationv1.SubjectRulesReviewStatus{
		ResourceRules: []authorizationv1.ResourceRule{
			{Verbs: l("get"), APIGroups: l(""), Resources: l("pods")},
			{Verbs: l("get"), APIGroups: l(""), Resources: l("secrets"), ResourceNames: l("allowed")},
			{Verbs: l("get", "update"), APIGroups: l("apps"), Resources: l("deployments/scale")},
			{Verbs: l("get"), APIGroups: l(""), Resources: l("*/status")},
		},
		NonResourceRules: []authorizationv1.NonResourceRule{
			{Verbs: l("get"), NonResourceURLs: l("/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/openapi", "/openapi/*", "/readyz", "/version", "/version/")},
		},
	}
	// Namespace bindings are listed by name: rb1, scaler, secrets.
	want.ResourceRules[1], want.ResourceRules[2], want.ResourceRules[3] = want.ResourceRules[2], want.ResourceRules[3], want.ResourceRules[1]
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rules for bob:\n got %+v\nwant %+v", got, want)
	}

	got = RulesFor(context.Background(), resolver, carol, "authprobe")
	if got.Incomplete {
		t.Error("RBAC reported incomplete rules")
	}
	if want := `[clusterrole.rbac.authorization.k8s.io "nope3" not found, role.rbac.authorization.k8s.io "nope" not found, clusterrole.rbac.authorization.k8s.io "nope2" not found]`; got.EvaluationError != want {
		t.Errorf("evaluationError = %q, want %q", got.EvaluationError, want)
	}

	_, allowAll, _ := newModeAuthorizer("AlwaysAllow", nil)
	got = RulesFor(context.Background(), allowAll, carol, "x")
	if len(got.ResourceRules) != 1 || !reflect.DeepEqual(got.ResourceRules[0].Resources, l("*")) || len(got.NonResourceRules) != 1 {
		t.Errorf("AlwaysAllow rules = %+v", got)
	}
}

func TestStaticRBACAddDelete(t *testing.T) {
	s := NewStaticRBAC(role("ns", "b"), role("ns", "a"))
	if got := s.Roles("ns"); len(got) != 2 || got[0].Name != "a" {
		t.Fatalf("roles not sorted: %v", got)
	}
	s.Delete("Role", "ns", "a")
	if _, ok := s.Role("ns", "a"); ok || len(s.Roles("ns")) != 1 {
		t.Fatal("delete had no effect")
	}
	authz := NewRBACAuthorizer(s)
	bob := &user.DefaultInfo{Name: "bob"}
	attrs := resourceAttrs(bob, "get", "", "pods", "", "ns", "")
	if d, _, _ := authz.Authorize(context.Background(), attrs); d == authorizer.DecisionAllow {
		t.Fatal("allowed before the binding exists")
	}
	s.Add(role("ns", "r", rule(l("get"), l(""), l("pods"))), roleBinding("ns", "rb", "Role", "r", userSubject("bob")))
	if d, _, _ := authz.Authorize(context.Background(), attrs); d != authorizer.DecisionAllow {
		t.Fatal("binding added later not seen")
	}
}

// BenchmarkRBACAuthorize measures an RBAC decision with 1,000 RoleBindings
// (in the request's namespace) and 1,000 ClusterRoleBindings, none of which
// match until the last RoleBinding, against the AlwaysAllow mode.
func BenchmarkRBACAuthorize(b *testing.B) {
	const n = 1000
	src := NewStaticRBAC(clusterRole("view-ish", nil, rule(l("get", "list", "watch"), l("", "apps"), l("pods", "deployments"))))
	for i := 0; i < n; i++ {
		src.Add(clusterRoleBinding(fmt.Sprintf("crb-%04d", i), "view-ish", userSubject(fmt.Sprintf("user-%d", i)), groupSubject(fmt.Sprintf("group-%d", i))))
		src.Add(roleBinding("bench", fmt.Sprintf("rb-%04d", i), "ClusterRole", "view-ish", userSubject(fmt.Sprintf("other-%d", i)), saSubject("", fmt.Sprintf("sa-%d", i))))
	}
	src.Add(roleBinding("bench", "rb-zzzz", "ClusterRole", "view-ish", userSubject("target")))
	target := &user.DefaultInfo{Name: "target", Groups: l("system:authenticated", "team-a", "team-b")}
	allowed := resourceAttrs(target, "list", "apps", "deployments", "", "bench", "")
	denied := resourceAttrs(target, "delete", "apps", "deployments", "", "bench", "x")

	rbac := NewRBACAuthorizer(src)
	rbacMode, _, err := newModeAuthorizer("RBAC", rbac)
	if err != nil {
		b.Fatal(err)
	}
	alwaysAllow, _, _ := newModeAuthorizer("AlwaysAllow", nil)
	ctx := context.Background()
	run := func(b *testing.B, a authorizer.Authorizer, attrs authorizer.Attributes, want authorizer.Decision) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if d, _, _ := a.Authorize(ctx, attrs); d != want {
				b.Fatalf("decision %v", d)
			}
		}
	}
	b.Run("RBAC/allowed-by-last-binding", func(b *testing.B) { run(b, rbacMode, allowed, authorizer.DecisionAllow) })
	b.Run("RBAC/denied", func(b *testing.B) { run(b, rbacMode, denied, authorizer.DecisionNoOpinion) })
	b.Run("AlwaysAllow", func(b *testing.B) { run(b, alwaysAllow, allowed, authorizer.DecisionAllow) })
}
