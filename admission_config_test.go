package fakeplane_test

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
)

// writeTestFile writes data to name in a test's temporary directory and
// returns its path.
func writeTestFile(t *testing.T, name, data string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestAdmissionControlConfigFileConfiguresPodSecurity: PodSecurity's
// defaults and exemptions come from an --admission-control-config-file, as
// with kube-apiserver: an unlabelled namespace enforces the default level,
// an exempt namespace nothing, and the warned level warns.
func TestAdmissionControlConfigFileConfiguresPodSecurity(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// The plugin's configuration in a file of its own, by a relative path.
	if err := os.WriteFile(filepath.Join(dir, "podsecurity.yaml"), []byte(`apiVersion: pod-security.admission.config.k8s.io/v1
kind: PodSecurityConfiguration
defaults: {enforce: baseline, enforce-version: latest, warn: restricted, warn-version: latest}
exemptions: {namespaces: [exempt]}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "admission.yaml")
	if err := os.WriteFile(path, []byte(`apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: PodSecurity
  path: podsecurity.yaml
`), 0o600); err != nil {
		t.Fatal(err)
	}
	cp := fakeplane.Start(t, fakeplane.WithAdmissionControlConfigFile(path))
	client, warnings := clientWithWarnings(t, cp)
	ctx := ctxT(t)
	if _, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "exempt"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	hostNetwork := func(name string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.PodSpec{
			HostNetwork: true, Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}
	}
	_, err := client.CoreV1().Pods("default").Create(ctx, hostNetwork("host"), metav1.CreateOptions{})
	if want := `pods "host" is forbidden: violates PodSecurity "baseline:latest": host namespaces (hostNetwork=true)`; !apierrors.IsForbidden(err) || err.Error() != want {
		t.Errorf("a baseline violation by default: %v, want 403 %q", err, want)
	}
	if _, err := client.CoreV1().Pods("exempt").Create(ctx, hostNetwork("host"), metav1.CreateOptions{}); err != nil {
		t.Errorf("in an exempt namespace: %v", err)
	}
	if _, err := client.CoreV1().Pods("default").Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "plain"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	want := `would violate PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`
	if got := warnings.Messages(); !contains(got, want) {
		t.Errorf("warnings %q, want %q", got, want)
	}
}

// TestAdmissionControlConfigFileGivesWebhooksCredentials: the webhook
// plugins' WebhookAdmission configuration names a kubeconfig whose user for
// the webhook's host is the credential sent to it, as kube-apiserver's.
func TestAdmissionControlConfigFileGivesWebhooksCredentials(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var authz []string
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		authz = append(authz, r.Header.Get("Authorization"))
		mu.Unlock()
		var review admissionv1.AdmissionReview
		if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Request == nil {
			http.Error(w, "no review", http.StatusBadRequest)
			return
		}
		review.Response = &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: true}
		review.Request = nil
		_ = json.NewEncoder(w).Encode(review)
	}))
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "https://")
	kubeconfig := writeTestFile(t, "webhooks.kubeconfig", fmt.Sprintf(`apiVersion: v1
kind: Config
users:
- name: %q
  user: {token: webhook-secret}
`, host))
	path := writeTestFile(t, "admission.yaml", fmt.Sprintf(`apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: ValidatingAdmissionWebhook
  configuration:
    apiVersion: apiserver.config.k8s.io/v1
    kind: WebhookAdmissionConfiguration
    kubeConfigFile: %q
`, kubeconfig))
	cp := fakeplane.Start(t, fakeplane.WithAdmissionControlConfigFile(path))
	client := clientset(t, cp)
	ctx := ctxT(t)
	u := srv.URL + "/validate"
	createValidatingWebhook(t, client, &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "creds"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name: "creds.example.com",
			ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: &u,
				CABundle: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})},
			Rules:                   []admissionregistrationv1.RuleWithOperations{podRule(admissionregistrationv1.Create)},
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			AdmissionReviewVersions: []string{"v1"},
		}},
	}, func() error {
		if _, err := client.CoreV1().Pods("default").Create(ctx, testPod("probe", nil), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		if len(authz) == 0 {
			return errors.New("the webhook was not called yet")
		}
		return nil
	})
	mu.Lock()
	defer mu.Unlock()
	for _, a := range authz {
		if a != "Bearer webhook-secret" {
			t.Errorf("the webhook got Authorization %q, want the kubeconfig's token", a)
		}
	}
}

// TestAdmissionControlConfigFileErrors: a file kube-apiserver would not
// start with is refused with its error.
func TestAdmissionControlConfigFileErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, yaml, want string }{
		{
			name: "an invalid PodSecurity level",
			yaml: "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: PodSecurity\n  configuration:\n    apiVersion: pod-security.admission.config.k8s.io/v1\n    kind: PodSecurityConfiguration\n    defaults: {enforce: strictest}\n",
			want: `PodSecurity invalid: defaults.enforce: Invalid value: "strictest": must be one of privileged, baseline, restricted`,
		},
		{
			name: "an unknown field",
			yaml: "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nbogus: 1\n",
			want: `strict decoding error: unknown field "bogus"`,
		},
		{
			name: "a relative webhook kubeconfig",
			yaml: "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: MutatingAdmissionWebhook\n  configuration:\n    apiVersion: apiserver.config.k8s.io/v1\n    kind: WebhookAdmissionConfiguration\n    kubeConfigFile: relative.kubeconfig\n",
			want: `couldn't init admission plugin "MutatingAdmissionWebhook": kubeConfigFile: Invalid value: "relative.kubeconfig": must be an absolute file path`,
		},
		{
			name: "a plugin fakeplane cannot configure",
			yaml: "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: ResourceQuota\n  configuration:\n    apiVersion: apiserver.config.k8s.io/v1\n    kind: ResourceQuotaConfiguration\n",
			want: `admission plugin "ResourceQuota": fakeplane does not take its configuration`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeTestFile(t, "admission.yaml", tt.yaml)
			cp, err := fakeplane.New(fakeplane.WithAdmissionControlConfigFile(path))
			if err == nil {
				if err = cp.Start(context.Background()); err == nil {
					cp.Stop()
				}
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v\nwant an error containing %s", err, tt.want)
			}
		})
	}
	// A file that is not there.
	missing := filepath.Join(t.TempDir(), "missing.yaml")
	cp, err := fakeplane.New(fakeplane.WithAdmissionControlConfigFile(missing))
	if err == nil {
		if err = cp.Start(context.Background()); err == nil {
			cp.Stop()
		}
	}
	if want := fmt.Sprintf("unable to read admission control configuration from %q", missing); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a missing file: %v, want %s", err, want)
	}
}
