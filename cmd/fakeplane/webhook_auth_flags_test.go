package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// testReviewWebhook answers TokenReviews ("alice-token" is alice) and
// SubjectAccessReviews (alice may list configmaps), keeping the apiVersion
// of each review it gets.
type testReviewWebhook struct {
	srv      *httptest.Server
	mu       sync.Mutex
	versions []string
}

func newTestReviewWebhook(t *testing.T) *testReviewWebhook {
	t.Helper()
	w := &testReviewWebhook{}
	w.srv = httptest.NewTLSServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		var review struct {
			APIVersion, Kind string
			Spec             struct {
				Token              string
				User               string
				ResourceAttributes *struct{ Verb, Resource string }
			}
		}
		if err := json.NewDecoder(r.Body).Decode(&review); err != nil {
			http.Error(rw, err.Error(), http.StatusBadRequest)
			return
		}
		w.mu.Lock()
		w.versions = append(w.versions, review.APIVersion)
		w.mu.Unlock()
		status := map[string]any{"authenticated": false}
		if review.Kind == "SubjectAccessReview" {
			status = map[string]any{"allowed": false, "reason": "not configmaps"}
			if a := review.Spec.ResourceAttributes; review.Spec.User == "alice" && a != nil && a.Resource == "configmaps" {
				status = map[string]any{"allowed": true}
			}
		} else if review.Spec.Token == "alice-token" {
			status = map[string]any{"authenticated": true, "user": map[string]any{"username": "alice", "groups": []string{"devs"}}}
		}
		_ = json.NewEncoder(rw).Encode(map[string]any{"apiVersion": review.APIVersion, "kind": review.Kind, "status": status})
	}))
	t.Cleanup(w.srv.Close)
	return w
}

// kubeconfig writes the kubeconfig naming the webhook.
func (w *testReviewWebhook) kubeconfig(t *testing.T) string {
	t.Helper()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: w.srv.Certificate().Raw})
	return writeTempFile(t, "webhook.kubeconfig", fmt.Sprintf("apiVersion: v1\nkind: Config\nclusters:\n- name: w\n  cluster: {server: %q, certificate-authority-data: %q}\n"+
		"users:\n- name: u\n  user: {}\ncontexts:\n- name: w\n  context: {cluster: w, user: u}\ncurrent-context: w\n", w.srv.URL, base64.StdEncoding.EncodeToString(ca)))
}

// reviewVersions are the apiVersions of the reviews the webhook got.
func (w *testReviewWebhook) reviewVersions() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.versions...)
}

// reset forgets the reviews the webhook got.
func (w *testReviewWebhook) reset() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.versions = nil
}

// writeTempFile writes data to name in a test's temporary directory and
// returns its path.
func writeTempFile(t *testing.T, name, data string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestWebhookAuthFlags: the --authentication-token-webhook-* flags, and the
// webhook authorizer of --authorization-mode with --authorization-webhook-*
// or of --authorization-config, are the command's as kube-apiserver's.
func TestWebhookAuthFlags(t *testing.T) {
	tokens, authz := newTestReviewWebhook(t), newTestReviewWebhook(t)
	authzConfig := writeTempFile(t, "authorization.yaml", "apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers:\n"+
		"- type: Webhook\n  name: hook\n  webhook:\n    timeout: 3s\n    subjectAccessReviewVersion: v1\n    failurePolicy: NoOpinion\n"+
		"    connectionInfo: {type: KubeConfigFile, kubeConfigFile: "+authz.kubeconfig(t)+"}\n- type: RBAC\n  name: rbac\n")
	for _, tc := range []struct {
		name          string
		authzFlags    []string
		tokenVersion  string
		wantForbidden string
		wantVersions  []string // of the token webhook's and the authorization webhook's reviews
	}{
		{name: "the legacy flags", authzFlags: []string{"--authorization-mode", "Webhook,RBAC", "--authorization-webhook-config-file", authz.kubeconfig(t)},
			wantForbidden: `secrets is forbidden: User "alice" cannot list resource "secrets" in API group "" in the namespace "default": default: not configmaps`,
			wantVersions:  []string{"authentication.k8s.io/v1beta1", "authorization.k8s.io/v1beta1"}},
		{name: "an authorization config", authzFlags: []string{"--authorization-config", authzConfig}, tokenVersion: "v1",
			wantForbidden: `secrets is forbidden: User "alice" cannot list resource "secrets" in API group "" in the namespace "default": hook: not configmaps`,
			wantVersions:  []string{"authentication.k8s.io/v1", "authorization.k8s.io/v1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tokens.reset()
			authz.reset()
			kc := filepath.Join(t.TempDir(), "admin.kubeconfig")
			args := append([]string{"--listen", "127.0.0.1:0", "--kubeconfig", kc, "--authentication-token-webhook-config-file", tokens.kubeconfig(t)}, tc.authzFlags...)
			if tc.tokenVersion != "" {
				args = append(args, "--authentication-token-webhook-version", tc.tokenVersion)
			}
			// Its temporary directory in the test's.
			p := startFakeplane(t, []string{"TMPDIR=" + t.TempDir()}, args...)
			admin, err := clientcmd.BuildConfigFromFlags("", kc)
			if err != nil {
				t.Fatal(err)
			}
			alice := newClient(t, &rest.Config{Host: admin.Host, BearerToken: "alice-token", TLSClientConfig: rest.TLSClientConfig{CAData: admin.CAData}})
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if _, err := alice.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{}); err != nil {
				t.Errorf("the webhook allows alice configmaps: %v", err)
			}
			if _, err := alice.CoreV1().Secrets("default").List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) || err.Error() != tc.wantForbidden {
				t.Errorf("secrets:\n got %v\nwant %s", err, tc.wantForbidden)
			}
			if got := []string{first(tokens.reviewVersions()), first(authz.reviewVersions())}; strings.Join(got, " ") != strings.Join(tc.wantVersions, " ") {
				t.Errorf("review versions %q, want %q", got, tc.wantVersions)
			}
			if err := p.signal(t, os.Interrupt, 30*time.Second); err != nil {
				t.Errorf("fakeplane exited with %v after an interrupt, want exit code 0", err)
			}
		})
	}
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

// TestAuthorizationConfigFlagExcludesTheLegacyFlags: --authorization-config
// with --authorization-mode or an --authorization-webhook-* flag, even at
// its default value, fails with kube-apiserver's error.
func TestAuthorizationConfigFlagExcludesTheLegacyFlags(t *testing.T) {
	authzConfig := writeTempFile(t, "authorization.yaml", "apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers:\n- {type: RBAC, name: rbac}\n")
	for _, flag := range []string{"--authorization-mode=RBAC", "--authorization-webhook-version=v1beta1", "--authorization-webhook-cache-authorized-ttl=5m",
		"--authorization-webhook-cache-unauthorized-ttl=30s", "--authorization-webhook-config-file=x"} {
		t.Run(flag, func(t *testing.T) {
			err := run([]string{"--listen", "127.0.0.1:0", "--kubeconfig", filepath.Join(t.TempDir(), "k"), "--authorization-config", authzConfig, flag})
			if want := "--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined"; err == nil || !strings.HasSuffix(err.Error(), want) {
				t.Errorf("%v, want an error ending %q", err, want)
			}
		})
	}
}
