package fakeplane_test

import (
	"bytes"
	"net/http"
	"testing"

	"github.com/fakeplane/fakeplane"
)

// TestCustomResourcePartialMetadataInFieldOrder: a custom resource's
// PartialObjectMetadata (an object, a list, a Table row) lists its metadata
// in ObjectMeta's field order, as kube-apiserver converts it (recorded from
// refplane), though fakeplane stores a custom resource's keys sorted.
func TestCustomResourcePartialMetadataInFieldOrder(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithObjects(subresourceWidgetCRD()))
	const widgets = "/apis/h4.example.com/v1/namespaces/default/h4widgets"
	if code, _, b := rawRequest(t, cp, "POST", widgets+"?fieldManager=m", "application/json", []byte(`{"apiVersion":"h4.example.com/v1","kind":"H4Widget","metadata":{"name":"w","labels":{"a":"b"}},"spec":{"size":2}}`), nil); code != 201 {
		t.Fatalf("create: %d %s", code, b)
	}
	for _, tc := range []struct{ path, accept string }{
		{widgets + "/w", "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io"},
		{widgets, "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io"},
		{widgets, "application/json;as=Table;v=v1;g=meta.k8s.io"},
	} {
		_, _, body := rawRequest(t, cp, "GET", tc.path, "", nil, http.Header{"Accept": {tc.accept}})
		for _, want := range []string{
			`{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"w","namespace":"default","uid":"`,
			`"generation":1,"creationTimestamp":"`,
			`"labels":{"a":"b"},"managedFields":[{"manager":"m","operation":"Update","apiVersion":"h4.example.com/v1","time":"`,
		} {
			if !bytes.Contains(body, []byte(want)) {
				t.Errorf("%s as %s: no %s in\n%s", tc.path, tc.accept, want, body)
			}
		}
	}
}

// TestCustomResourceAsPartialListIsAServerError asks for one custom
// resource, or its status, as a PartialObjectMetadataList: apiextensions'
// handler converts it as a list anyway and fails, a 500 "content is not a
// list" (refplane's answer), where a built-in object's is a 406.
func TestCustomResourceAsPartialListIsAServerError(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithObjects(subresourceWidgetCRD()))
	const widgets = "/apis/h4.example.com/v1/namespaces/default/h4widgets"
	if code, _, b := rawRequest(t, cp, "POST", widgets, "application/json", []byte(`{"apiVersion":"h4.example.com/v1","kind":"H4Widget","metadata":{"name":"w"}}`), nil); code != 201 {
		t.Fatalf("create: %d %s", code, b)
	}
	for _, accept := range []string{"application/json", "application/vnd.kubernetes.protobuf"} {
		for _, path := range []string{widgets + "/w", widgets + "/w/status"} {
			code, _, body := rawRequest(t, cp, "GET", path, "", nil, http.Header{"Accept": {accept + ";as=PartialObjectMetadataList;v=v1;g=meta.k8s.io"}})
			if message, _ := statusFieldCauses(t, body); code != 500 || message != "content is not a list" {
				t.Errorf("%s in %s: %d %s, want 500 content is not a list", path, accept, code, body)
			}
		}
	}
}
