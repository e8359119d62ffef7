package fakeplane_test

import (
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/fakeplane/fakeplane"
)

// webhookKubeconfig writes the kubeconfig kube-apiserver reads a webhook's
// address from: srv, trusted by its certificate, with user (YAML) as the
// credentials presented to it.
func webhookKubeconfig(t *testing.T, srv *httptest.Server, user string) string {
	t.Helper()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	return writeTestFile(t, "webhook.kubeconfig", fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: webhook
  cluster: {server: %q, certificate-authority-data: %q}
users:
- name: apiserver
  user: %s
contexts:
- name: webhook
  context: {cluster: webhook, user: apiserver}
current-context: webhook
`, srv.URL, base64.StdEncoding.EncodeToString(ca), user))
}

// TestAuthenticationTokenWebhook: a TokenReview webhook
// (--authentication-token-webhook-config-file) authenticates the bearer
// tokens the control plane does not know, with upstream's webhook
// authenticator: the user it answers, a refusal as 401, its answers kept
// (one review per token), the credentials of its kubeconfig presented.
func TestAuthenticationTokenWebhook(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var reviews []authenticationv1.TokenReview
	var authz []string
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var tr authenticationv1.TokenReview
		if err := json.NewDecoder(r.Body).Decode(&tr); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		reviews = append(reviews, tr)
		authz = append(authz, r.Header.Get("Authorization"))
		mu.Unlock()
		if tr.Spec.Token == "alice-token" {
			tr.Status = authenticationv1.TokenReviewStatus{Authenticated: true, User: authenticationv1.UserInfo{
				Username: "alice", UID: "a1", Groups: []string{"devs"}, Extra: map[string]authenticationv1.ExtraValue{"example.com/team": {"blue"}}}}
		} else {
			tr.Status = authenticationv1.TokenReviewStatus{Error: "unknown token"}
		}
		_ = json.NewEncoder(w).Encode(tr)
	}))
	t.Cleanup(srv.Close)
	kubeconfig := webhookKubeconfig(t, srv, "{token: webhook-credential}")
	cp := fakeplane.Start(t, fakeplane.WithAuthenticationTokenWebhook(fakeplane.TokenWebhook{ConfigFile: kubeconfig}))
	ctx := ctxT(t)
	as := func(token string) kubernetes.Interface {
		cfg := cp.RESTConfig()
		cfg.CertData, cfg.KeyData, cfg.BearerToken = nil, nil, token
		return kubernetes.NewForConfigOrDie(cfg)
	}
	for i := range 3 {
		ssr, err := as("alice-token").AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		u := ssr.Status.UserInfo
		if u.Username != "alice" || u.UID != "a1" || !slices.Equal(u.Groups, []string{"devs", "system:authenticated"}) || !slices.Equal(u.Extra["example.com/team"], authenticationv1.ExtraValue{"blue"}) {
			t.Errorf("request %d: user %+v", i, u)
		}
	}
	if _, err := as("mallory-token").CoreV1().Namespaces().List(ctx, metav1.ListOptions{}); !apierrors.IsUnauthorized(err) {
		t.Errorf("a token the webhook refuses: want 401, got %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(reviews) != 2 || reviews[0].Spec.Token != "alice-token" || reviews[1].Spec.Token != "mallory-token" {
		t.Errorf("the webhook reviewed %+v, want alice's token once (its answer kept), then mallory's", reviews)
	}
	if len(reviews) > 0 && reviews[0].APIVersion != "authentication.k8s.io/v1beta1" {
		t.Errorf("review version %q", reviews[0].APIVersion)
	}
	for _, a := range authz {
		if a != "Bearer webhook-credential" {
			t.Errorf("the webhook was called with Authorization %q", a)
		}
	}
}

// TestAuthorizationWebhook: --authorization-mode=RBAC,Webhook with
// --authorization-webhook-config-file asks the SubjectAccessReview webhook
// (upstream's webhook authorizer) about what RBAC does not allow, in the
// modes' order: its allowal lets a request through, its denial is a 403
// whose message carries its reason, its answers are kept (one review per
// question), and system:masters never reach it.
func TestAuthorizationWebhook(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var asked []string
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var sar map[string]any
		if err := json.NewDecoder(r.Body).Decode(&sar); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		spec, _ := sar["spec"].(map[string]any)
		attrs, _ := spec["resourceAttributes"].(map[string]any)
		question := fmt.Sprintf("%v %v %v %v", sar["apiVersion"], spec["user"], attrs["verb"], attrs["resource"])
		mu.Lock()
		asked = append(asked, question)
		mu.Unlock()
		status := map[string]any{"allowed": false, "reason": "the webhook says no"}
		switch {
		case spec["user"] == "alice" && attrs["resource"] == "configmaps":
			status = map[string]any{"allowed": true, "reason": "alice may"}
		case attrs["resource"] == "pods":
			status = map[string]any{"allowed": false, "denied": true, "reason": "pods are off limits"}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"apiVersion": sar["apiVersion"], "kind": "SubjectAccessReview", "status": status})
	}))
	t.Cleanup(srv.Close)
	kubeconfig := webhookKubeconfig(t, srv, "{}")
	cp := fakeplane.Start(t, fakeplane.WithAuthorizationMode("RBAC,Webhook"),
		fakeplane.WithAuthorizationWebhook(fakeplane.AuthorizationWebhookConfig{ConfigFile: kubeconfig}))
	ctx := ctxT(t)
	alice := userClient(t, cp, "alice")
	for range 2 {
		if _, err := alice.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{}); err != nil {
			t.Errorf("the webhook allows alice configmaps: %v", err)
		}
	}
	// No opinion: the reasons of the modes joined, each named (upstream's
	// union); a denial: the webhook's reason alone.
	for _, c := range []struct {
		list func() error
		want string
	}{
		{func() error { _, err := alice.CoreV1().Secrets("default").List(ctx, metav1.ListOptions{}); return err },
			`secrets is forbidden: User "alice" cannot list resource "secrets" in API group "" in the namespace "default": default: the webhook says no`},
		{func() error { _, err := alice.CoreV1().Pods("default").List(ctx, metav1.ListOptions{}); return err },
			`pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "default": pods are off limits`},
	} {
		if err := c.list(); !apierrors.IsForbidden(err) || err.Error() != c.want {
			t.Errorf("got  %v\nwant %s", err, c.want)
		}
	}
	if _, err := clientset(t, cp).CoreV1().Secrets("default").List(ctx, metav1.ListOptions{}); err != nil {
		t.Errorf("the admin (system:masters): %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if wantAsked := []string{"authorization.k8s.io/v1beta1 alice list configmaps", "authorization.k8s.io/v1beta1 alice list secrets", "authorization.k8s.io/v1beta1 alice list pods"}; !slices.Equal(asked, wantAsked) {
		t.Errorf("the webhook was asked %q, want %q", asked, wantAsked)
	}
}
