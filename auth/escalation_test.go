package auth

import (
	"context"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/user"
)

// escalationFixture reproduces the reference cluster the messages below
// were taken from: bob may get pods and write roles in authprobe, and has
// bindings to three roles that do not exist.
func escalationFixture() *StaticRBAC {
	return NewStaticRBAC(
		clusterRole("cluster-admin", nil,
			rule(l("*"), l("*"), l("*")),
			rbacv1.PolicyRule{Verbs: l("*"), NonResourceURLs: l("*")}),
		clusterRoleBinding("admins", "cluster-admin", userSubject("root")),
		clusterRole("system:discovery", nil, rbacv1.PolicyRule{Verbs: l("get"), NonResourceURLs: l("/api", "/api/*", "/apis", "/apis/*")}),
		clusterRoleBinding("system:discovery", "system:discovery", groupSubject(user.AllAuthenticated)),
		clusterRoleBinding("authprobe-crb-missing", "nope3", userSubject("bob")),
		role("authprobe", "r1", rule(l("get"), l(""), l("pods"))),
		role("authprobe", "rolemaker", rule(l("create", "update"), l("rbac.authorization.k8s.io"), l("roles", "rolebindings"))),
		roleBinding("authprobe", "rb-missing", "Role", "nope", userSubject("bob")),
		roleBinding("authprobe", "rb-missing2", "ClusterRole", "nope2", userSubject("bob")),
		roleBinding("authprobe", "rb1", "Role", "r1", userSubject("bob")),
		roleBinding("authprobe", "rolemaker", "Role", "rolemaker", userSubject("bob")),
		clusterRole("pod-getter", nil, rule(l("get"), l(""), l("pods"))),
		clusterRole("escalator", nil, rule(l("escalate"), l("rbac.authorization.k8s.io"), l("roles", "clusterroles"))),
		clusterRoleBinding("erin-escalates", "escalator", userSubject("erin")),
		clusterRole("binder", nil, rbacv1.PolicyRule{Verbs: l("bind"), APIGroups: l("rbac.authorization.k8s.io"), Resources: l("clusterroles"), ResourceNames: l("cluster-admin")}),
		roleBinding("authprobe", "frank-binds", "ClusterRole", "binder", userSubject("frank")),
	)
}

func TestConfirmNoEscalationMessage(t *testing.T) {
	rbac := NewRBACAuthorizer(escalationFixture())
	bob := &user.DefaultInfo{Name: "bob", Groups: l(user.AllAuthenticated)}
	err := ConfirmNoEscalation(context.Background(), rbac, bob, "authprobe", []rbacv1.PolicyRule{
		rule(l("get", "list", "watch"), l(""), l("pods", "secrets")),
		rule(l("get", "list", "watch"), l("apps"), l("deployments")),
	})
	want := `user "bob" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:
{APIGroups:[""], Resources:["pods"], Verbs:["list" "watch"]}
{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list" "watch"]}
{APIGroups:["apps"], Resources:["deployments"], Verbs:["get" "list" "watch"]}; resolution errors: [[clusterrole.rbac.authorization.k8s.io "nope3" not found, role.rbac.authorization.k8s.io "nope" not found, clusterrole.rbac.authorization.k8s.io "nope2" not found]]`
	if err == nil || err.Error() != want {
		t.Fatalf("error:\n got %v\nwant %s", err, want)
	}
	if err := ConfirmNoEscalation(context.Background(), rbac, bob, "authprobe", []rbacv1.PolicyRule{rule(l("get"), l(""), l("pods"))}); err != nil {
		t.Fatalf("covered rules refused: %v", err)
	}
}

func TestCheckRBACWrite(t *testing.T) {
	rbac := NewRBACAuthorizer(escalationFixture())
	authz, _, err := newModeAuthorizer("RBAC", rbac)
	if err != nil {
		t.Fatal(err)
	}
	bob := &user.DefaultInfo{Name: "bob", Groups: l(user.AllAuthenticated)}
	erin := &user.DefaultInfo{Name: "erin", Groups: l(user.AllAuthenticated)}
	frank := &user.DefaultInfo{Name: "frank", Groups: l(user.AllAuthenticated)}
	root := &user.DefaultInfo{Name: "root", Groups: l(user.AllAuthenticated)}
	masters := &user.DefaultInfo{Name: "kubernetes-admin", Groups: l(user.SystemPrivilegedGroup, user.AllAuthenticated)}

	escRole := role("authprobe", "esc",
		rule(l("get", "list", "watch"), l(""), l("pods", "secrets")),
		rule(l("get", "list", "watch"), l("apps"), l("deployments")))
	aggregated := clusterRole("agg", nil)
	aggregated.AggregationRule = &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{{MatchLabels: map[string]string{"x": "y"}}}}

	tests := []struct {
		name     string
		write    RBACWrite
		wantErr  string
		notFound bool
	}{
		{
			name:  "role with rules the user holds is allowed",
			write: RBACWrite{User: bob, Namespace: "authprobe", Object: role("authprobe", "esc2", rule(l("get"), l(""), l("pods")))},
		},
		{
			name:  "role escalating is forbidden with kube-apiserver's message",
			write: RBACWrite{User: bob, Namespace: "authprobe", Object: escRole},
			wantErr: `roles.rbac.authorization.k8s.io "esc" is forbidden: user "bob" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:
{APIGroups:[""], Resources:["pods"], Verbs:["list" "watch"]}
{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list" "watch"]}
{APIGroups:["apps"], Resources:["deployments"], Verbs:["get" "list" "watch"]}; resolution errors: [[roles.rbac.authorization.k8s.io "nope3" not found, roles.rbac.authorization.k8s.io "nope" not found, roles.rbac.authorization.k8s.io "nope2" not found]]`,
		},
		{
			name: "clusterrole escalating names clusterroles in the resolution errors",
			write: RBACWrite{User: bob, Object: clusterRole("authprobe-y", nil,
				rule(l("get"), l(""), l("nodes")),
				rbacv1.PolicyRule{Verbs: l("get"), NonResourceURLs: l("/foo/*")})},
			wantErr: `clusterroles.rbac.authorization.k8s.io "authprobe-y" is forbidden: user "bob" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:
{APIGroups:[""], Resources:["nodes"], Verbs:["get"]}
{NonResourceURLs:["/foo/*"], Verbs:["get"]}; resolution errors: [clusterroles.rbac.authorization.k8s.io "nope3" not found]`,
		},
		{
			name:  "system:masters may write anything",
			write: RBACWrite{User: masters, Namespace: "authprobe", Object: escRole},
		},
		{
			name:  "the escalate verb allows writing roles beyond one's rules",
			write: RBACWrite{User: erin, Namespace: "authprobe", Object: escRole},
		},
		{
			name: "only garbage-collector fields changing skips the check",
			write: RBACWrite{User: bob, Namespace: "authprobe", Old: escRole, Object: func() *rbacv1.Role {
				r := escRole.DeepCopy()
				r.Finalizers = l("foregroundDeletion")
				return r
			}()},
		},
		{
			name:    "aggregationRule needs cluster-admin",
			write:   RBACWrite{User: bob, Object: aggregated},
			wantErr: `clusterroles.rbac.authorization.k8s.io "agg" is forbidden: must have cluster-admin privileges to use the aggregationRule`,
		},
		{
			name:  "aggregationRule with cluster-admin rules",
			write: RBACWrite{User: root, Object: aggregated},
		},
		{
			name:  "rolebinding to a role whose rules the user holds",
			write: RBACWrite{User: bob, Namespace: "authprobe", Object: roleBinding("authprobe", "b", "ClusterRole", "pod-getter", userSubject("zed"))},
		},
		{
			name: "rolebinding to a role beyond the user's rules",
			write: RBACWrite{User: bob, Namespace: "authprobe",
				Object: roleBinding("authprobe", "escb", "ClusterRole", "cluster-admin", userSubject("bob"))},
			wantErr: `rolebindings.rbac.authorization.k8s.io "escb" is forbidden: user "bob" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:
{APIGroups:["*"], Resources:["*"], Verbs:["*"]}
{NonResourceURLs:["*"], Verbs:["*"]}; resolution errors: [[rolebindings.rbac.authorization.k8s.io "nope3" not found, rolebindings.rbac.authorization.k8s.io "nope" not found, rolebindings.rbac.authorization.k8s.io "nope2" not found]]`,
		},
		{
			name:  "the bind verb allows binding a role beyond one's rules",
			write: RBACWrite{User: frank, Namespace: "authprobe", Object: roleBinding("authprobe", "b", "ClusterRole", "cluster-admin", userSubject("frank"))},
		},
		{
			name:     "rolebinding to a missing clusterrole is NotFound named after rolebindings",
			write:    RBACWrite{User: bob, Namespace: "authprobe", Object: roleBinding("authprobe", "escb2", "ClusterRole", "nonexist", userSubject("bob"))},
			wantErr:  `rolebindings.rbac.authorization.k8s.io "nonexist" not found`,
			notFound: true,
		},
		{
			name:     "clusterrolebinding to a missing clusterrole is NotFound named after clusterrolebindings",
			write:    RBACWrite{User: bob, Object: clusterRoleBinding("authprobe-x", "nonexist", userSubject("bob"))},
			wantErr:  `clusterrolebindings.rbac.authorization.k8s.io "nonexist" not found`,
			notFound: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := rbac.CheckRBACWrite(context.Background(), authz, tt.write)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil || err.Error() != tt.wantErr {
				t.Fatalf("error:\n got %v\nwant %s", err, tt.wantErr)
			}
			if tt.notFound != apierrors.IsNotFound(err) || !tt.notFound && !apierrors.IsForbidden(err) {
				t.Errorf("error reason = %v", apierrors.ReasonForError(err))
			}
		})
	}
}

func TestCompactString(t *testing.T) {
	got := CompactString(rbacv1.PolicyRule{Verbs: l("get"), APIGroups: l(""), Resources: l("secrets"), ResourceNames: l("a", "b")})
	if want := `{APIGroups:[""], Resources:["secrets"], ResourceNames:["a" "b"], Verbs:["get"]}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
