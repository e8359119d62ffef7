package fakeplane_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
)

// jsonPatch answers with a JSONPatch.
func jsonPatch(ops ...map[string]any) *admissionv1.AdmissionResponse {
	b, _ := json.Marshal(ops)
	pt := admissionv1.PatchTypeJSONPatch
	return &admissionv1.AdmissionResponse{Allowed: true, Patch: b, PatchType: &pt}
}

// podOf decodes a review's pod.
func podOf(raw []byte) corev1.Pod {
	var pod corev1.Pod
	_ = json.Unmarshal(raw, &pod)
	return pod
}

func TestAdmissionMutatingWebhookAddsSidecar(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	client := kubernetesClient(t, cp)
	ctx := context.Background()
	var labelCalls atomic.Int32
	// labeller runs first and asks to be invoked again: the second time it
	// sees the sidecar that injector added after it.
	labeller := serveWebhook(t, func(req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		labelCalls.Add(1)
		pod := podOf(req.Object.Raw)
		if len(pod.Spec.Containers) < 2 || pod.Labels["sidecar"] == "seen" {
			return allow(req)
		}
		return jsonPatch(map[string]any{"op": "add", "path": "/metadata/labels", "value": map[string]string{"sidecar": "seen"}})
	})
	injector := serveWebhook(t, func(req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		pod := podOf(req.Object.Raw)
		for _, c := range pod.Spec.Containers {
			if c.Name == "proxy" {
				return allow(req)
			}
		}
		return jsonPatch(map[string]any{"op": "add", "path": "/spec/containers/-", "value": map[string]any{"name": "proxy", "image": "example.com/proxy:1"}})
	})
	createMutatingWebhook(t, client, &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "sidecar"},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name:                    "labeller.example.com",
			ClientConfig:            urlWebhookConfig(labeller, "/"),
			Rules:                   []admissionregistrationv1.RuleWithOperations{podRule(admissionregistrationv1.Create)},
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			ReinvocationPolicy:      ptr.To(admissionregistrationv1.IfNeededReinvocationPolicy),
			AdmissionReviewVersions: []string{"v1"},
		}, {
			Name:                    "injector.example.com",
			ClientConfig:            urlWebhookConfig(injector, "/inject"),
			Rules:                   []admissionregistrationv1.RuleWithOperations{podRule(admissionregistrationv1.Create)},
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNoneOnDryRun),
			AdmissionReviewVersions: []string{"v1beta1"},
		}},
	}, func() error {
		p, err := client.CoreV1().Pods("default").Create(ctx, testPod("probe", nil), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil {
			return err
		}
		if len(p.Spec.Containers) != 2 {
			return errors.New("no sidecar yet")
		}
		return nil
	})
	labelCalls.Store(0)
	pod, err := client.CoreV1().Pods("default").Create(ctx, testPod("web", map[string]string{"app": "web"}), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(pod.Spec.Containers) != 2 || pod.Spec.Containers[1].Name != "proxy" {
		t.Fatalf("containers = %+v, want app and the injected proxy", pod.Spec.Containers)
	}
	// The ServiceAccount plugin, invoked again, mounts the API token
	// into the injected container too; defaults apply to it.
	proxy := pod.Spec.Containers[1]
	if len(proxy.VolumeMounts) != 1 || !strings.HasPrefix(proxy.VolumeMounts[0].Name, "kube-api-access-") {
		t.Fatalf("injected container's mounts = %+v", proxy.VolumeMounts)
	}
	if proxy.TerminationMessagePath != corev1.TerminationMessagePathDefault || proxy.ImagePullPolicy != corev1.PullIfNotPresent {
		t.Fatalf("injected container not defaulted: %+v", proxy)
	}
	if pod.Labels["sidecar"] != "seen" || labelCalls.Load() != 2 {
		t.Fatalf("labels = %v after %d labeller calls, want sidecar=seen after 2 (reinvocationPolicy IfNeeded)", pod.Labels, labelCalls.Load())
	}
	// Each webhook got the AdmissionReview version it asked for.
	if v := injector.Reviews()[0]["apiVersion"]; v != "admission.k8s.io/v1beta1" {
		t.Fatalf("injector was sent %v, want admission.k8s.io/v1beta1", v)
	}
	if v := labeller.Reviews()[0]["apiVersion"]; v != "admission.k8s.io/v1" {
		t.Fatalf("labeller was sent %v, want admission.k8s.io/v1", v)
	}
	// The dry-run probes told NoneOnDryRun's webhook they were dry runs.
	if req := injector.Reviews()[0]["request"].(map[string]any); req["dryRun"] != true {
		t.Fatalf("probe review dryRun = %v", req["dryRun"])
	}
}

// TestAdmissionWebhookWithSideEffectsIsRefused: admissionregistration/v1
// takes only webhooks without side effects (None or NoneOnDryRun), so a
// dry run never meets one that has them; upstream refuses the create.
func TestAdmissionWebhookWithSideEffectsIsRefused(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	client := kubernetesClient(t, cp)
	ctx := context.Background()
	hook := serveWebhook(t, allow)
	for _, se := range []admissionregistrationv1.SideEffectClass{admissionregistrationv1.SideEffectClassSome, admissionregistrationv1.SideEffectClassUnknown} {
		_, err := client.AdmissionregistrationV1().MutatingWebhookConfigurations().Create(ctx, &admissionregistrationv1.MutatingWebhookConfiguration{
			ObjectMeta: metav1.ObjectMeta{Name: "side-effects"},
			Webhooks: []admissionregistrationv1.MutatingWebhook{{
				Name:                    "side-effects.example.com",
				ClientConfig:            urlWebhookConfig(hook, "/"),
				Rules:                   []admissionregistrationv1.RuleWithOperations{podRule(admissionregistrationv1.Create)},
				SideEffects:             ptr.To(se),
				AdmissionReviewVersions: []string{"v1"},
			}},
		}, metav1.CreateOptions{})
		want := `MutatingWebhookConfiguration.admissionregistration.k8s.io "side-effects" is invalid: webhooks[0].sideEffects: Unsupported value: "` + string(se) + `": supported values: "None", "NoneOnDryRun"`
		if !apierrors.IsInvalid(err) || err.Error() != want {
			t.Errorf("sideEffects %s: got %v, want %s", se, err, want)
		}
	}
	if _, err := client.CoreV1().Pods("default").Create(ctx, testPod("dry", nil), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
		t.Fatalf("dry run with no webhook stored: %v", err)
	}
	if len(hook.Reviews()) != 0 {
		t.Fatalf("webhook calls = %d, want 0", len(hook.Reviews()))
	}
}

// denyAll denies every request, naming what it was asked.
func denyAll(req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
	sub := ""
	if req.SubResource != "" {
		sub = "/" + req.SubResource
	}
	return &admissionv1.AdmissionResponse{Result: &metav1.Status{
		Code:    422,
		Message: fmt.Sprintf("%s %s%s %s kind=%s old=%t new=%t", req.Operation, req.Resource.Resource, sub, req.Name, req.Kind.Kind, len(req.OldObject.Raw) > 0, len(req.Object.Raw) > 0),
	}}
}

func TestAdmissionWebhookSelectorsAndMatchConditions(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	client := kubernetesClient(t, cp)
	ctx := context.Background()
	hook := serveWebhook(t, denyAll)
	createValidatingWebhook(t, client, &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "selective"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:              "selective.example.com",
			ClientConfig:      urlWebhookConfig(hook, "/"),
			Rules:             []admissionregistrationv1.RuleWithOperations{podRule(admissionregistrationv1.Create)},
			ObjectSelector:    &metav1.LabelSelector{MatchLabels: map[string]string{"checked": "yes"}},
			NamespaceSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"kube-system"}}}},
			MatchConditions: []admissionregistrationv1.MatchCondition{{
				Name: "not-exempt", Expression: `object.metadata.name != "exempt"`,
			}},
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			AdmissionReviewVersions: []string{"v1"},
		}},
	}, func() error {
		_, err := client.CoreV1().Pods("default").Create(ctx, testPod("probe", map[string]string{"checked": "yes"}), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err == nil {
			return errors.New("not denied yet")
		}
		return nil
	})
	cases := []struct {
		name, ns string
		labels   map[string]string
		denied   bool
	}{
		{name: "checked", ns: "default", labels: map[string]string{"checked": "yes"}, denied: true},
		{name: "unchecked", ns: "default", labels: map[string]string{"checked": "no"}},
		{name: "unlabelled", ns: "default"},
		{name: "exempt", ns: "default", labels: map[string]string{"checked": "yes"}},
		{name: "system", ns: "kube-system", labels: map[string]string{"checked": "yes"}},
	}
	for _, tc := range cases {
		_, err := client.CoreV1().Pods(tc.ns).Create(ctx, testPod(tc.name, tc.labels), metav1.CreateOptions{})
		switch {
		case tc.denied && err == nil:
			t.Errorf("%s: created, want denied", tc.name)
		case tc.denied && err.Error() != `admission webhook "selective.example.com" denied the request: CREATE pods `+tc.name+` kind=Pod old=false new=true`:
			t.Errorf("%s: %v", tc.name, err)
		case !tc.denied && err != nil:
			t.Errorf("%s: %v, want created", tc.name, err)
		}
	}
}

func TestAdmissionWebhookOperationsAndSubresources(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	client := kubernetesClient(t, cp)
	ctx := context.Background()
	hook := serveWebhook(t, denyAll)
	if _, err := client.CoreV1().Pods("default").Create(ctx, testPod("p", nil), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.AppsV1().Deployments("default").Create(ctx, newDeployment("d", 1), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	createValidatingWebhook(t, client, &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "operations"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:         "operations.example.com",
			ClientConfig: urlWebhookConfig(hook, "/"),
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Update, admissionregistrationv1.Delete},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods", "pods/status"}},
			}, {
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Update},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments/scale"}},
			}},
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			AdmissionReviewVersions: []string{"v1"},
		}},
	}, func() error {
		if err := client.CoreV1().Pods("default").Delete(ctx, "p", metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}}); err == nil {
			return errors.New("not denied yet")
		}
		return nil
	})
	prefix := `admission webhook "operations.example.com" denied the request: `
	pod, err := client.CoreV1().Pods("default").Get(ctx, "p", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name string
		do   func() error
		want string
	}{
		{"delete", func() error { return client.CoreV1().Pods("default").Delete(ctx, "p", metav1.DeleteOptions{}) }, "DELETE pods p kind=Pod old=true new=false"},
		{"update", func() error {
			p := pod.DeepCopy()
			p.Labels = map[string]string{"x": "y"}
			_, err := client.CoreV1().Pods("default").Update(ctx, p, metav1.UpdateOptions{})
			return err
		}, "UPDATE pods p kind=Pod old=true new=true"},
		{"status", func() error {
			p := pod.DeepCopy()
			p.Status.Message = "hi"
			_, err := client.CoreV1().Pods("default").UpdateStatus(ctx, p, metav1.UpdateOptions{})
			return err
		}, "UPDATE pods/status p kind=Pod old=true new=true"},
		{"scale", func() error {
			_, err := client.AppsV1().Deployments("default").UpdateScale(ctx, "d", &autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "default"}, Spec: autoscalingv1.ScaleSpec{Replicas: 5}}, metav1.UpdateOptions{})
			return err
		}, "UPDATE deployments/scale d kind=Scale old=true new=true"},
	}
	for _, c := range checks {
		err := c.do()
		if err == nil || err.Error() != prefix+c.want {
			t.Errorf("%s: got %v, want %s%s", c.name, err, prefix, c.want)
			continue
		}
		var se *apierrors.StatusError
		if !errors.As(err, &se) || se.ErrStatus.Code != 422 {
			t.Errorf("%s: code %v, want the webhook's 422", c.name, err)
		}
	}
	// Nothing changed.
	if _, err := client.CoreV1().Pods("default").Get(ctx, "p", metav1.GetOptions{}); err != nil {
		t.Fatalf("pod gone after a denied delete: %v", err)
	}
	d, err := client.AppsV1().Deployments("default").Get(ctx, "d", metav1.GetOptions{})
	if err != nil || *d.Spec.Replicas != 1 {
		t.Fatalf("deployment after a denied scale: %v %v", d, err)
	}
}

// newDeployment is a Deployment of pause containers.
func newDeployment(name string, replicas int32) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10"}}},
			},
		},
	}
}
