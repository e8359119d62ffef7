package fakeplane_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
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
	}, calledBy(hook, func() error {
		_, err := client.CoreV1().Pods("default").Create(ctx, testPod("probe", nil), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return err
	}))
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

// CONNECT subresources (pods/exec, pods/attach, pods/portforward and the
// proxies) are admitted with their options object as kube-apiserver's
// ConnectResource handler does, before it connects; serviceaccounts/token
// as a CREATE of the TokenRequest, its audiences defaulted.
func TestConnectAndTokenRequestsAreAdmitted(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	client := kubernetesClient(t, cp)
	ctx := context.Background()
	hook := serveWebhook(t, func(req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		if req.Name == "guarded" || req.Name == "robot" {
			return &admissionv1.AdmissionResponse{UID: req.UID, Result: &metav1.Status{Code: 403, Message: "not here"}}
		}
		return &admissionv1.AdmissionResponse{UID: req.UID, Allowed: true}
	})
	createValidatingWebhook(t, client, &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "connects"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:         "connects.example.com",
			ClientConfig: urlWebhookConfig(hook, "/"),
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Connect},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods/exec", "pods/attach", "pods/portforward", "pods/proxy", "services/proxy", "nodes/proxy"}},
			}, {
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"serviceaccounts/token", "pods"}},
			}},
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			AdmissionReviewVersions: []string{"v1"},
		}},
	}, calledBy(hook, func() error {
		_, err := client.CoreV1().Pods("default").Create(ctx, testPod("probe", nil), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return err
	}))
	rc := client.CoreV1().RESTClient()
	const denied = `admission webhook "connects.example.com" denied the request: not here`
	cases := []struct {
		name, verb, path, kind string
	}{
		{"exec", "POST", "namespaces/default/pods/guarded/exec?command=ls&stdout=true", "PodExecOptions"},
		{"attach", "POST", "namespaces/default/pods/guarded/attach?stdout=true", "PodAttachOptions"},
		{"port-forward", "POST", "namespaces/default/pods/guarded/portforward?ports=80", "PodPortForwardOptions"},
		{"pod proxy", "GET", "namespaces/default/pods/guarded/proxy/healthz", "PodProxyOptions"},
		{"service proxy", "GET", "namespaces/default/services/guarded/proxy/", "ServiceProxyOptions"},
		{"node proxy", "GET", "nodes/guarded/proxy/metrics", "NodeProxyOptions"},
	}
	for _, tc := range cases {
		before := len(hook.Reviews())
		path, query, _ := strings.Cut(tc.path, "?")
		r := rc.Verb(tc.verb).AbsPath("/api/v1/" + path)
		vals, _ := url.ParseQuery(query)
		for k, vs := range vals {
			for _, v := range vs {
				r = r.Param(k, v)
			}
		}
		err := r.Do(ctx).Error()
		if !apierrors.IsForbidden(err) || err.Error() != denied {
			t.Errorf("%s: got %v, want 403 %s", tc.name, err, denied)
			continue
		}
		reviews := hook.Reviews()[before:]
		if len(reviews) != 1 {
			t.Errorf("%s: %d reviews, want 1", tc.name, len(reviews))
			continue
		}
		req := reviews[0]["request"].(map[string]any)
		kind := req["kind"].(map[string]any)["kind"]
		obj, _ := req["object"].(map[string]any)
		if req["operation"] != "CONNECT" || kind != tc.kind || obj["kind"] != tc.kind {
			t.Errorf("%s: review %v %v %v, want CONNECT of %s", tc.name, req["operation"], kind, obj["kind"], tc.kind)
		}
	}
	// The exec options reach the webhook as the client gave them.
	for _, r := range hook.Reviews() {
		req := r["request"].(map[string]any)
		if req["subResource"] == "exec" {
			if cmd := fmt.Sprint(req["object"].(map[string]any)["command"]); cmd != "[ls]" {
				t.Errorf("exec review command %s, want [ls]", cmd)
			}
		}
	}

	// A TokenRequest is admitted as a CREATE of serviceaccounts/token.
	for _, name := range []string{"robot", "helper"} {
		if _, err := client.CoreV1().ServiceAccounts("default").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	_, err := client.CoreV1().ServiceAccounts("default").CreateToken(ctx, "robot", &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if !apierrors.IsForbidden(err) || err.Error() != denied {
		t.Fatalf("token for robot: got %v, want 403 %s", err, denied)
	}
	before := len(hook.Reviews())
	if _, err := client.CoreV1().ServiceAccounts("default").CreateToken(ctx, "helper", &authenticationv1.TokenRequest{}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	reviews := hook.Reviews()[before:]
	if len(reviews) != 1 {
		t.Fatalf("%d reviews of the token request, want 1", len(reviews))
	}
	req := reviews[0]["request"].(map[string]any)
	obj := req["object"].(map[string]any)
	if req["operation"] != "CREATE" || req["subResource"] != "token" || obj["kind"] != "TokenRequest" || obj["spec"].(map[string]any)["audiences"] == nil {
		t.Fatalf("token review: %v %v %v %v", req["operation"], req["subResource"], obj["kind"], obj["spec"])
	}
}

// An AdmissionReview's options are the write's CreateOptions or
// UpdateOptions as the client gave them (a patch's as UpdateOptions), with
// fieldManager and fieldValidation.
func TestAdmissionReviewOptionsCarryTheFieldManager(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	client := kubernetesClient(t, cp)
	ctx := context.Background()
	hook := serveWebhook(t, allow)
	createValidatingWebhook(t, client, &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "configmaps"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:         "configmaps.example.com",
			ClientConfig: urlWebhookConfig(hook, "/"),
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}},
			}},
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			AdmissionReviewVersions: []string{"v1"},
		}},
	}, calledBy(hook, func() error {
		_, err := client.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "probe"}}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return err
	}))
	before := len(hook.Reviews())
	if _, err := client.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}},
		metav1.CreateOptions{FieldManager: "tester", FieldValidation: "Strict"}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.CoreV1().ConfigMaps("default").Patch(ctx, "c", types.MergePatchType, []byte(`{"data":{"a":"b"}}`),
		metav1.PatchOptions{FieldManager: "patcher"}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range hook.Reviews()[before:] {
		o := r["request"].(map[string]any)["options"].(map[string]any)
		got = append(got, fmt.Sprintf("%v %v %v", o["kind"], o["fieldManager"], o["fieldValidation"]))
	}
	if want := []string{"CreateOptions tester Strict", "UpdateOptions patcher <nil>"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("options %q, want %q", got, want)
	}
}

// calledBy is a webhook configuration's probe: nil once the webhook was
// called, after write (a dry run the webhook matches) succeeded.
func calledBy(hook *testWebhook, write func() error) func() error {
	return func() error {
		if len(hook.Reviews()) > 0 {
			return nil
		}
		if err := write(); err != nil {
			return err
		}
		return fmt.Errorf("webhook not called yet")
	}
}
