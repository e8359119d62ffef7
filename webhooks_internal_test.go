package fakeplane

import (
	"net/url"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

func TestWebhookInstallOptionsReadOnlyWebhookConfigurations(t *testing.T) {
	opts := WebhookInstallOptions{Manifests: [][]byte{[]byte(`
apiVersion: v1
kind: Service
metadata: {name: webhook-service}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: v}
webhooks:
- name: v.example.com
  clientConfig: {url: "https://example.com:9443/validate-x"}
  sideEffects: None
  admissionReviewVersions: [v1]
---
# a comment only
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: m}
webhooks:
- name: m.example.com
  clientConfig: {service: {name: webhook-service, namespace: system, path: /mutate-x}}
  sideEffects: None
  admissionReviewVersions: [v1]
`)}, ValidatingWebhooks: []*admissionregistrationv1.ValidatingWebhookConfiguration{{}}}
	m, v, err := opts.configurations()
	if err != nil {
		t.Fatal(err)
	}
	if len(m) != 1 || m[0].Name != "m" || len(v) != 2 || v[0].Name != "v" {
		t.Fatalf("mutating %d, validating %d", len(m), len(v))
	}
	base := url.URL{Scheme: "https", Host: "127.0.0.1:8443"}
	ca := []byte("ca")
	cases := []struct {
		name string
		in   admissionregistrationv1.WebhookClientConfig
		want string
	}{
		{name: "service path", in: m[0].Webhooks[0].ClientConfig, want: "https://127.0.0.1:8443/mutate-x"},
		{name: "url path", in: v[0].Webhooks[0].ClientConfig, want: "https://127.0.0.1:8443/validate-x"},
		{name: "no path", in: admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{Name: "s"}}, want: "https://127.0.0.1:8443/"},
	}
	for _, tc := range cases {
		got := localClientConfig(base, tc.in, ca)
		if got.URL == nil || *got.URL != tc.want || got.Service != nil || string(got.CABundle) != "ca" {
			t.Errorf("%s: got %+v, want URL %s", tc.name, got, tc.want)
		}
	}
}
