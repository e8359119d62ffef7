package fakeplane_test

import (
	"testing"

	"github.com/fakeplane/fakeplane"
)

// TestEvictionAndBindingNamesAsKubeAPIServer posts Evictions and Bindings
// whose metadata does not match the request, as kube-apiserver v1.37.2
// (refplane) answers them: the create handler refuses a body of another
// namespace first, then the storage one of another name, an empty name
// included, and the bindings collection one without a name.
func TestEvictionAndBindingNamesAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	mustStatus(t, cp, "POST", "/api/v1/namespaces/default/pods", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"subq"},"spec":{"containers":[{"name":"c","image":"i"}]}}`, 201)
	for _, tc := range []struct {
		path, body  string
		wantCode    int
		wantMessage string
	}{
		{"/api/v1/namespaces/default/pods/subq/eviction", `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"other","namespace":"other"},"deleteOptions":{"dryRun":["All"]}}`, 400, "the namespace of the provided object does not match the namespace sent on the request"},
		{"/api/v1/namespaces/default/pods/subq/eviction", `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{},"deleteOptions":{"dryRun":["All"]}}`, 400, "name in URL does not match name in Eviction object"},
		{"/api/v1/namespaces/default/pods/subq/eviction", `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"subq","namespace":"other"},"deleteOptions":{"dryRun":["All"]}}`, 400, "the namespace of the provided object does not match the namespace sent on the request"},
		{"/api/v1/namespaces/default/pods/subq/binding?dryRun=All", `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"other","namespace":"other"},"target":{"kind":"Node","name":"n1"}}`, 400, "the namespace of the provided object does not match the namespace sent on the request"},
		{"/api/v1/namespaces/default/pods/subq/binding?dryRun=All", `{"apiVersion":"v1","kind":"Binding","metadata":{},"target":{"kind":"Node","name":"n1"}}`, 400, "name in URL does not match name in Binding object"},
		{"/api/v1/namespaces/default/bindings?dryRun=All", `{"apiVersion":"v1","kind":"Binding","metadata":{},"target":{"kind":"Node","name":"n1"}}`, 400, "Name parameter required."},
		{"/api/v1/namespaces/default/bindings?dryRun=All", `{"apiVersion":"v1","kind":"Binding","metadata":{"namespace":"other"},"target":{"kind":"Node","name":"n1"}}`, 400, "the namespace of the provided object does not match the namespace sent on the request"},
		{"/api/v1/namespaces/default/bindings?dryRun=All", `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"subq","namespace":"other"},"target":{"kind":"Node","name":"n1"}}`, 400, "the namespace of the provided object does not match the namespace sent on the request"},
		{"/api/v1/namespaces/default/pods/nope/eviction", `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{},"deleteOptions":{"dryRun":["All"]}}`, 400, "name in URL does not match name in Eviction object"},
		{"/api/v1/namespaces/default/pods/subq/eviction", `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"subq"},"deleteOptions":{"dryRun":["All"]}}`, 201, ""},
		{"/api/v1/namespaces/default/pods/subq/binding?dryRun=All", `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"subq"},"target":{"kind":"Node","name":"n1"}}`, 201, ""},
	} {
		body := mustStatus(t, cp, "POST", tc.path, tc.body, tc.wantCode)
		if tc.wantMessage == "" {
			continue
		}
		if message, _ := statusFieldCauses(t, body); message != tc.wantMessage {
			t.Errorf("POST %s %s: %s, want %s", tc.path, tc.body, message, tc.wantMessage)
		}
	}
}
