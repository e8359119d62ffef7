package fakeplane_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
	"github.com/fakeplane/fakeplane/internal/pki"
)

func TestAdmissionWebhookReachedThroughService(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	client := kubernetesClient(t, cp)
	ctx := context.Background()
	// The webhook's certificate names the Service, as in a cluster.
	ca, err := pki.NewCA("webhook-ca")
	if err != nil {
		t.Fatal(err)
	}
	kp, err := ca.NewServingCert("hook", []string{"hook.default.svc"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := kp.TLSCertificate()
	if err != nil {
		t.Fatal(err)
	}
	hook := serveWebhookWith(t, requireLabel, &cert)
	u, _ := url.Parse(hook.URL)
	_, portStr, _ := net.SplitHostPort(u.Host)
	port, _ := strconv.Atoi(portStr)
	// The server is on this machine: an ExternalName Service naming
	// localhost reaches it, as on kube-apiserver, which refuses loopback
	// addresses in Endpoints.
	servicePort := int32(port)
	if _, err := client.CoreV1().Services("default").Create(ctx, &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "hook"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "localhost",
			Ports: []corev1.ServicePort{{Name: "https", Port: servicePort}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	createValidatingWebhook(t, client, &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "by-service"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name: "by-service.example.com",
			ClientConfig: admissionregistrationv1.WebhookClientConfig{
				Service:  &admissionregistrationv1.ServiceReference{Namespace: "default", Name: "hook", Path: ptr.To("/validate"), Port: &servicePort},
				CABundle: ca.CertPEM,
			},
			Rules:                   []admissionregistrationv1.RuleWithOperations{podRule(admissionregistrationv1.Create)},
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			AdmissionReviewVersions: []string{"v1"},
		}},
	}, func() error {
		if _, err := client.CoreV1().Pods("default").Create(ctx, testPod("probe", nil), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err == nil {
			return errors.New("not denied yet")
		}
		return nil
	})
	_, err = client.CoreV1().Pods("default").Create(ctx, testPod("unlabelled", nil), metav1.CreateOptions{})
	if want := `admission webhook "by-service.example.com" denied the request: pods must have the label app`; err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
	// The webhook's configuration shows the defaults kube-apiserver sets
	// (and the port it was given).
	got, err := client.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(ctx, "by-service", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w := got.Webhooks[0]
	if *w.ClientConfig.Service.Port != servicePort || *w.FailurePolicy != admissionregistrationv1.Fail || *w.TimeoutSeconds != 10 || *w.MatchPolicy != admissionregistrationv1.Equivalent {
		t.Fatalf("webhook defaults: %+v", w)
	}
}

func TestAdmissionMutatingWebhookOnCustomResourceIsPrunedAndDefaulted(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	client := kubernetesClient(t, cp)
	dyn := dynamic.NewForConfigOrDie(cp.RESTConfig())
	ctx := context.Background()
	crds := dyn.Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})
	if _, err := crds.Create(ctx, crontabCRD(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	crontabs := dyn.Resource(schema.GroupVersionResource{Group: "stable.example.com", Version: "v1", Resource: "crontabs"}).Namespace("default")
	// The webhook drops spec.replicas (which has a default) and adds a
	// field the schema does not know.
	hook := serveWebhook(t, func(req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		return jsonPatch(
			map[string]any{"op": "remove", "path": "/spec/replicas"},
			map[string]any{"op": "add", "path": "/spec/unknown", "value": "x"},
			map[string]any{"op": "add", "path": "/spec/image", "value": "patched"},
		)
	})
	crontab := func(name string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "stable.example.com/v1", "kind": "CronTab",
			"metadata": map[string]any{"name": name},
			"spec":     map[string]any{"cronSpec": "* * * * */5", "image": "mine", "replicas": int64(5)},
		}}
	}
	createMutatingWebhook(t, client, &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "crontabs"},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name:         "crontabs.example.com",
			ClientConfig: urlWebhookConfig(hook, "/"),
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{"stable.example.com"}, APIVersions: []string{"v1"}, Resources: []string{"crontabs"}},
			}},
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			AdmissionReviewVersions: []string{"v1"},
		}},
	}, func() error {
		got, err := crontabs.Create(ctx, crontab("probe"), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil {
			return err
		}
		if img, _, _ := unstructured.NestedString(got.Object, "spec", "image"); img != "patched" {
			return errors.New("not patched yet")
		}
		return nil
	})
	got, err := crontabs.Create(ctx, crontab("c"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	spec, _, _ := unstructured.NestedMap(got.Object, "spec")
	want := map[string]any{"cronSpec": "* * * * */5", "image": "patched", "replicas": int64(1)}
	if len(spec) != len(want) || spec["image"] != want["image"] || spec["replicas"] != want["replicas"] {
		t.Fatalf("spec = %v, want %v (defaulted again, unknown field pruned)", spec, want)
	}
}

func TestAdmissionMutatingAdmissionPolicy(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	client := kubernetesClient(t, cp)
	ctx := context.Background()
	policy := &admissionregistrationv1.MutatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "owner-label"},
		Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}},
				},
			}}},
			Mutations: []admissionregistrationv1.Mutation{{
				PatchType: admissionregistrationv1.PatchTypeApplyConfiguration,
				ApplyConfiguration: &admissionregistrationv1.ApplyConfiguration{
					Expression: `Object{metadata: Object.metadata{labels: {"owner": request.userInfo.username}}}`,
				},
			}},
			ReinvocationPolicy: admissionregistrationv1.NeverReinvocationPolicy,
		},
	}
	if _, err := client.AdmissionregistrationV1().MutatingAdmissionPolicies().Create(ctx, policy, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.AdmissionregistrationV1().MutatingAdmissionPolicyBindings().Create(ctx, &admissionregistrationv1.MutatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "owner-label"},
		Spec:       admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{PolicyName: "owner-label"},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the policy mutates", func() error {
		cm, err := client.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "probe"}}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil {
			return err
		}
		if cm.Labels["owner"] != fakeplane.AdminUser {
			return errors.New("not mutated yet")
		}
		return nil
	})
	cm, err := client.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", Labels: map[string]string{"keep": "me"}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cm.Labels["owner"] != fakeplane.AdminUser || cm.Labels["keep"] != "me" {
		t.Fatalf("labels = %v", cm.Labels)
	}
}

func TestAdmissionWebhookMatchPolicyEquivalentConverts(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	client := kubernetesClient(t, cp)
	ctx := context.Background()
	hook := serveWebhook(t, denyAll)
	// The rule names events.k8s.io/v1; a core v1 Event (the same stored
	// resource) is sent to the webhook converted, as matchPolicy
	// Equivalent says.
	createValidatingWebhook(t, client, &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "events"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:         "events.example.com",
			ClientConfig: urlWebhookConfig(hook, "/"),
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{"events.k8s.io"}, APIVersions: []string{"v1"}, Resources: []string{"events"}},
			}},
			MatchPolicy:             ptr.To(admissionregistrationv1.Equivalent),
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			AdmissionReviewVersions: []string{"v1"},
		}},
	}, nil)
	ev := &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: "ev"},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: "default", Name: "p", APIVersion: "v1"},
		Reason:         "Started", Message: "started the container", Type: corev1.EventTypeNormal,
		Source: corev1.EventSource{Component: "kubelet"},
	}
	var err error
	eventually(t, "the webhook is called", func() error {
		_, err = client.CoreV1().Events("default").Create(ctx, ev, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err == nil {
			return errors.New("not denied yet")
		}
		return nil
	})
	if want := `admission webhook "events.example.com" denied the request: CREATE events ev kind=Event old=false new=true`; err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
	review := hook.Reviews()[len(hook.Reviews())-1]["request"].(map[string]any)
	kind, reqKind := review["kind"].(map[string]any), review["requestKind"].(map[string]any)
	obj := review["object"].(map[string]any)
	if kind["group"] != "events.k8s.io" || reqKind["group"] != "" || obj["apiVersion"] != "events.k8s.io/v1" {
		t.Fatalf("kind %v, requestKind %v, object apiVersion %v", kind, reqKind, obj["apiVersion"])
	}
	// The events.k8s.io form carries the message as its note.
	if obj["note"] != "started the container" {
		t.Fatalf("converted object = %v", obj)
	}
}

func TestAdmissionMutatingWebhookOnScale(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	client := kubernetesClient(t, cp)
	ctx := context.Background()
	if _, err := client.AppsV1().Deployments("default").Create(ctx, newDeployment("web", 1), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The webhook caps every Scale at 3 replicas.
	hook := serveWebhook(t, func(req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		if req.Kind.Kind != "Scale" {
			return allow(req)
		}
		return jsonPatch(map[string]any{"op": "replace", "path": "/spec/replicas", "value": 3})
	})
	createMutatingWebhook(t, client, &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "cap"},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name:         "cap.example.com",
			ClientConfig: urlWebhookConfig(hook, "/"),
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Update},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments/scale"}},
			}},
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			AdmissionReviewVersions: []string{"v1"},
		}},
	}, nil)
	eventually(t, "the webhook caps the scale", func() error {
		sc, err := client.AppsV1().Deployments("default").UpdateScale(ctx, "web", &autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"}, Spec: autoscalingv1.ScaleSpec{Replicas: 10}}, metav1.UpdateOptions{})
		if err != nil {
			return err
		}
		if sc.Spec.Replicas != 3 {
			return fmt.Errorf("replicas %d", sc.Spec.Replicas)
		}
		return nil
	})
	d, err := client.AppsV1().Deployments("default").Get(ctx, "web", metav1.GetOptions{})
	if err != nil || *d.Spec.Replicas != 3 {
		t.Fatalf("deployment replicas after a capped scale: %v %v", d.Spec.Replicas, err)
	}
}

func TestAdmissionPolicyFailurePolicy(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	client := kubernetesClient(t, cp)
	ctx := context.Background()
	// The expression fails at run time on ConfigMaps without data.
	for _, fp := range []admissionregistrationv1.FailurePolicyType{admissionregistrationv1.Fail, admissionregistrationv1.Ignore} {
		name := "data-" + strings.ToLower(string(fp))
		createPolicy(t, client, &admissionregistrationv1.ValidatingAdmissionPolicy{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
				MatchConstraints: &admissionregistrationv1.MatchResources{
					ResourceRules:     []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: configMapRule}},
					NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": name}},
				},
				Validations:   []admissionregistrationv1.Validation{{Expression: `object.data.mode == "fast"`}},
				FailurePolicy: ptr.To(fp),
			},
		}, &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec:       admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: name, ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}},
		})
		if _, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		// In force once a ConfigMap with the wrong mode is refused.
		eventually(t, name+" in force", func() error {
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "probe"}, Data: map[string]string{"mode": "slow"}}
			if _, err := client.CoreV1().ConfigMaps(name).Create(ctx, cm, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err == nil {
				return errors.New("not denied yet")
			}
			return nil
		})
	}
	_, err := client.CoreV1().ConfigMaps("data-fail").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "empty"}}, metav1.CreateOptions{})
	if want := `configmaps "empty" is forbidden: ValidatingAdmissionPolicy 'data-fail' with binding 'data-fail' denied request: expression 'object.data.mode == "fast"' resulted in error: no such key: data`; err == nil || err.Error() != want {
		t.Fatalf("failurePolicy Fail: got %v, want %s", err, want)
	}
	if _, err := client.CoreV1().ConfigMaps("data-ignore").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "empty"}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("failurePolicy Ignore: %v", err)
	}
}
