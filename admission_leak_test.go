package fakeplane_test

import (
	"context"
	"errors"
	"testing"

	"go.uber.org/goleak"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
)

func TestStopLeavesNoGoroutineOfAdmission(t *testing.T) {
	// Not parallel: goleak compares with the goroutines from before the test.
	before := goleak.IgnoreCurrent()
	ctx := context.Background()
	cp, err := fakeplane.New()
	if err != nil {
		t.Fatal(err)
	}
	if err := cp.Start(ctx); err != nil {
		t.Fatal(err)
	}
	client := kubernetes.NewForConfigOrDie(cp.RESTConfig())
	// A webhook, and a policy with parameters (its own informers).
	hook := serveWebhook(t, requireLabel)
	createValidatingWebhook(t, client, &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "require-label"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:                    "require-label.example.com",
			ClientConfig:            urlWebhookConfig(hook, "/"),
			Rules:                   []admissionregistrationv1.RuleWithOperations{podRule(admissionregistrationv1.Create)},
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			AdmissionReviewVersions: []string{"v1"},
		}},
	}, nil)
	if _, err := client.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "replica-limit"}, Data: map[string]string{"maxReplicas": "5"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	createPolicy(t, client, replicaLimitPolicy(), &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "replica-limit-binding"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        "replica-limit",
			ParamRef:          &admissionregistrationv1.ParamRef{Name: "replica-limit", ParameterNotFoundAction: ptr.To(admissionregistrationv1.DenyAction)},
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
		},
	})
	eventually(t, "the policy is in force", func() error {
		if _, err := client.AppsV1().Deployments("default").Create(ctx, newDeployment("probe", 10), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err == nil {
			return errors.New("not denied yet")
		}
		return nil
	})
	if _, err := client.CoreV1().Pods("default").Create(ctx, testPod("p", nil), metav1.CreateOptions{}); err == nil {
		t.Fatal("the webhook did not deny")
	}
	if err := cp.Stop(); err != nil {
		t.Fatal(err)
	}
	opts := append([]goleak.Option{before,
		// The test's own webhook server.
		goleak.IgnoreAnyFunction("net/http.(*conn).serve"),
		goleak.IgnoreAnyFunction("net/http/httptest.(*Server).goServe.func1"),
	}, goroutinesOutsideFakeplane...)
	if err := goleak.Find(opts...); err != nil {
		t.Errorf("goroutines outlived Stop: %v", err)
	}
}
