package fakeplane_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
)

// subresourceWidgetCRD serves h4widgets.h4.example.com with status and
// scale subresources whose replicas live at a custom path (.spec.size).
func subresourceWidgetCRD() *apiextensionsv1.CustomResourceDefinition {
	return &apiextensionsv1.CustomResourceDefinition{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"},
		ObjectMeta: metav1.ObjectMeta{Name: "h4widgets.h4.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "h4.example.com", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "h4widgets", Singular: "h4widget", Kind: "H4Widget", ListKind: "H4WidgetList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Subresources: &apiextensionsv1.CustomResourceSubresources{
					Status: &apiextensionsv1.CustomResourceSubresourceStatus{},
					Scale: &apiextensionsv1.CustomResourceSubresourceScale{
						SpecReplicasPath: ".spec.size", StatusReplicasPath: ".status.count", LabelSelectorPath: ptr.To(".status.sel"),
					},
				},
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
							"size": {Type: "integer"}, "color": {Type: "string"},
						}},
						"status": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
							"count": {Type: "integer"}, "sel": {Type: "string"}, "phase": {Type: "string"},
						}},
					},
				}},
			}},
		},
	}
}

// TestWritesToSubresourcesAsKubeAPIServer sends server-side applies and
// patches to the status, scale, ephemeralcontainers and finalize
// subresources and checks the answers and the managedFields recorded
// against what a real v1.37 kube-apiserver answered to the same requests
// (recorded with refplane, an envtest-shaped kube-apiserver).
func TestWritesToSubresourcesAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithEnvtestShape(), fakeplane.WithObjects(subresourceWidgetCRD()))
	const (
		apply = "application/apply-patch+yaml"
		merge = "application/merge-patch+json"
		smp   = "application/strategic-merge-patch+json"
		jsonp = "application/json-patch+json"
		js    = "application/json"
	)
	const (
		deploy = "/apis/apps/v1/namespaces/default/deployments"
		pods   = "/api/v1/namespaces/default/pods"
		pvcs   = "/api/v1/namespaces/default/persistentvolumeclaims"
		widget = "/apis/h4.example.com/v1/namespaces/default/h4widgets"
	)
	steps := []struct {
		method, path, ctype, body string
		code                      int
		// msg is the Status message's end (the whole of it when short;
		// a patched object shown in it is JSON, its quotes escaped);
		// warning a Warning header expected.
		msg, warning string
	}{
		{method: "POST", path: "/api/v1/namespaces/default/serviceaccounts", ctype: js, body: `{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"default"}}`, code: 201},
		{method: "POST", path: deploy + "?fieldManager=creator", ctype: js, body: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d1"},"spec":{"replicas":2,"selector":{"matchLabels":{"app":"d1"}},"template":{"metadata":{"labels":{"app":"d1"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}`, code: 201},
		// A Deployment's status strategy resets spec and metadata.labels.
		{method: "PATCH", path: deploy + "/d1/status?fieldManager=st1", ctype: apply, body: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d1","labels":{"x":"y"},"annotations":{"q":"r"}},"status":{"replicas":3}}`, code: 200},
		{method: "POST", path: pods + "?fieldManager=creator", ctype: js, body: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p1"},"spec":{"automountServiceAccountToken":false,"containers":[{"name":"c","image":"nginx"}]}}`, code: 201},
		// A Pod's resets spec, metadata.deletionTimestamp and ownerReferences.
		{method: "PATCH", path: pods + "/p1/status?fieldManager=st1", ctype: apply, body: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p1","labels":{"x":"y"}},"spec":{"nodeName":"n"},"status":{"message":"hi"}}`, code: 200},
		// Writes through ephemeralcontainers are recorded, nothing reset.
		{method: "PATCH", path: pods + "/p1/ephemeralcontainers?fieldManager=eph", ctype: smp, body: `{"spec":{"ephemeralContainers":[{"name":"dbg","image":"busybox"}]}}`, code: 200},
		{method: "POST", path: pvcs + "?fieldManager=creator", ctype: js, body: `{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"c1"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}`, code: 201},
		// A PersistentVolumeClaim's resets spec only: the label is the
		// applier's, removed when it applies without it.
		{method: "PATCH", path: pvcs + "/c1/status?fieldManager=st1", ctype: apply, body: `{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"c1","labels":{"x":"y"}},"status":{"phase":"Bound"}}`, code: 200},
		{method: "PATCH", path: pvcs + "/c1/status?fieldManager=st1", ctype: apply, body: `{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"c1"},"status":{"phase":"Bound"}}`, code: 200},
		{method: "POST", path: widget + "?fieldManager=creator", ctype: js, body: `{"apiVersion":"h4.example.com/v1","kind":"H4Widget","metadata":{"name":"w1"},"spec":{"size":2}}`, code: 201},
		// A custom resource's resets metadata and spec.
		{method: "PATCH", path: widget + "/w1/status?fieldManager=st1", ctype: apply, body: `{"apiVersion":"h4.example.com/v1","kind":"H4Widget","metadata":{"name":"w1","labels":{"x":"y"}},"status":{"count":2}}`, code: 200},
		// Unknown fields of a patched custom resource.
		{method: "PATCH", path: widget + "/w1?fieldManager=m&fieldValidation=Warn", ctype: merge, body: `{"spec":{"bogus":3}}`, code: 200, warning: `299 - "unknown field \"spec.bogus\""`},
		{method: "PATCH", path: widget + "/w1/status?fieldManager=m&fieldValidation=Strict", ctype: jsonp, body: `[{"op":"add","path":"/status/bogus","value":3}]`, code: 422,
			msg: `,\"spec\":{\"size\":2},\"status\":{\"bogus\":3,\"count\":2}}": strict decoding error: unknown field "status.bogus"`},
		// An apply to a custom resource's scale that changes nothing
		// succeeds; one that changes it fails converting the Scale.
		{method: "PATCH", path: widget + "/w1/scale?fieldManager=sc1", ctype: apply, body: `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"w1"},"spec":{"replicas":2}}`, code: 200},
		{method: "PATCH", path: widget + "/w1/scale?fieldManager=sc1&force=true", ctype: apply, body: `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"w1"},"spec":{"replicas":5}}`, code: 500,
			msg: "failed to convert new object (/w1; autoscaling/v1, Kind=Scale) to proper version: request to convert CR to an invalid group/version: autoscaling/v1"},
		{method: "PATCH", path: deploy + "/d1/scale?fieldManager=sc1", ctype: jsonp, body: `[{"op":"test","path":"/spec/replicas","value":7}]`, code: 422,
			msg: "the server rejected our request due to an error in our request"},
		{method: "PATCH", path: deploy + "/d1/scale?fieldManager=sc1&fieldValidation=Strict", ctype: merge, body: `{"spec":{"bogus":1}}`, code: 422,
			msg: `,\"spec\":{\"bogus\":1,\"replicas\":2},\"status\":{\"replicas\":3,\"selector\":\"app=d1\"}}": strict decoding error: unknown field "spec.bogus"`},
		{method: "PATCH", path: deploy + "/d1/scale?fieldManager=sc1&fieldValidation=Strict", ctype: smp, body: `{"spec":{"bogus":1}}`, code: 422,
			msg: ` "" is invalid: patch: Invalid value: "map[spec:map[bogus:1]]": strict decoding error: unknown field "spec.bogus"`},
		{method: "PATCH", path: deploy + "/d1/scale?fieldManager=sc1", ctype: merge, body: `{"spec":{"replicas":3,"bogus":1}}`, code: 200, warning: `299 - "unknown field \"spec.bogus\""`},
		// An update's body is judged before the object is read.
		{method: "PUT", path: deploy + "/nope/scale?fieldValidation=Strict", ctype: js, body: `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"nope"},"spec":{"replicas":0,"bogus":1}}`, code: 400,
			msg: `Scale in version "v1" cannot be handled as a Scale: strict decoding error: unknown field "spec.bogus"`},
		// A finalize writes the whole namespace but its status.
		{method: "POST", path: "/api/v1/namespaces?fieldManager=creator", ctype: js, body: `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"h4-ns4"}}`, code: 201},
		{method: "PUT", path: "/api/v1/namespaces/h4-ns4/finalize?fieldManager=fin", ctype: js, body: `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"h4-ns4","labels":{"f":"g"}},"spec":{"finalizers":["example.com/x"]},"status":{"phase":"Terminating"}}`, code: 200},
	}
	for _, s := range steps {
		code, h, body := rawExchange(t, cp, s.method, s.path, s.ctype, []byte(s.body), nil)
		if code != s.code {
			t.Errorf("%s %s: %d, want %d: %s", s.method, s.path, code, s.code, body)
			continue
		}
		if s.msg != "" {
			var st metav1.Status
			_ = json.Unmarshal(body, &st)
			if !strings.HasSuffix(st.Message, s.msg) {
				t.Errorf("%s %s: message %q, want it to end with %q", s.method, s.path, st.Message, s.msg)
			}
		}
		if s.warning != "" && !slices.Contains(h.Values("Warning"), s.warning) {
			t.Errorf("%s %s: warnings %q, want %q", s.method, s.path, h.Values("Warning"), s.warning)
		}
	}

	// The managedFields entries kube-apiserver recorded, as
	// manager/operation/subresource and fieldsV1.
	for _, tc := range []struct {
		path   string
		want   map[string]string
		labels map[string]string
	}{
		{path: deploy + "/d1", want: map[string]string{
			"st1/Apply/status": `{"f:metadata":{"f:annotations":{"f:q":{}}},"f:status":{"f:replicas":{}}}`,
			"sc1/Update/scale": `{"f:spec":{"f:replicas":{}}}`,
		}},
		{path: pods + "/p1", labels: map[string]string{"x": "y"}, want: map[string]string{
			"st1/Apply/status":               `{"f:metadata":{"f:labels":{"f:x":{}}},"f:status":{"f:message":{}}}`,
			"eph/Update/ephemeralcontainers": `{"f:spec":{"f:ephemeralContainers":{".":{},"k:{\"name\":\"dbg\"}":{".":{},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:resources":{},"f:terminationMessagePath":{},"f:terminationMessagePolicy":{}}}}}`,
		}},
		{path: pvcs + "/c1", want: map[string]string{
			"st1/Apply/status": `{"f:status":{"f:phase":{}}}`,
		}},
		{path: widget + "/w1", want: map[string]string{
			"st1/Apply/status": `{"f:status":{"f:count":{}}}`,
			"sc1/Apply/scale":  `{"f:spec":{"f:size":{}}}`,
		}},
		{path: "/api/v1/namespaces/h4-ns4", labels: map[string]string{"f": "g", "kubernetes.io/metadata.name": "h4-ns4"}, want: map[string]string{
			"fin/Update/finalize": `{"f:metadata":{"f:labels":{"f:f":{}}},"f:spec":{"f:finalizers":{}}}`,
		}},
	} {
		code, _, body := rawExchange(t, cp, "GET", tc.path, "", nil, nil)
		if code != http.StatusOK {
			t.Fatalf("GET %s: %d %s", tc.path, code, body)
		}
		var o metav1.PartialObjectMetadata
		if err := json.Unmarshal(body, &o); err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, e := range o.ManagedFields {
			got[e.Manager+"/"+string(e.Operation)+"/"+e.Subresource] = string(e.FieldsV1.Raw)
		}
		for k, want := range tc.want {
			if got[k] != want {
				t.Errorf("%s: %s recorded %s, want %s", tc.path, k, got[k], want)
			}
		}
		if len(o.Labels) != len(tc.labels) {
			t.Errorf("%s: labels %v, want %v", tc.path, o.Labels, tc.labels)
		}
		for k, v := range tc.labels {
			if o.Labels[k] != v {
				t.Errorf("%s: labels %v, want %v", tc.path, o.Labels, tc.labels)
			}
		}
	}
}
