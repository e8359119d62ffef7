package fakeplane_test

// Admission benchmarks: a create through one validating webhook, through
// one ValidatingAdmissionPolicy, and through neither; and a create that
// 100 policy bindings are checked for, one of which matches.
//
//	go test -run x -bench Admission -count 5 ./

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// labelPolicy refuses ConfigMaps labelled forbidden=true.
func labelPolicy() *admissionregistrationv1.ValidatingAdmissionPolicy {
	return &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "no-forbidden"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: configMapRule,
			}}},
			Validations: []admissionregistrationv1.Validation{{
				Expression: `!has(object.metadata.labels) || !("forbidden" in object.metadata.labels)`,
			}},
		},
	}
}

// waitDenied waits until creating a ConfigMap labelled forbidden=true in
// ns is refused: the admission configuration is in force.
func waitDenied(b testing.TB, client kubernetes.Interface, ns string) {
	eventually(b, "admission in force", func() error {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "probe", Labels: map[string]string{"forbidden": "true"}}}
		if _, err := client.CoreV1().ConfigMaps(ns).Create(context.Background(), cm, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err == nil {
			return errors.New("not denied yet")
		}
		return nil
	})
}

// benchCreates creates b.N ConfigMaps.
func benchCreates(b *testing.B, client kubernetes.Interface, ns string) {
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%d", i)}, Data: map[string]string{"k": "v"}}
		if _, err := client.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAdmissionCreate(b *testing.B) {
	b.Run("none", func(b *testing.B) {
		_, client, ns := benchSetup(b)
		benchCreates(b, client, ns)
	})
	b.Run("webhook", func(b *testing.B) {
		_, client, ns := benchSetup(b)
		hook := serveWebhook(b, func(req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
			var cm corev1.ConfigMap
			_ = json.Unmarshal(req.Object.Raw, &cm)
			if cm.Labels["forbidden"] == "true" {
				return &admissionv1.AdmissionResponse{Result: &metav1.Status{Code: 403, Message: "forbidden"}}
			}
			return allow(req)
		})
		createValidatingWebhook(b, client, &admissionregistrationv1.ValidatingWebhookConfiguration{
			ObjectMeta: metav1.ObjectMeta{Name: "bench"},
			Webhooks: []admissionregistrationv1.ValidatingWebhook{{
				Name:                    "bench.example.com",
				ClientConfig:            urlWebhookConfig(hook, "/"),
				Rules:                   []admissionregistrationv1.RuleWithOperations{configMapRule},
				SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
				AdmissionReviewVersions: []string{"v1"},
			}},
		}, nil)
		waitDenied(b, client, ns)
		benchCreates(b, client, ns)
	})
	b.Run("policy", func(b *testing.B) {
		_, client, ns := benchSetup(b)
		createPolicy(b, client, labelPolicy(), &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "no-forbidden"},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
				PolicyName: "no-forbidden", ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
			},
		})
		waitDenied(b, client, ns)
		benchCreates(b, client, ns)
	})
}

func BenchmarkAdmission100Bindings(b *testing.B) {
	_, client, ns := benchSetup(b)
	ctx := context.Background()
	if _, err := client.AdmissionregistrationV1().ValidatingAdmissionPolicies().Create(ctx, labelPolicy(), metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	// 99 bindings select namespaces labelled for other teams; one selects
	// the benchmark's namespace.
	for i := 0; i < 100; i++ {
		sel := map[string]string{"kubernetes.io/metadata.name": fmt.Sprintf("team-%d", i)}
		if i == 0 {
			sel = map[string]string{"kubernetes.io/metadata.name": ns}
		}
		if _, err := client.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings().Create(ctx, &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("binding-%d", i)},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
				PolicyName:        "no-forbidden",
				MatchResources:    &admissionregistrationv1.MatchResources{NamespaceSelector: &metav1.LabelSelector{MatchLabels: sel}},
				ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
			},
		}, metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	waitDenied(b, client, ns)
	benchCreates(b, client, ns)
}
