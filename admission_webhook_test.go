package fakeplane_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
)

// The messages below come from upstream's source (k8s.io/apiserver
// v0.37.2, pkg/admission/plugin/webhook and pkg/util/webhook), not from a
// live kube-apiserver run.

// requireLabel denies pods without the label app.
func requireLabel(req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
	var pod corev1.Pod
	if err := json.Unmarshal(req.Object.Raw, &pod); err != nil {
		return &admissionv1.AdmissionResponse{Result: &metav1.Status{Code: 400, Message: err.Error()}}
	}
	if _, ok := pod.Labels["app"]; !ok {
		return &admissionv1.AdmissionResponse{Result: &metav1.Status{Code: http.StatusForbidden, Reason: metav1.StatusReasonForbidden, Message: "pods must have the label app"}}
	}
	return &admissionv1.AdmissionResponse{Allowed: true, Warnings: []string{"pod " + pod.Name + " checked"}}
}

func TestAdmissionValidatingWebhookDeniesPodsWithoutLabel(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	client, warnings := clientWithWarnings(t, cp)
	ctx := context.Background()
	hook := serveWebhook(t, requireLabel)
	createValidatingWebhook(t, client, &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "require-label"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:                    "require-label.example.com",
			ClientConfig:            urlWebhookConfig(hook, "/validate"),
			Rules:                   []admissionregistrationv1.RuleWithOperations{podRule(admissionregistrationv1.Create)},
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			AdmissionReviewVersions: []string{"v1"},
		}},
	}, func() error {
		_, err := client.CoreV1().Pods("default").Create(ctx, testPod("probe", nil), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err == nil {
			return errors.New("not denied yet")
		}
		return nil
	})

	_, err := client.CoreV1().Pods("default").Create(ctx, testPod("unlabelled", nil), metav1.CreateOptions{})
	want := `admission webhook "require-label.example.com" denied the request: pods must have the label app`
	if !apierrors.IsForbidden(err) || err.Error() != want {
		t.Fatalf("create unlabelled pod: got %v, want 403 %q", err, want)
	}
	if _, err := client.CoreV1().Pods("default").Get(ctx, "unlabelled", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("denied pod was stored: %v", err)
	}
	if _, err := client.CoreV1().Pods("default").Create(ctx, testPod("labelled", map[string]string{"app": "x"}), metav1.CreateOptions{}); err != nil {
		t.Fatalf("create labelled pod: %v", err)
	}
	if got := warnings.Messages(); !contains(got, "pod labelled checked") {
		t.Fatalf("warnings = %q, want the webhook's %q", got, "pod labelled checked")
	}
	// The webhook was sent an admission.k8s.io/v1 review of the create.
	last := hook.Reviews()[len(hook.Reviews())-1]
	req := last["request"].(map[string]any)
	if last["apiVersion"] != "admission.k8s.io/v1" || req["operation"] != "CREATE" || req["name"] != "labelled" || req["namespace"] != "default" {
		t.Fatalf("review = %v", last)
	}
	if ui := req["userInfo"].(map[string]any); ui["username"] != fakeplane.AdminUser {
		t.Fatalf("review userInfo = %v, want %s", ui, fakeplane.AdminUser)
	}
	// An update is not in the webhook's rules.
	pod, err := client.CoreV1().Pods("default").Get(ctx, "labelled", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	delete(pod.Labels, "app")
	if _, err := client.CoreV1().Pods("default").Update(ctx, pod, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update outside the webhook's rules: %v", err)
	}
}

func TestAdmissionWebhookFailurePolicy(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	client := kubernetesClient(t, cp)
	ctx := context.Background()
	slow := serveWebhook(t, func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		time.Sleep(3 * time.Second)
		return &admissionv1.AdmissionResponse{Allowed: true}
	})
	down := "https://127.0.0.1:1/validate"
	cases := []struct {
		name     string
		url      string
		ca       []byte
		policy   admissionregistrationv1.FailurePolicyType
		timeout  int32
		wantCode int32
		wantMsg  []string
	}{{
		name: "unreachable-fail", url: down, policy: admissionregistrationv1.Fail, timeout: 10, wantCode: 500,
		wantMsg: []string{`Internal error occurred: failed calling webhook "unreachable-fail.example.com": failed to call webhook: Post "https://127.0.0.1:1/validate?timeout=10s": dial tcp 127.0.0.1:1: connect: connection refused`},
	}, {
		name: "unreachable-ignore", url: down, policy: admissionregistrationv1.Ignore, timeout: 10,
	}, {
		name: "timeout-fail", url: slow.URL + "/validate", ca: slow.CABundle, policy: admissionregistrationv1.Fail, timeout: 1, wantCode: 500,
		wantMsg: []string{`Internal error occurred: failed calling webhook "timeout-fail.example.com": failed to call webhook: Post "` + slow.URL + `/validate?timeout=1s": context deadline exceeded`},
	}, {
		name: "timeout-ignore", url: slow.URL + "/validate", ca: slow.CABundle, policy: admissionregistrationv1.Ignore, timeout: 1,
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ns := tc.name
			if _, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: map[string]string{"webhook": tc.name}}}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			url := tc.url
			// A second webhook in the same configuration records what it
			// is sent: once it is called, the configuration is in force.
			recorder := serveWebhook(t, allow)
			createValidatingWebhook(t, client, &admissionregistrationv1.ValidatingWebhookConfiguration{
				ObjectMeta: metav1.ObjectMeta{Name: tc.name},
				Webhooks: []admissionregistrationv1.ValidatingWebhook{{
					Name:                    tc.name + ".example.com",
					ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: tc.ca},
					Rules:                   []admissionregistrationv1.RuleWithOperations{configMapRule},
					NamespaceSelector:       &metav1.LabelSelector{MatchLabels: map[string]string{"webhook": tc.name}},
					FailurePolicy:           ptr.To(tc.policy),
					TimeoutSeconds:          ptr.To(tc.timeout),
					SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
					AdmissionReviewVersions: []string{"v1"},
				}, {
					Name:                    "recorder.example.com",
					ClientConfig:            urlWebhookConfig(recorder, "/"),
					Rules:                   []admissionregistrationv1.RuleWithOperations{configMapRule},
					NamespaceSelector:       &metav1.LabelSelector{MatchLabels: map[string]string{"webhook": tc.name}},
					SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
					AdmissionReviewVersions: []string{"v1"},
				}},
			}, nil)
			var err error
			for i := 0; ; i++ {
				name := fmt.Sprintf("c%d", i)
				_, err = client.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
				if seen(recorder, name) {
					break
				}
				if i > 500 {
					t.Fatal("the webhook configuration never came in force")
				}
				time.Sleep(20 * time.Millisecond)
			}
			if tc.wantCode == 0 {
				if err != nil {
					t.Fatalf("create with failurePolicy Ignore: %v", err)
				}
				return
			}
			var se *apierrors.StatusError
			if !errors.As(err, &se) || se.ErrStatus.Code != tc.wantCode || se.ErrStatus.Reason != metav1.StatusReasonInternalError {
				t.Fatalf("got %v, want a %d InternalError", err, tc.wantCode)
			}
			for _, m := range tc.wantMsg {
				if err.Error() != m {
					t.Fatalf("message:\n got %s\nwant %s", err.Error(), m)
				}
			}
		})
	}
}

// configMapRule is a webhook rule for creating ConfigMaps.
var configMapRule = admissionregistrationv1.RuleWithOperations{
	Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
	Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}},
}

// seen reports whether w was sent a review of an object named name.
func seen(w *testWebhook, name string) bool {
	for _, r := range w.Reviews() {
		if req, ok := r["request"].(map[string]any); ok && req["name"] == name {
			return true
		}
	}
	return false
}

// kubernetesClient is an admin clientset.
func kubernetesClient(t *testing.T, cp *fakeplane.ControlPlane) kubernetes.Interface {
	t.Helper()
	return kubernetes.NewForConfigOrDie(cp.RESTConfig())
}
