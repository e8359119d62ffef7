package fakeplane_test

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/fakeplane/fakeplane"
	"github.com/fakeplane/fakeplane/auth"
	"github.com/fakeplane/fakeplane/internal/pki"
)

func userClient(t *testing.T, cp *fakeplane.ControlPlane, name string, groups ...string) *kubernetes.Clientset {
	t.Helper()
	cfg, err := cp.AddUser(name, groups...)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func TestRBACDeniesThenAllowsAfterRoleBinding(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	admin := clientset(t, cp)
	alice := userClient(t, cp, "alice", "devs")

	_, err := alice.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{})
	if !apierrors.IsForbidden(err) {
		t.Fatalf("alice without bindings: want 403, got %v", err)
	}
	if want := `configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "default"`; err.Error() != want {
		t.Errorf("403 message:\n got %q\nwant %q", err.Error(), want)
	}
	// Discovery is allowed to every authenticated user (system:discovery).
	if _, err := alice.Discovery().ServerVersion(); err != nil {
		t.Errorf("version: %v", err)
	}

	// A RoleBinding to the bootstrap "edit" ClusterRole for her group.
	_, err = admin.RbacV1().RoleBindings("default").Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "devs-edit"},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "edit"},
		Subjects:   []rbacv1.Subject{{Kind: "Group", APIGroup: "rbac.authorization.k8s.io", Name: "devs"}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := alice.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "by-alice"}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("alice after the binding: %v", err)
	}
	// Still nothing in other namespaces, nor on cluster-scoped resources.
	if _, err := alice.CoreV1().ConfigMaps("kube-system").List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("other namespace: %v", err)
	}
	_, err = alice.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if !apierrors.IsForbidden(err) || err.Error() != `nodes is forbidden: User "alice" cannot list resource "nodes" in API group "" at the cluster scope` {
		t.Errorf("nodes: %v", err)
	}
	// edit may not grant roles: escalation prevention.
	_, err = alice.RbacV1().Roles("default").Create(ctx, &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: "too-much"},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"*"}}},
	}, metav1.CreateOptions{})
	if !apierrors.IsForbidden(err) {
		t.Errorf("role creation by an editor: want 403, got %v", err)
	}
}

func TestSelfReviewsAndAccessReviews(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	admin := clientset(t, cp)
	bob := userClient(t, cp, "bob", "qa")

	ssr, err := bob.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{ObjectMeta: metav1.ObjectMeta{Name: "mine"}}, metav1.CreateOptions{})
	if err != nil || ssr.Status.UserInfo.Username != "bob" || strings.Join(ssr.Status.UserInfo.Groups, ",") != "qa,system:authenticated" {
		t.Fatalf("SelfSubjectReview: %v %+v", err, ssr.Status)
	}
	// As upstream's, the answer is a new object stamped with its creation
	// time; the request's metadata is not kept.
	if ssr.CreationTimestamp.IsZero() || ssr.Name != "" {
		t.Errorf("SelfSubjectReview metadata %+v, want only a creationTimestamp", ssr.ObjectMeta)
	}
	ssar, err := bob.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
		ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: "default", Verb: "get", Resource: "pods"},
	}}, metav1.CreateOptions{})
	if err != nil || ssar.Status.Allowed {
		t.Fatalf("bob may not get pods: %v %+v", err, ssar.Status)
	}
	sar, err := admin.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User: "someone", Groups: []string{"system:masters"},
		ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: "delete", Resource: "nodes"},
	}}, metav1.CreateOptions{})
	if err != nil || !sar.Status.Allowed {
		t.Fatalf("masters may delete nodes: %v %+v", err, sar.Status)
	}
	ssrr, err := bob.AuthorizationV1().SelfSubjectRulesReviews().Create(ctx, &authorizationv1.SelfSubjectRulesReview{Spec: authorizationv1.SelfSubjectRulesReviewSpec{Namespace: "default"}}, metav1.CreateOptions{})
	if err != nil || len(ssrr.Status.ResourceRules) == 0 {
		t.Fatalf("SelfSubjectRulesReview: %v %+v", err, ssrr.Status)
	}
}

func TestServiceAccountTokens(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	cp := fakeplane.Start(t, fakeplane.WithClock(clock))
	ctx := ctxT(t)
	admin := clientset(t, cp)
	if _, err := admin.CoreV1().ServiceAccounts("default").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "ctl"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cfg, err := cp.ServiceAccountConfig("default", "ctl")
	if err != nil {
		t.Fatal(err)
	}
	sa := kubernetes.NewForConfigOrDie(cfg)
	ssr, err := sa.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil || ssr.Status.UserInfo.Username != "system:serviceaccount:default:ctl" {
		t.Fatalf("service account identity: %v %+v", err, ssr.Status)
	}
	if !contains(ssr.Status.UserInfo.Groups, "system:serviceaccounts:default") {
		t.Errorf("groups: %v", ssr.Status.UserInfo.Groups)
	}
	review := func(token string) authenticationv1.TokenReviewStatus {
		tr, err := admin.AuthenticationV1().TokenReviews().Create(ctx, &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: token}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return tr.Status
	}
	if st := review(cfg.BearerToken); !st.Authenticated || st.User.Username != "system:serviceaccount:default:ctl" {
		t.Fatalf("TokenReview of a fresh token: %+v", st)
	}
	if st := review("not-a-token"); st.Authenticated || st.Error == "" {
		t.Errorf("TokenReview of garbage: %+v", st)
	}
	// Two hours later the one-hour token has expired.
	mu.Lock()
	now = now.Add(2 * time.Hour)
	mu.Unlock()
	if st := review(cfg.BearerToken); st.Authenticated {
		t.Errorf("expired token accepted: %+v", st)
	}
	// A fresh token stops working once its ServiceAccount is deleted.
	cfg2, err := cp.ServiceAccountConfig("default", "ctl")
	if err != nil {
		t.Fatal(err)
	}
	if st := review(cfg2.BearerToken); !st.Authenticated {
		t.Fatalf("second token: %+v", st)
	}
	if err := admin.CoreV1().ServiceAccounts("default").Delete(ctx, "ctl", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// As on kube-apiserver (recorded on refplane: 200 for ten seconds,
	// then 401), its success is remembered for ten seconds.
	if st := review(cfg2.BearerToken); !st.Authenticated {
		t.Errorf("token of a just deleted service account, remembered: %+v", st)
	}
	mu.Lock()
	now = now.Add(auth.TokenSuccessCacheTTL)
	mu.Unlock()
	if st := review(cfg2.BearerToken); st.Authenticated {
		t.Errorf("token of a deleted service account accepted: %+v", st)
	}
	if _, err := kubernetes.NewForConfigOrDie(cfg2).CoreV1().Namespaces().List(ctx, metav1.ListOptions{}); !apierrors.IsUnauthorized(err) {
		t.Errorf("request with a revoked token: want 401, got %v", err)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestForgedRequestHeaderIsIgnored(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cfg, err := cp.AddUser("mallory")
	if err != nil {
		t.Fatal(err)
	}
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("POST", cp.URL()+"/apis/authentication.k8s.io/v1/selfsubjectreviews", strings.NewReader(`{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Remote-User", "kubernetes-admin")
	req.Header.Set("X-Remote-Group", "system:masters")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var ssr authenticationv1.SelfSubjectReview
	if err := jsonDecode(resp, &ssr); err != nil || ssr.Status.UserInfo.Username != "mallory" {
		t.Errorf("forged X-Remote-User: %v %+v", err, ssr.Status.UserInfo)
	}
	// Without any certificate the headers do not help either.
	insecure := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	req2, _ := http.NewRequest("GET", cp.URL()+"/api/v1/namespaces", nil)
	req2.Header.Set("X-Remote-User", "kubernetes-admin")
	req2.Header.Set("X-Remote-Group", "system:masters")
	resp2, err := insecure.Do(req2)
	if err != nil {
		t.Fatal(err)
	}
	resp2.Body.Close()
	if resp2.StatusCode != 403 {
		t.Errorf("anonymous with forged headers: %d, want 403", resp2.StatusCode)
	}
}

func TestImpersonation(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	cfg := cp.RESTConfig()
	cfg.Impersonate = rest.ImpersonationConfig{UserName: "carol", Groups: []string{"testers"}}
	asCarol := kubernetes.NewForConfigOrDie(cfg)
	ssr, err := asCarol.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil || ssr.Status.UserInfo.Username != "carol" {
		t.Fatalf("admin impersonating carol: %v %+v", err, ssr.Status)
	}
	if _, err := asCarol.CoreV1().Secrets("default").List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("impersonated carol lists secrets: %v", err)
	}
	dave, err := cp.AddUser("dave")
	if err != nil {
		t.Fatal(err)
	}
	dave.Impersonate = rest.ImpersonationConfig{UserName: "kubernetes-admin"}
	_, err = kubernetes.NewForConfigOrDie(dave).CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	// v1.37 tries constrained impersonation after the legacy verb, and
	// tells of its first check (message as upstream's
	// WithConstrainedImpersonation words it).
	if !apierrors.IsForbidden(err) || err.Error() != `namespaces is forbidden: User "dave" cannot impersonate-on:user-info:list resource "namespaces" in API group "" at the cluster scope` {
		t.Errorf("dave impersonating admin: %v", err)
	}

	// Constrained impersonation: erin may act as carol only to list
	// configmaps in team-a.
	admin := kubernetes.NewForConfigOrDie(cp.RESTConfig())
	if _, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "impersonate-carol"},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{"authentication.k8s.io"}, Resources: []string{"users"}, ResourceNames: []string{"carol"}, Verbs: []string{"impersonate:user-info"}},
			{APIGroups: []string{"authentication.k8s.io"}, Resources: []string{"groups"}, ResourceNames: []string{"testers"}, Verbs: []string{"impersonate:user-info"}},
		},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "erin-impersonates-carol"},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "impersonate-carol"},
		Subjects:   []rbacv1.Subject{{Kind: "User", Name: "erin"}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.RbacV1().Roles("team-a").Create(ctx, &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: "list-configmaps-as"},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"impersonate-on:user-info:list"}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.RbacV1().RoleBindings("team-a").Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "erin-lists-configmaps-as"},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "list-configmaps-as"},
		Subjects:   []rbacv1.Subject{{Kind: "User", Name: "erin"}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// carol (and testers) may list configmaps in team-a.
	if _, err := admin.RbacV1().Roles("team-a").Create(ctx, &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: "configmap-reader"},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"list", "get"}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.RbacV1().RoleBindings("team-a").Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "carol-reads-configmaps"},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "configmap-reader"},
		Subjects:   []rbacv1.Subject{{Kind: "User", Name: "carol"}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	erin, err := cp.AddUser("erin")
	if err != nil {
		t.Fatal(err)
	}
	erin.Impersonate = rest.ImpersonationConfig{UserName: "carol", Groups: []string{"testers"}}
	erinAsCarol := kubernetes.NewForConfigOrDie(erin)
	if err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := erinAsCarol.CoreV1().ConfigMaps("team-a").List(ctx, metav1.ListOptions{})
		return err == nil, nil
	}); err != nil {
		_, err := erinAsCarol.CoreV1().ConfigMaps("team-a").List(ctx, metav1.ListOptions{})
		t.Fatalf("erin listing configmaps in team-a as carol: %v", err)
	}
	_, err = erinAsCarol.CoreV1().ConfigMaps("team-a").Get(ctx, "kube-root-ca.crt", metav1.GetOptions{})
	if !apierrors.IsForbidden(err) || err.Error() != `configmaps "kube-root-ca.crt" is forbidden: User "erin" cannot impersonate-on:user-info:get resource "configmaps" in API group "" in the namespace "team-a"` {
		t.Errorf("erin getting a configmap as carol (only list is allowed): %v", err)
	}
	erin.Impersonate = rest.ImpersonationConfig{UserName: "mallory"}
	_, err = kubernetes.NewForConfigOrDie(erin).CoreV1().ConfigMaps("team-a").List(ctx, metav1.ListOptions{})
	if !apierrors.IsForbidden(err) || err.Error() != `users.authentication.k8s.io "mallory" is forbidden: User "erin" cannot impersonate:user-info resource "users" in API group "authentication.k8s.io" at the cluster scope` {
		t.Errorf("erin impersonating mallory: %v", err)
	}
}

func TestAlwaysAllowMode(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithAuthorizationMode(fakeplane.AuthorizationAlwaysAllow), fakeplane.WithToken("s3cret", "tok-user", "g1"))
	ctx := ctxT(t)
	cfg := cp.RESTConfig()
	cfg.CertData, cfg.KeyData, cfg.BearerToken = nil, nil, "s3cret"
	cs := kubernetes.NewForConfigOrDie(cfg)
	if _, err := cs.CoreV1().Secrets("kube-system").List(ctx, metav1.ListOptions{}); err != nil {
		t.Errorf("AlwaysAllow with a static token: %v", err)
	}
	cfg.BearerToken = "wrong"
	if _, err := kubernetes.NewForConfigOrDie(cfg).CoreV1().Secrets("kube-system").List(ctx, metav1.ListOptions{}); !apierrors.IsUnauthorized(err) {
		t.Errorf("wrong token: want 401, got %v", err)
	}
}

// TestKubectlAuth runs kubectl auth whoami and can-i as a person would.
func TestKubectlAuth(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run := func(kubeconfig string, args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, "kubectl", append([]string{"--kubeconfig", kubeconfig}, args...)...)
		out, err := cmd.Output()
		return strings.TrimSpace(string(out)), err
	}
	editorKC := t.TempDir() + "/editor"
	if err := cp.WriteKubeconfig(editorKC, "erin", "editors"); err != nil {
		t.Fatal(err)
	}
	admin := clientset(t, cp)
	if _, err := admin.RbacV1().RoleBindings("default").Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "editors"},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "edit"},
		Subjects:   []rbacv1.Subject{{Kind: "Group", APIGroup: "rbac.authorization.k8s.io", Name: "editors"}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		kubeconfig string
		args       []string
		want       string
	}{
		{cp.KubeconfigPath(), []string{"auth", "can-i", "delete", "nodes"}, "yes"},
		{editorKC, []string{"auth", "can-i", "create", "deployments"}, "yes"},
		{editorKC, []string{"auth", "can-i", "create", "deployments", "-n", "kube-system"}, "no"},
		{editorKC, []string{"auth", "can-i", "create", "roles"}, "no"},
		{editorKC, []string{"auth", "can-i", "get", "/healthz"}, "yes"},
	} {
		got, _ := run(tc.kubeconfig, tc.args...)
		if got != tc.want {
			t.Errorf("kubectl %s: %q, want %q", strings.Join(tc.args, " "), got, tc.want)
		}
	}
	// A service account bound to view in its namespace.
	if _, err := admin.RbacV1().RoleBindings("default").Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "sa-view"},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "view"},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: "default", Namespace: "default"}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	saCfg, err := cp.ServiceAccountConfig("default", "default")
	if err != nil {
		t.Fatal(err)
	}
	saKC := t.TempDir() + "/sa"
	kc := clientcmdapi.NewConfig()
	kc.Clusters["c"] = &clientcmdapi.Cluster{Server: saCfg.Host, CertificateAuthorityData: saCfg.CAData}
	kc.AuthInfos["sa"] = &clientcmdapi.AuthInfo{Token: saCfg.BearerToken}
	kc.Contexts["c"] = &clientcmdapi.Context{Cluster: "c", AuthInfo: "sa", Namespace: "default"}
	kc.CurrentContext = "c"
	if err := clientcmd.WriteToFile(*kc, saKC); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"auth", "can-i", "list", "pods"}, "yes"},
		{[]string{"auth", "can-i", "delete", "pods"}, "no"},
		{[]string{"auth", "can-i", "get", "secrets"}, "no"},
		{[]string{"auth", "can-i", "list", "pods", "-n", "kube-system"}, "no"},
	} {
		if got, _ := run(saKC, tc.args...); got != tc.want {
			t.Errorf("service account: kubectl %s: %q, want %q", strings.Join(tc.args, " "), got, tc.want)
		}
	}
	if out, err := run(saKC, "auth", "whoami"); err != nil || !strings.Contains(out, "system:serviceaccount:default:default") {
		t.Errorf("service account whoami: %v\n%s", err, out)
	}
	if out, err := run(saKC, "auth", "can-i", "--list"); err != nil || !strings.Contains(out, "pods ") || strings.Contains(out, "secrets ") {
		t.Errorf("service account can-i --list: %v\n%s", err, out)
	}

	out, err := run(editorKC, "auth", "whoami")
	if err != nil || !strings.Contains(out, "erin") || !strings.Contains(out, "[editors system:authenticated]") {
		t.Errorf("kubectl auth whoami: %v\n%s", err, out)
	}
	out, err = run(editorKC, "auth", "can-i", "--list")
	if err != nil || !strings.Contains(out, "deployments.apps") || !strings.Contains(out, "selfsubjectreviews.authentication.k8s.io") {
		t.Errorf("kubectl auth can-i --list: %v\n%s", err, out)
	}
}

func jsonDecode(resp *http.Response, v any) error {
	return json.NewDecoder(resp.Body).Decode(v)
}

func TestRequestHeaderFromTrustedProxy(t *testing.T) {
	t.Parallel()
	proxyCA, err := pki.NewCA("front-proxy-ca")
	if err != nil {
		t.Fatal(err)
	}
	cp := fakeplane.Start(t, fakeplane.WithRequestHeader(fakeplane.RequestHeader{CA: proxyCA.Pool(), AllowedNames: []string{"front-proxy-client"}}))
	send := func(kp pki.KeyPair) (int, authenticationv1.UserInfo) {
		cert, err := kp.TLSCertificate()
		if err != nil {
			t.Fatal(err)
		}
		cfg := cp.RESTConfig()
		tlsCfg, err := rest.TLSConfigFor(cfg)
		if err != nil {
			t.Fatal(err)
		}
		tlsCfg.Certificates = []tls.Certificate{cert}
		tlsCfg.GetClientCertificate = nil
		hc := &http.Client{Transport: &http.Transport{TLSClientConfig: tlsCfg}}
		req, _ := http.NewRequest("POST", cp.URL()+"/apis/authentication.k8s.io/v1/selfsubjectreviews", strings.NewReader(`{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Remote-User", "alice")
		req.Header.Set("X-Remote-Group", "devs")
		req.Header.Set("X-Remote-Extra-Scopes", "read")
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var ssr authenticationv1.SelfSubjectReview
		_ = jsonDecode(resp, &ssr)
		return resp.StatusCode, ssr.Status.UserInfo
	}
	proxy, _ := proxyCA.NewClientCert("front-proxy-client")
	code, ui := send(proxy)
	if code != 201 || ui.Username != "alice" || strings.Join(ui.Groups, ",") != "devs,system:authenticated" || ui.Extra["scopes"][0] != "read" {
		t.Errorf("trusted proxy: %d %+v", code, ui)
	}
	// A proxy certificate with a CN that is not allowed is not trusted.
	other, _ := proxyCA.NewClientCert("someone-else")
	if code, ui := send(other); code == 201 && ui.Username == "alice" {
		t.Errorf("untrusted CN was honoured: %d %+v", code, ui)
	}
}

func TestBootstrapPolicyAndAggregation(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	admin := clientset(t, cp)
	for _, name := range []string{"cluster-admin", "admin", "edit", "view", "system:discovery", "system:basic-user", "system:public-info-viewer", "system:auth-delegator", "system:kube-scheduler", "system:volume-scheduler"} {
		if _, err := admin.RbacV1().ClusterRoles().Get(ctx, name, metav1.GetOptions{}); err != nil {
			t.Errorf("clusterrole %s: %v", name, err)
		}
	}
	if _, err := admin.RbacV1().Roles("kube-system").Get(ctx, "extension-apiserver-authentication-reader", metav1.GetOptions{}); err != nil {
		t.Errorf("extension-apiserver-authentication-reader: %v", err)
	}
	// A ClusterRole labelled aggregate-to-view adds its rules to view (and so to edit and admin).
	_, err := admin.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets-view", Labels: map[string]string{"rbac.authorization.k8s.io/aggregate-to-view": "true"}},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{"example.com"}, Resources: []string{"widgets"}, Verbs: []string{"get", "list", "watch"}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The aggregation comes asynchronously, as on a cluster.
	for _, name := range []string{"view", "edit", "admin"} {
		waitFor(t, func() bool {
			cr, _ := admin.RbacV1().ClusterRoles().Get(ctx, name, metav1.GetOptions{})
			found := false
			for _, r := range cr.Rules {
				if len(r.Resources) == 1 && r.Resources[0] == "widgets" {
					found = true
				}
			}
			return found
		})
	}
}

// TestLegacyServiceAccountTokenSecret: kube-controller-manager's token
// controller fills a kubernetes.io/service-account-token Secret after its
// create (whose answer has no token) with a token that authenticates as its
// ServiceAccount, the CA and the namespace, as its own update; deletes a
// token Secret whose ServiceAccount does not exist, and a ServiceAccount's
// token Secrets with it; and takes a deleted token Secret out of its
// ServiceAccount's secrets. Each answer was recorded from refplane with its
// kube-controller-manager.
func TestLegacyServiceAccountTokenSecret(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	admin := clientset(t, cp)
	waitForDefaultServiceAccount(t, cp, "default")
	tokenSecret := func(name, account string) *corev1.Secret {
		return &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{corev1.ServiceAccountNameKey: account}},
			Type:       corev1.SecretTypeServiceAccountToken,
		}
	}
	created, err := admin.CoreV1().Secrets("default").Create(ctx, tokenSecret("default-token", "default"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(created.Data) != 0 || created.Annotations[corev1.ServiceAccountUIDKey] != "" {
		t.Errorf("the create's answer has %v %v; the controller fills it afterwards", created.Data, created.Annotations)
	}
	var sec *corev1.Secret
	eventuallyT(t, "the token", func(ctx context.Context) (bool, error) {
		sec, err = admin.CoreV1().Secrets("default").Get(ctx, "default-token", metav1.GetOptions{})
		return err == nil && len(sec.Data["token"]) > 0, err
	})
	sa, err := admin.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(sec.Data["ca.crt"]) == 0 || string(sec.Data["namespace"]) != "default" || sec.Annotations[corev1.ServiceAccountUIDKey] != string(sa.UID) {
		t.Fatalf("token secret not filled: %v %v", sec.Data, sec.Annotations)
	}
	var kcm bool
	for _, m := range sec.ManagedFields {
		kcm = kcm || m.Manager == "kube-controller-manager" && m.Operation == metav1.ManagedFieldsOperationUpdate
	}
	if !kcm || sec.ResourceVersion == created.ResourceVersion {
		t.Errorf("the token was not kube-controller-manager's update: %+v", sec.ManagedFields)
	}
	tr, err := admin.AuthenticationV1().TokenReviews().Create(ctx, &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: string(sec.Data["token"])}}, metav1.CreateOptions{})
	if err != nil || !tr.Status.Authenticated || tr.Status.User.Username != "system:serviceaccount:default:default" {
		t.Errorf("legacy token review: %v %+v", err, tr.Status)
	}

	gone := func(name string) func(ctx context.Context) (bool, error) {
		return func(ctx context.Context) (bool, error) {
			_, err := admin.CoreV1().Secrets("default").Get(ctx, name, metav1.GetOptions{})
			return apierrors.IsNotFound(err), nil
		}
	}
	// A token of a ServiceAccount that does not exist is deleted.
	if _, err := admin.CoreV1().Secrets("default").Create(ctx, tokenSecret("nobody-token", "nobody"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventuallyT(t, "the token of no ServiceAccount deleted", gone("nobody-token"))
	// A ServiceAccount's tokens go with it; one deleted before leaves its
	// secrets.
	if _, err := admin.CoreV1().ServiceAccounts("default").Create(ctx, &corev1.ServiceAccount{
		ObjectMeta: metav1.ObjectMeta{Name: "robot"}, Secrets: []corev1.ObjectReference{{Name: "robot-token"}, {Name: "robot-old"}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"robot-token", "robot-old"} {
		if _, err := admin.CoreV1().Secrets("default").Create(ctx, tokenSecret(name, "robot"), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := admin.CoreV1().Secrets("default").Delete(ctx, "robot-old", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventuallyT(t, "the deleted token out of the ServiceAccount's secrets", func(ctx context.Context) (bool, error) {
		sa, err := admin.CoreV1().ServiceAccounts("default").Get(ctx, "robot", metav1.GetOptions{})
		return err == nil && len(sa.Secrets) == 1 && sa.Secrets[0].Name == "robot-token", err
	})
	if err := admin.CoreV1().ServiceAccounts("default").Delete(ctx, "robot", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventuallyT(t, "the ServiceAccount's token deleted with it", gone("robot-token"))
	if _, err := admin.CoreV1().Secrets("default").Get(ctx, "default-token", metav1.GetOptions{}); err != nil {
		t.Errorf("another ServiceAccount's token: %v", err)
	}
}

func TestRBACBindingsStoredBeforeADataDirRestartStillAuthorize(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx := ctxT(t)
	cp1, stop1 := startInDataDir(t, dir)
	_, err := clientset(t, cp1).RbacV1().RoleBindings("default").Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "devs-view"},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "view"},
		Subjects:   []rbacv1.Subject{{Kind: "Group", APIGroup: "rbac.authorization.k8s.io", Name: "devs"}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	stop1()

	cp2, _ := startInDataDir(t, dir)
	alice := userClient(t, cp2, "alice", "devs")
	if _, err := alice.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{}); err != nil {
		t.Fatalf("alice after the restart: %v", err)
	}
	if _, err := alice.CoreV1().ConfigMaps("kube-system").List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Fatalf("alice in another namespace after the restart: want 403, got %v", err)
	}
}

// The service-account tokens a control plane with a data directory issued
// still log in after a restart, as kube-apiserver's with kubeadm's sa.key:
// the key is kept in pki/sa.key (0600), its public half in pki/sa.pub.
func TestServiceAccountTokensSurviveADataDirRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx := ctxT(t)
	cp1, stop1 := startInDataDir(t, dir)
	waitForDefaultServiceAccount(t, cp1, "default")
	tr, err := clientset(t, cp1).CoreV1().ServiceAccounts("default").CreateToken(ctx, "default", &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	stop1()
	fi, err := os.Stat(filepath.Join(dir, "pki", "sa.key"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("pki/sa.key: %v %v", fi, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "pki", "sa.pub")); err != nil {
		t.Error(err)
	}

	cp2, _ := startInDataDir(t, dir)
	cfg := cp2.RESTConfig()
	cfg.CertData, cfg.KeyData, cfg.BearerToken = nil, nil, tr.Status.Token
	ssr, err := kubernetes.NewForConfigOrDie(cfg).AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil || ssr.Status.UserInfo.Username != "system:serviceaccount:default:default" {
		t.Errorf("a token issued before the restart: %v %+v", err, ssr)
	}
}

// Recorded on kube-apiserver v1.37.2: a request with a Secret's legacy token
// labels the Secret with the day (as the API server, field manager
// kube-apiserver, once a day), warns when the ServiceAccount lists the
// Secret as its own, and a token marked invalid is refused but its use
// still recorded.
func TestLegacyTokenUseIsLabelledAndWarnedAsByKubeAPIServer(t *testing.T) {
	t.Parallel()
	clock := &testClock{t: time.Date(2026, 3, 4, 22, 0, 0, 0, time.UTC)}
	later := clock.Advance
	cp := fakeplane.Start(t, fakeplane.WithClock(clock.Now))
	ctx := ctxT(t)
	admin := clientset(t, cp)
	if _, err := admin.CoreV1().ServiceAccounts("default").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "lt"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.CoreV1().Secrets("default").Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "lt-tok", Annotations: map[string]string{corev1.ServiceAccountNameKey: "lt"}},
		Type:       corev1.SecretTypeServiceAccountToken,
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var sec *corev1.Secret
	eventuallyT(t, "the token", func(ctx context.Context) (bool, error) {
		var err error
		sec, err = admin.CoreV1().Secrets("default").Get(ctx, "lt-tok", metav1.GetOptions{})
		return err == nil && len(sec.Data["token"]) > 0, err
	})
	warned := &warningCollector{}
	cfg := cp.RESTConfig()
	cfg.CertData, cfg.KeyData, cfg.BearerToken = nil, nil, string(sec.Data["token"])
	cfg.WarningHandler = warned
	user := kubernetes.NewForConfigOrDie(cfg)
	use := func() error {
		_, err := user.CoreV1().ConfigMaps("default").Get(ctx, "none", metav1.GetOptions{})
		return err
	}
	lastUsed := func() *corev1.Secret {
		t.Helper()
		s, err := admin.CoreV1().Secrets("default").Get(ctx, "lt-tok", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	const autoGenerated = "Use tokens from the TokenRequest API or manually created secret-based tokens instead of auto-generated secret-based tokens."

	if err := use(); !apierrors.IsForbidden(err) {
		t.Fatalf("the ServiceAccount's request: want 403, got %v", err)
	}
	first := lastUsed()
	if got := first.Labels["kubernetes.io/legacy-token-last-used"]; got != "2026-03-04" {
		t.Errorf("last-used label %q, want 2026-03-04", got)
	}
	var labelled []string
	for _, m := range first.ManagedFields {
		if m.Manager == "kube-apiserver" {
			labelled = append(labelled, fmt.Sprintf("%s %s %s", m.Operation, m.APIVersion, m.FieldsV1.Raw))
		}
	}
	if want := `Update v1 {"f:metadata":{"f:labels":{".":{},"f:kubernetes.io/legacy-token-last-used":{}}}}`; len(labelled) != 1 || labelled[0] != want {
		t.Errorf("kube-apiserver's managedFields entries %q, want [%s]", labelled, want)
	}
	if w := warned.Messages(); len(w) != 0 {
		t.Errorf("a manually created token warned %q", w)
	}

	// Used again the same day (two hours later, already the next day in
	// some time zones): the Secret is not written.
	later(time.Hour)
	if err := use(); !apierrors.IsForbidden(err) {
		t.Fatal(err)
	}
	if again := lastUsed(); again.ResourceVersion != first.ResourceVersion {
		t.Errorf("a second use the same day wrote the Secret: %v", again.Labels)
	}

	// Listed in the ServiceAccount's secrets, the token is auto-generated.
	if _, err := admin.CoreV1().ServiceAccounts("default").Patch(ctx, "lt", types.MergePatchType, []byte(`{"secrets":[{"name":"lt-tok"}]}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	later(48 * time.Hour)
	if err := use(); !apierrors.IsForbidden(err) {
		t.Fatal(err)
	}
	if w := warned.Messages(); len(w) != 1 || w[0] != autoGenerated {
		t.Errorf("warnings %q, want %q", w, autoGenerated)
	}
	if got := lastUsed().Labels["kubernetes.io/legacy-token-last-used"]; got != "2026-03-06" {
		t.Errorf("last-used label two days later %q, want 2026-03-06", got)
	}

	// Marked invalid, the token is refused; its use is still recorded.
	if _, err := admin.CoreV1().Secrets("default").Patch(ctx, "lt-tok", types.MergePatchType, []byte(`{"metadata":{"labels":{"kubernetes.io/legacy-token-invalid-since":"2026-03-01"}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	later(24 * time.Hour)
	if err := use(); !apierrors.IsUnauthorized(err) {
		t.Errorf("a token marked invalid: want 401, got %v", err)
	}
	if w := warned.Messages(); len(w) != 1 {
		t.Errorf("warnings %q: a refused token adds none to the one above", w)
	}
	if got := lastUsed().Labels["kubernetes.io/legacy-token-last-used"]; got != "2026-03-07" {
		t.Errorf("last-used label of the refused token %q, want 2026-03-07", got)
	}
}
