package fakeplane_test

import (
	"context"
	"fmt"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
)

// An eviction is admitted as kube-apiserver admits it
// (pkg/registry/core/pod/storage/eviction.go): as a CREATE of
// pods/eviction whose object is the Eviction; the pod's condition and its
// deletion that follow are not admitted again, so a webhook on pods DELETE
// never sees an eviction.
func TestEvictionIsAdmittedAsACreateOfTheEviction(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	client := kubernetesClient(t, cp)
	ctx := context.Background()
	hook := serveWebhook(t, func(req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		if req.Operation == admissionv1.Create && req.SubResource == "eviction" && req.Name == "protected" {
			return &admissionv1.AdmissionResponse{UID: req.UID, Result: &metav1.Status{Code: 403, Message: "protected pods stay"}}
		}
		return &admissionv1.AdmissionResponse{UID: req.UID, Allowed: true}
	})
	createValidatingWebhook(t, client, &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "evictions"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:         "evictions.example.com",
			ClientConfig: urlWebhookConfig(hook, "/"),
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Delete},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods", "pods/eviction"}},
			}},
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			AdmissionReviewVersions: []string{"v1"},
		}},
	}, func() error {
		if len(hook.Reviews()) == 0 {
			_, err := client.CoreV1().Pods("default").Create(ctx, testPod(fmt.Sprintf("probe-%d", len(hook.Reviews())), nil), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			if err != nil {
				return err
			}
			return fmt.Errorf("webhook not called yet")
		}
		return nil
	})
	for _, name := range []string{"protected", "free"} {
		if _, err := client.CoreV1().Pods("default").Create(ctx, testPod(name, nil), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	evict := func(name string) error {
		return client.PolicyV1().Evictions("default").Evict(ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}})
	}
	if err := evict("protected"); !apierrors.IsForbidden(err) || err.Error() != `admission webhook "evictions.example.com" denied the request: protected pods stay` {
		t.Fatalf("evicting the protected pod: %v", err)
	}
	if _, err := client.CoreV1().Pods("default").Get(ctx, "protected", metav1.GetOptions{}); err != nil {
		t.Fatalf("the refused eviction changed the pod: %v", err)
	}
	before := len(hook.Reviews())
	if err := evict("free"); err != nil {
		t.Fatal(err)
	}
	var seen []string
	for _, r := range hook.Reviews()[before:] {
		req := r["request"].(map[string]any)
		obj, _ := req["object"].(map[string]any)
		seen = append(seen, fmt.Sprintf("%s %v/%v %v", req["operation"], req["resource"].(map[string]any)["resource"], req["subResource"], obj["kind"]))
	}
	if want := []string{"CREATE pods/eviction Eviction"}; fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Fatalf("reviews of the eviction: %q, want %q", seen, want)
	}
	p, err := client.CoreV1().Pods("default").Get(ctx, "free", metav1.GetOptions{})
	if err == nil && p.DeletionTimestamp == nil {
		t.Fatalf("evicted pod not deleted: %v", p.Status.Conditions)
	}
}
