package fakeplane_test

import (
	"crypto/tls"
	"encoding/json"
	"encoding/pem"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
	"github.com/fakeplane/fakeplane/internal/pki"
)

// conversionWebhook converts CronTabs between v1 (spec.hostPort "h:p") and
// v2 (spec.host, spec.port), the example of the seed page, and records the
// ConversionReview versions it was sent.
type conversionWebhook struct {
	mu      sync.Mutex
	reviews []string
	sizes   []int
	fail    string
}

func (h *conversionWebhook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var review struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Request    struct {
			UID               string           `json:"uid"`
			DesiredAPIVersion string           `json:"desiredAPIVersion"`
			Objects           []map[string]any `json:"objects"`
		} `json:"request"`
	}
	if err := json.NewDecoder(r.Body).Decode(&review); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	h.mu.Lock()
	h.reviews = append(h.reviews, review.APIVersion)
	h.sizes = append(h.sizes, len(review.Request.Objects))
	fail := h.fail
	h.mu.Unlock()
	result := map[string]any{"status": "Success"}
	var converted []any
	if fail != "" {
		result = map[string]any{"status": "Failure", "message": fail}
	}
	for _, o := range review.Request.Objects {
		spec, _ := o["spec"].(map[string]any)
		if spec == nil {
			spec = map[string]any{}
		}
		switch review.Request.DesiredAPIVersion {
		case "stable.example.com/v2":
			if hp, ok := spec["hostPort"].(string); ok {
				host, port, _ := strings.Cut(hp, ":")
				spec["host"], spec["port"] = host, port
				delete(spec, "hostPort")
			}
		case "stable.example.com/v1":
			if host, ok := spec["host"].(string); ok {
				spec["hostPort"] = host + ":" + spec["port"].(string)
				delete(spec, "host")
				delete(spec, "port")
			}
		}
		o["spec"] = spec
		o["apiVersion"] = review.Request.DesiredAPIVersion
		converted = append(converted, o)
	}
	_ = json.NewEncoder(w).Encode(map[string]any{
		"apiVersion": review.APIVersion, "kind": "ConversionReview",
		"response": map[string]any{"uid": review.Request.UID, "convertedObjects": converted, "result": result},
	})
}

func conversionCRD(cc apiextensionsv1.WebhookClientConfig, reviewVersions ...string) *apiextensionsv1.CustomResourceDefinition {
	schema := func(props map[string]apiextensionsv1.JSONSchemaProps) *apiextensionsv1.CustomResourceValidation {
		return &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"spec": {Type: "object", Properties: props},
		}}}
	}
	return &apiextensionsv1.CustomResourceDefinition{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"},
		ObjectMeta: metav1.ObjectMeta{Name: "crontabs.stable.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "stable.example.com", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "crontabs", Singular: "crontab", Kind: "CronTab", ListKind: "CronTabList"},
			Conversion: &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.WebhookConverter,
				Webhook: &apiextensionsv1.WebhookConversion{ClientConfig: &cc, ConversionReviewVersions: reviewVersions}},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				{Name: "v1", Served: true, Storage: true, Schema: schema(map[string]apiextensionsv1.JSONSchemaProps{"hostPort": {Type: "string"}})},
				{Name: "v2", Served: true, Schema: schema(map[string]apiextensionsv1.JSONSchemaProps{"host": {Type: "string"}, "port": {Type: "string"}})},
			},
		},
	}
}

func crontab(version string, name string, spec map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "stable.example.com/" + version, "kind": "CronTab", "metadata": map[string]any{"name": name}, "spec": spec}}
}

func TestCRDConversionWebhookByURL(t *testing.T) {
	t.Parallel()
	hook := &conversionWebhook{}
	ts := httptest.NewTLSServer(hook)
	defer ts.Close()
	caPEM := pemOf(ts.Certificate().Raw)
	cp := fakeplane.Start(t, fakeplane.WithObjects(conversionCRD(apiextensionsv1.WebhookClientConfig{URL: ptr.To(ts.URL + "/convert"), CABundle: caPEM}, "v1")))
	ctx := ctxT(t)
	dyn := dynamic.NewForConfigOrDie(cp.RESTConfig())
	v1 := dyn.Resource(schema.GroupVersionResource{Group: "stable.example.com", Version: "v1", Resource: "crontabs"}).Namespace("default")
	v2 := dyn.Resource(schema.GroupVersionResource{Group: "stable.example.com", Version: "v2", Resource: "crontabs"}).Namespace("default")

	w, err := v2.Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	// Written in the storage version, read in the other.
	if _, err := v1.Create(ctx, crontab("v1", "a", map[string]any{"hostPort": "localhost:1234"}), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := v2.Get(ctx, "a", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.GetAPIVersion() != "stable.example.com/v2" || got.Object["spec"].(map[string]any)["host"] != "localhost" || got.Object["spec"].(map[string]any)["port"] != "1234" {
		t.Errorf("v2 view: %v", got.Object)
	}
	ev := <-w.ResultChan()
	if ev.Type != watch.Added || ev.Object.(*unstructured.Unstructured).Object["spec"].(map[string]any)["host"] != "localhost" {
		t.Errorf("watch event in v2: %s %v", ev.Type, ev.Object)
	}
	// Written in v2, stored (and read back through v1) in v1.
	if _, err := v2.Create(ctx, crontab("v2", "b", map[string]any{"host": "example.com", "port": "80"}), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	back, err := v1.Get(ctx, "b", metav1.GetOptions{})
	if err != nil || back.Object["spec"].(map[string]any)["hostPort"] != "example.com:80" {
		t.Errorf("v1 view of a v2 write: %v %v", err, back)
	}
	l, err := v2.List(ctx, metav1.ListOptions{})
	if err != nil || len(l.Items) != 2 || l.Items[1].Object["spec"].(map[string]any)["host"] != "example.com" {
		t.Errorf("v2 list: %v %v", err, l)
	}
	// A list is converted with one review, as kube-apiserver sends.
	// (in another namespace than the open watch, which converts each event)
	pub := dyn.Resource(schema.GroupVersionResource{Group: "stable.example.com", Version: "v1", Resource: "crontabs"}).Namespace("kube-public")
	for _, n := range []string{"x1", "x2", "x3"} {
		if _, err := pub.Create(ctx, crontab("v1", n, map[string]any{"hostPort": n + ":1"}), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	hook.mu.Lock()
	before := len(hook.sizes)
	hook.mu.Unlock()
	l, err = dyn.Resource(schema.GroupVersionResource{Group: "stable.example.com", Version: "v2", Resource: "crontabs"}).Namespace("kube-public").List(ctx, metav1.ListOptions{})
	if err != nil || len(l.Items) != 3 {
		t.Fatalf("v2 list: %v %v", err, l)
	}
	hook.mu.Lock()
	// (The control plane's own watchers, the garbage collector's among
	// them, may convert single objects meanwhile, as on a cluster.)
	if got := hook.sizes[before:]; !slices.Contains(got, 3) || slices.Contains(got, 2) {
		t.Errorf("reviews for a list of 3 unconverted objects: %v, want one of all 3", got)
	}
	reviews := strings.Join(hook.reviews, ",")
	hook.fail = "no can do"
	hook.mu.Unlock()
	if !strings.HasPrefix(reviews, "apiextensions.k8s.io/v1,") {
		t.Errorf("review versions sent: %s", reviews)
	}
	// A webhook that fails makes the read fail, as on a cluster.
	if _, err := v1.Create(ctx, crontab("v1", "c", map[string]any{"hostPort": "x:1"}), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err = v2.Get(ctx, "c", metav1.GetOptions{})
	if !apierrors.IsInternalError(err) || !strings.Contains(err.Error(), "conversion webhook for stable.example.com/v1, Kind=CronTab failed: no can do") {
		t.Errorf("failing webhook: %v", err)
	}
	_, err = v2.Create(ctx, crontab("v2", "d", map[string]any{"host": "h", "port": "1"}), metav1.CreateOptions{})
	if err == nil || err.Error() != "conversion webhook for stable.example.com/v2, Kind=CronTab failed: no can do" {
		t.Errorf("failing webhook on create: %v", err)
	}
	if _, err := v1.Get(ctx, "d", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("refused create stored something: %v", err)
	}
}

func TestCRDConversionWebhookByService(t *testing.T) {
	t.Parallel()
	// The webhook's certificate names the Service, as in a cluster.
	ca, err := pki.NewCA("webhook-ca")
	if err != nil {
		t.Fatal(err)
	}
	kp, err := ca.NewServingCert("conv.default.svc", []string{"conv.default.svc"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := kp.TLSCertificate()
	if err != nil {
		t.Fatal(err)
	}
	hook := &conversionWebhook{}
	ts := httptest.NewUnstartedServer(hook)
	ts.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	ts.StartTLS()
	defer ts.Close()
	_, portStr, _ := net.SplitHostPort(ts.Listener.Addr().String())
	port, _ := strconv.Atoi(portStr)

	// The server is on this machine: an ExternalName Service naming
	// localhost reaches it, as on kube-apiserver, which refuses loopback
	// addresses in Endpoints.
	svc := &corev1.Service{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Service"}, ObjectMeta: metav1.ObjectMeta{Name: "conv", Namespace: "default"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "localhost", Ports: []corev1.ServicePort{{Name: "https", Port: int32(port)}}}}
	crd := conversionCRD(apiextensionsv1.WebhookClientConfig{
		Service:  &apiextensionsv1.ServiceReference{Namespace: "default", Name: "conv", Path: ptr.To("/convert"), Port: ptr.To(int32(port))},
		CABundle: ca.CertPEM,
	}, "v1beta1")
	cp := fakeplane.Start(t, fakeplane.WithObjects(crd, svc))
	ctx := ctxT(t)
	dyn := dynamic.NewForConfigOrDie(cp.RESTConfig())
	v2 := dyn.Resource(schema.GroupVersionResource{Group: "stable.example.com", Version: "v2", Resource: "crontabs"}).Namespace("default")
	if _, err := v2.Create(ctx, crontab("v2", "a", map[string]any{"host": "h", "port": "9"}), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := dyn.Resource(schema.GroupVersionResource{Group: "stable.example.com", Version: "v1", Resource: "crontabs"}).Namespace("default").Get(ctx, "a", metav1.GetOptions{})
	if err != nil || got.Object["spec"].(map[string]any)["hostPort"] != "h:9" {
		t.Errorf("stored through the service's webhook: %v %v", err, got)
	}
	hook.mu.Lock()
	defer hook.mu.Unlock()
	if len(hook.reviews) == 0 || hook.reviews[0] != "apiextensions.k8s.io/v1beta1" {
		t.Errorf("review versions sent: %v", hook.reviews)
	}
}

// pemOf encodes a DER certificate as PEM.
func pemOf(der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// TestCRDFieldSelectorsReadTheVersionAskedFor mirrors upstream's
// TestSelectableFields and TestFieldSelectorOpenAPI: a field selector on a
// version whose fields a conversion webhook renames (v2's spec.host is v1's
// spec.hostPort) selects on the converted object, in lists and watches
// alike, and each version's OpenAPI names its selectable fields.
func TestCRDFieldSelectorsReadTheVersionAskedFor(t *testing.T) {
	t.Parallel()
	ts := httptest.NewTLSServer(&conversionWebhook{})
	defer ts.Close()
	def := conversionCRD(apiextensionsv1.WebhookClientConfig{URL: ptr.To(ts.URL + "/convert"), CABundle: pemOf(ts.Certificate().Raw)}, "v1")
	def.Spec.Versions[0].SelectableFields = []apiextensionsv1.SelectableField{{JSONPath: ".spec.hostPort"}}
	def.Spec.Versions[1].SelectableFields = []apiextensionsv1.SelectableField{{JSONPath: ".spec.host"}, {JSONPath: ".spec.port"}}
	cp := fakeplane.Start(t, fakeplane.WithObjects(def))
	ctx := ctxT(t)
	dyn := dynamic.NewForConfigOrDie(cp.RESTConfig())
	v1 := dyn.Resource(schema.GroupVersionResource{Group: "stable.example.com", Version: "v1", Resource: "crontabs"}).Namespace("default")
	v2 := dyn.Resource(schema.GroupVersionResource{Group: "stable.example.com", Version: "v2", Resource: "crontabs"}).Namespace("default")

	w, err := v2.Watch(ctx, metav1.ListOptions{FieldSelector: "spec.host=a.example"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	for _, hp := range []string{"a.example:1", "a.example:2", "b.example:1"} {
		name := strings.NewReplacer(".", "-", ":", "-").Replace(hp)
		if _, err := v1.Create(ctx, crontab("v1", name, map[string]any{"hostPort": hp}), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for sel, want := range map[string]string{
		"spec.host=a.example":             "a-example-1,a-example-2",
		"spec.host=a.example,spec.port=2": "a-example-2",
		"spec.port=1":                     "a-example-1,b-example-1",
	} {
		l, err := v2.List(ctx, metav1.ListOptions{FieldSelector: sel})
		if err != nil {
			t.Fatalf("%s: %v", sel, err)
		}
		var names []string
		for _, it := range l.Items {
			names = append(names, it.GetName())
		}
		if got := strings.Join(names, ","); got != want {
			t.Errorf("v2 list %s = %s, want %s", sel, got, want)
		}
	}
	for _, want := range []string{"a-example-1", "a-example-2"} {
		select {
		case ev := <-w.ResultChan():
			if ev.Type != watch.Added || ev.Object.(*unstructured.Unstructured).GetName() != want {
				t.Errorf("watch spec.host=a.example: %s %v, want ADDED %s", ev.Type, ev.Object, want)
			}
		case <-ctx.Done():
			t.Fatalf("watch spec.host=a.example: no event for %s", want)
		}
	}
	// Leaving the selection is a DELETED event.
	if _, err := v1.Patch(ctx, "a-example-1", types.MergePatchType, []byte(`{"spec":{"hostPort":"c.example:1"}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-w.ResultChan():
		if ev.Type != watch.Deleted || ev.Object.(*unstructured.Unstructured).GetName() != "a-example-1" {
			t.Errorf("watch after a-example-1 moved: %s %v, want DELETED a-example-1", ev.Type, ev.Object)
		}
	case <-ctx.Done():
		t.Fatal("watch: no event after a-example-1 moved")
	}

	doc, err := clientset(t, cp).RESTClient().Get().AbsPath("/openapi/v3/apis/stable.example.com/v2").DoRaw(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var v3 struct {
		Components struct {
			Schemas map[string]struct {
				Selectable []map[string]string `json:"x-kubernetes-selectable-fields"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(doc, &v3); err != nil {
		t.Fatal(err)
	}
	if got := v3.Components.Schemas["com.example.stable.v2.CronTab"].Selectable; len(got) != 2 || got[0]["fieldPath"] != "spec.host" || got[1]["fieldPath"] != "spec.port" {
		t.Errorf("OpenAPI v3 x-kubernetes-selectable-fields of v2 CronTab = %v", got)
	}
	doc, err = clientset(t, cp).RESTClient().Get().AbsPath("/openapi/v2").DoRaw(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), `"x-kubernetes-selectable-fields":[{"fieldPath":"spec.hostPort"}]`) {
		t.Errorf("OpenAPI v2 lacks v1 CronTab's x-kubernetes-selectable-fields")
	}
}
