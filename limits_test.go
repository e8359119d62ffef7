package fakeplane_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
)

// An object over what etcd's default --max-request-bytes (1.5 MiB) lets
// through is refused as kube-apiserver refuses it: a 500 with etcd's
// message, nothing written. Measured on refplane (kube-apiserver v1.37.2,
// etcd v3.7.0): a custom resource with a 1,500,000-byte field is stored,
// one with 1,600,000 bytes gets `500 etcdserver: request is too large`.
func TestObjectOverEtcdRequestLimitIsRefused(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithControllers())
	ctx := ctxT(t)
	dyn := dynamic.NewForConfigOrDie(cp.RESTConfig())
	createCRD(t, ctx, dyn, &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "blobs.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.com", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "blobs", Singular: "blob", Kind: "Blob"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", XPreserveUnknownFields: ptr.To(true)}}}},
		},
	})
	blobs := dyn.Resource(schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "blobs"}).Namespace("default")
	blob := func(name string, size int) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Blob",
			"metadata": map[string]any{"name": name}, "data": strings.Repeat("x", size)}}
	}
	var created *unstructured.Unstructured
	eventually(t, "the CRD serves", func() error {
		var err error
		created, err = blobs.Create(ctx, blob("fits", 1_500_000), metav1.CreateOptions{})
		return err
	})
	tooLarge := func(what string, err error) {
		t.Helper()
		var st apierrors.APIStatus
		if !errors.As(err, &st) || st.Status().Code != 500 || st.Status().Message != "etcdserver: request is too large" || st.Status().Reason != "" {
			t.Fatalf("%s: got %v, want 500 etcdserver: request is too large", what, err)
		}
	}
	_, err := blobs.Create(ctx, blob("over", 1_600_000), metav1.CreateOptions{})
	tooLarge("create", err)
	if _, err := blobs.Get(ctx, "over", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("the refused object was stored: %v", err)
	}
	created.Object["data"] = strings.Repeat("y", 1_600_000)
	_, err = blobs.Update(ctx, created, metav1.UpdateOptions{})
	tooLarge("update", err)
	got, err := blobs.Get(ctx, "fits", metav1.GetOptions{})
	if err != nil || got.GetResourceVersion() != created.GetResourceVersion() || got.Object["data"] != strings.Repeat("x", 1_500_000) {
		t.Fatalf("the refused update changed the object: %v", err)
	}
}

// blockingWebhook is a validating webhook on creates of ConfigMaps named
// held* that holds each until release is called (at the latest when the
// test ends), then allows it; entered receives a value as each arrives.
func blockingWebhook(t *testing.T, client kubernetes.Interface) (entered chan struct{}, release func()) {
	t.Helper()
	entered = make(chan struct{}, 16)
	held := make(chan struct{})
	var once sync.Once
	release = func() { once.Do(func() { close(held) }) }
	hook := serveWebhook(t, func(req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		if strings.HasPrefix(req.Name, "held") {
			entered <- struct{}{}
			<-held
		}
		return &admissionv1.AdmissionResponse{UID: req.UID, Allowed: true}
	})
	// Registered after the webhook server's own cleanup, so it runs first
	// and the server's Close does not wait on a held request.
	t.Cleanup(release)
	createValidatingWebhook(t, client, &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "hold"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:         "hold.example.com",
			ClientConfig: urlWebhookConfig(hook, "/"),
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}},
			}},
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			AdmissionReviewVersions: []string{"v1"},
			TimeoutSeconds:          ptr.To[int32](30),
		}},
	}, calledBy(hook, func() error {
		_, err := client.CoreV1().ConfigMaps("default").Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "probe"}}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return err
	}))
	return entered, release
}

// A request that is not long-running gets kube-apiserver's 504 once
// --request-timeout passes (upstream's WithTimeoutForNonLongRunningRequests
// message), while a watch outlives it.
func TestRequestTimeoutAnswers504(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithRequestTimeout(time.Second))
	client := kubernetesClient(t, cp)
	ctx := context.Background()
	w, err := client.CoreV1().ConfigMaps("default").Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	_, _ = blockingWebhook(t, client)
	// refplane (kube-apiserver v1.37.2, a webhook that never answers,
	// ?timeout=1s) answers the same bytes, as text/plain.
	// The held webhook call ends at the same deadline: when its error is
	// written first, upstream's timeout filter resets the stream instead
	// (as on kube-apiserver), so a reset is tried again.
	const want = `{"metadata":{},"status":"Failure","message":"Timeout: request did not complete within the allotted timeout","reason":"Timeout","details":{},"code":504}`
	var body []byte
	for i := range 5 {
		body, err = client.CoreV1().RESTClient().Post().AbsPath("/api/v1/namespaces/default/configmaps").
			Body([]byte(fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"held-%d"}}`, i))).SetHeader("Content-Type", "application/json").DoRaw(ctx)
		if err == nil || !strings.Contains(err.Error(), "INTERNAL_ERROR") {
			break
		}
	}
	if !apierrors.IsTimeout(err) || strings.TrimSpace(string(body)) != want {
		t.Fatalf("got %v %s, want 504 %s", err, body, want)
	}
	// A client's timeout that does not parse is refused first.
	err = client.CoreV1().RESTClient().Get().AbsPath("/api/v1/namespaces/default/configmaps").Param("timeout", "bogus").Do(ctx).Error()
	if !apierrors.IsBadRequest(err) || err.Error() != `invalid timeout specified in the request URL - time: invalid duration "bogus"` {
		t.Fatalf("bad timeout: %v", err)
	}
	// The watch opened before is still open: a configmap created now is
	// seen on it.
	if _, err := client.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "after"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for ev := range w.ResultChan() {
		if m, ok := ev.Object.(metav1.Object); ok && m.GetName() == "after" {
			return
		}
	}
	t.Fatal("the watch ended")
}

// Past --max-mutating-requests-inflight, a mutating request gets 429 with
// Retry-After, as kube-apiserver's max-in-flight filter answers; members
// of system:masters and read-only requests are not held back.
func TestMaxMutatingRequestsInFlightAnswers429(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithMaxRequestsInFlight(-1, 1), fakeplane.WithAuthorizationMode(fakeplane.AuthorizationAlwaysAllow))
	admin := kubernetesClient(t, cp)
	cfg, err := cp.AddUser("alice")
	if err != nil {
		t.Fatal(err)
	}
	alice := kubernetes.NewForConfigOrDie(cfg)
	ctx := context.Background()
	entered, release := blockingWebhook(t, admin)
	done := make(chan error, 1)
	go func() {
		_, err := alice.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "held-1"}}, metav1.CreateOptions{})
		done <- err
	}()
	<-entered
	// alice's second write is over the limit.
	body, err := alice.CoreV1().RESTClient().Post().AbsPath("/api/v1/namespaces/default/configmaps").
		Body([]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"second"}}`)).SetHeader("Content-Type", "application/json").DoRaw(ctx)
	if !apierrors.IsTooManyRequests(err) || strings.TrimSpace(string(body)) != "Too many requests, please try again later." {
		t.Fatalf("second write: %v %q, want 429 Too many requests, please try again later.", err, body)
	}
	if d, ok := apierrors.SuggestsClientDelay(err); !ok || d != 1 {
		t.Errorf("Retry-After: %d, %v; want 1", d, ok)
	}
	// Reads and the admin's writes go on.
	if _, err := alice.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{}); err != nil {
		t.Errorf("read while the write limit is reached: %v", err)
	}
	if _, err := admin.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "admin"}}, metav1.CreateOptions{}); err != nil {
		t.Errorf("system:masters write while the limit is reached: %v", err)
	}
	release()
	if err := <-done; err != nil {
		t.Fatalf("held write: %v", err)
	}
	// Once the held write is done there is room again.
	if _, err := alice.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "third"}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("write after the held one: %v", err)
	}
	// The refused write is counted (each try: client-go tries a 429 again
	// after its Retry-After), as kube-apiserver's RecordDroppedRequest
	// counts it, but has no latency.
	const labels = `component="apiserver",dry_run="",group="",resource="configmaps",scope="resource",subresource="",verb="POST",version="v1"`
	text := scrape(t, cp)
	if n := metricValue(text, `apiserver_request_total{code="429",`+labels+`}`); n < 1 {
		t.Errorf("429s counted: %d, want at least 1", n)
	}
	if served, timed := metricValue(text, `apiserver_request_total{code="201",`+labels+`}`), metricValue(text, `apiserver_request_duration_seconds_count{`+labels+`}`); served < 3 || timed != served {
		t.Errorf("created %d, with latencies %d: want the same, without the 429", served, timed)
	}
}

// --min-request-timeout ends a watch that names no timeoutSeconds after
// between it and twice it, as kube-apiserver's list handler does, while a
// watch that names one runs for that long; a negative value is refused with
// kube-apiserver's error.
func TestMinRequestTimeoutEndsWatchesThatNameNone(t *testing.T) {
	t.Parallel()
	if _, err := fakeplane.New(fakeplane.WithMinRequestTimeout(-1)); err == nil || err.Error() != "fakeplane: --min-request-timeout can not be negative value" {
		t.Fatalf("negative: got %v", err)
	}
	cp := fakeplane.Start(t, fakeplane.WithMinRequestTimeout(1))
	client := kubernetesClient(t, cp)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	named, err := client.CoreV1().ConfigMaps("default").Watch(ctx, metav1.ListOptions{TimeoutSeconds: ptr.To[int64](3600)})
	if err != nil {
		t.Fatal(err)
	}
	defer named.Stop()
	unnamed, err := client.CoreV1().ConfigMaps("default").Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer unnamed.Stop()
	for range unnamed.ResultChan() {
	}
	if ctx.Err() != nil {
		t.Fatal("the watch that names no timeout did not end")
	}
	if _, err := client.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "after"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for ev := range named.ResultChan() {
		if m, ok := ev.Object.(metav1.Object); ok && m.GetName() == "after" {
			return
		}
	}
	t.Fatal("the watch that names its timeout ended")
}

// --goaway-chance answers some HTTP/2 requests with GOAWAY, as
// kube-apiserver's filter does, so the client opens new connections; at 0
// (the default) one connection serves them all. Outside [0, 0.02] the
// start fails with kube-apiserver's error.
func TestGoawayChanceSendsClientsToNewConnections(t *testing.T) {
	t.Parallel()
	if _, err := fakeplane.New(fakeplane.WithGoawayChance(0.5)); err == nil || err.Error() != "fakeplane: --goaway-chance can not be less than 0 or greater than 0.02" {
		t.Fatalf("0.5: %v", err)
	}
	for _, tc := range []struct {
		name   string
		chance float64
		many   bool // more than one connection
	}{
		{name: "none", chance: 0},
		{name: "the most", chance: 0.02, many: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cp := fakeplane.Start(t, fakeplane.WithGoawayChance(tc.chance))
			hc, err := rest.HTTPClientFor(cp.RESTConfig())
			if err != nil {
				t.Fatal(err)
			}
			var conns atomic.Int64
			trace := &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) {
				if !info.Reused {
					conns.Add(1)
				}
			}}
			// 1000 requests: with a chance of 0.02 each, none sent away
			// has a probability of 2e-9.
			for range 1000 {
				req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctxT(t), trace), "GET", cp.URL()+"/api/v1/namespaces/default", nil)
				if err != nil {
					t.Fatal(err)
				}
				resp, err := hc.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK || resp.ProtoMajor != 2 {
					t.Fatalf("%d over %s", resp.StatusCode, resp.Proto)
				}
			}
			if n := conns.Load(); (n > 1) != tc.many {
				t.Fatalf("%d connections for 1000 requests", n)
			}
		})
	}
}
