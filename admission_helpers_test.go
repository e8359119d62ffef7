package fakeplane_test

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/fakeplane/fakeplane"
)

// reviewFunc answers one AdmissionReview request.
type reviewFunc func(req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse

// testWebhook is an admission webhook served by the test process over
// HTTPS, recording the reviews it was sent.
type testWebhook struct {
	URL      string
	CABundle []byte

	mu      sync.Mutex
	reviews []map[string]any
	headers []http.Header
}

// Headers are the headers of the reviews received so far, in their order.
func (w *testWebhook) Headers() []http.Header {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]http.Header(nil), w.headers...)
}

// Reviews are the AdmissionReviews received so far, as JSON objects.
func (w *testWebhook) Reviews() []map[string]any {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]map[string]any(nil), w.reviews...)
}

// serveWebhook starts an HTTPS webhook that answers reviews with answer,
// in the AdmissionReview version it was sent.
func serveWebhook(t testing.TB, answer reviewFunc) *testWebhook {
	t.Helper()
	return serveWebhookWith(t, answer, nil)
}

// serveWebhookWith is serveWebhook with the server's certificate given
// (nil: httptest's, for 127.0.0.1).
func serveWebhookWith(t testing.TB, answer reviewFunc, cert *tls.Certificate) *testWebhook {
	t.Helper()
	w := &testWebhook{}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(rw, err.Error(), http.StatusBadRequest)
			return
		}
		var raw map[string]any
		if err := json.Unmarshal(body, &raw); err != nil {
			http.Error(rw, err.Error(), http.StatusBadRequest)
			return
		}
		w.mu.Lock()
		w.reviews = append(w.reviews, raw)
		w.headers = append(w.headers, r.Header.Clone())
		w.mu.Unlock()
		// admission.k8s.io/v1beta1's AdmissionReview has the same fields.
		var review admissionv1.AdmissionReview
		if err := json.Unmarshal(body, &review); err != nil || review.Request == nil {
			http.Error(rw, "no request", http.StatusBadRequest)
			return
		}
		resp := answer(review.Request)
		resp.UID = review.Request.UID
		out := admissionv1.AdmissionReview{TypeMeta: review.TypeMeta, Response: resp}
		rw.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(rw).Encode(out)
	}))
	if cert != nil {
		srv.TLS = &tls.Config{Certificates: []tls.Certificate{*cert}}
	}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	w.URL = srv.URL
	w.CABundle = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	return w
}

// allow answers every review with allowed.
func allow(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
	return &admissionv1.AdmissionResponse{Allowed: true}
}

// warningCollector records the Warning headers a client receives.
type warningCollector struct {
	mu   sync.Mutex
	msgs []string
}

// HandleWarningHeader implements rest.WarningHandler.
func (c *warningCollector) HandleWarningHeader(_ int, _ string, msg string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.msgs = append(c.msgs, msg)
}

// Messages are the warnings received so far.
func (c *warningCollector) Messages() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.msgs...)
}

// clientWithWarnings is an admin clientset whose warnings go to the
// returned collector.
func clientWithWarnings(t *testing.T, cp *fakeplane.ControlPlane) (kubernetes.Interface, *warningCollector) {
	t.Helper()
	wc := &warningCollector{}
	cfg := cp.RESTConfig()
	cfg.WarningHandler = wc
	return kubernetes.NewForConfigOrDie(cfg), wc
}

// eventually retries f until it returns nil or 20 seconds pass: an
// admission configuration takes effect once the plugins' informers have
// seen it (policies within a second), as on kube-apiserver.
func eventually(t testing.TB, what string, f func() error) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %v", what, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// podRule is a webhook rule for pod operations.
func podRule(ops ...admissionregistrationv1.OperationType) admissionregistrationv1.RuleWithOperations {
	return admissionregistrationv1.RuleWithOperations{
		Operations: ops,
		Rule: admissionregistrationv1.Rule{
			APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"},
		},
	}
}

// testPod is a minimal pod.
func testPod(name string, labels map[string]string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10"}}},
	}
}

// urlWebhookConfig is a ClientConfig calling w by URL.
func urlWebhookConfig(w *testWebhook, path string) admissionregistrationv1.WebhookClientConfig {
	u := w.URL + path
	return admissionregistrationv1.WebhookClientConfig{URL: &u, CABundle: w.CABundle}
}

// createValidatingWebhook stores a ValidatingWebhookConfiguration and
// waits until it is in force: probe returns nil once requests are
// admitted by it.
func createValidatingWebhook(t testing.TB, client kubernetes.Interface, cfg *admissionregistrationv1.ValidatingWebhookConfiguration, probe func() error) {
	t.Helper()
	if _, err := client.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(context.Background(), cfg, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create ValidatingWebhookConfiguration: %v", err)
	}
	if probe != nil {
		eventually(t, "webhook configuration "+cfg.Name+" in force", probe)
	}
}

// createMutatingWebhook stores a MutatingWebhookConfiguration and waits
// until probe says it is in force.
func createMutatingWebhook(t *testing.T, client kubernetes.Interface, cfg *admissionregistrationv1.MutatingWebhookConfiguration, probe func() error) {
	t.Helper()
	if _, err := client.AdmissionregistrationV1().MutatingWebhookConfigurations().Create(context.Background(), cfg, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create MutatingWebhookConfiguration: %v", err)
	}
	if probe != nil {
		eventually(t, "webhook configuration "+cfg.Name+" in force", probe)
	}
}

var _ rest.WarningHandler = (*warningCollector)(nil)
