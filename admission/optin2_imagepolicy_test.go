package admission

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	imagepolicyv1alpha1 "k8s.io/api/imagepolicy/v1alpha1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sadmission "k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
)

func TestOptin2ImagePolicyWebhookConfigLoadsAndNormalizes(t *testing.T) {
	cases := []struct {
		name    string
		in      *string
		want    *ImagePolicyWebhookConfig
		wantErr string
	}{
		{name: "legacy json", in: optin2Ptr(`{"imagePolicy":{"kubeConfigFile":"/k","allowTTL":50,"denyTTL":60,"retryBackoff":250,"defaultAllow":true}}`),
			want: &ImagePolicyWebhookConfig{KubeConfigFile: "/k", AllowTTL: 50 * time.Second, DenyTTL: time.Minute, RetryBackoff: 250 * time.Millisecond, DefaultAllow: true}},
		{name: "yaml, defaults", in: optin2Ptr("imagePolicy:\n  kubeConfigFile: /k\nunknown: 1\n"),
			want: &ImagePolicyWebhookConfig{KubeConfigFile: "/k", AllowTTL: 5 * time.Minute, DenyTTL: 30 * time.Second, RetryBackoff: 500 * time.Millisecond}},
		{name: "-1 disables", in: optin2Ptr("imagePolicy:\n  allowTTL: -1\n  denyTTL: -1\n  retryBackoff: -1\n"),
			want: &ImagePolicyWebhookConfig{}},
		{name: "fields match regardless of case", in: optin2Ptr(`{"ImagePolicy":{"KUBECONFIGFILE":"/k","allowttl":1800,"DenyTTL":1}}`),
			want: &ImagePolicyWebhookConfig{KubeConfigFile: "/k", AllowTTL: 30 * time.Minute, DenyTTL: time.Second, RetryBackoff: 500 * time.Millisecond}},
		{name: "allowTTL too long", in: optin2Ptr("imagePolicy:\n  allowTTL: 2700\n"), wantErr: "valid value is between 1s and 30m0s, got 45m0s"},
		{name: "denyTTL too long", in: optin2Ptr("imagePolicy:\n  denyTTL: 1801\n"), wantErr: "valid value is between 1s and 30m0s, got 30m1s"},
		{name: "retryBackoff too long", in: optin2Ptr("imagePolicy:\n  retryBackoff: 400000\n"), wantErr: "valid value is between 1ns and 5m0s, got 6m40s"},
		{name: "retryBackoff checked first", in: optin2Ptr("imagePolicy:\n  allowTTL: -5\n  retryBackoff: -2\n"), wantErr: "valid value is between 1ns and 5m0s, got -2ms"},
		{name: "negative ttl", in: optin2Ptr("imagePolicy:\n  allowTTL: -5\n"), wantErr: "valid value is between 1s and 30m0s, got -5s"},
		{name: "no config", wantErr: "no config specified"},
		{name: "not a number", in: optin2Ptr(`{"imagePolicy":{"allowTTL":"10s"}}`), wantErr: "json: cannot unmarshal string into Go struct field imagePolicyWebhookConfig.imagePolicy.allowTTL of type time.Duration"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var r io.Reader
			if tc.in != nil {
				r = strings.NewReader(*tc.in)
			}
			got, err := LoadImagePolicyWebhookConfig(r)
			checkLoaded(t, got, err, tc.want, tc.wantErr)
		})
	}
}

// optin2Backend is an ImageReview backend over TLS answering with answer
// and remembering the reviews it was sent.
type optin2Backend struct {
	srv     *httptest.Server
	mu      sync.Mutex
	reviews []imagepolicyv1alpha1.ImageReview
	answer  func(w http.ResponseWriter, r *imagepolicyv1alpha1.ImageReview)
}

func newOptin2Backend(t *testing.T, answer func(w http.ResponseWriter, r *imagepolicyv1alpha1.ImageReview)) *optin2Backend {
	b := &optin2Backend{answer: answer}
	b.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		var r imagepolicyv1alpha1.ImageReview
		if req.Method != http.MethodPost || json.NewDecoder(req.Body).Decode(&r) != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		b.mu.Lock()
		b.reviews = append(b.reviews, r)
		b.mu.Unlock()
		b.answer(w, &r)
	}))
	t.Cleanup(b.srv.Close)
	return b
}

func (b *optin2Backend) sent() []imagepolicyv1alpha1.ImageReview {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]imagepolicyv1alpha1.ImageReview(nil), b.reviews...)
}

// kubeconfig writes a kubeconfig naming the backend and returns its path.
func (b *optin2Backend) kubeconfig(t *testing.T) string {
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: b.srv.Certificate().Raw})
	path := filepath.Join(t.TempDir(), "kubeconfig")
	data := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: backend
  cluster:
    server: %s/review
    certificate-authority-data: %s
users:
- name: apiserver
  user: {}
contexts:
- name: default
  context: {cluster: backend, user: apiserver}
current-context: default
`, b.srv.URL, base64.StdEncoding.EncodeToString(ca))
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// optin2Status answers with status.
func optin2Status(status imagepolicyv1alpha1.ImageReviewStatus) func(http.ResponseWriter, *imagepolicyv1alpha1.ImageReview) {
	return func(w http.ResponseWriter, r *imagepolicyv1alpha1.ImageReview) {
		r.Status = status
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(r)
	}
}

// optin2AnnotatedAttrs records the audit annotations added to it.
type optin2AnnotatedAttrs struct {
	k8sadmission.Attributes
	mu          sync.Mutex
	annotations map[string]string
}

func (a *optin2AnnotatedAttrs) AddAnnotation(k, v string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.annotations == nil {
		a.annotations = map[string]string{}
	}
	a.annotations[k] = v
	return nil
}

func optin2ImagePod() *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", Annotations: map[string]string{
			"mycluster.image-policy.k8s.io/ticket": "1234", "image-policy.k8s.io/x": "no", "other": "no",
		}},
		Spec: corev1.PodSpec{
			InitContainers:      []corev1.Container{{Name: "i", Image: "init:1"}},
			Containers:          []corev1.Container{{Name: "a", Image: "app:1"}, {Name: "b", Image: "app:2"}},
			EphemeralContainers: []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "e", Image: "debug:1"}}},
		},
	}
}

func optin2ImageAttrs(op k8sadmission.Operation, subresource string, pod *corev1.Pod) *optin2AnnotatedAttrs {
	return &optin2AnnotatedAttrs{Attributes: k8sadmission.NewAttributesRecord(pod, nil, corev1.SchemeGroupVersion.WithKind("Pod"), "ns", "p",
		corev1.SchemeGroupVersion.WithResource("pods"), subresource, op, nil, false, &user.DefaultInfo{Name: "alice"})}
}

func newOptin2ImagePolicy(t *testing.T, b *optin2Backend, defaultAllow bool, now func() time.Time) *ImagePolicyWebhook {
	cfg, err := LoadImagePolicyWebhookConfig(strings.NewReader(fmt.Sprintf(`{"imagePolicy":{"kubeConfigFile":%q,"allowTTL":10,"denyTTL":5,"retryBackoff":1,"defaultAllow":%v}}`, b.kubeconfig(t), defaultAllow)))
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewImagePolicyWebhook(cfg, now, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestOptin2ImagePolicyWebhookReviewsPodImages(t *testing.T) {
	wantSpec := imagepolicyv1alpha1.ImageReviewSpec{
		Containers:  []imagepolicyv1alpha1.ImageReviewContainerSpec{{Image: "app:1"}, {Image: "app:2"}, {Image: "init:1"}},
		Annotations: map[string]string{"mycluster.image-policy.k8s.io/ticket": "1234"},
		Namespace:   "ns",
	}
	cases := []struct {
		name            string
		status          imagepolicyv1alpha1.ImageReviewStatus
		op              k8sadmission.Operation
		subresource     string
		wantSpec        imagepolicyv1alpha1.ImageReviewSpec
		wantErr         string
		wantAnnotations map[string]string
	}{
		{name: "allowed", op: k8sadmission.Create, wantSpec: wantSpec,
			status:          imagepolicyv1alpha1.ImageReviewStatus{Allowed: true, AuditAnnotations: map[string]string{"checked": "yes"}},
			wantAnnotations: map[string]string{"imagepolicywebhook.image-policy.k8s.io/checked": "yes"}},
		{name: "denied with a reason", op: k8sadmission.Update, wantSpec: wantSpec,
			status:  imagepolicyv1alpha1.ImageReviewStatus{Reason: "app:2 is not signed", AuditAnnotations: map[string]string{"why": "unsigned"}},
			wantErr: `pods "p" is forbidden: image policy webhook backend denied one or more images: app:2 is not signed`, wantAnnotations: map[string]string{"imagepolicywebhook.image-policy.k8s.io/why": "unsigned"}},
		{name: "denied without a reason", op: k8sadmission.Create, wantSpec: wantSpec,
			wantErr: `pods "p" is forbidden: one or more images rejected by webhook backend`},
		{name: "ephemeral containers", op: k8sadmission.Update, subresource: "ephemeralcontainers",
			status: imagepolicyv1alpha1.ImageReviewStatus{Allowed: true},
			wantSpec: imagepolicyv1alpha1.ImageReviewSpec{Containers: []imagepolicyv1alpha1.ImageReviewContainerSpec{{Image: "debug:1"}},
				Annotations: map[string]string{"mycluster.image-policy.k8s.io/ticket": "1234"}, Namespace: "ns"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := newOptin2Backend(t, optin2Status(tc.status))
			p := newOptin2ImagePolicy(t, b, false, nil)
			a := optin2ImageAttrs(tc.op, tc.subresource, optin2ImagePod())
			err := p.Validate(context.Background(), a)
			if tc.wantErr == "" && err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr || !apierrors.IsForbidden(err) {
					t.Fatalf("error %#v, want a 403 %s", err, tc.wantErr)
				}
			}
			sent := b.sent()
			if len(sent) != 1 {
				t.Fatalf("sent %d reviews", len(sent))
			}
			if sent[0].APIVersion != "imagepolicy.k8s.io/v1alpha1" || sent[0].Kind != "ImageReview" {
				t.Fatalf("sent %s %s", sent[0].APIVersion, sent[0].Kind)
			}
			if !reflect.DeepEqual(sent[0].Spec, tc.wantSpec) {
				t.Fatalf("sent %+v, want %+v", sent[0].Spec, tc.wantSpec)
			}
			if !reflect.DeepEqual(a.annotations, tc.wantAnnotations) {
				t.Fatalf("audit annotations %v, want %v", a.annotations, tc.wantAnnotations)
			}
		})
	}
}

func TestOptin2ImagePolicyWebhookCachesAnswersForTheirTTL(t *testing.T) {
	allowed := true
	var mu sync.Mutex
	b := newOptin2Backend(t, func(w http.ResponseWriter, r *imagepolicyv1alpha1.ImageReview) {
		mu.Lock()
		defer mu.Unlock()
		optin2Status(imagepolicyv1alpha1.ImageReviewStatus{Allowed: allowed, AuditAnnotations: map[string]string{"n": "1"}})(w, r)
	})
	clk := &optin2Clock{t: time.Unix(1000, 0)}
	p := newOptin2ImagePolicy(t, b, false, clk.now)
	check := func(step time.Duration, wantSent int, wantAllowed bool) {
		t.Helper()
		clk.step(step)
		a := optin2ImageAttrs(k8sadmission.Create, "", optin2ImagePod())
		err := p.Validate(context.Background(), a)
		if (err == nil) != wantAllowed {
			t.Fatalf("error %v, want allowed %v", err, wantAllowed)
		}
		if n := len(b.sent()); n != wantSent {
			t.Fatalf("sent %d reviews, want %d", n, wantSent)
		}
		// A cached answer's audit annotations are added again.
		if a.annotations["imagepolicywebhook.image-policy.k8s.io/n"] != "1" {
			t.Fatalf("audit annotations %v", a.annotations)
		}
	}
	check(0, 1, true)
	mu.Lock()
	allowed = false
	mu.Unlock()
	check(9*time.Second, 1, true)  // allowTTL is 10s
	check(2*time.Second, 2, false) // expired: asked again, denied
	check(4*time.Second, 2, false) // denyTTL is 5s
	mu.Lock()
	allowed = true
	mu.Unlock()
	check(2*time.Second, 3, true)
	// Another review (another namespace) is another entry.
	a := optin2ImageAttrs(k8sadmission.Create, "", optin2ImagePod())
	a.Attributes = k8sadmission.NewAttributesRecord(optin2ImagePod(), nil, corev1.SchemeGroupVersion.WithKind("Pod"), "other", "p",
		corev1.SchemeGroupVersion.WithResource("pods"), "", k8sadmission.Create, nil, false, &user.DefaultInfo{Name: "alice"})
	if err := p.Validate(context.Background(), a); err != nil || len(b.sent()) != 4 {
		t.Fatalf("error %v, sent %d", err, len(b.sent()))
	}
}

func TestOptin2ImagePolicyWebhookBackendFailure(t *testing.T) {
	fail := func(w http.ResponseWriter, _ *imagepolicyv1alpha1.ImageReview) {
		http.Error(w, "backend broke", http.StatusInternalServerError)
	}
	t.Run("refused without defaultAllow, after retries", func(t *testing.T) {
		b := newOptin2Backend(t, fail)
		p := newOptin2ImagePolicy(t, b, false, nil)
		pod := optin2ImagePod()
		a := optin2ImageAttrs(k8sadmission.Create, "", pod)
		err := p.Validate(context.Background(), a)
		want := `pods "p" is forbidden: an error on the server ("backend broke") has prevented the request from succeeding`
		if err == nil || err.Error() != want || !apierrors.IsForbidden(err) {
			t.Fatalf("error %#v, want a 403 %s", err, want)
		}
		if n := len(b.sent()); n != 5 {
			t.Fatalf("sent %d reviews, want 5", n)
		}
		if _, ok := pod.Annotations[corev1.ImagePolicyFailedOpenKey]; ok || a.annotations != nil {
			t.Fatalf("annotated: %v %v", pod.Annotations, a.annotations)
		}
		// Failures are not cached.
		_ = p.Validate(context.Background(), a)
		if n := len(b.sent()); n != 10 {
			t.Fatalf("sent %d reviews, want 10", n)
		}
	})
	t.Run("admitted failing open with defaultAllow", func(t *testing.T) {
		b := newOptin2Backend(t, func(w http.ResponseWriter, _ *imagepolicyv1alpha1.ImageReview) {
			http.Error(w, "no", http.StatusBadRequest)
		})
		p := newOptin2ImagePolicy(t, b, true, nil)
		pod := optin2ImagePod()
		a := optin2ImageAttrs(k8sadmission.Create, "", pod)
		if err := p.Validate(context.Background(), a); err != nil {
			t.Fatal(err)
		}
		if n := len(b.sent()); n != 1 {
			t.Fatalf("sent %d reviews, want 1 (a 400 is not retried)", n)
		}
		if pod.Annotations["alpha.image-policy.k8s.io/failed-open"] != "true" {
			t.Fatalf("pod annotations %v", pod.Annotations)
		}
		if !reflect.DeepEqual(a.annotations, map[string]string{"imagepolicywebhook.image-policy.k8s.io/failed-open": "true"}) {
			t.Fatalf("audit annotations %v", a.annotations)
		}
	})
	t.Run("backend not reachable", func(t *testing.T) {
		b := newOptin2Backend(t, fail)
		p := newOptin2ImagePolicy(t, b, false, nil)
		b.srv.Close()
		err := p.Validate(context.Background(), optin2ImageAttrs(k8sadmission.Create, "", optin2ImagePod()))
		if err == nil || !apierrors.IsForbidden(err) || !strings.HasPrefix(err.Error(), `pods "p" is forbidden: Post "https://127.0.0.1:`) {
			t.Fatalf("error %v", err)
		}
	})
}

func TestOptin2ImagePolicyWebhookHandlesOnlyPodWrites(t *testing.T) {
	b := newOptin2Backend(t, optin2Status(imagepolicyv1alpha1.ImageReviewStatus{}))
	p := newOptin2ImagePolicy(t, b, false, nil)
	u := &user.DefaultInfo{Name: "alice"}
	podKind, podRes := corev1.SchemeGroupVersion.WithKind("Pod"), corev1.SchemeGroupVersion.WithResource("pods")
	for _, a := range []k8sadmission.Attributes{
		k8sadmission.NewAttributesRecord(nil, optin2ImagePod(), podKind, "ns", "p", podRes, "", k8sadmission.Delete, nil, false, u),
		k8sadmission.NewAttributesRecord(optin2ImagePod(), nil, podKind, "ns", "p", podRes, "status", k8sadmission.Update, nil, false, u),
		k8sadmission.NewAttributesRecord(&corev1.Service{}, nil, corev1.SchemeGroupVersion.WithKind("Service"), "ns", "s", corev1.SchemeGroupVersion.WithResource("services"), "", k8sadmission.Create, nil, false, u),
	} {
		if err := p.Validate(context.Background(), a); err != nil {
			t.Fatalf("%s %s/%s: %v", a.GetOperation(), a.GetResource().Resource, a.GetSubresource(), err)
		}
	}
	err := p.Validate(context.Background(), k8sadmission.NewAttributesRecord(&corev1.Service{}, nil, podKind, "ns", "p", podRes, "", k8sadmission.Create, nil, false, u))
	if err == nil || err.Error() != "Resource was marked with kind Pod but was unable to be converted" || !apierrors.IsBadRequest(err) {
		t.Fatalf("error %v", err)
	}
	if n := len(b.sent()); n != 0 {
		t.Fatalf("sent %d reviews", n)
	}
}

func TestOptin2ImagePolicyWebhookRefusesAMissingKubeconfig(t *testing.T) {
	_, err := NewImagePolicyWebhook(&ImagePolicyWebhookConfig{KubeConfigFile: filepath.Join(t.TempDir(), "missing")}, nil, nil)
	if err == nil || !strings.Contains(err.Error(), "no such file or directory") {
		t.Fatalf("error %v", err)
	}
}
