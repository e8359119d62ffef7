package crd

import (
	"crypto/tls"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fakeplane/fakeplane/internal/pki"
)

// resolverFunc is a webhook.ServiceResolver.
type resolverFunc func(namespace, name string, port int32) (*url.URL, error)

func (f resolverFunc) ResolveEndpoint(namespace, name string, port int32) (*url.URL, error) {
	return f(namespace, name, port)
}

// TestWebhookConvertersResolveServices: a conversion webhook given as a
// Service is called at the address the resolver gives.
func TestWebhookConvertersResolveServices(t *testing.T) {
	// The webhook's certificate names the Service, as in a cluster.
	ca, err := pki.NewCA("webhook-ca")
	if err != nil {
		t.Fatal(err)
	}
	kp, err := ca.NewServingCert("convert.hooks.svc", []string{"convert.hooks.svc"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := kp.TLSCertificate()
	if err != nil {
		t.Fatal(err)
	}
	hook := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var review apiextensionsv1.ConversionReview
		if err := json.NewDecoder(r.Body).Decode(&review); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		resp := &apiextensionsv1.ConversionResponse{UID: review.Request.UID, Result: metav1.Status{Status: metav1.StatusSuccess}}
		for _, raw := range review.Request.Objects {
			var m map[string]any
			if err := json.Unmarshal(raw.Raw, &m); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			m["apiVersion"] = review.Request.DesiredAPIVersion
			b, _ := json.Marshal(m)
			resp.ConvertedObjects = append(resp.ConvertedObjects, runtime.RawExtension{Raw: b})
		}
		review.Request, review.Response = nil, resp
		_ = json.NewEncoder(w).Encode(&review)
	}))
	hook.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	hook.StartTLS()
	defer hook.Close()
	hookURL, _ := url.Parse(hook.URL)

	var resolved []string
	wc := NewWebhookConverters(resolverFunc(func(namespace, name string, port int32) (*url.URL, error) {
		resolved = append(resolved, namespace+"/"+name)
		if port != 8443 {
			t.Errorf("resolved port %d, want 8443", port)
		}
		return &url.URL{Scheme: "https", Host: hookURL.Host}, nil
	}), nil)
	def := twoVersions()
	def.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{
		Strategy: apiextensionsv1.WebhookConverter,
		Webhook: &apiextensionsv1.WebhookConversion{
			ConversionReviewVersions: []string{"v1"},
			ClientConfig: &apiextensionsv1.WebhookClientConfig{
				Service:  &apiextensionsv1.ServiceReference{Namespace: "hooks", Name: "convert", Port: new(int32(8443))},
				CABundle: ca.CertPEM,
			},
		},
	}
	conv, err := wc.For(def)
	if err != nil {
		t.Fatal(err)
	}
	out, err := conv.ConvertToVersion(&unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "w"},
	}}, schema.GroupVersion{Group: "example.com", Version: "v1beta1"})
	if err != nil {
		t.Fatal(err)
	}
	if got := out.GetObjectKind().GroupVersionKind().Version; got != "v1beta1" || len(resolved) != 1 || resolved[0] != "hooks/convert" {
		t.Errorf("converted to %s after resolving %v", got, resolved)
	}
}
